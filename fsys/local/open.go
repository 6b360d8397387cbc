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
