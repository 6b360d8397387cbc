//go:build unix && !darwin

package local

import "golang.org/x/sys/unix"

// syncFile flushes the file or directory open at fd with fsync(2).
func syncFile(fd int) error { return retry(func() error { return unix.Fsync(fd) }) }
