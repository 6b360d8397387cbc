//go:build unix

package local

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

var (
	_ fsys.Holder = (*FS)(nil)
	_ fsys.Handle = (*handle)(nil)
)

// handle is the fsys.Handle Hold returns: the name held (held, whose
// methods below are the Handle's) and what only a Handle answers.
type handle struct {
	held
	key  string   // the lock key: the resolved path
	hops []string // Trace: the links followed, then the resolved path
}

// Hold resolves name once through the confined walk, following symlinks
// inside the root (the final one too), and opens the directory that holds
// what it resolves to (fsys.Holder). The Handle's operations are openat,
// fstatat and renameat relative to that directory: the name is not walked
// again, except that a file found replaced by a symlink since is looked up
// by name as Stat, Open, Replace and Remove would. Every change checks
// first, under the directory lock and just before its swap, that the held
// directory is still the one at its path inside the root (device and
// inode against a fresh confined lookup), and fails with fsys.ErrMoved,
// changing nothing, when another process moved it, or a directory above
// it, away or replaced one with a symlink.
func (l *FS) Hold(name string) (fsys.Handle, error) {
	const op = "resolve"
	r, err := l.walk(op, name, true)
	if err != nil {
		return nil, err
	}
	full, ok := r.Full()
	switch {
	case !ok:
		return nil, fsys.E(op, name, fsys.ErrOutside, nil)
	case len(r.Rest) > 0:
		return nil, fsys.E(op, name, fsys.ErrNotFound, errors.New("parent directory does not exist"))
	case r.Path == ".":
		return nil, fsys.E(op, name, fsys.ErrIsDir, errors.New("the root itself has no directory to hold"))
	}
	d, err := l.openDir(path.Dir(r.Path))
	if err != nil {
		return nil, l.fail(op, name, err)
	}
	hops := append(append([]string(nil), r.Links...), full)
	return &handle{held: held{l: l, name: name, r: r, d: d, base: path.Base(r.Path)}, key: full, hops: hops}, nil
}

// errRelink says the entry is a symlink now: the name is resolved again.
var errRelink = errors.New("the file is a symlink now")

// entry describes the held file without following it, refusing what a
// file operation may not change as confine.NeedFile does; errRelink when
// a symlink stands there now.
func (h *held) entry(op string) (*unix.Stat_t, error) {
	if h.d == nil {
		return nil, h.closed(op)
	}
	var st unix.Stat_t
	err := retry(func() error { return unix.Fstatat(h.d.fd, h.base, &st, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return nil, h.l.fail(op, h.name, err)
	}
	switch typeOfMode(uint32(st.Mode)) {
	case fsys.TypeFile:
		return &st, nil
	case fsys.TypeSymlink:
		return nil, errRelink
	case fsys.TypeDir:
		return nil, fsys.E(op, h.name, fsys.ErrIsDir, nil)
	}
	return nil, fsys.E(op, h.name, fsys.ErrNotRegular, nil)
}

// closed is the error of an operation on a Handle after its Close: the
// descriptor's number may belong to another file by then.
func (h *held) closed(op string) error {
	return fsys.E(op, h.name, fsys.ErrInvalid, os.ErrClosed)
}

func (h *handle) Trace() []string { return h.hops }
func (h *handle) Held() bool      { return true }

// Stat describes the file, as FS.Stat does.
func (h *held) Stat() (fsys.Info, error) {
	const op = "stat"
	if h.d == nil {
		return fsys.Info{}, h.closed(op)
	}
	var st unix.Stat_t
	err := retry(func() error { return unix.Fstatat(h.d.fd, h.base, &st, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return fsys.Info{}, h.l.fail(op, h.name, err)
	}
	if typeOfMode(uint32(st.Mode)) == fsys.TypeSymlink {
		return h.l.Stat(h.name)
	}
	in := infoOfStat(path.Base(path.Clean(h.name)), &st)
	if in.Type == fsys.TypeDir {
		in.Links, in.ID = 1, ""
	}
	return in, nil
}

// Beside describes the entry name of the held directory, not followed.
func (h *held) Beside(name string) (fsys.Info, error) {
	const op = "lstat"
	if h.d == nil {
		return fsys.Info{}, h.closed(op)
	}
	full := path.Join(h.d.rel, name)
	if !fsys.ValidEntryName(name) {
		return fsys.Info{}, fsys.E(op, full, fsys.ErrInvalid, nil)
	}
	var st unix.Stat_t
	err := retry(func() error { return unix.Fstatat(h.d.fd, name, &st, unix.AT_SYMLINK_NOFOLLOW) })
	if err != nil {
		return fsys.Info{}, h.l.fail(op, full, err)
	}
	in := infoOfStat(name, &st)
	if in.Type == fsys.TypeDir {
		in.Links, in.ID = 1, ""
	}
	return in, nil
}

// open opens the held file for reading under the directory's shared lock,
// as FS.Open does; a nil file and no error when a symlink stands there now.
func (h *held) open(op string) (*os.File, fs.FileInfo, error) {
	if h.d == nil {
		return nil, nil, h.closed(op)
	}
	unlock, err := h.l.rlock(h.d)
	if err != nil {
		return nil, nil, h.l.fail(op, h.name, err)
	}
	var fd int
	err = retry(func() (err error) {
		fd, err = unix.Openat(h.d.fd, h.base, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	unlock()
	if err == unix.ELOOP {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, h.l.fail(op, h.name, &os.PathError{Op: "openat", Path: h.r.Path, Err: err})
	}
	f := os.NewFile(uintptr(fd), h.r.Path)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, h.l.fail(op, h.name, err)
	}
	if err := confine.NeedFile(op, h.name, fi); err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

// Open opens the file for reading, as FS.Open does.
func (h *held) Open() (io.ReadCloser, fsys.Info, error) {
	f, fi, err := h.open("read")
	if err != nil {
		return nil, fsys.Info{}, err
	}
	if f == nil {
		return h.l.Open(h.name)
	}
	return f, infoOf(fi.Name(), fi), nil
}

// ReadFile returns the file's bytes, as FS.ReadFile does.
func (h *held) ReadFile() ([]byte, error) {
	rc, info, err := h.Open()
	if err != nil {
		return nil, err
	}
	defer rc.Close()
	data := make([]byte, 0, info.Size+1)
	for {
		n, err := rc.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if errors.Is(err, io.EOF) {
			return data, nil
		}
		if err != nil {
			return nil, h.l.fail("read", h.name, err)
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// Check is FS.Check of the name.
func (h *held) Check(expect fsys.Expected) (bool, error) {
	const op = "check"
	f, fi, err := h.open(op)
	if err != nil {
		return false, err
	}
	if f == nil {
		return h.l.Check(h.name, expect)
	}
	defer f.Close()
	var ok bool
	if expect.Bytes == nil {
		var v fsys.Version
		v, err = h.l.versionOfFile(f)
		ok = v == expect.Version
	} else {
		ok, err = h.l.matchesFile(f, fi.Size(), expect.Bytes)
	}
	if err != nil {
		return false, h.l.fail(op, h.name, err)
	}
	return ok, nil
}

// Lock takes the in-process lock of the resolved file, as FS.Lock does.
func (h *handle) Lock(ctx context.Context) (func(), error) { return h.l.locks.Lock(ctx, h.key) }

// Create is FS.CreateWith of the name.
func (h *held) Create(data []byte, perm fs.FileMode, exp fsys.Expected) (fsys.Commit, error) {
	const op = "create"
	if err := checkTemp(op, h.name, exp.Temp); err != nil {
		return fsys.Commit{}, err
	}
	if h.d == nil {
		return fsys.Commit{}, h.closed(op)
	}
	if h.r.FinalLink {
		// A create never goes through a symlink, dangling or not.
		return fsys.Commit{}, fsys.E(op, h.name, fsys.ErrExists, nil)
	}
	var st unix.Stat_t
	switch err := unix.Fstatat(h.d.fd, h.base, &st, unix.AT_SYMLINK_NOFOLLOW); err {
	case unix.ENOENT:
	case nil:
		return fsys.Commit{}, fsys.E(op, h.name, fsys.ErrExists, nil)
	default:
		return fsys.Commit{}, h.l.fail(op, h.name, err)
	}
	return h.create(data, perm, exp)
}

// Replace is FS.Replace of the name.
func (h *held) Replace(data []byte, expect fsys.Expected) (fsys.Commit, error) {
	return h.replaceKeeping(data, expect, nil)
}

// ReplaceKeep is FS.ReplaceKeep of the name.
func (h *held) ReplaceKeep(data []byte, expect fsys.Expected, keep fsys.Keep) (fsys.Commit, fsys.Kept, error) {
	if keep.Save == nil {
		return fsys.Commit{}, fsys.Kept{}, fsys.E("replace", h.name, fsys.ErrInvalid, errors.New("a Keep without Save"))
	}
	kp := &keeper{k: keep}
	cm, err := h.replaceKeeping(data, expect, kp)
	return cm, kp.kept, err
}

func (h *held) replaceKeeping(data []byte, expect fsys.Expected, kp *keeper) (fsys.Commit, error) {
	const op = "replace"
	if err := checkTemp(op, h.name, expect.Temp); err != nil {
		return fsys.Commit{}, err
	}
	st, err := h.entry(op)
	if err == errRelink {
		return h.l.replace(h.name, data, expect, kp)
	}
	if err != nil {
		return fsys.Commit{}, err
	}
	return h.replace(data, expect, kp, uint32(st.Mode)&0o7777)
}

// Remove is FS.Remove of the name.
func (h *held) Remove(expect fsys.Expected) (fsys.Commit, error) {
	return h.removeKeeping(expect, nil)
}

// RemoveKeep is FS.RemoveKeep of the name.
func (h *held) RemoveKeep(expect fsys.Expected, keep fsys.Keep) (fsys.Commit, fsys.Kept, error) {
	if keep.Save == nil {
		return fsys.Commit{}, fsys.Kept{}, fsys.E("remove", h.name, fsys.ErrInvalid, errors.New("a Keep without Save"))
	}
	kp := &keeper{k: keep}
	cm, err := h.removeKeeping(expect, kp)
	return cm, kp.kept, err
}

func (h *held) removeKeeping(expect fsys.Expected, kp *keeper) (fsys.Commit, error) {
	const op = "remove"
	if err := checkTemp(op, h.name, expect.Temp); err != nil {
		return fsys.Commit{}, err
	}
	_, err := h.entry(op)
	if err == errRelink {
		return h.l.remove(h.name, expect, kp)
	}
	if err != nil {
		return fsys.Commit{}, err
	}
	return h.remove(expect, kp)
}

// Close releases the held directory; later operations fail.
func (h *held) Close() error {
	if h.d != nil {
		h.d.close()
		h.d = nil
	}
	return nil
}
