//go:build !unix && !windows

package journal

import (
	"errors"
	"os"
)

// Without flock, appends from two processes could interleave and break the
// chain, so the journal refuses to open rather than pretend.
func checkLockingSupported() error {
	return errors.ErrUnsupported
}

func lockFile(f *os.File, exclusive bool) error { return errors.ErrUnsupported }

func unlockFile(f *os.File) error { return errors.ErrUnsupported }

func tryLock(f *os.File) (busy bool, err error) { return false, errors.ErrUnsupported }
