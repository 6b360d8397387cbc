//go:build unix

package local

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
)

// isExist and isNotExist tell the errors of a move's rename apart.
func isExist(err error) bool    { return errors.Is(err, unix.EEXIST) }
func isNotExist(err error) bool { return errors.Is(err, unix.ENOENT) }

// moveFresh moves fb in df to the free name tb in dt and proves the moved
// file holds src; on a mismatch it is moved back.
func (l *FS) moveFresh(df *dirHandle, fb string, dt *dirHandle, tb string, src fsys.Expected, cm *fsys.Commit) (moveFound, error) {
	if err := l.stillThere(df, fb, dt, tb); err != nil {
		return moveFound{}, err
	}
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
// sides, then unlink the swapped-out target, or leave it under fb when kp
// keeps it (for kp.take); on a mismatch, exchange back.
func (l *FS) moveOver(df *dirHandle, fb string, dt *dirHandle, tb string, src, dst fsys.Expected, cm *fsys.Commit, kp *keeper) (moveFound, error) {
	if err := l.stillThere(df, fb, dt, tb); err != nil {
		return moveFound{}, err
	}
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
				if kp.keeps() {
					return mf, nil // fb holds the old target for kp.take
				}
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
	if err := kp.late("no exchange here: the rename drops the old file"); err != nil {
		return moveFound{found: old, side: sideTo}, err
	}
	err = retry(func() error { return unix.Renameat(df.fd, fb, dt.fd, tb) })
	return moveFound{found: old, side: sideTo}, err
}

// stillThere checks, under both directory locks and just before the swap,
// that df and dt are still the directories at their paths inside the root
// (held.still: device and inode against a fresh confined lookup). A rename
// walks both names when it starts; another process may move either
// directory, or one above it, away before the swap, and the descriptors
// would follow it. The error wraps fsys.ErrMoved (renameSwap passes it
// on as it is) and names the file fb or tb; nothing moved.
func (l *FS) stillThere(df *dirHandle, fb string, dt *dirHandle, tb string) error {
	const op = "rename"
	if err := (&held{l: l, name: path.Join(df.rel, fb), d: df}).still(op); err != nil {
		return err
	}
	return (&held{l: l, name: path.Join(dt.rel, tb), d: dt}).still(op)
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
	return l.lockBoth(first, second)
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
