package local

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Sweep removes temp files (names starting with TempPrefix) left under the
// root by processes that died mid-commit, and returns how many it removed.
// It walks every directory beneath the root without following symlinks,
// reading entries with their types (no stat per entry); directories it
// cannot open or read are skipped. Its cost grows with the number of
// directories in the tree: on a large tree, prefer SweepDir on the
// directories known to have seen commits.
//
// A temp file is removed only once the process whose id is in its name is
// gone, so sweeping is safe while other stet processes on this machine
// commit in the same tree. Processes in another PID namespace sharing the
// directory are not told apart: their temp files can be removed under
// them, which makes their commit fail, not corrupt anything.
func (l *FS) Sweep() (removed int, err error) {
	return l.sweep(".", true)
}

// SweepDir is Sweep for the one directory name (following symlinks inside
// the root to reach it), without descending.
func (l *FS) SweepDir(name string) (removed int, err error) {
	r, err := l.walk("sweep", name, true)
	if err != nil {
		return 0, err
	}
	return l.sweep(r.Path, false)
}

func (l *FS) sweep(rel string, deep bool) (int, error) {
	f, err := l.root.OpenFile(rel, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return 0, l.fail("sweep", rel, err)
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return 0, fmt.Errorf("sweep %s: %w", rel, err)
	}
	defer unix.Close(fd)
	buf := make([]byte, direntBufSize)
	removed, err := l.sweepDir(fd, buf, deep)
	if err != nil {
		return removed, fmt.Errorf("sweep %s: %w", rel, err)
	}
	return removed, nil
}

// sweepDir sweeps the directory open at fd, and with deep the directories
// below it. Errors below fd are skipped.
func (l *FS) sweepDir(fd int, buf []byte, deep bool) (int, error) {
	removed := 0
	var subdirs []string
	err := eachEntry(fd, buf, func(name string, isDir bool) error {
		switch {
		case isDir:
			if deep {
				subdirs = append(subdirs, name)
			}
		case strings.HasPrefix(name, TempPrefix) && l.stale(name):
			err := retry(func() error { return unix.Unlinkat(fd, name, 0) })
			if err == nil {
				removed++
			}
		}
		return nil
	})
	if err != nil {
		return removed, err
	}
	for _, name := range subdirs {
		var sub int
		err := retry(func() (err error) {
			sub, err = unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			return err
		})
		if err != nil {
			continue
		}
		n, _ := l.sweepDir(sub, buf, true)
		unix.Close(sub)
		removed += n
	}
	return removed, nil
}

// stale reports whether the temp file name was left by a process that is
// gone. Names are TempPrefix, the pid, "-", random hex.
func (l *FS) stale(name string) bool {
	pidText, _, ok := strings.Cut(strings.TrimPrefix(name, TempPrefix), "-")
	pid, err := strconv.Atoi(pidText)
	if !ok || err != nil || pid <= 0 {
		return true
	}
	if pid == l.pid {
		return false
	}
	return unix.Kill(pid, 0) == unix.ESRCH
}
