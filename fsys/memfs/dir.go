package memfs

import (
	"bytes"
	"io"
	"path"
	"sort"

	"github.com/stet-dev/stet/fsys"
)

var (
	_ fsys.DirOpener  = (*FS)(nil)
	_ fsys.TypeLister = (*FS)(nil)
	_ fsys.DirWalker  = (*dir)(nil)
)

// ReadDirTypes lists the directory at name as ReadDir does, each entry
// with only its name and type, as fsys/local does.
func (m *FS) ReadDirTypes(name string) ([]fsys.Info, error) {
	const op = "list"
	m.mu.Lock()
	defer m.mu.Unlock()
	d, err := m.walkDir(op, name)
	if err != nil {
		return nil, err
	}
	return typesOf(d), nil
}

// walkDir resolves name and requires a directory there. Callers hold m.mu.
func (m *FS) walkDir(op, name string) (*node, error) {
	r, err := m.walk(op, name, true)
	if err != nil {
		return nil, err
	}
	switch {
	case !r.Exists():
		return nil, fsys.E(op, name, fsys.ErrNotFound, nil)
	case !r.Info.IsDir():
		return nil, fsys.E(op, name, fsys.ErrNotDir, nil)
	}
	return nodeOf(r), nil
}

// typesOf lists the directory d by name and type. Callers hold m.mu.
func typesOf(d *node) []fsys.Info {
	out := make([]fsys.Info, 0, len(d.kids))
	for k, n := range d.kids {
		out = append(out, fsys.Info{Name: k, Type: n.typ, Links: 1})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// OpenDir opens the directory name, resolved once. Like a directory
// descriptor of fsys/local, the Dir holds the directory itself, not its
// path: it keeps designating the same directory when the directory is
// moved, and a file opened through it is the entry of that name in it,
// never a symlink's target.
func (m *FS) OpenDir(name string) (fsys.Dir, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	d, err := m.walkDir("list", name)
	if err != nil {
		return nil, err
	}
	return &dir{m: m, n: d, name: name}, nil
}

type dir struct {
	m    *FS
	n    *node
	name string // as opened, for messages
}

// Open opens the regular file name in the directory; a symlink is refused
// with fsys.ErrNotRegular, as an open with O_NOFOLLOW refuses it.
func (d *dir) Open(name string) (io.ReadCloser, fsys.Info, error) {
	const op = "read"
	full := path.Join(d.name, name)
	if !fsys.ValidEntryName(name) {
		return nil, fsys.Info{}, fsys.E(op, full, fsys.ErrInvalid, nil)
	}
	d.m.mu.Lock()
	defer d.m.mu.Unlock()
	_, n, ok := d.m.kid(d.n, name)
	switch {
	case !ok:
		return nil, fsys.Info{}, fsys.E(op, full, fsys.ErrNotFound, nil)
	case n.typ == fsys.TypeDir:
		return nil, fsys.Info{}, fsys.E(op, full, fsys.ErrIsDir, nil)
	case n.typ != fsys.TypeFile:
		return nil, fsys.Info{}, fsys.E(op, full, fsys.ErrNotRegular, nil)
	}
	return io.NopCloser(bytes.NewReader(n.data)), infoOf(name, n), nil
}

// ReadDirTypes lists the open directory as FS.ReadDirTypes does.
func (d *dir) ReadDirTypes() ([]fsys.Info, error) {
	d.m.mu.Lock()
	defer d.m.mu.Unlock()
	return typesOf(d.n), nil
}

// OpenDir opens the subdirectory name of the directory, never through a
// symlink (fsys.ErrNotDir).
func (d *dir) OpenDir(name string) (fsys.Dir, error) {
	const op = "list"
	full := path.Join(d.name, name)
	if !fsys.ValidEntryName(name) {
		return nil, fsys.E(op, full, fsys.ErrInvalid, nil)
	}
	d.m.mu.Lock()
	defer d.m.mu.Unlock()
	_, n, ok := d.m.kid(d.n, name)
	switch {
	case !ok:
		return nil, fsys.E(op, full, fsys.ErrNotFound, nil)
	case n.typ != fsys.TypeDir:
		return nil, fsys.E(op, full, fsys.ErrNotDir, nil)
	}
	return &dir{m: d.m, n: n, name: full}, nil
}

// Close releases nothing: the directory is memory.
func (d *dir) Close() error { return nil }
