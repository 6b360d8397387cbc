//go:build linux

package mcpserver

import (
	"os"

	"golang.org/x/sys/unix"
)

// pipeBytes is the kernel buffer ServeStdio asks for on a pipe: Linux's
// default limit for an unprivileged process (/proc/sys/fs/pipe-max-size).
const pipeBytes = 1 << 20

// widenPipe raises the kernel buffer of x, when it is a pipe, to pipeBytes,
// so that a response carrying a file (or a request carrying one) crosses in
// a few wake-ups of the reader instead of one per 64 KiB. It changes
// nothing else, and nothing at all when it cannot.
func widenPipe(x any) {
	f, ok := x.(*os.File)
	if !ok {
		return
	}
	rc, err := f.SyscallConn()
	if err != nil {
		return
	}
	_ = rc.Control(func(fd uintptr) {
		var st unix.Stat_t
		if unix.Fstat(int(fd), &st) != nil || st.Mode&unix.S_IFMT != unix.S_IFIFO {
			return
		}
		if n, err := unix.FcntlInt(fd, unix.F_GETPIPE_SZ, 0); err != nil || n >= pipeBytes {
			return
		}
		// Refused when over the user's pipe limits: the pipe keeps its size.
		_, _ = unix.FcntlInt(fd, unix.F_SETPIPE_SZ, pipeBytes)
	})
}
