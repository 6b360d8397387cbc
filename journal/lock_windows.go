package journal

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// Windows byte-range locks (LockFileEx) are mandatory: a locked byte cannot
// be read or written through another handle. The lock is therefore taken
// on one byte far past anything the files hold (journal.lock keeps its
// watermark at offset 0), where it excludes other lockers and nothing else.
const lockOffset = 1 << 62

func checkLockingSupported() error { return nil }

func lockAt() *windows.Overlapped {
	return &windows.Overlapped{Offset: uint32(lockOffset & 0xffffffff), OffsetHigh: uint32(lockOffset >> 32)}
}

func lockFile(f *os.File, exclusive bool) error {
	var flags uint32
	if exclusive {
		flags = windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	return windows.LockFileEx(windows.Handle(f.Fd()), flags, 0, 1, 0, lockAt())
}

func unlockFile(f *os.File) error {
	return windows.UnlockFileEx(windows.Handle(f.Fd()), 0, 1, 0, lockAt())
}

// tryLock takes an exclusive lock on f without waiting: busy reports that
// another handle (in any process) holds a lock on it.
func tryLock(f *os.File) (busy bool, err error) {
	err = windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, lockAt())
	if errors.Is(err, windows.ERROR_LOCK_VIOLATION) {
		return true, nil
	}
	return false, err
}
