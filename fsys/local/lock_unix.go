//go:build unix

package local

import (
	"time"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
)

// The directory locks of Unix systems: flock(2) on the directory's own
// descriptor (lock_windows.go has the Windows ones).

// lock takes an exclusive flock(2) on the directory for the instant of a
// swap and its check. Every stet process takes it, so their commits in one
// directory never see each other's unchecked bytes; programs that do not
// take it are not held back. Where flock is unsupported it does nothing.
func (l *FS) lock(d *dirHandle) (unlock func(), err error) {
	return l.flock(d, unix.LOCK_EX)
}

// rlock takes a shared flock(2) on the directory: readers hold it while
// they open a file, so they wait out a commit's unchecked swap.
func (l *FS) rlock(d *dirHandle) (unlock func(), err error) {
	return l.flock(d, unix.LOCK_SH)
}

// flock takes the lock how (LOCK_EX or LOCK_SH) on d without blocking in
// the kernel: it polls, backing off from a millisecond to 50 ms, for at
// most Options.LockWait. stet holds these locks for microseconds, so a
// longer wait means another program holds one (flock(1), a backup tool):
// the caller gets a *fsys.BusyError naming the directory rather than a
// call that never returns.
func (l *FS) flock(d *dirHandle, how int) (unlock func(), err error) {
	wait := l.opts.LockWait
	if wait <= 0 {
		wait = DefaultLockWait
	}
	start := time.Now()
	pause := time.Millisecond
	for {
		err := retry(func() error { return unix.Flock(d.fd, how|unix.LOCK_NB) })
		switch {
		case err == nil:
			return func() { unix.Flock(d.fd, unix.LOCK_UN) }, nil
		case err != unix.EWOULDBLOCK:
			return func() {}, nil // no flock here: nothing to wait for
		}
		left := wait - time.Since(start)
		if left <= 0 {
			return nil, &fsys.BusyError{Dir: d.rel, Waited: time.Since(start).Round(time.Millisecond)}
		}
		time.Sleep(min(pause, left))
		pause = min(2*pause, 50*time.Millisecond)
	}
}

// lockPair takes the directory locks of df and dt (see FS.lock) in inode
// order, so that two renames crossing the same pair cannot deadlock.
func (l *FS) lockPair(df, dt *dirHandle) (unlock func(), err error) {
	var a, b unix.Stat_t
	if unix.Fstat(df.fd, &a) != nil || unix.Fstat(dt.fd, &b) != nil {
		return func() {}, nil
	}
	if a.Dev == b.Dev && a.Ino == b.Ino {
		return l.lock(df)
	}
	first, second := df, dt
	if a.Dev > b.Dev || (a.Dev == b.Dev && a.Ino > b.Ino) {
		first, second = dt, df
	}
	return l.lockBoth(first, second)
}
