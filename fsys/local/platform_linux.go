package local

import "golang.org/x/sys/unix"

// The primitives of Linux: renameat2 exchanges two names and renames
// without replacing; a read lease sees a writer that holds the file open
// (writer_linux.go).

var platform = primitives{
	exchange:   "`renameat2(RENAME_EXCHANGE)`",
	noReplace:  "`renameat2(RENAME_NOREPLACE)`",
	link:       "`linkat`",
	flush:      "`fsync`",
	flushDir:   true,
	lock:       "`flock(2)` on the directory",
	still:      "device and inode",
	openWriter: "a read lease (`F_SETLEASE`) cannot be placed",
}

// exchange atomically swaps the entries a and b of d.
func exchange(d *dirHandle, a, b string) error { return exchangeAt(d, a, d, b) }

// exchangeAt atomically swaps the entry a of one directory with the entry b
// of another (or the same).
func exchangeAt(ad *dirHandle, a string, bd *dirHandle, b string) error {
	return retry(func() error { return unix.Renameat2(ad.fd, a, bd.fd, b, unix.RENAME_EXCHANGE) })
}

// renameNoReplace renames without replacing anything at the new name
// (EEXIST).
func renameNoReplace(od *dirHandle, oldname string, nd *dirHandle, newname string) error {
	return retry(func() error { return unix.Renameat2(od.fd, oldname, nd.fd, newname, unix.RENAME_NOREPLACE) })
}

// unsupported reports whether err says renameat2 or its flag is missing
// here (old kernel, or a filesystem without it).
func unsupported(err error) bool {
	return err == unix.EINVAL || err == unix.ENOSYS || err == unix.EOPNOTSUPP
}

// noHardLinks reports whether err from linkat says the filesystem or the
// file takes no hard links.
func noHardLinks(err error) bool {
	return err == unix.EPERM || err == unix.EOPNOTSUPP || err == unix.EMLINK || err == unix.ENOSYS
}

// syncFile flushes the file or directory open at fd with fsync(2).
func syncFile(fd int) error { return retry(func() error { return unix.Fsync(fd) }) }
