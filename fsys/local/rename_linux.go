package local

import "golang.org/x/sys/unix"

// exchange atomically swaps the entries a and b of one directory.
func exchange(dirfd int, a, b string) error { return exchangeAt(dirfd, a, dirfd, b) }

// exchangeAt atomically swaps the entry a of one directory with the entry b
// of another (or the same).
func exchangeAt(adir int, a string, bdir int, b string) error {
	return retry(func() error { return unix.Renameat2(adir, a, bdir, b, unix.RENAME_EXCHANGE) })
}

// renameNoReplace renames without replacing anything at the new name
// (EEXIST).
func renameNoReplace(olddir int, oldname string, newdir int, newname string) error {
	return retry(func() error { return unix.Renameat2(olddir, oldname, newdir, newname, unix.RENAME_NOREPLACE) })
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
