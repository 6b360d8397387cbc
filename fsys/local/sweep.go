package local

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"golang.org/x/sys/unix"
)

// Sweep removes temp files (names starting with TempPrefix) left under the
// root by a process that died mid-commit, and returns how many it removed.
// It walks every directory beneath the root without following symlinks,
// reading directory entries with their types and no stat per entry.
//
// A temp file is removed only when the process whose id is in its name is
// gone, so sweeping is safe while other stet processes on this machine
// commit in the same tree. Processes in another PID namespace sharing the
// directory are not told apart; their temp files can be removed under them
// (their commit then fails rather than corrupting anything, except a
// Remove caught between its rename and its unlink, whose file is then gone
// as it was meant to be, or wrongly when the compare would have failed).
func (l *FS) Sweep() (removed int, err error) {
	f, err := l.root.OpenFile(".", os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return 0, fmt.Errorf("local: sweep: %w", err)
	}
	fd, err := unix.Dup(int(f.Fd()))
	f.Close()
	if err != nil {
		return 0, fmt.Errorf("local: sweep: %w", err)
	}
	removed, err = l.sweepDir(fd, ".")
	if err != nil {
		return removed, fmt.Errorf("local: sweep: %w", err)
	}
	return removed, nil
}

// sweepDir sweeps the directory open at fd (taking ownership of fd) and
// the directories below it.
func (l *FS) sweepDir(fd int, rel string) (int, error) {
	// Not opened through the Root: the entries' types come from the
	// directory itself (no lstat per entry), and the only names used are
	// single components relative to fd.
	dir := os.NewFile(uintptr(fd), rel)
	defer dir.Close()
	removed := 0
	for {
		ents, err := dir.ReadDir(512)
		for _, e := range ents {
			name := e.Name()
			switch {
			case e.Type().IsDir():
				var sub int
				err := retry(func() (err error) {
					sub, err = unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
					return err
				})
				if err == unix.ENOENT || err == unix.ELOOP || err == unix.ENOTDIR || err == unix.EACCES {
					continue
				}
				if err != nil {
					return removed, err
				}
				n, err := l.sweepDir(sub, rel+"/"+name)
				removed += n
				if err != nil {
					return removed, err
				}
			case strings.HasPrefix(name, TempPrefix) && l.stale(name):
				err := retry(func() error { return unix.Unlinkat(fd, name, 0) })
				if err == nil {
					removed++
				} else if err != unix.ENOENT {
					return removed, err
				}
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && len(ents) == 0) {
			return removed, nil
		}
		if err != nil {
			return removed, err
		}
	}
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
