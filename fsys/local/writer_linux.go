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
// leases (EINVAL, as NFS and FUSE may be), a file opened for writing after
// the check, a writer that keeps the directory open and writes by name.
func openWriter(d *dirHandle, base string) error {
	fd, err := unix.Openat(d.fd, base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil // the swap's own checks report what is wrong with the name
	}
	defer unix.Close(fd)
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
