package local

import (
	"errors"
	"hash/fnv"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/sys/windows"

	"github.com/stet-dev/stet/fsys"
)

// The directory locks of Windows. LockFileEx cannot lock a directory, so
// every stet process of one user locks one byte of a shared lock file,
// stet/dirlocks in the user's cache directory (%LocalAppData%), at an
// offset derived from the directory's volume serial number and file index:
// the same directory, whatever path reaches it, is the same byte. Two
// directories whose offsets collide only wait for each other.

// lock takes the exclusive lock of d for the instant of a commit's
// compare and rename.
func (l *FS) lock(d *dirHandle) (unlock func(), err error) { return l.lockDir(d, true) }

// rlock takes the shared lock of d: readers hold it while they open a
// file, so they never open bytes a commit has not yet compared.
func (l *FS) rlock(d *dirHandle) (unlock func(), err error) { return l.lockDir(d, false) }

// lockDir takes the lock of d without blocking in the kernel
// (LOCKFILE_FAIL_IMMEDIATELY), polling with the back-off of the Unix
// flock for at most Options.LockWait, then a *fsys.BusyError. Where the
// lock file cannot be had it does nothing, as flock does where it is
// missing.
func (l *FS) lockDir(d *dirHandle, exclusive bool) (unlock func(), err error) {
	off, ok := d.slot()
	if !ok {
		return func() {}, nil
	}
	f, err := openLockFile()
	if err != nil {
		return func() {}, nil
	}
	h := windows.Handle(f.Fd())
	flags := uint32(windows.LOCKFILE_FAIL_IMMEDIATELY)
	if exclusive {
		flags |= windows.LOCKFILE_EXCLUSIVE_LOCK
	}
	at := func() *windows.Overlapped {
		return &windows.Overlapped{Offset: uint32(off), OffsetHigh: uint32(off >> 32)}
	}
	wait := l.opts.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	start := time.Now()
	pause := time.Millisecond
	for {
		err := windows.LockFileEx(h, flags, 0, 1, 0, at())
		switch {
		case err == nil:
			return func() {
				windows.UnlockFileEx(h, 0, 1, 0, at())
				f.Close()
			}, nil
		case !errors.Is(err, windows.ERROR_LOCK_VIOLATION):
			f.Close()
			return func() {}, nil
		}
		left := wait - time.Since(start)
		if left <= 0 {
			f.Close()
			return nil, &fsys.BusyError{Dir: d.rel, Waited: time.Since(start).Round(time.Millisecond)}
		}
		time.Sleep(min(pause, left))
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// openLockFile opens (making it if need be) the lock file shared by the
// stet processes of this user.
func openLockFile() (*os.File, error) {
	cache, err := os.UserCacheDir()
	if err != nil {
		return nil, err
	}
	name := filepath.Join(cache, "stet", "dirlocks")
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(filepath.Dir(name), 0o700); err != nil {
			return nil, err
		}
		f, err = os.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o600)
	}
	return f, err
}

// slot returns the lock offset of d: a hash of its volume serial number
// and file index, below 2^62.
func (d *dirHandle) slot() (uint64, bool) {
	id, err := d.id()
	if err != nil {
		return 0, false
	}
	h := fnv.New64a()
	var b [12]byte
	for i, v := range []uint32{uint32(id.dev), uint32(id.ino >> 32), uint32(id.ino)} {
		b[4*i], b[4*i+1], b[4*i+2], b[4*i+3] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
	}
	h.Write(b[:])
	return h.Sum64() & (1<<62 - 1), true
}

// lockPair takes the exclusive locks of df and dt in offset order, so that
// two renames crossing the same pair cannot deadlock.
func (l *FS) lockPair(df, dt *dirHandle) (unlock func(), err error) {
	a, okA := df.slot()
	b, okB := dt.slot()
	if !okA || !okB || a == b {
		return l.lock(df)
	}
	first, second := df, dt
	if a > b {
		first, second = dt, df
	}
	return l.lockBoth(first, second)
}
