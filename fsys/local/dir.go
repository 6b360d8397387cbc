//go:build unix

package local

import (
	"io"
	"os"
	"path"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

var _ fsys.DirOpener = (*FS)(nil)

// OpenDir opens the directory name (resolved through the confined walk,
// once) so that its files can be opened by name with openat(2) and
// O_NOFOLLOW: a file opened through it is the entry of that name in that
// directory, never a symlink's target.
func (l *FS) OpenDir(name string) (fsys.Dir, error) {
	const op = "list"
	r, err := l.walkDir(op, name)
	if err != nil {
		return nil, err
	}
	d, err := l.openDir(r.Path)
	if err != nil {
		return nil, l.fail(op, name, err)
	}
	return &dir{l: l, d: d, name: name}, nil
}

type dir struct {
	l      *FS
	d      *dirHandle
	name   string
	listed bool // ReadDirTypes has read the entries once (and moved the offset)
}

// Open opens the regular file name in the directory, holding the
// directory's shared lock for the open as Open does.
func (d *dir) Open(name string) (io.ReadCloser, fsys.Info, error) {
	const op = "read"
	full := path.Join(d.name, name)
	if !fsys.ValidEntryName(name) {
		return nil, fsys.Info{}, fsys.E(op, full, fsys.ErrInvalid, nil)
	}
	unlock, err := d.l.rlock(d.d)
	if err != nil {
		return nil, fsys.Info{}, d.l.fail(op, full, err)
	}
	var fd int
	err = retry(func() (err error) {
		fd, err = unix.Openat(d.d.fd, name, unix.O_RDONLY|unix.O_NOFOLLOW|unix.O_NONBLOCK|unix.O_CLOEXEC, 0)
		return err
	})
	unlock()
	if err == unix.ELOOP {
		return nil, fsys.Info{}, fsys.E(op, full, fsys.ErrNotRegular, err)
	}
	if err != nil {
		return nil, fsys.Info{}, d.l.fail(op, full, &os.PathError{Op: "openat", Path: full, Err: err})
	}
	f := os.NewFile(uintptr(fd), full)
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fsys.Info{}, d.l.fail(op, full, err)
	}
	if err := confine.NeedFile(op, full, fi); err != nil {
		f.Close()
		return nil, fsys.Info{}, err
	}
	return f, infoOf(name, fi), nil
}

func (d *dir) Close() error {
	d.d.close()
	return nil
}
