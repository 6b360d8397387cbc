//go:build unix

package fstree

import (
	"path/filepath"
	"syscall"
)

// mkfifo returns a maker of named pipes under dir/sub.
func mkfifo(dir, sub string) func(name string) error {
	return func(name string) error {
		return syscall.Mkfifo(filepath.Join(dir, sub, filepath.FromSlash(name)), 0o644)
	}
}
