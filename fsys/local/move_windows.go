package local

import (
	"errors"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/windows"

	"github.com/stet-dev/stet/fsys"
)

// isExist and isNotExist tell the errors of a move's rename apart.
func isExist(err error) bool {
	return errors.Is(err, windows.ERROR_FILE_EXISTS) || errors.Is(err, windows.ERROR_ALREADY_EXISTS)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// moveFresh moves fb in df to the free name tb in dt once fb is proved to
// hold src: a hard link then the removal of fb for a file (no clobbering),
// a check then a rename for a directory or where links are refused. Under
// the locks of both directories; Commit.Fallback is set, as Windows has no
// rename that refuses to replace.
func (l *FS) moveFresh(df *dirHandle, fb string, dt *dirHandle, tb string, src fsys.Expected, cm *fsys.Commit) (moveFound, error) {
	cm.Fallback = true
	if src.Version != "" {
		f, err := l.check(df, fb, src)
		if err != nil || !f.match {
			return moveFound{found: f, side: sideFrom}, err
		}
	}
	_, err := noClobber(l.root, path.Join(df.rel, fb), path.Join(dt.rel, tb))
	return moveFound{found: found{match: true, links: 1}}, err
}

// moveOver moves fb in df over the file tb in dt: both are compared, then
// fb is renamed over tb (a replacing rename). Commit.Fallback is set.
func (l *FS) moveOver(df *dirHandle, fb string, dt *dirHandle, tb string, src, dst fsys.Expected, cm *fsys.Commit, _ *keeper) (moveFound, error) {
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
	err = l.root.Rename(path.Join(df.rel, fb), path.Join(dt.rel, tb))
	return moveFound{found: old, side: sideTo}, err
}

// oneEntry reports whether a and b, as the walk saw them, are one file
// spelled two ways (NTFS does not tell letter case apart): exchanging such
// a pair moves nothing, and removing the "old target" afterwards would
// delete the file. Windows listings give no link count, so a move over
// another hard link of the same file is refused too.
func oneEntry(a, b fs.FileInfo) bool {
	return os.SameFile(a, b)
}

// keeper is, on Unix, the handover of the file a change displaces to a
// store (keep.go). Windows has no exchange: FS is no fsys.Keeper there,
// and the rename shared with Unix (move.go) always gets a nil one, which
// hands nothing over.
type keeper struct{}

func (*keeper) planAt(*FS, *dirHandle, string)       {}
func (*keeper) early() error                         { return nil }
func (*keeper) take(*dirHandle, string, found) error { return nil }
