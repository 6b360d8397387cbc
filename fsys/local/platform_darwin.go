package local

import "golang.org/x/sys/unix"

// The primitives of macOS: renameatx_np exchanges two names (RENAME_SWAP)
// and renames without replacing (RENAME_EXCL); F_FULLFSYNC flushes the
// drive's cache too. No cheap call sees a writer that holds a file open.

var platform = primitives{
	exchange:  "`renameatx_np(RENAME_SWAP)`",
	noReplace: "`renameatx_np(RENAME_EXCL)`",
	link:      "`linkat`",
	flush:     "`fcntl(F_FULLFSYNC)`, `fsync` where the filesystem refuses it",
	flushDir:  true,
	lock:      "`flock(2)` on the directory",
	still:     "device and inode",
}

// exchange atomically swaps the entries a and b of d.
func exchange(d *dirHandle, a, b string) error { return exchangeAt(d, a, d, b) }

// exchangeAt atomically swaps the entry a of one directory with the entry b
// of another (or the same): renameatx_np(RENAME_SWAP), which fails with
// ENOENT when either is missing.
func exchangeAt(ad *dirHandle, a string, bd *dirHandle, b string) error {
	return retry(func() error { return unix.RenameatxNp(ad.fd, a, bd.fd, b, unix.RENAME_SWAP) })
}

// renameNoReplace renames without replacing anything at the new name:
// renameatx_np(RENAME_EXCL), which fails with EEXIST when it is taken.
func renameNoReplace(od *dirHandle, oldname string, nd *dirHandle, newname string) error {
	return retry(func() error { return unix.RenameatxNp(od.fd, oldname, nd.fd, newname, unix.RENAME_EXCL) })
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

// openWriter cannot tell here whether another process holds base open for
// writing (Linux asks for a read lease; macOS has no such call): errNotHere.
func openWriter(*dirHandle, string) error { return errNotHere }
