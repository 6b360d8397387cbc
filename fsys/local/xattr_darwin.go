package local

import "golang.org/x/sys/unix"

// xattrRefused reports whether err from fsetxattr says the kernel or the
// filesystem will not take that attribute (not supported, not permitted,
// too large for it), so that copyXattrs skips it. On macOS the attributes
// copied are those flistxattr shows without options: Finder info and tags,
// com.apple.quarantine, resource forks of uncompressed files, and any
// program's own. Ones the system guards (com.apple.system.*, or any a
// security policy denies) are refused with EPERM and skipped. The
// compression attributes of a compressed file are not listed, so the new,
// uncompressed file does not take them. ACLs are not extended attributes
// there and are not kept.
func xattrRefused(err error) bool {
	switch err {
	case unix.ENOTSUP, unix.EOPNOTSUPP, unix.EPERM, unix.EACCES, unix.EINVAL, unix.ENOSYS, unix.E2BIG:
		return true
	}
	return false
}
