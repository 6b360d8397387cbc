package memfs

import (
	"errors"
	"fmt"
	"path"
	"sort"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
	"github.com/stet-dev/stet/fsys/internal/tempname"
)

// memfs commits in place and keeps no temp files of its own, but it names,
// checks, removes and sweeps them as fsys/local does, so that a caller that
// records temp names (a write-ahead intent) runs the same way on both, and
// a test can leave a temp file where a killed commit would have.

var (
	_ fsys.TempFiler  = (*FS)(nil)
	_ fsys.Sweeper    = (*FS)(nil)
	_ fsys.DirSweeper = (*FS)(nil)
)

// TempName returns a fresh temp name in the format of fsys/local (its
// IsTempName), with this process's id.
func (m *FS) TempName() string { return m.names.Name() }

// checkTemp refuses a caller-chosen temp name fsys/local would not make.
func checkTemp(op, name, temp string) error {
	if temp == "" {
		return nil
	}
	if _, ok := tempname.Parse(temp); !ok {
		return fsys.E(op, name, fsys.ErrInvalid, fmt.Errorf("%q is not a temp file name", temp))
	}
	return nil
}

// tempTaken refuses a caller-chosen temp name that an entry of dir has, as
// fsys/local's exclusive create of it does. Callers hold m.mu.
func (m *FS) tempTaken(op, name string, dir *node, temp string) error {
	if temp == "" || dir == nil {
		return nil
	}
	if _, _, taken := m.kid(dir, temp); taken {
		return fsys.E(op, name, fsys.ErrExists, fmt.Errorf("the temp file name %s chosen for the change is taken; nothing was changed", temp))
	}
	return nil
}

// RemoveTemp removes the one temp file name (see fsys.TempFiler): its
// directory is reached through the confined walk, the file itself is not
// followed.
func (m *FS) RemoveTemp(name string) error {
	const op = "remove temp"
	c, err := confine.Clean(op, name)
	if err != nil {
		return err
	}
	base := path.Base(c)
	if _, ok := tempname.Parse(base); !ok {
		return fsys.E(op, name, fsys.ErrInvalid, errors.New("not a temp file name"))
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.walk(op, path.Dir(c), true)
	if err != nil {
		return err
	}
	switch {
	case !r.Exists():
		return fsys.E(op, name, fsys.ErrNotFound, nil)
	case !r.Info.IsDir():
		return fsys.E(op, name, fsys.ErrNotDir, nil)
	}
	dir := nodeOf(r)
	base, n, ok := m.kid(dir, base)
	switch {
	case !ok:
		return fsys.E(op, name, fsys.ErrNotFound, nil)
	case n.typ != fsys.TypeFile:
		return fsys.E(op, name, fsys.ErrNotRegular, nil)
	}
	delete(dir.kids, base)
	n.links--
	return nil
}

// Sweep removes temp files left under the root, with the rules of
// fsys/local's Sweep: only regular files named exactly as temp files, only
// those whose maker is gone, never through a symlink, and never in a
// directory skip refuses (asked before the directory is read). Only this
// process can reach an in-memory tree, so the maker of a temp file named
// with any other process id is gone; one named with this process's id is
// kept.
func (m *FS) Sweep(skip func(dir string) bool) (removed int, err error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.sweep(m.root, ".", skip, true), nil
}

// SweepDir is Sweep for the one directory name (following symlinks inside
// the root to reach it), without descending.
func (m *FS) SweepDir(name string) (removed int, err error) {
	const op = "sweep"
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.walk(op, name, true)
	if err != nil {
		return 0, err
	}
	switch {
	case !r.Exists():
		return 0, fsys.E(op, name, fsys.ErrNotFound, nil)
	case !r.Info.IsDir():
		return 0, fsys.E(op, name, fsys.ErrNotDir, nil)
	}
	return m.sweep(nodeOf(r), r.Path, nil, false), nil
}

// sweep sweeps the directory dir at rel, and with deep the directories
// below it that skip allows. Callers hold m.mu.
func (m *FS) sweep(dir *node, rel string, skip func(string) bool, deep bool) int {
	if skip != nil && skip(rel) {
		return 0
	}
	names := make([]string, 0, len(dir.kids))
	for k := range dir.kids {
		names = append(names, k)
	}
	sort.Strings(names)
	removed := 0
	var subdirs []string
	for _, k := range names {
		n := dir.kids[k]
		if n.typ == fsys.TypeDir {
			subdirs = append(subdirs, k)
			continue
		}
		if pid, ok := tempname.Parse(k); ok && n.typ == fsys.TypeFile && pid != m.names.PID {
			delete(dir.kids, k)
			n.links--
			removed++
		}
	}
	if deep {
		for _, k := range subdirs {
			removed += m.sweep(dir.kids[k], path.Join(rel, k), skip, true)
		}
	}
	return removed
}
