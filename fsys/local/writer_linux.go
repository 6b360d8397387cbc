package local

import (
	"errors"

	"golang.org/x/sys/unix"
)

// openWriter reports whether another process holds base (in d) open for
// writing: a read lease (fcntl F_SETLEASE, F_RDLCK) cannot be placed while
// any descriptor of the file is open for writing, and fails with EAGAIN.
// The lease is released at once. What it cannot tell is not an error: a
// file of another owner without CAP_LEASE (EACCES), a filesystem without
// leases (EINVAL), a file opened for writing after the check. Network
// filesystems are not asked at all: an NFS or SMB client may refuse a read
// lease (EAGAIN) whenever the server has not delegated one, writer or not,
// which would refuse every change there.
func openWriter(d *dirHandle, base string) error {
	fd, err := unix.Openat(d.fd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // the swap's own checks report what is wrong with the name
	}
	defer unix.Close(fd)
	var st unix.Statfs_t
	if unix.Fstatfs(fd, &st) != nil || networkFS(int64(st.Type)) {
		return nil
	}
	_, err = unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_RDLCK)
	switch {
	case err == nil:
		unix.FcntlInt(uintptr(fd), unix.F_SETLEASE, unix.F_UNLCK)
		return nil
	case errors.Is(err, unix.EAGAIN):
		return errors.New("a process has the file open for writing (a read lease could not be placed)")
	}
	return nil
}

// networkFS reports whether a statfs type is a network filesystem's, where
// a refused lease says nothing about local writers.
func networkFS(magic int64) bool {
	switch uint32(magic) {
	case unix.NFS_SUPER_MAGIC, unix.SMB_SUPER_MAGIC, 0xFF534D42 /* CIFS */, 0xFE534D42 /* SMB2 */, unix.AFS_SUPER_MAGIC, unix.CODA_SUPER_MAGIC, unix.V9FS_MAGIC:
		return true
	}
	return false
}
