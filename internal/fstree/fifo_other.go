//go:build !unix

package fstree

import (
	"errors"
	"fmt"
)

// mkfifo returns nil: named pipes are not supported here, and tests that
// need one are skipped.
func mkfifo(dir, sub string) func(name string) error { return nil }

// Mkfifo fails: named pipes in the file system are a POSIX feature, and
// the test that needs one skips.
func Mkfifo(name string) error {
	return fmt.Errorf("mkfifo %s: named pipes are a POSIX feature: %w", name, errors.ErrUnsupported)
}
