//go:build !unix && !windows

package journal

import (
	"errors"
	"os"
)

// The systems with neither flock nor LockFileEx: of those Go builds for,
// js/wasm, wasip1 and plan9. The journal package (and what imports it
// alone, such as internal/history) compiles there, but appends from two
// processes could interleave and break the chain, so Open refuses with
// errors.ErrUnsupported rather than pretend (lock_other_test.go). The lock
// functions below are never reached: they exist so the package compiles.
// stet itself does not build there (fsys/local needs Unix or Windows).

func checkLockingSupported() error {
	return errors.ErrUnsupported
}

func lockFile(f *os.File, exclusive bool) error { return errors.ErrUnsupported }

func unlockFile(f *os.File) error { return errors.ErrUnsupported }

func tryLock(f *os.File) (busy bool, err error) { return false, errors.ErrUnsupported }
