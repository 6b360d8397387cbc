package fsys

import (
	"errors"
	"io"
	"path"
	"strings"
)

// DirOpener is implemented by a Provider that can open a directory once
// and then open the files in it by name, without resolving the directory's
// path again for each file (a search of a large tree opens every file).
type DirOpener interface {
	OpenDir(name string) (Dir, error)
}

// Dir is a directory opened by OpenDir.
type Dir interface {
	// Open opens the regular file called name, one path element, in the
	// directory, as Opener.Open does. It never follows a symlink: a name
	// that is one is refused with ErrNotRegular (or ErrInvalid for a name
	// that is not a single element).
	Open(name string) (io.ReadCloser, Info, error)
	Close() error
}

// OpenDir opens the directory name of p: p's own Dir when p is a
// DirOpener, otherwise one whose Open refuses a name whose trace (Trace)
// goes through a symlink, then calls Open(p, name/file).
func OpenDir(p Provider, name string) (Dir, error) {
	if d, ok := p.(DirOpener); ok {
		return d.OpenDir(name)
	}
	return fallbackDir{p: p, dir: name}, nil
}

// ValidEntryName reports whether name is a single path element: not empty,
// not "." or "..", without "/" or NUL.
func ValidEntryName(name string) bool {
	return name != "" && name != "." && name != ".." && !strings.ContainsAny(name, "/\x00")
}

type fallbackDir struct {
	p   Provider
	dir string
}

func (d fallbackDir) Open(name string) (io.ReadCloser, Info, error) {
	full := path.Join(d.dir, name)
	if !ValidEntryName(name) {
		return nil, Info{}, E("read", full, ErrInvalid, nil)
	}
	// A backend without directory handles cannot open without following:
	// the name's trace shows whether a symlink is on its way (checked just
	// before the open, not atomically with it).
	if hops, err := Trace(d.p, full); err == nil && len(hops) > 0 && hops[len(hops)-1] != full {
		return nil, Info{}, E("read", full, ErrNotRegular, errors.New("a symlink"))
	}
	return Open(d.p, full)
}

func (d fallbackDir) Close() error { return nil }

// EachOpener is an optional capability of a Dir: OpenEach opens several of
// its files as Open opens each, for a backend that can share work among
// them (one hold of a directory lock instead of one per file).
type EachOpener interface {
	OpenEach(names []string, fn func(i int, r io.Reader, info Info, err error) error) error
}

// OpenEach calls fn once for each of names, in order, with that file
// opened in d as d.Open opens it (r and info), or with the error that
// refused it (r nil). The reader is closed when fn returns: fn must not
// keep it. An error from fn stops the calls and is returned.
func OpenEach(d Dir, names []string, fn func(i int, r io.Reader, info Info, err error) error) error {
	if e, ok := d.(EachOpener); ok {
		return e.OpenEach(names, fn)
	}
	for i, name := range names {
		f, info, err := d.Open(name)
		if err != nil {
			if err := fn(i, nil, Info{}, err); err != nil {
				return err
			}
			continue
		}
		err = fn(i, f, info, nil)
		f.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// TypeLister is an optional capability: ReadDirTypes lists a directory as
// ReadDir does (sorted by name, entries not followed, the same entries),
// but each Info holds only the entry's Name and Type, so that a backend
// need not describe every entry (a stat each) to list it.
type TypeLister interface {
	ReadDirTypes(name string) ([]Info, error)
}

// ReadDirTypes lists the directory name of p with each entry's name and
// type: through p's TypeLister if it has one, otherwise through ReadDir
// (whose other fields are then filled in too).
func ReadDirTypes(p Provider, name string) ([]Info, error) {
	if l, ok := p.(TypeLister); ok {
		return l.ReadDirTypes(name)
	}
	return p.ReadDir(name)
}

// DirWalker is an optional capability of a Dir, for a walk of a tree that
// opens each directory once, from its parent, and its files from it.
type DirWalker interface {
	// ReadDirTypes lists the directory as TypeLister does.
	ReadDirTypes() ([]Info, error)
	// OpenDir opens the subdirectory called name, one path element. It
	// never follows a symlink: a name that is one is refused with
	// ErrNotDir (or ErrInvalid for a name that is not a single element).
	OpenDir(name string) (Dir, error)
}
