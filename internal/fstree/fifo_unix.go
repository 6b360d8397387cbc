//go:build unix

package fstree

import (
	"path/filepath"
	"syscall"
)

// mkfifo returns a maker of named pipes under dir/sub.
func mkfifo(dir, sub string) func(name string) error {
	return func(name string) error {
		return Mkfifo(filepath.Join(dir, sub, filepath.FromSlash(name)))
	}
}

// Mkfifo makes a named pipe (mode 0o644) at the host path name. Where
// there are none (Windows) it fails with errors.ErrUnsupported, and the
// test that needs one skips.
func Mkfifo(name string) error { return syscall.Mkfifo(name, 0o644) }
