package local

import "golang.org/x/sys/unix"

// xattrRefused reports whether err from fsetxattr says the kernel or the
// filesystem will not take that attribute (not supported, not permitted),
// so that copyXattrs skips it. On Linux the attributes copied are user.*,
// and security.*, trusted.* and ACLs (system.posix_acl_*) as far as
// privileges allow.
func xattrRefused(err error) bool {
	switch err {
	case unix.ENOTSUP, unix.EPERM, unix.EACCES, unix.EINVAL, unix.ENOSYS:
		return true
	}
	return false
}
