package local

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

var (
	_ fsys.DirOpener  = (*FS)(nil)
	_ fsys.TypeLister = (*FS)(nil)
	_ fsys.EachOpener = (*dir)(nil)
)

// OpenDir opens the directory name (resolved through the confined walk,
// once) as an os.Root of its own: a file opened through it is an entry
// beneath that directory, whatever is swapped in on the way.
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
	l    *FS
	d    *dirHandle
	name string
}

// Open opens the regular file name in the directory, holding the
// directory's shared lock for the open as Open does. A symlink there is
// fsys.ErrNotRegular: it is not followed.
func (d *dir) Open(name string) (io.ReadCloser, fsys.Info, error) {
	unlock, err := d.l.rlock(d.d)
	if err != nil {
		return nil, fsys.Info{}, d.l.fail("read", path.Join(d.name, name), err)
	}
	f, err := d.open(name)
	unlock()
	if err != nil {
		return nil, fsys.Info{}, err
	}
	info, err := d.statFile(f, name)
	if err != nil {
		f.Close()
		return nil, fsys.Info{}, err
	}
	return f, info, nil
}

// open opens the entry name for reading unless Lstat finds a symlink or
// anything but a regular file there; the caller holds the shared lock.
func (d *dir) open(name string) (*os.File, error) {
	const op = "read"
	full := path.Join(d.name, name)
	if !fsys.ValidEntryName(name) {
		return nil, fsys.E(op, full, fsys.ErrInvalid, nil)
	}
	fi, err := d.d.r.Lstat(name)
	if err != nil {
		return nil, d.l.fail(op, full, err)
	}
	if err := confine.NeedFile(op, full, fi); err != nil {
		return nil, err
	}
	f, err := d.d.r.Open(name)
	if err != nil {
		return nil, d.l.fail(op, full, err)
	}
	return f, nil
}

// statFile describes the open file f and refuses anything but a regular
// file.
func (d *dir) statFile(f *os.File, name string) (fsys.Info, error) {
	const op = "read"
	full := path.Join(d.name, name)
	fi, err := f.Stat()
	if err != nil {
		return fsys.Info{}, d.l.fail(op, full, err)
	}
	if err := confine.NeedFile(op, full, fi); err != nil {
		return fsys.Info{}, err
	}
	return infoOf(name, fi), nil
}

func (d *dir) Close() error {
	d.d.close()
	return nil
}

// ReadDirTypes lists the directory at name as ReadDir does, with only each
// entry's name and type.
func (l *FS) ReadDirTypes(name string) ([]fsys.Info, error) {
	const op = "list"
	r, err := l.walkDir(op, name)
	if err != nil {
		return nil, err
	}
	d, err := l.openDir(r.Path)
	if err != nil {
		return nil, l.fail(op, name, err)
	}
	defer d.close()
	return l.readDirTypes(d, name)
}

// ReadDirTypes lists the open directory as FS.ReadDirTypes does.
func (d *dir) ReadDirTypes() ([]fsys.Info, error) { return d.l.readDirTypes(d.d, d.name) }

func (l *FS) readDirTypes(d *dirHandle, name string) ([]fsys.Info, error) {
	f, err := d.r.Open(".")
	if err != nil {
		return nil, l.fail("list", name, err)
	}
	defer f.Close()
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, l.fail("list", name, err)
	}
	slices.SortFunc(ents, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	out := make([]fsys.Info, len(ents))
	for i, e := range ents {
		out[i] = fsys.Info{Name: e.Name(), Type: confine.TypeOf(e.Type()), Links: 1}
	}
	return out, nil
}

// OpenDir opens the subdirectory name of the directory; a symlink there is
// fsys.ErrNotDir, as on Unix: a walk down from an open directory does not
// follow links.
func (d *dir) OpenDir(name string) (fsys.Dir, error) {
	const op = "list"
	full := path.Join(d.name, name)
	if !fsys.ValidEntryName(name) {
		return nil, fsys.E(op, full, fsys.ErrInvalid, nil)
	}
	fi, err := d.d.r.Lstat(name)
	if err != nil {
		return nil, d.l.fail(op, full, err)
	}
	if !fi.IsDir() {
		return nil, fsys.E(op, full, fsys.ErrNotDir, nil)
	}
	sub, err := d.d.r.OpenRoot(name)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, d.l.fail(op, full, err)
		}
		return nil, fsys.E(op, full, fsys.ErrNotDir, err)
	}
	return &dir{l: d.l, d: &dirHandle{r: sub, rel: path.Join(d.d.rel, name)}, name: full}, nil
}

// OpenEach opens names in the directory as Open opens each, under one hold
// of the directory's shared lock for all the opens, then describes, hands
// over and closes them one at a time.
func (d *dir) OpenEach(names []string, fn func(i int, r io.Reader, info fsys.Info, err error) error) error {
	files := make([]*os.File, len(names))
	errs := make([]error, len(names))
	unlock, err := d.l.rlock(d.d)
	if err != nil {
		for i, name := range names {
			if err := fn(i, nil, fsys.Info{}, d.l.fail("read", path.Join(d.name, name), err)); err != nil {
				return err
			}
		}
		return nil
	}
	for i, name := range names {
		files[i], errs[i] = d.open(name)
	}
	unlock()
	defer func() {
		for _, f := range files {
			if f != nil {
				f.Close()
			}
		}
	}()
	for i, name := range names {
		if errs[i] != nil {
			if err := fn(i, nil, fsys.Info{}, errs[i]); err != nil {
				return err
			}
			continue
		}
		info, err := d.statFile(files[i], name)
		if err == nil {
			err = fn(i, files[i], info, nil)
		} else {
			err = fn(i, nil, fsys.Info{}, err)
		}
		files[i].Close()
		files[i] = nil
		if err != nil {
			return err
		}
	}
	return nil
}
