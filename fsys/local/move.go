package local

import (
	"errors"
	"path"

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

// Rename moves from to to. Neither final component is followed: renaming a
// symlink moves the link (one that leaves the root is refused with
// fsys.ErrOutside all the same, as is overwriting one). Unless overwrite, an existing to fails with
// fsys.ErrExists, atomically with renameat2(RENAME_NOREPLACE) on Linux, by
// link-then-unlink elsewhere (for a directory elsewhere: check, then
// rename). Renaming the root, or a directory into itself, is
// fsys.ErrInvalid.
func (l *FS) Rename(from, to string, overwrite bool) error {
	const op = "rename"
	rf, err := l.walk(op, from, false)
	if err != nil {
		return err
	}
	switch {
	case !rf.Exists():
		return fsys.E(op, from, fsys.ErrNotFound, nil)
	case rf.Path == ".":
		return fsys.E(op, from, fsys.ErrInvalid, errors.New("cannot rename the root"))
	case confine.TypeOf(rf.Info.Mode()) == fsys.TypeSymlink:
		if _, err := l.walk(op, from, true); errors.Is(err, fsys.ErrOutside) {
			return err
		}
	}
	rt, err := l.walk(op, to, false)
	if err != nil {
		return err
	}
	if rt.Exists() && confine.TypeOf(rt.Info.Mode()) == fsys.TypeSymlink {
		// Replacing such a link touches nothing outside, but it is refused
		// like every other use of a name that leads out.
		if _, err := l.walk(op, to, true); errors.Is(err, fsys.ErrOutside) {
			return err
		}
	}
	switch {
	case len(rt.Rest) > 0:
		return fsys.E(op, to, fsys.ErrNotFound, errors.New("parent directory does not exist"))
	case rt.Path == ".":
		return fsys.E(op, to, fsys.ErrInvalid, errors.New("cannot rename over the root"))
	case rt.Exists() && !overwrite:
		return fsys.E(op, to, fsys.ErrExists, nil)
	}
	df, err := l.openDir(path.Dir(rf.Path))
	if err != nil {
		return l.fail(op, from, err)
	}
	defer df.close()
	dt, err := l.openDir(path.Dir(rt.Path))
	if err != nil {
		return l.fail(op, to, err)
	}
	defer dt.close()
	fb, tb := path.Base(rf.Path), path.Base(rt.Path)

	unlock, err := l.lockPair(df, dt)
	if err != nil {
		return l.fail(op, from, err)
	}
	defer unlock()
	if overwrite {
		err = retry(func() error { return unix.Renameat(df.fd, fb, dt.fd, tb) })
		if err == unix.EEXIST {
			err = unix.ENOTEMPTY // a non-empty directory is in the way
		}
	} else {
		err = errFallback
		if !l.opts.NoExchange {
			err = renameNoReplace(df.fd, fb, dt.fd, tb)
		}
		if err == errFallback || unsupported(err) {
			_, err = noClobber(df, fb, dt, tb)
		}
	}
	if err != nil {
		if err == unix.EEXIST && !overwrite {
			return fsys.E(op, to, fsys.ErrExists, nil)
		}
		return l.fail(op, from, err)
	}
	if err := dt.sync(); err != nil {
		return l.fail(op, to, err)
	}
	if rf.Path != rt.Path && path.Dir(rf.Path) != path.Dir(rt.Path) {
		if err := df.sync(); err != nil {
			return l.fail(op, from, err)
		}
	}
	return nil
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
		switch err {
		case nil:
			df.unlink(fb)
			return false, nil
		case unix.EPERM, unix.EOPNOTSUPP, unix.EMLINK, unix.ENOSYS:
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
