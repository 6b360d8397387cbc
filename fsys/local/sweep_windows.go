package local

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"time"

	"golang.org/x/sys/windows"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

// Sweep removes temp files left under the root by processes that died
// mid-commit, and returns how many it removed. It walks the directories
// beneath the root without following symlinks or junctions; skip, when
// not nil, is asked about every directory first (its root-relative,
// slash-separated path, "." for the root) and a directory it skips is
// neither read nor descended into. Directories that cannot be opened or
// read are skipped too.
//
// An entry is removed only when its name is exactly a temp name
// (IsTempName), it is a regular file, and the process named in it is not
// running (OpenProcess fails, or it has exited), or is running but started
// (GetProcessTimes) after the temp file was last written, so it is another
// process that was given the same id.
func (l *FS) Sweep(skip func(dir string) bool) (removed int, err error) {
	return l.SweepKeeping(skip, nil)
}

// SweepKeeping is Sweep that also keeps every temp file keep holds on to
// (given its root-relative path): those that write-ahead intents name.
func (l *FS) SweepKeeping(skip func(dir string) bool, keep func(name string) bool) (removed int, err error) {
	sw := &sweeper{l: l, skip: skip, keep: keep, starts: map[int]time.Time{}}
	return sw.sweep(".", true)
}

// SweepDir is Sweep for the one directory name (following symlinks inside
// the root to reach it), without descending.
func (l *FS) SweepDir(name string) (removed int, err error) {
	return l.SweepDirKeeping(name, nil)
}

// SweepDirKeeping is SweepDir keeping what keep holds on to.
func (l *FS) SweepDirKeeping(name string, keep func(name string) bool) (removed int, err error) {
	r, err := l.walk("sweep", name, true)
	if err != nil {
		return 0, err
	}
	sw := &sweeper{l: l, keep: keep, starts: map[int]time.Time{}}
	return sw.sweep(r.Path, false)
}

// RemoveTemp removes the one temp file name (a root-relative path whose
// base name is a temp name, IsTempName), such as one a write-ahead intent
// recorded. Its directory is reached through the confined walk; the file
// itself is not followed. A name that is not a temp name fails with
// fsys.ErrInvalid, a symlink or anything but a regular file with
// fsys.ErrNotRegular, a missing file with fsys.ErrNotFound (already gone).
func (l *FS) RemoveTemp(name string) error {
	const op = "remove temp"
	c, err := confine.Clean(op, name)
	if err != nil {
		return err
	}
	base := path.Base(c)
	if _, ok := IsTempName(base); !ok {
		return fsys.E(op, name, fsys.ErrInvalid, errors.New("not a temp file name"))
	}
	r, err := l.walk(op, path.Dir(c), true)
	if err != nil {
		return err
	}
	switch {
	case !r.Exists():
		return fsys.E(op, name, fsys.ErrNotFound, nil)
	case !r.Info.IsDir():
		return fsys.E(op, name, fsys.ErrNotDir, nil)
	}
	d, err := l.openDir(r.Path)
	if err != nil {
		return l.fail(op, name, err)
	}
	defer d.close()
	fi, err := d.r.Lstat(base)
	if err != nil {
		return l.fail(op, name, err)
	}
	if !fi.Mode().IsRegular() {
		return fsys.E(op, name, fsys.ErrNotRegular, nil)
	}
	if err := d.unlink(base); err != nil {
		return l.fail(op, name, err)
	}
	return nil
}

// sweeper is one sweep's state.
type sweeper struct {
	l      *FS
	skip   func(dir string) bool
	keep   func(name string) bool // temp files to keep (SweepKeeping), or nil
	starts map[int]time.Time      // process start times read so far (zero: unknown)
}

func (sw *sweeper) sweep(rel string, deep bool) (int, error) {
	if sw.skip != nil && sw.skip(rel) {
		return 0, nil
	}
	d, err := sw.l.openDir(rel)
	if err != nil {
		return 0, sw.l.fail("sweep", rel, err)
	}
	defer d.close()
	removed, err := sw.dir(d, deep)
	if err != nil {
		return removed, fmt.Errorf("sweep %s: %w", rel, err)
	}
	return removed, nil
}

// dir sweeps the open directory d, and with deep the directories below it
// that skip allows. Errors below d are skipped.
func (sw *sweeper) dir(d *dirHandle, deep bool) (int, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return 0, err
	}
	ents, err := f.ReadDir(-1)
	f.Close()
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, e := range ents {
		name := e.Name()
		switch {
		case e.Type().IsDir() && deep:
			sub := path.Join(d.rel, name)
			if sw.skip != nil && sw.skip(sub) {
				continue
			}
			r, err := d.r.OpenRoot(name)
			if err != nil {
				continue
			}
			n, _ := sw.dir(&dirHandle{r: r, rel: sub}, true)
			r.Close()
			removed += n
		case strings.HasPrefix(name, TempPrefix) && !(sw.keep != nil && sw.keep(path.Join(d.rel, name))) &&
			sw.stale(d, name) && d.unlink(name) == nil:
			removed++
		}
	}
	return removed, nil
}

// reuseSlack is how much earlier than a process's start a temp file must
// have been written for the process to count as a later one with the same
// id (FAT keeps times in two-second steps).
const reuseSlack = 2 * time.Second

// stale reports whether the entry name of d is a temp file whose maker is
// gone (see Sweep).
func (sw *sweeper) stale(d *dirHandle, name string) bool {
	pid, ok := IsTempName(name)
	if !ok {
		return false
	}
	fi, err := d.r.Lstat(name)
	if err != nil || !fi.Mode().IsRegular() {
		return false
	}
	if processGone(pid) {
		return true
	}
	start, seen := sw.starts[pid]
	if !seen {
		start, _ = sw.l.procStart(pid)
		sw.starts[pid] = start
	}
	if start.IsZero() {
		return false // running, start unknown: keep
	}
	return fi.ModTime().Before(start.Add(-reuseSlack))
}

// stillActive is the exit code GetExitCodeProcess gives a running process.
const stillActive = 259

// processGone reports whether no process pid is running: OpenProcess says
// there is none, or the one it opens has exited.
func processGone(pid int) bool {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_INVALID_PARAMETER)
	}
	defer windows.CloseHandle(h)
	var code uint32
	return windows.GetExitCodeProcess(h, &code) == nil && code != stillActive
}

// processStart returns when the process pid started (GetProcessTimes), or
// false when that cannot be read.
func processStart(pid int) (time.Time, bool) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return time.Time{}, false
	}
	defer windows.CloseHandle(h)
	var created, exited, kernel, user windows.Filetime
	if windows.GetProcessTimes(h, &created, &exited, &kernel, &user) != nil {
		return time.Time{}, false
	}
	return time.Unix(0, created.Nanoseconds()), true
}
