//go:build unix && !linux && !darwin

package local

import "golang.org/x/sys/unix"

// The primitives of the other Unix systems (FreeBSD, …): golang.org/x/sys
// offers no exchanging rename and no rename that refuses a taken name
// there, and no cheap call sees a writer that holds a file open.

var platform = primitives{
	link:     "`linkat`",
	flush:    "`fsync`",
	flushDir: true,
	lock:     "`flock(2)` on the directory",
	still:    "device and inode",
}

// exchange has no call here: errNotHere, and the sequence compares, then
// renames.
func exchange(*dirHandle, string, string) error { return errNotHere }

func exchangeAt(*dirHandle, string, *dirHandle, string) error { return errNotHere }

// renameNoReplace has no call here: errNotHere, and the sequence links,
// then unlinks.
func renameNoReplace(*dirHandle, string, *dirHandle, string) error { return errNotHere }

func unsupported(err error) bool { return err == errNotHere }

// noHardLinks reports whether err from linkat says the filesystem or the
// file takes no hard links.
func noHardLinks(err error) bool {
	return err == unix.EPERM || err == unix.EOPNOTSUPP || err == unix.EMLINK || err == unix.ENOSYS
}

// syncFile flushes the file or directory open at fd with fsync(2).
func syncFile(fd int) error { return retry(func() error { return unix.Fsync(fd) }) }

// openWriter cannot tell here whether another process holds base open for
// writing: errNotHere.
func openWriter(*dirHandle, string) error { return errNotHere }
