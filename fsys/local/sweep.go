//go:build unix

package local

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path"
	"strconv"
	"strings"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

// Sweep removes temp files left under the root by processes that died
// mid-commit, and returns how many it removed. It walks the directories
// beneath the root without following symlinks, reading entries with their
// types; skip, when not nil, is asked about every directory first (its
// root-relative, slash-separated path, "." for the root) and a directory it
// skips is neither read nor descended into: a caller keeps the sweep out of
// trees it must not touch (protected or hidden ones). Directories that
// cannot be opened or read are skipped too. Its cost grows with the number
// of directories in the tree.
//
// An entry is removed only when all of these hold:
//
//   - its name is exactly a temp name (IsTempName);
//   - it is a regular file, not a symlink, directory or special file;
//   - the process named in it is not running, or is running but started
//     after the entry got its name, so it is another process that was
//     given the same id (a reused pid).
//
// When the entry got its name is its ctime: on Linux a rename updates it,
// and a file set aside by Remove keeps its old mtime but not its old ctime.
// A process's start is read from /proc/<pid>/stat (field 22, in clock
// ticks since boot, at the 100 Hz USER_HZ of every Linux architecture that
// Go supports) plus the boot time in /proc/stat; with two seconds of slack
// for the rounding of both. Without /proc a running process keeps its temp
// files. Processes in another PID namespace sharing the directory are not
// told apart: their temp files can be removed under them, which makes
// their commit fail, not corrupt anything.
func (l *FS) Sweep(skip func(dir string) bool) (removed int, err error) {
	return l.SweepKeeping(skip, nil)
}

// SweepKeeping is Sweep that also keeps every temp file keep holds on to
// (given its root-relative path), whoever made it: the caller's list of
// temp files that write-ahead intents name, whose process is alive or dead,
// so that an old file a replace or delete displaced and did not hand over
// before it died stays until its intent is resolved (AdoptTemp).
func (l *FS) SweepKeeping(skip func(dir string) bool, keep func(name string) bool) (removed int, err error) {
	sw := &sweeper{l: l, skip: skip, keep: keep, buf: make([]byte, direntBufSize), starts: map[int]time.Time{}}
	return sw.sweep(".", true)
}

// SweepDir is Sweep for the one directory name (following symlinks inside
// the root to reach it), without descending.
func (l *FS) SweepDir(name string) (removed int, err error) {
	return l.SweepDirKeeping(name, nil)
}

// SweepDirKeeping is SweepDir keeping what keep holds on to (see
// SweepKeeping).
func (l *FS) SweepDirKeeping(name string, keep func(name string) bool) (removed int, err error) {
	r, err := l.walk("sweep", name, true)
	if err != nil {
		return 0, err
	}
	sw := &sweeper{l: l, keep: keep, buf: make([]byte, direntBufSize), starts: map[int]time.Time{}}
	return sw.sweep(r.Path, false)
}

// RemoveTemp removes the one temp file name (a root-relative path whose
// base name is a temp name, IsTempName), such as one a write-ahead intent
// recorded. Its directory is reached through the confined walk; the file
// itself is not followed. A name that is not a temp name fails with
// fsys.ErrInvalid, a symlink or anything but a regular file with
// fsys.ErrNotRegular, a missing file with fsys.ErrNotFound (already gone).
// Whether the process that made it is running is the caller's business.
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
	var st unix.Stat_t
	if err := unix.Fstatat(d.fd, base, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return l.fail(op, name, err)
	}
	if st.Mode&unix.S_IFMT != unix.S_IFREG {
		return fsys.E(op, name, fsys.ErrNotRegular, nil)
	}
	if err := d.unlink(base); err != nil {
		return l.fail(op, name, err)
	}
	if err := d.sync(); err != nil {
		return l.fail(op, name, err)
	}
	return nil
}

// sweeper is one sweep's state.
type sweeper struct {
	l      *FS
	skip   func(dir string) bool
	keep   func(name string) bool // temp files to keep (SweepKeeping), or nil
	buf    []byte
	starts map[int]time.Time // process start times read so far (zero: unknown)
}

func (sw *sweeper) sweep(rel string, deep bool) (int, error) {
	if sw.skip != nil && sw.skip(rel) {
		return 0, nil
	}
	f, err := sw.l.root.OpenFile(rel, os.O_RDONLY|unix.O_DIRECTORY, 0)
	if err != nil {
		return 0, sw.l.fail("sweep", rel, err)
	}
	fd, err := dupCloexec(int(f.Fd()))
	f.Close()
	if err != nil {
		return 0, fmt.Errorf("sweep %s: %w", rel, err)
	}
	defer unix.Close(fd)
	removed, err := sw.dir(fd, rel, deep)
	if err != nil {
		return removed, fmt.Errorf("sweep %s: %w", rel, err)
	}
	return removed, nil
}

// dir sweeps the directory open at fd (root-relative path rel), and with
// deep the directories below it that skip allows. Errors below fd are
// skipped.
func (sw *sweeper) dir(fd int, rel string, deep bool) (int, error) {
	var subdirs, temps []string
	err := eachEntry(fd, sw.buf, func(name string, typ fsys.Type) error {
		switch {
		case typ == fsys.TypeDir:
			if deep {
				subdirs = append(subdirs, name)
			}
		case strings.HasPrefix(name, TempPrefix):
			temps = append(temps, name)
		}
		return nil
	})
	if err != nil {
		return 0, err
	}
	removed := 0
	for _, name := range temps {
		if sw.keep != nil && sw.keep(path.Join(rel, name)) {
			continue
		}
		if sw.stale(fd, name) && retry(func() error { return unix.Unlinkat(fd, name, 0) }) == nil {
			removed++
		}
	}
	for _, name := range subdirs {
		sub := path.Join(rel, name)
		if sw.skip != nil && sw.skip(sub) {
			continue
		}
		var subfd int
		err := retry(func() (err error) {
			subfd, err = unix.Openat(fd, name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
			return err
		})
		if err != nil {
			continue
		}
		n, _ := sw.dir(subfd, sub, true)
		unix.Close(subfd)
		removed += n
	}
	return removed, nil
}

// reuseSlack is how much earlier than a process's computed start a temp
// file must have been named for the process to count as a later one with
// the same pid: the boot time is in whole seconds, and some filesystems
// keep times in whole seconds.
const reuseSlack = 2 * time.Second

// stale reports whether the entry name of the directory open at fd is a
// temp file whose maker is gone (see Sweep).
func (sw *sweeper) stale(fd int, name string) bool {
	pid, ok := IsTempName(name)
	if !ok {
		return false
	}
	var st unix.Stat_t
	if unix.Fstatat(fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) != nil || st.Mode&unix.S_IFMT != unix.S_IFREG {
		return false
	}
	if unix.Kill(pid, 0) == unix.ESRCH {
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
	named := time.Unix(st.Ctim.Unix())
	return named.Before(start.Add(-reuseSlack))
}

// userHZ is the unit of the start time in /proc/<pid>/stat.
const userHZ = 100

// processStart returns when the process pid started, from /proc, or false
// when that cannot be read (no /proc, no such process).
func processStart(pid int) (time.Time, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return time.Time{}, false
	}
	// The command name, in parentheses, may hold spaces and parentheses:
	// the fields after it are counted from the last ')'.
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return time.Time{}, false
	}
	fields := strings.Fields(string(stat[i+1:]))
	const startField = 22 - 3 // fields after the name start at field 3 (state)
	if len(fields) <= startField {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseUint(fields[startField], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	boot, ok := bootTime()
	if !ok {
		return time.Time{}, false
	}
	return boot.Add(time.Duration(ticks) * time.Second / userHZ), true
}

// bootTime reads the btime line of /proc/stat.
func bootTime() (time.Time, bool) {
	data, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(n, 0), true
		}
	}
	return time.Time{}, false
}

// dupCloexec duplicates fd with close-on-exec set in the same step
// (F_DUPFD_CLOEXEC): a plain dup(2) leaves it off, and a child that the
// embedding program starts meanwhile would keep the descriptor for its
// whole life.
func dupCloexec(fd int) (int, error) {
	for {
		nfd, err := unix.FcntlInt(uintptr(fd), unix.F_DUPFD_CLOEXEC, 0)
		if err != unix.EINTR {
			return nfd, err
		}
	}
}
