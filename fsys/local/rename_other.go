//go:build !linux && !darwin

package local

import (
	"errors"
	"syscall"
)

var errNoRenameat2 = errors.New("renameat2 is Linux only")

func exchange(dirfd int, a, b string) error { return errNoRenameat2 }

func exchangeAt(adir int, a string, bdir int, b string) error { return errNoRenameat2 }

func renameNoReplace(olddir int, oldname string, newdir int, newname string) error {
	return errNoRenameat2
}

func unsupported(err error) bool { return err == errNoRenameat2 }

// noHardLinks reports whether err from linkat says the filesystem or the
// file takes no hard links.
func noHardLinks(err error) bool {
	return err == syscall.EPERM || err == syscall.EOPNOTSUPP || err == syscall.EMLINK || err == syscall.ENOSYS
}
