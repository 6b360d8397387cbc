package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

// MkdirAll creates the directory name and any missing parents, following
// symlinked directories that stay inside the root. A final symlink is not
// followed to create its missing target (fsys.ErrExists); a non-directory in
// the way is fsys.ErrNotDir. Each new directory's parent is fsynced.
func (l *FS) MkdirAll(name string) error {
	const op = "mkdir"
	c, err := confine.Clean(op, name)
	if err != nil {
		return err
	}
	// Each round creates one missing component, then walks again, so links
	// met along the way are checked like any other.
	for range 4096 {
		r, err := confine.Walk(rootTree{l.root}, op, c, true, l.abs)
		if err != nil {
			return l.fail(op, name, err)
		}
		switch {
		case r.Exists() && r.Info.IsDir():
			return nil
		case r.Exists():
			return fsys.E(op, name, fsys.ErrNotDir, nil)
		case r.FinalLink:
			return fsys.E(op, name, fsys.ErrExists, errors.New("a dangling symlink is in the way"))
		}
		for _, p := range r.Rest {
			if p == ".." {
				return fsys.E(op, name, fsys.ErrNotFound, nil)
			}
		}
		if err := l.root.Mkdir(r.Path, 0o777); err != nil {
			if errors.Is(err, unix.EEXIST) {
				continue
			}
			return l.fail(op, name, err)
		}
		d, err := l.openDir(path.Dir(r.Path))
		if err != nil {
			return l.fail(op, name, err)
		}
		err = d.sync()
		d.close()
		if err != nil {
			return l.fail(op, name, err)
		}
	}
	return fsys.E(op, name, fsys.ErrInvalid, errors.New("the tree keeps changing"))
}

// Rename moves from to to, proving both names at the swap (see
// fsys.Provider). Neither final component is followed: renaming a symlink
// moves the link (one that leaves the root is refused with fsys.ErrOutside
// all the same, as is overwriting one). Renaming the root, or a directory
// into itself, is fsys.ErrInvalid; a directory is never moved over
// anything (dst must be nil).
//
// On Linux, a move onto a free name is renameat2(RENAME_NOREPLACE) and the
// moved file is then compared with src; a move over a file is
// renameat2(RENAME_EXCHANGE), after which the swapped-out target is compared
// with dst and the moved file with src, and only then unlinked. On a
// mismatch the names are swapped (or renamed) back and fsys.ErrConflict is
// returned. macOS does the same with renameatx_np(RENAME_EXCL) and
// renameatx_np(RENAME_SWAP). Elsewhere both are compared, then renamed
// (Commit.Fallback).
func (l *FS) Rename(from, to string, src fsys.Expected, dst *fsys.Expected) (fsys.Commit, error) {
	const op = "rename"
	rf, err := l.walk(op, from, false)
	if err != nil {
		return fsys.Commit{}, err
	}
	switch {
	case !rf.Exists():
		return fsys.Commit{}, fsys.E(op, from, fsys.ErrNotFound, nil)
	case rf.Path == ".":
		return fsys.Commit{}, fsys.E(op, from, fsys.ErrInvalid, errors.New("cannot rename the root"))
	case confine.TypeOf(rf.Info.Mode()) == fsys.TypeSymlink:
		if _, err := l.walk(op, from, true); errors.Is(err, fsys.ErrOutside) {
			return fsys.Commit{}, err
		}
	}
	isDir := rf.Info.IsDir()
	if src.Version != "" && confine.TypeOf(rf.Info.Mode()) != fsys.TypeFile {
		src = fsys.Expected{} // a link or a directory moves by name; only a file has bytes to prove
	}
	rt, err := l.walk(op, to, false)
	if err != nil {
		return fsys.Commit{}, err
	}
	if rt.Exists() && confine.TypeOf(rt.Info.Mode()) == fsys.TypeSymlink {
		// Replacing such a link touches nothing outside, but it is refused
		// like every other use of a name that leads out.
		if _, err := l.walk(op, to, true); errors.Is(err, fsys.ErrOutside) {
			return fsys.Commit{}, err
		}
	}
	switch {
	case len(rt.Rest) > 0:
		return fsys.Commit{}, fsys.E(op, to, fsys.ErrNotFound, errors.New("parent directory does not exist"))
	case rt.Path == ".":
		return fsys.Commit{}, fsys.E(op, to, fsys.ErrInvalid, errors.New("cannot rename over the root"))
	case rt.Path == rf.Path:
		return fsys.Commit{}, fsys.E(op, to, fsys.ErrInvalid, errors.New("from and to are the same file"))
	case rt.Exists() && oneEntry(rf.Info, rt.Info):
		return fsys.Commit{}, fsys.E(op, to, fsys.ErrInvalid, errors.New("from and to are one file spelled two ways (this filesystem does not tell letter case or Unicode forms apart); nothing to move"))
	case isDir && (rt.Path+"/" == rf.Path+"/" || strings.HasPrefix(rt.Path+"/", rf.Path+"/")):
		return fsys.Commit{}, fsys.E(op, from, fsys.ErrInvalid, errors.New("cannot move a directory into itself"))
	case rt.Exists() && dst == nil:
		return fsys.Commit{}, fsys.E(op, to, fsys.ErrExists, nil)
	case !rt.Exists() && dst != nil:
		return fsys.Commit{}, conflict(op, to, dst.Version, found{})
	case rt.Exists() && dst != nil && confine.TypeOf(rt.Info.Mode()) == fsys.TypeSymlink:
		return fsys.Commit{}, fsys.E(op, to, fsys.ErrNotRegular, errors.New("a move does not replace a symlink; delete the link first"))
	case rt.Exists() && rt.Info.IsDir():
		return fsys.Commit{}, fsys.E(op, to, fsys.ErrIsDir, errors.New("a move never replaces a directory"))
	case isDir && dst != nil:
		return fsys.Commit{}, fsys.E(op, from, fsys.ErrIsDir, errors.New("a directory is never moved over a file"))
	}
	df, err := l.openDir(path.Dir(rf.Path))
	if err != nil {
		return fsys.Commit{}, l.fail(op, from, err)
	}
	defer df.close()
	dt, err := l.openDir(path.Dir(rt.Path))
	if err != nil {
		return fsys.Commit{}, l.fail(op, to, err)
	}
	defer dt.close()
	fb, tb := path.Base(rf.Path), path.Base(rt.Path)
	cm := fsys.Commit{Resolved: rt.Path}

	if dst != nil && dst.Ready != nil {
		if err := dst.Ready(); err != nil {
			return cm, err
		}
	}
	l.hook(l.opts.Hooks.BeforeSwap, rt.Path)
	unlock, err := l.lockPair(df, dt)
	if err != nil {
		return cm, l.fail(op, from, err)
	}
	var f moveFound
	if dst == nil {
		f, err = l.moveFresh(df, fb, dt, tb, src, &cm)
	} else {
		f, err = l.moveOver(df, fb, dt, tb, src, *dst, &cm)
	}
	unlock()
	if err != nil {
		if err == unix.EEXIST {
			return cm, fsys.E(op, to, fsys.ErrExists, nil)
		}
		if err == unix.ENOENT {
			return cm, fsys.E(op, from, fsys.ErrNotFound, nil)
		}
		return cm, l.fail(op, from, err)
	}
	if !f.match {
		name, want := from, src.Version
		if f.side == sideTo {
			name, want = to, dst.Version
		}
		return cm, conflict(op, name, want, f.found)
	}
	l.hook(l.opts.Hooks.AfterSwap, rt.Path)
	if err := dt.sync(); err != nil {
		return cm, l.fail(op, to, err)
	}
	if path.Dir(rf.Path) != path.Dir(rt.Path) {
		if err := df.sync(); err != nil {
			return cm, l.fail(op, from, err)
		}
	}
	if f.links > 1 {
		cm.Notes = append(cm.Notes, linkNote(to, f.links, "old bytes"))
	}
	return cm, nil
}

// Sides of a move whose check failed.
const (
	sideFrom = iota
	sideTo
)

// moveFound is what a move's checks saw: found for the side that failed
// (or the overwritten target when all matched).
type moveFound struct {
	found
	side int
}

// moveFresh moves fb in df to the free name tb in dt and proves the moved
// file holds src; on a mismatch it is moved back.
func (l *FS) moveFresh(df *dirHandle, fb string, dt *dirHandle, tb string, src fsys.Expected, cm *fsys.Commit) (moveFound, error) {
	if !l.opts.NoExchange {
		err := renameNoReplace(df.fd, fb, dt.fd, tb)
		if !unsupported(err) {
			if err != nil {
				return moveFound{}, err
			}
			if src.Version == "" {
				return moveFound{found: found{match: true}}, nil
			}
			f, err := l.check(dt, tb, src)
			if err == nil && f.match {
				return moveFound{found: f}, nil
			}
			if berr := renameNoReplace(dt.fd, tb, df.fd, fb); berr != nil {
				return moveFound{found: f}, fmt.Errorf("the moved file could not be checked or moved back; it is at the new name: %w", errors.Join(err, berr))
			}
			return moveFound{found: f, side: sideFrom}, err
		}
	}
	cm.Fallback = true
	if src.Version != "" {
		f, err := l.check(df, fb, src)
		if err != nil || !f.match {
			return moveFound{found: f, side: sideFrom}, err
		}
	}
	_, err := noClobber(df, fb, dt, tb)
	return moveFound{found: found{match: true, links: 1}}, err
}

// moveOver moves fb in df over the file tb in dt: exchange, prove both
// sides, then unlink the swapped-out target; on a mismatch, exchange back.
func (l *FS) moveOver(df *dirHandle, fb string, dt *dirHandle, tb string, src, dst fsys.Expected, cm *fsys.Commit) (moveFound, error) {
	if !l.opts.NoExchange {
		err := exchangeAt(df.fd, fb, dt.fd, tb)
		if !unsupported(err) {
			if err == unix.ENOENT && df.ino(fb) != 0 {
				return moveFound{side: sideTo}, nil // the target went away: not what dst expects
			}
			if err != nil {
				return moveFound{}, err
			}
			// fb now names the old target, tb the moved file.
			old, err := l.check(df, fb, dst)
			mf := moveFound{found: old, side: sideTo}
			if err == nil && old.match && src.Version != "" {
				var f found
				f, err = l.check(dt, tb, src)
				if !f.match {
					mf = moveFound{found: f, side: sideFrom}
				}
			}
			if err == nil && mf.match {
				df.unlink(fb) // if this fails, the old target stays under the old name
				return mf, nil
			}
			if berr := exchangeAt(df.fd, fb, dt.fd, tb); berr != nil {
				return mf, fmt.Errorf("a moved file could not be checked or swapped back: %w", errors.Join(err, berr))
			}
			return mf, err
		}
	}
	cm.Fallback = true
	old, err := l.check(dt, tb, dst)
	if err != nil || !old.match {
		return moveFound{found: old, side: sideTo}, err
	}
	if src.Version != "" {
		f, err := l.check(df, fb, src)
		if err != nil || !f.match {
			return moveFound{found: f, side: sideFrom}, err
		}
	}
	err = retry(func() error { return unix.Renameat(df.fd, fb, dt.fd, tb) })
	return moveFound{found: old, side: sideTo}, err
}

// noClobber moves fb in df to tb in dt unless tb exists (EEXIST), without
// renameat2: a hard link then an unlink for anything but a directory. For
// a directory, or where hard links are refused, it checks then renames,
// which can race; racy says so.
func noClobber(df *dirHandle, fb string, dt *dirHandle, tb string) (racy bool, err error) {
	var st unix.Stat_t
	if err := unix.Fstatat(df.fd, fb, &st, unix.AT_SYMLINK_NOFOLLOW); err != nil {
		return false, err
	}
	if st.Mode&unix.S_IFMT != unix.S_IFDIR {
		err := retry(func() error { return unix.Linkat(df.fd, fb, dt.fd, tb, 0) })
		switch {
		case err == nil:
			df.unlink(fb)
			return false, nil
		case noHardLinks(err):
			// No hard links here: fall through to check then rename.
		default:
			return false, err
		}
	}
	var other unix.Stat_t
	switch err := unix.Fstatat(dt.fd, tb, &other, unix.AT_SYMLINK_NOFOLLOW); err {
	case nil:
		return true, unix.EEXIST
	case unix.ENOENT:
	default:
		return true, err
	}
	return true, retry(func() error { return unix.Renameat(df.fd, fb, dt.fd, tb) })
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
	u1, err := l.lock(first)
	if err != nil {
		return nil, err
	}
	u2, err := l.lock(second)
	if err != nil {
		u1()
		return nil, err
	}
	return func() { u2(); u1() }, nil
}

// oneEntry reports whether a and b, as the walk saw them, are one directory
// entry spelled two ways, as on a filesystem that folds letter case or
// Unicode normalization (APFS and HFS+ by default, ext4 casefold): the same
// file, with a single link. Exchanging such a pair moves nothing, and
// unlinking the "old target" afterwards would delete the file.
func oneEntry(a, b fs.FileInfo) bool {
	st, ok := a.Sys().(*syscall.Stat_t)
	return ok && st.Nlink == 1 && os.SameFile(a, b)
}
