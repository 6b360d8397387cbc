package local

import (
	"errors"
	"fmt"
	"path"
	"strings"

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
			if isExist(err) {
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
// renameatx_np(RENAME_SWAP). Elsewhere (Windows included) both are
// compared, then the file is renamed over the target, or linked to the free
// name and its old name removed (Commit.Fallback). Under both directory
// locks and just before the swap, both directories are checked to be still
// the ones at their paths inside the root (device and inode; on Windows
// volume serial number and file index): one another process moved away
// since the walk fails the rename with fsys.ErrMoved, nothing moved.
func (l *FS) Rename(from, to string, src fsys.Expected, dst *fsys.Expected) (fsys.Commit, error) {
	return l.rename(from, to, src, dst, nil)
}

// rename is Rename; a non-nil kp hands the file a move over a file
// replaces to its store instead of unlinking it (RenameKeep, keep.go).
func (l *FS) rename(from, to string, src fsys.Expected, dst *fsys.Expected, kp *keeper) (fsys.Commit, error) {
	const op = "rename"
	rf, rt, src, err := l.renameWalk(op, from, to, src, dst)
	if err != nil {
		return fsys.Commit{}, err
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
	kp.planAt(l, dt, tb)
	if dst != nil && dst.Ready != nil {
		if err := dst.Ready(); err != nil {
			return cm, err
		}
	}
	if err := kp.early(); err != nil {
		return cm, err
	}
	l.hook(l.opts.Hooks.BeforeSwap, rt.Path)
	f, err := l.renameSwap(op, df, fb, dt, tb, from, to, src, dst, &cm, kp)
	if err != nil {
		return cm, err
	}
	if !f.match {
		name, want := from, src.Version
		if f.side == sideTo {
			name, want = to, dst.Version
		}
		return cm, conflict(op, name, want, f.found)
	}
	l.hook(l.opts.Hooks.AfterSwap, rt.Path)
	// The replaced file, when kept, lies under the old name fb: taken into
	// the store by rename, the old name goes with it.
	if err := kp.take(df, fb, f.found); err != nil {
		return cm, l.fail(op, to, err)
	}
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

// renameWalk resolves both names of a rename without following either
// final component and applies every check that needs no content (see
// Rename). It returns src as the move must prove it: nothing for a link
// or a directory, which move by name.
func (l *FS) renameWalk(op, from, to string, src fsys.Expected, dst *fsys.Expected) (rf, rt confine.Result, _ fsys.Expected, err error) {
	rf, err = l.walk(op, from, false)
	if err != nil {
		return rf, rt, src, err
	}
	switch {
	case !rf.Exists():
		return rf, rt, src, fsys.E(op, from, fsys.ErrNotFound, nil)
	case rf.Path == ".":
		return rf, rt, src, fsys.E(op, from, fsys.ErrInvalid, errors.New("cannot rename the root"))
	case confine.TypeOf(rf.Info.Mode()) == fsys.TypeSymlink:
		if _, err := l.walk(op, from, true); errors.Is(err, fsys.ErrOutside) {
			return rf, rt, src, err
		}
	}
	if src.Version != "" && confine.TypeOf(rf.Info.Mode()) != fsys.TypeFile {
		src = fsys.Expected{} // a link or a directory moves by name; only a file has bytes to prove
	}
	rt, err = l.walk(op, to, false)
	if err != nil {
		return rf, rt, src, err
	}
	if rt.Exists() && confine.TypeOf(rt.Info.Mode()) == fsys.TypeSymlink {
		// Replacing such a link touches nothing outside, but it is refused
		// like every other use of a name that leads out.
		if _, err := l.walk(op, to, true); errors.Is(err, fsys.ErrOutside) {
			return rf, rt, src, err
		}
	}
	return rf, rt, src, renameRefusal(op, from, to, rf, rt, dst)
}

// renameRefusal is the error of a rename whose two resolved ends cannot
// be moved one onto the other, or nil.
func renameRefusal(op, from, to string, rf, rt confine.Result, dst *fsys.Expected) error {
	isDir := rf.Info.IsDir()
	switch {
	case len(rt.Rest) > 0:
		return fsys.E(op, to, fsys.ErrNotFound, errors.New("parent directory does not exist"))
	case rt.Path == ".":
		return fsys.E(op, to, fsys.ErrInvalid, errors.New("cannot rename over the root"))
	case rt.Path == rf.Path:
		return fsys.E(op, to, fsys.ErrInvalid, errors.New("from and to are the same file"))
	case rt.Exists() && oneEntry(rf.Info, rt.Info):
		return fsys.E(op, to, fsys.ErrInvalid, errors.New("from and to are one file spelled two ways (this filesystem does not tell letter case or Unicode forms apart); nothing to move"))
	case isDir && (rt.Path+"/" == rf.Path+"/" || strings.HasPrefix(rt.Path+"/", rf.Path+"/")):
		return fsys.E(op, from, fsys.ErrInvalid, errors.New("cannot move a directory into itself"))
	case rt.Exists() && dst == nil:
		return fsys.E(op, to, fsys.ErrExists, nil)
	case !rt.Exists() && dst != nil:
		return conflict(op, to, dst.Version, found{})
	case rt.Exists() && dst != nil && confine.TypeOf(rt.Info.Mode()) == fsys.TypeSymlink:
		return fsys.E(op, to, fsys.ErrNotRegular, errors.New("a move does not replace a symlink; delete the link first"))
	case rt.Exists() && rt.Info.IsDir():
		return fsys.E(op, to, fsys.ErrIsDir, errors.New("a move never replaces a directory"))
	case isDir && dst != nil:
		return fsys.E(op, from, fsys.ErrIsDir, errors.New("a directory is never moved over a file"))
	}
	return nil
}

// renameSwap moves fb in df to tb in dt under both directories' locks,
// proving src and dst there, and reports what the checks saw. An error is
// already the rename's (a *fsys.PathError naming from or to). kp, when it
// keeps the replaced file, has it left under fb.
func (l *FS) renameSwap(op string, df *dirHandle, fb string, dt *dirHandle, tb string, from, to string, src fsys.Expected, dst *fsys.Expected, cm *fsys.Commit, kp *keeper) (moveFound, error) {
	unlock, err := l.lockPair(df, dt)
	if err != nil {
		return moveFound{}, l.fail(op, from, err)
	}
	defer unlock()
	var f moveFound
	if dst == nil {
		f, err = l.moveFresh(df, fb, dt, tb, src, cm)
	} else {
		// The replaced file is unlinked: a process writing to it would
		// lose what it writes afterwards, as with a replace.
		if werr := writerAt(dt, tb); werr != nil {
			return f, fsys.E(op, to, fsys.ErrOpenWriter, werr)
		}
		f, err = l.moveOver(df, fb, dt, tb, src, *dst, cm, kp)
	}
	switch {
	case err == nil:
		return f, nil
	case errors.Is(err, fsys.ErrMoved):
		return f, err // a directory moved away: the error names it
	case isExist(err):
		return f, fsys.E(op, to, fsys.ErrExists, nil)
	case isNotExist(err):
		return f, fsys.E(op, from, fsys.ErrNotFound, nil)
	}
	return f, l.fail(op, from, err)
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
// file holds src; on a mismatch it is moved back. Without a rename that
// refuses a taken name it proves src, then moves by noClobber
// (Commit.Fallback).
func (l *FS) moveFresh(df *dirHandle, fb string, dt *dirHandle, tb string, src fsys.Expected, cm *fsys.Commit) (moveFound, error) {
	if err := l.stillThere(df, fb, dt, tb); err != nil {
		return moveFound{}, err
	}
	if !l.opts.NoExchange {
		err := renameNoReplace(df, fb, dt, tb)
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
			if berr := renameNoReplace(dt, tb, df, fb); berr != nil {
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
	_, err := l.noClobber(df, fb, dt, tb)
	return moveFound{found: found{match: true, links: 1}}, err
}

// moveOver moves fb in df over the file tb in dt: exchange, prove both
// sides, then unlink the swapped-out target, or leave it under fb when kp
// keeps it (for kp.take); on a mismatch, exchange back. Without an
// exchange it proves both sides, then renames over (Commit.Fallback).
func (l *FS) moveOver(df *dirHandle, fb string, dt *dirHandle, tb string, src, dst fsys.Expected, cm *fsys.Commit, kp *keeper) (moveFound, error) {
	if err := l.stillThere(df, fb, dt, tb); err != nil {
		return moveFound{}, err
	}
	if !l.opts.NoExchange {
		err := exchangeAt(df, fb, dt, tb)
		if !unsupported(err) {
			if isNotExist(err) && df.ino(fb) != 0 {
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
				if kp.keeps() {
					return mf, nil // fb holds the old target for kp.take
				}
				df.unlink(fb) // if this fails, the old target stays under the old name
				return mf, nil
			}
			if berr := exchangeAt(df, fb, dt, tb); berr != nil {
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
	if err := kp.late("no exchange here: the rename drops the old file"); err != nil {
		return moveFound{found: old, side: sideTo}, err
	}
	err = l.renameAt(df, fb, dt, tb)
	return moveFound{found: old, side: sideTo}, err
}

// stillThere checks, under both directory locks and just before the swap,
// that df and dt are still the directories at their paths inside the root
// (held.still: their identity against a fresh confined lookup). A rename
// walks both names when it starts; another process may move either
// directory, or one above it, away before the swap, and the handles
// would follow it. The error wraps fsys.ErrMoved (renameSwap passes it
// on as it is) and names the file fb or tb; nothing moved.
func (l *FS) stillThere(df *dirHandle, fb string, dt *dirHandle, tb string) error {
	const op = "rename"
	if err := (&held{l: l, name: path.Join(df.rel, fb), d: df}).still(op); err != nil {
		return err
	}
	return (&held{l: l, name: path.Join(dt.rel, tb), d: dt}).still(op)
}
