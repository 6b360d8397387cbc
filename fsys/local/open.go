package local

import (
	"io"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

var _ fsys.Opener = (*FS)(nil)

// Open opens the regular file at name for reading through the confined walk
// and describes the open file (from fstat, so the Info is that of the bytes
// the reader returns). A FIFO, device or socket fails with
// fsys.ErrNotRegular without blocking. The caller closes the reader.
func (l *FS) Open(name string) (io.ReadCloser, fsys.Info, error) {
	const op = "read"
	r, err := l.walk(op, name, true)
	if err != nil {
		return nil, fsys.Info{}, err
	}
	if err := r.NeedFile(op, name); err != nil {
		return nil, fsys.Info{}, err
	}
	f, err := l.openForRead(r.Path)
	if err != nil {
		return nil, fsys.Info{}, l.fail(op, name, err)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fsys.Info{}, l.fail(op, name, err)
	}
	if err := confine.NeedFile(op, name, fi); err != nil {
		f.Close()
		return nil, fsys.Info{}, err
	}
	return f, infoOf(fi.Name(), fi), nil
}

// OpenResolved opens for reading rel, a path Resolve returned just before,
// without walking it again: the caller already walked the name it spelled
// (one confined walk per call). The open still goes through the root, so a
// symlink swapped in since cannot lead out, as with Open, whose walk and
// open are no more atomic. It checks the file's type after the open
// (O_NONBLOCK, then fstat), as grep's walk does; a FIFO, device, socket or
// directory fails with fsys.ErrNotRegular, and the caller may then ask
// Open, whose walk names what is wrong.
func (l *FS) OpenResolved(rel string) (io.ReadCloser, fsys.Info, error) {
	const op = "read"
	f, err := l.openForRead(rel)
	if err != nil {
		return nil, fsys.Info{}, l.fail(op, rel, err)
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fsys.E(op, rel, fsys.ErrNotRegular, nil)
	}
	if err != nil {
		f.Close()
		return nil, fsys.Info{}, err
	}
	return f, infoOf(fi.Name(), fi), nil
}
