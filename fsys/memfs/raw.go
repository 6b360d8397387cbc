package memfs

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

// The helpers below change the tree as another program would, without the
// provider's guards (no compare-and-swap, no temp files). Like system
// calls, they follow symlinks in parent directories, but only inside the
// tree: memfs has nothing outside.

// place resolves where a new entry name would go: its parent directory
// (following links) and base name. Callers hold m.mu.
func (m *FS) place(op, name string) (*node, string, error) {
	c, err := confine.Clean(op, name)
	if err != nil {
		return nil, "", err
	}
	if c == "." {
		return nil, "", fsys.E(op, name, fsys.ErrExists, nil)
	}
	r, err := confine.Walk(tree{m}, op, path.Dir(c), true, []string{m.dir})
	if err != nil {
		return nil, "", fail(op, name, err)
	}
	if !r.Exists() {
		return nil, "", fsys.E(op, name, fsys.ErrNotFound, nil)
	}
	d := nodeOf(r)
	if d.typ != fsys.TypeDir {
		return nil, "", fsys.E(op, name, fsys.ErrNotDir, nil)
	}
	return d, path.Base(c), nil
}

// WriteFile writes data to name in place, creating it with perm if missing,
// following a final symlink (even a dangling one) as os.WriteFile does.
// Other names of the same file see the new bytes.
func (m *FS) WriteFile(name string, data []byte, perm fs.FileMode) error {
	const op = "writefile"
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := confine.Clean(op, name)
	if err != nil {
		return err
	}
	r, err := confine.Walk(tree{m}, op, c, true, []string{m.dir})
	if err != nil {
		return fail(op, name, err)
	}
	if r.Exists() {
		n := nodeOf(r)
		if n.typ != fsys.TypeFile {
			return fsys.E(op, name, fsys.ErrNotRegular, nil)
		}
		n.data = append([]byte{}, data...)
		n.mtime = time.Now()
		return nil
	}
	if len(r.Rest) > 0 {
		return fsys.E(op, name, fsys.ErrNotFound, nil)
	}
	parent, base := m.parentOf(r.Path)
	if parent == nil {
		return fsys.E(op, name, fsys.ErrNotFound, nil)
	}
	parent.kids[base] = &node{typ: fsys.TypeFile, data: append([]byte{}, data...), perm: perm & fsys.ModeBits, links: 1, mtime: time.Now()}
	return nil
}

// Symlink makes name a symlink to target. The target is stored as given
// and checked only when the link is followed.
func (m *FS) Symlink(target, name string) error {
	const op = "symlink"
	if target == "" || strings.IndexByte(target, 0) >= 0 {
		return fsys.E(op, name, fsys.ErrInvalid, errors.New("bad target"))
	}
	return m.add(op, name, &node{typ: fsys.TypeSymlink, target: target, links: 1, mtime: time.Now()})
}

// Mkfifo makes name a special file (a named pipe): ReadFile on it fails
// with fsys.ErrNotRegular.
func (m *FS) Mkfifo(name string) error {
	return m.add("mkfifo", name, &node{typ: fsys.TypeOther, perm: 0o644, links: 1, mtime: time.Now()})
}

// Mkdir makes the directory name; its parent must exist.
func (m *FS) Mkdir(name string) error { return m.add("mkdir", name, newDir()) }

func (m *FS) add(op, name string, n *node) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	parent, base, err := m.place(op, name)
	if err != nil {
		return err
	}
	if _, _, taken := m.kid(parent, base); taken {
		return fsys.E(op, name, fsys.ErrExists, nil)
	}
	parent.kids[base] = n
	return nil
}

// Link makes newname another name of the file oldname (a hard link). A
// final symlink at oldname is linked itself, as linkat(2) does.
func (m *FS) Link(oldname, newname string) error {
	const op = "link"
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.walk(op, oldname, false)
	if err != nil {
		return err
	}
	if !r.Exists() {
		return fsys.E(op, oldname, fsys.ErrNotFound, nil)
	}
	n := nodeOf(r)
	if n.typ == fsys.TypeDir {
		return fsys.E(op, oldname, fsys.ErrIsDir, nil)
	}
	parent, base, err := m.place(op, newname)
	if err != nil {
		return err
	}
	if _, _, taken := m.kid(parent, base); taken {
		return fsys.E(op, newname, fsys.ErrExists, nil)
	}
	parent.kids[base] = n
	n.links++
	return nil
}

// Readlink returns the target of the symlink at name.
func (m *FS) Readlink(name string) (string, error) {
	const op = "readlink"
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.walk(op, name, false)
	if err != nil {
		return "", err
	}
	if !r.Exists() {
		return "", fsys.E(op, name, fsys.ErrNotFound, nil)
	}
	n := nodeOf(r)
	if n.typ != fsys.TypeSymlink {
		return "", fsys.E(op, name, fsys.ErrInvalid, errors.New("not a symlink"))
	}
	return n.target, nil
}

// RemoveAll removes name and everything below it, without following a
// final symlink. A missing name is not an error.
func (m *FS) RemoveAll(name string) error {
	const op = "removeall"
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.walk(op, name, false)
	if err != nil {
		return err
	}
	if !r.Exists() {
		return nil
	}
	if r.Path == "." {
		return fsys.E(op, name, fsys.ErrInvalid, errors.New("cannot remove the root"))
	}
	parent, base := m.parentOf(r.Path)
	base, n, _ := m.kid(parent, base)
	delete(parent.kids, base)
	n.links--
	return nil
}
