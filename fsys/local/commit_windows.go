package local

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"time"

	"golang.org/x/sys/windows"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

// chunkSize is how much of a file is read at a time to compare it.
const chunkSize = 256 << 10

// DefaultLockWait is how long a directory lock is waited for when
// Options.LockWait is 0.
const DefaultLockWait = 5 * time.Second

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

// sync does nothing: Windows offers no flush of a directory to a reader's
// handle. NTFS logs the rename in its metadata journal (see docs).
func (d *dirHandle) sync() error { return nil }

func (d *dirHandle) unlink(name string) error { return d.r.Remove(name) }

// writeTemp makes a new temp file in d (exclusive create) holding data,
// flushed to disk with FlushFileBuffers (File.Sync), read-only when perm
// has no write bit, and returns its name. temp is the caller's name for
// it, or "" for a fresh one.
func (l *FS) writeTemp(d *dirHandle, data []byte, perm fs.FileMode, temp string) (string, error) {
	for try := 0; ; try++ {
		name := temp
		if name == "" {
			name = l.tempName()
		}
		f, err := d.r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
		if errors.Is(err, fs.ErrExist) && try+1 < tempTries && temp == "" {
			continue
		}
		if errors.Is(err, fs.ErrExist) {
			return "", tempTaken(name, temp != "", try+1, err)
		}
		if err != nil {
			return "", err
		}
		_, err = f.Write(data)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err == nil && perm&0o200 == 0 {
			err = d.r.Chmod(name, perm)
		}
		if err != nil {
			d.unlink(name)
			return "", err
		}
		return name, nil
	}
}

// found is what a compare saw in a directory entry.
type found struct {
	match   bool
	version fsys.Version // when !match and a regular file was there
	links   int
}

// check opens the entry name of d and reports whether it is a regular file
// holding what expect expects. Nothing there, a symlink (Lstat, before the
// open) or a special file is a mismatch, not an error.
func (l *FS) check(d *dirHandle, name string, expect fsys.Expected) (found, error) {
	lfi, err := d.r.Lstat(name)
	if errors.Is(err, fs.ErrNotExist) {
		return found{}, nil
	}
	if err != nil {
		return found{}, err
	}
	if !lfi.Mode().IsRegular() {
		return found{}, nil
	}
	f, err := d.r.Open(name)
	if errors.Is(err, fs.ErrNotExist) {
		return found{}, nil
	}
	if err != nil {
		return found{}, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return found{}, err
	}
	res := found{links: 1}
	var info windows.ByHandleFileInformation
	if windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info) == nil {
		res.links = int(info.NumberOfLinks)
	}
	if !fi.Mode().IsRegular() {
		return res, nil
	}
	if expect.Bytes == nil {
		res.version, err = l.versionOf(f)
		res.match = err == nil && res.version == expect.Version
		return res, err
	}
	res.match, err = l.matches(f, fi.Size(), expect.Bytes)
	if err == nil && !res.match {
		res.version, err = l.versionOf(f)
	}
	return res, err
}

func (l *FS) buf() *[]byte {
	if b, ok := l.bufPool.Get().(*[]byte); ok {
		return b
	}
	b := make([]byte, chunkSize)
	return &b
}

// matches compares the file r, of the given size, with want, chunk by
// chunk, stopping at the first difference.
func (l *FS) matches(r io.ReaderAt, size int64, want []byte) (bool, error) {
	if int64(len(want)) != size {
		return false, nil
	}
	bp := l.buf()
	defer l.bufPool.Put(bp)
	b := *bp
	for off := 0; off < len(want); {
		n := min(len(b), len(want)-off)
		m, err := readFullAt(r, b[:n], int64(off))
		if err != nil {
			return false, err
		}
		if m < n || !bytes.Equal(b[:n], want[off:off+n]) {
			return false, nil
		}
		off += n
	}
	m, err := readFullAt(r, b[:1], size) // nothing past the expected end
	return m == 0, err
}

// versionOf hashes the whole file r.
func (l *FS) versionOf(r io.ReaderAt) (fsys.Version, error) {
	bp := l.buf()
	defer l.bufPool.Put(bp)
	b := *bp
	h := sha256.New()
	for off := int64(0); ; {
		m, err := readFullAt(r, b, off)
		if err != nil {
			return "", err
		}
		h.Write(b[:m])
		off += int64(m)
		if m < len(b) {
			break
		}
	}
	return fsys.Version(fsys.VersionPrefix + hex.EncodeToString(h.Sum(nil))), nil
}

// readFullAt reads into b from off until b is full or the file ends.
func readFullAt(r io.ReaderAt, b []byte, off int64) (int, error) {
	n, err := r.ReadAt(b, off)
	if errors.Is(err, io.EOF) {
		err = nil
	}
	return n, err
}

func (l *FS) hook(h func(string), name string) {
	if h != nil {
		h(name)
	}
}

func conflict(op, name string, expect fsys.Version, f found) error {
	return fsys.E(op, name, fsys.ErrConflict, &fsys.ConflictError{Expected: expect, Found: f.version})
}

func linkNote(name string, links int, keep string) string {
	if links == 2 {
		return fmt.Sprintf("%s had 2 hard links; the other keeps the %s", name, keep)
	}
	return fmt.Sprintf("%s had %d hard links; the other %d keep the %s", name, links, links-1, keep)
}

// openParent resolves name through the confined walk, lets check refuse
// what was found, then opens the directory that holds it. It returns the
// walk, the open directory (the caller closes it) and the name's last
// component there.
func (l *FS) openParent(op, name string, check func(confine.Result) error) (confine.Result, *dirHandle, string, error) {
	r, err := l.walk(op, name, true)
	if err != nil {
		return r, nil, "", err
	}
	if err := check(r); err != nil {
		return r, nil, "", err
	}
	d, err := l.openDir(path.Dir(r.Path))
	if err != nil {
		return r, nil, "", l.fail(op, name, err)
	}
	return r, d, path.Base(r.Path), nil
}

// Create makes a new regular file at name holding data; perm 0 is 0o644,
// and on Windows only its write bit counts (none: read-only). It never
// replaces anything: the temp file is hard-linked to name, which fails on
// an existing entry (fsys.ErrExists), then removed. Where the filesystem
// has no hard links (FAT) it checks, then renames, under the directory
// lock (Commit.Fallback). The parent directory must exist.
func (l *FS) Create(name string, data []byte, perm fs.FileMode) (fsys.Commit, error) {
	return l.CreateAs(name, data, perm, "")
}

// CreateAs is Create writing through the temp file named temp, a name
// TempName returned ("" for a fresh one), so that a caller that recorded it
// before the change can remove exactly it after a crash (RemoveTemp).
func (l *FS) CreateAs(name string, data []byte, perm fs.FileMode, temp string) (fsys.Commit, error) {
	return l.CreateWith(name, data, perm, fsys.Expected{Temp: temp})
}

// CreateWith is CreateAs taking the temp file's name from exp.Temp and,
// when exp.Ready is not nil, calling it once the new bytes are durable in
// the temp file and before they are linked in, as Replace does: an error
// from it removes the temp file, creates nothing and is returned. A caller
// makes its write-ahead intent durable there while the bytes are written.
// exp.Version and exp.Bytes are not used.
func (l *FS) CreateWith(name string, data []byte, perm fs.FileMode, exp fsys.Expected) (fsys.Commit, error) {
	const op = "create"
	temp := exp.Temp
	if err := checkTemp(op, name, temp); err != nil {
		return fsys.Commit{}, err
	}
	r, d, base, err := l.openParent(op, name, func(r confine.Result) error {
		switch {
		case r.Exists(), r.FinalLink:
			return fsys.E(op, name, fsys.ErrExists, nil)
		case len(r.Rest) > 0:
			return fsys.E(op, name, fsys.ErrNotFound, errors.New("parent directory does not exist"))
		}
		return nil
	})
	if err != nil {
		return fsys.Commit{}, err
	}
	defer d.close()
	if perm == 0 {
		perm = 0o644
	}
	tmp, err := l.writeTemp(d, data, perm, temp)
	if err != nil {
		return fsys.Commit{}, l.fail(op, name, err)
	}
	if exp.Ready != nil {
		if err := exp.Ready(); err != nil {
			d.unlink(tmp)
			return fsys.Commit{}, err
		}
	}
	l.hook(l.opts.Hooks.BeforeSwap, r.Path)
	unlock, err := l.lock(d)
	if err != nil {
		d.unlink(tmp)
		return fsys.Commit{}, l.fail(op, name, err)
	}
	cm := fsys.Commit{Resolved: r.Path}
	cm.Fallback, err = noClobber(d.r, tmp, base)
	unlock()
	if err != nil {
		d.unlink(tmp)
		return fsys.Commit{}, l.fail(op, name, err)
	}
	l.hook(l.opts.Hooks.AfterSwap, r.Path)
	return cm, nil
}

// noClobber moves from to the free name to within r: a hard link (which
// fails if to exists), then the removal of from. For a directory, or where
// hard links are refused, it checks, then renames; racy says so.
func noClobber(r *os.Root, from, to string) (racy bool, err error) {
	fi, err := r.Lstat(from)
	if err != nil {
		return false, err
	}
	if !fi.IsDir() {
		err := r.Link(from, to)
		switch {
		case err == nil:
			r.Remove(from)
			return false, nil
		case !errors.Is(err, windows.ERROR_NOT_SUPPORTED) && !errors.Is(err, windows.ERROR_INVALID_FUNCTION):
			return false, err
		}
	}
	switch _, err := r.Lstat(to); {
	case err == nil:
		return true, windows.ERROR_FILE_EXISTS
	case !errors.Is(err, fs.ErrNotExist):
		return true, err
	}
	return true, r.Rename(from, to)
}

// Replace swaps data in for the regular file at name if and only if it
// holds the bytes expect describes; otherwise it fails with
// fsys.ErrConflict wrapping a *fsys.ConflictError and the file keeps
// whatever it holds. A symlink on the way is followed and kept.
//
// Windows has no exchange of two names: under the directory lock the file
// is compared, then the temp file is renamed over it (a replacing rename,
// os.Root's). Commit.Fallback is always true: a program that does not take
// the lock and writes the file between the compare and the rename loses
// its write. The new file keeps the read-only flag; owner, ACLs and
// alternate streams are those a new file gets in the directory. A file
// another program holds open without delete sharing cannot be replaced:
// the call fails and nothing changes.
func (l *FS) Replace(name string, data []byte, expect fsys.Expected) (fsys.Commit, error) {
	const op = "replace"
	if err := checkTemp(op, name, expect.Temp); err != nil {
		return fsys.Commit{}, err
	}
	r, d, base, err := l.openParent(op, name, func(r confine.Result) error { return r.NeedFile(op, name) })
	if err != nil {
		return fsys.Commit{}, err
	}
	defer d.close()
	tmp, err := l.writeTemp(d, data, r.Info.Mode().Perm(), expect.Temp)
	if err != nil {
		return fsys.Commit{}, l.fail(op, name, err)
	}
	cm := fsys.Commit{Resolved: r.Path, Fallback: true}
	if expect.Ready != nil {
		if err := expect.Ready(); err != nil {
			d.unlink(tmp)
			return cm, err
		}
	}
	l.hook(l.opts.Hooks.BeforeSwap, r.Path)
	unlock, err := l.lock(d)
	if err != nil {
		d.unlink(tmp)
		return cm, l.fail(op, name, err)
	}
	f, err := l.check(d, base, expect)
	if err == nil && f.match {
		err = d.r.Rename(tmp, base)
	}
	unlock()
	if err != nil || !f.match {
		d.unlink(tmp)
	}
	if err != nil {
		return cm, l.fail(op, name, err)
	}
	if !f.match {
		return cm, conflict(op, name, expect.Version, f)
	}
	l.hook(l.opts.Hooks.AfterSwap, r.Path)
	if f.links > 1 {
		cm.Notes = append(cm.Notes, linkNote(name, f.links, "old bytes"))
	}
	return cm, nil
}

// Remove deletes the regular file at name if it holds the bytes expect
// describes; otherwise fsys.ErrConflict. It never removes directories. A
// symlink on the way is followed: the file it leads to is removed. Under
// the directory lock the file is compared, then removed
// (Commit.Fallback).
func (l *FS) Remove(name string, expect fsys.Expected) (fsys.Commit, error) {
	const op = "remove"
	if err := checkTemp(op, name, expect.Temp); err != nil {
		return fsys.Commit{}, err
	}
	r, d, base, err := l.openParent(op, name, func(r confine.Result) error { return r.NeedFile(op, name) })
	if err != nil {
		return fsys.Commit{}, err
	}
	defer d.close()
	cm := fsys.Commit{Resolved: r.Path, Fallback: true}
	l.hook(l.opts.Hooks.BeforeSwap, r.Path)
	unlock, err := l.lock(d)
	if err != nil {
		return cm, l.fail(op, name, err)
	}
	f, err := l.check(d, base, expect)
	if err == nil && f.match {
		err = d.unlink(base)
	}
	unlock()
	if err != nil {
		return cm, l.fail(op, name, err)
	}
	if !f.match {
		return cm, conflict(op, name, expect.Version, f)
	}
	l.hook(l.opts.Hooks.AfterSwap, r.Path)
	if f.links > 1 {
		cm.Notes = append(cm.Notes, linkNote(name, f.links, "bytes"))
	}
	if r.FinalLink {
		cm.Notes = append(cm.Notes, fmt.Sprintf("%s is a symlink; its target %s was removed and the link now dangles", name, r.Path))
	}
	return cm, nil
}
