//go:build unix

package journal

import (
	"os"

	"golang.org/x/sys/unix"
)

func checkLockingSupported() error { return nil }

func lockFile(f *os.File, exclusive bool) error {
	how := unix.LOCK_SH
	if exclusive {
		how = unix.LOCK_EX
	}
	return flock(f, how)
}

func unlockFile(f *os.File) error { return flock(f, unix.LOCK_UN) }

func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	err = rc.Control(func(fd uintptr) {
		for {
			ferr = unix.Flock(int(fd), how)
			if ferr != unix.EINTR {
				return
			}
		}
	})
	if err != nil {
		return err
	}
	return ferr
}

// tryLock takes an exclusive flock on f without waiting: busy reports that
// another open file (in any process) holds a lock on it.
func tryLock(f *os.File) (busy bool, err error) {
	err = flock(f, unix.LOCK_EX|unix.LOCK_NB)
	if err == unix.EWOULDBLOCK {
		return true, nil
	}
	return false, err
}
