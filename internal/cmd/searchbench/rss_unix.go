//go:build unix

package main

import (
	"os"
	"syscall"
)

// peakRSS is the peak resident set of the finished process, in bytes
// (getrusage's ru_maxrss, in KiB), or 0.
func peakRSS(ps *os.ProcessState) int64 {
	if ru, ok := ps.SysUsage().(*syscall.Rusage); ok {
		return int64(ru.Maxrss) * 1024
	}
	return 0
}
