package local

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/windows"
)

// The directory handle of Windows and its primitives for the commit
// sequence (commit.go): an os.Root per directory, so every
// single-component step stays inside that directory, and
// GetFileInformationByHandle for what a Root's FileInfo does not carry (a
// file's index and link count).

// dirHandle is an open directory beneath the root: an os.Root of its own,
// so every single-component call on it stays inside that directory.
type dirHandle struct {
	r   *os.Root
	rel string // root-relative path, for messages and cross-directory renames
}

func (l *FS) openDir(rel string) (*dirHandle, error) {
	r, err := l.root.OpenRoot(rel)
	if err != nil {
		return nil, err
	}
	return &dirHandle{r: r, rel: rel}, nil
}

func (d *dirHandle) close() { d.r.Close() }

// dup returns a handle of the same directory that outlives d, for a
// removal that runs after the call returns (discard).
func (d *dirHandle) dup() (*dirHandle, error) {
	r, err := d.r.OpenRoot(".")
	if err != nil {
		return nil, err
	}
	return &dirHandle{r: r, rel: d.rel}, nil
}

// sync does nothing: Windows offers no flush of a directory to a reader's
// handle. NTFS logs the rename in its metadata journal (see docs).
func (d *dirHandle) sync() error { return nil }

func (d *dirHandle) unlink(name string) error { return d.r.Remove(name) }

// ino returns the file index of the regular file name, or 0.
func (d *dirHandle) ino(name string) uint64 {
	if fi, err := d.r.Lstat(name); err != nil || !fi.Mode().IsRegular() {
		return 0
	}
	f, err := d.r.Open(name)
	if err != nil {
		return 0
	}
	defer f.Close()
	id, _, err := fileInfo(f)
	if err != nil {
		return 0
	}
	return id.ino
}

// isDir reports whether the entry name is a directory, not followed.
func (d *dirHandle) isDir(name string) (bool, error) {
	fi, err := d.r.Lstat(name)
	if err != nil {
		return false, err
	}
	return fi.IsDir(), nil
}

// taken reports whether anything, a dangling symlink included, is at name.
func (d *dirHandle) taken(name string) (bool, error) {
	_, err := d.r.Lstat(name)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, err
}

// id is the volume serial number and file index of the open directory.
func (d *dirHandle) id() (fileID, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return fileID{}, err
	}
	defer f.Close()
	id, _, err := fileInfo(f)
	return id, err
}

// idAt is the volume serial number and file index of the directory at rel
// now, opened through the confined walk (os.Root refuses a link that
// leaves).
func (l *FS) idAt(rel string) (fileID, error) {
	f, err := l.root.Open(rel)
	if err != nil {
		return fileID{}, err
	}
	defer f.Close()
	id, _, err := fileInfo(f)
	return id, err
}

// fileInfo is the identity and hard-link count of the open file f.
func fileInfo(f *os.File) (fileID, int, error) {
	var info windows.ByHandleFileInformation
	if err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info); err != nil {
		return fileID{}, 0, err
	}
	return fileID{uint64(info.VolumeSerialNumber), uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)}, int(info.NumberOfLinks), nil
}

// renameAt renames a in df to b in dt, replacing what b names (os.Root's
// rename: POSIX semantics where the filesystem has them). Across two
// directories it walks both paths from the root again, after the sequence
// proved both directories still in place (held.still).
func (l *FS) renameAt(df *dirHandle, a string, dt *dirHandle, b string) error {
	if df.rel == dt.rel {
		return df.r.Rename(a, b)
	}
	return l.root.Rename(path.Join(df.rel, a), path.Join(dt.rel, b))
}

// linkAt makes b in dt a hard link of a in df; it fails if b is taken.
func (l *FS) linkAt(df *dirHandle, a string, dt *dirHandle, b string) error {
	if df.rel == dt.rel {
		return df.r.Link(a, b)
	}
	return l.root.Link(path.Join(df.rel, a), path.Join(dt.rel, b))
}

// fileRef is an open file the compare reads (preadFull).
type fileRef = *os.File

// openEntry opens the entry name of d for reading and describes it. ok is
// false, with no error, when nothing is there, or a symlink or anything
// but a regular file (Lstat, before the open). The caller closes e.f
// (closeRef).
func (d *dirHandle) openEntry(name string) (e opened, ok bool, err error) {
	lfi, err := d.r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return opened{}, false, nil
	}
	if err != nil {
		return opened{}, false, err
	}
	if !lfi.Mode().IsRegular() {
		return opened{}, false, nil
	}
	f, err := d.r.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return opened{}, false, nil
	}
	if err != nil {
		return opened{}, false, err
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return opened{}, false, err
	}
	e = opened{f: f, size: fi.Size(), links: 1, regular: fi.Mode().IsRegular()}
	if id, links, err := fileInfo(f); err == nil {
		e.ino, e.links = id.ino, links
	}
	return e, true, nil
}

func closeRef(f fileRef) { f.Close() }

// preadFull reads into b from off until b is full or the file ends.
func preadFull(f fileRef, b []byte, off int64) (int, error) {
	n, err := f.ReadAt(b, off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

// errExists is what noClobber answers for a taken name.
var errExists error = windows.ERROR_FILE_EXISTS

// isExist and isNotExist tell the errors of a rename apart.
func isExist(err error) bool {
	return errors.Is(err, windows.ERROR_FILE_EXISTS) || errors.Is(err, windows.ERROR_ALREADY_EXISTS)
}

func isNotExist(err error) bool { return errors.Is(err, fs.ErrNotExist) }

// oneEntry reports whether a and b, as the walk saw them, are one file
// spelled two ways (NTFS does not tell letter case apart): exchanging such
// a pair moves nothing, and removing the "old target" afterwards would
// delete the file. Windows listings give no link count, so a move over
// another hard link of the same file is refused too.
func oneEntry(a, b fs.FileInfo) bool {
	return os.SameFile(a, b)
}
