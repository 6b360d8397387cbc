package fsys

import (
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
// DirOpener, otherwise one whose Open calls Open(p, name/file) and refuses
// a symlink after a Stat.
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
	return Open(d.p, full)
}

func (d fallbackDir) Close() error { return nil }
