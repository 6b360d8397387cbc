package local

import "golang.org/x/sys/unix"

// exchange atomically swaps the entries a and b of one directory.
func exchange(dirfd int, a, b string) error { return exchangeAt(dirfd, a, dirfd, b) }

// exchangeAt atomically swaps the entry a of one directory with the entry b
// of another (or the same): renameatx_np(RENAME_SWAP), which fails with
// ENOENT when either is missing.
func exchangeAt(adir int, a string, bdir int, b string) error {
	return retry(func() error { return unix.RenameatxNp(adir, a, bdir, b, unix.RENAME_SWAP) })
}

// renameNoReplace renames without replacing anything at the new name:
// renameatx_np(RENAME_EXCL), which fails with EEXIST when it is taken.
func renameNoReplace(olddir int, oldname string, newdir int, newname string) error {
	return retry(func() error { return unix.RenameatxNp(olddir, oldname, newdir, newname, unix.RENAME_EXCL) })
}

// unsupported reports whether err says the filesystem does not do
// RENAME_SWAP or RENAME_EXCL (ENOTSUP: APFS does both; FAT, exFAT and
// network filesystems commonly do not), or refused the call (EINVAL), as
// Linux's EINVAL is taken: the caller then takes its fallback path.
func unsupported(err error) bool {
	return err == unix.ENOTSUP || err == unix.EOPNOTSUPP || err == unix.EINVAL || err == unix.ENOSYS
}

// noHardLinks reports whether err from linkat says the filesystem or the
// file takes no hard links (ENOTSUP on FAT, exFAT and some network
// filesystems).
func noHardLinks(err error) bool {
	return err == unix.EPERM || err == unix.ENOTSUP || err == unix.EOPNOTSUPP || err == unix.EMLINK || err == unix.ENOSYS
}
