package local

import "golang.org/x/sys/unix"

// syncFile flushes the file or directory open at fd to stable storage with
// fcntl(F_FULLFSYNC): on macOS fsync(2) only hands the data to the drive,
// which may keep it in its cache across a power loss. Where the filesystem
// does not take F_FULLFSYNC (ENOTSUP: some network filesystems) it falls
// back to fsync, as os.File.Sync does, so the journal and the user's files
// are flushed alike.
func syncFile(fd int) error {
	return retry(func() error {
		_, err := unix.FcntlInt(uintptr(fd), unix.F_FULLFSYNC, 0)
		if err == unix.ENOTSUP {
			err = unix.Fsync(fd)
		}
		return err
	})
}
