//go:build linux || darwin

package local

import (
	"bytes"
	"fmt"

	"golang.org/x/sys/unix"
)

// copyXattrs copies every extended attribute of the file open at src that
// this process can read to the file open at dst, through the descriptors
// only (no path is resolved again). An attribute the kernel or the
// filesystem will not take (xattrRefused: not supported, not permitted) is
// skipped; any other failure is returned. src < 0 copies nothing.
func copyXattrs(src, dst int) error {
	if src < 0 {
		return nil
	}
	names, err := listXattrs(src)
	if err != nil || len(names) == 0 {
		return nil // none, or none readable: nothing to keep
	}
	var val []byte
	for _, name := range names {
		val, err = getXattr(src, name, val)
		if err != nil {
			continue // unreadable by this process: it cannot be kept
		}
		err := retry(func() error { return unix.Fsetxattr(dst, name, val, 0) })
		if err != nil && !xattrRefused(err) {
			return fmt.Errorf("copying extended attribute %s: %w", name, err)
		}
	}
	return nil
}

// listXattrs returns the names of the extended attributes of the file open
// at fd.
func listXattrs(fd int) ([]string, error) {
	for {
		n, err := unix.Flistxattr(fd, nil)
		if err != nil || n == 0 {
			return nil, err
		}
		buf := make([]byte, n)
		n, err = unix.Flistxattr(fd, buf)
		if err == unix.ERANGE {
			continue // grew meanwhile
		}
		if err != nil {
			return nil, err
		}
		var names []string
		for _, b := range bytes.Split(buf[:n], []byte{0}) {
			if len(b) > 0 {
				names = append(names, string(b))
			}
		}
		return names, nil
	}
}

// getXattr returns the value of the attribute name of the file open at fd,
// reusing buf.
func getXattr(fd int, name string, buf []byte) ([]byte, error) {
	for {
		n, err := unix.Fgetxattr(fd, name, nil)
		if err != nil {
			return nil, err
		}
		if cap(buf) < n {
			buf = make([]byte, n)
		}
		n, err = unix.Fgetxattr(fd, name, buf[:cap(buf)])
		if err == unix.ERANGE {
			continue
		}
		if err != nil {
			return nil, err
		}
		return buf[:n], nil
	}
}
