package fsys

import (
	"context"
	"errors"
	"io"
	"io/fs"
	"path"
)

// Holder is an optional capability: Hold resolves name once through the
// confined walk (following symlinks inside the root, the final one too) and
// keeps the directory that holds what it resolves to open, as os.Root keeps
// its directory. Every operation of the returned Handle then works relative
// to that open directory instead of walking name from the root again.
//
// Hold fails with ErrOutside for a name that leaves the root, and with
// ErrNotFound when the directory that would hold name does not exist (a
// caller then works by name: a create makes the directory first). Other
// errors are those the walk met. The caller closes the Handle.
type Holder interface {
	Hold(name string) (Handle, error)
}

// Handle is one name resolved once: the directory holding the resolved
// file, held open, and the file's name in it. The file itself need not
// exist (a create). Its operations are the Provider's for that one name,
// with the same promises (compare-and-swap, durability, the notes), and
// never walk the name from the root again, with two exceptions: a file
// found replaced by a symlink since Hold is looked up by name as before, and
// a change checks, once, just before its swap, that the held directory is
// still the directory at its path inside the root (a confined lookup
// compared by device and inode), failing with ErrMoved and changing
// nothing when another process moved it, or a directory above it, away.
//
// A Handle is for one call: it is not safe for concurrent use.
type Handle interface {
	// Trace is what Tracer.Trace returned for the name at Hold: every
	// symlink followed, then the resolved path.
	Trace() []string
	// Held reports whether the directory is held open; false for the
	// Handle Hold returns when the provider has no Holder, whose
	// operations walk the name each time.
	Held() bool
	// Stat describes the file (Provider.Stat of the name).
	Stat() (Info, error)
	// Beside describes the entry name (one component) of the held
	// directory without following it, or fails with ErrNotFound: a
	// rule's look at the file's siblings (".git", "HEAD").
	Beside(name string) (Info, error)
	// Open opens the file for reading (Opener.Open of the name).
	Open() (io.ReadCloser, Info, error)
	// ReadFile returns the file's bytes (Provider.ReadFile of the name).
	ReadFile() ([]byte, error)
	// Check is Checker.Check of the name.
	Check(expect Expected) (bool, error)
	// Lock takes the per-file lock of the resolved file (Locker.Lock).
	Lock(ctx context.Context) (unlock func(), err error)
	// Create is Provider.Create taking its temp file's name and its Ready
	// from exp, as TempFiler.CreateAs and Expected.Ready describe.
	Create(data []byte, perm fs.FileMode, exp Expected) (Commit, error)
	// Replace is Provider.Replace of the name.
	Replace(data []byte, expect Expected) (Commit, error)
	// Remove is Provider.Remove of the name.
	Remove(expect Expected) (Commit, error)
	// ReplaceKeep and RemoveKeep are ReplaceKeeping and RemoveKeeping of
	// the name.
	ReplaceKeep(data []byte, expect Expected, keep Keep) (Commit, Kept, error)
	RemoveKeep(expect Expected, keep Keep) (Commit, Kept, error)
	// Close releases the held directory.
	Close() error
}

// Hold asks p's Holder if it has one. Without one, or when the Holder
// refuses for any reason but ErrOutside (the name's directory is missing,
// a component is not a directory), it returns a Handle that walks name on
// every operation, as the Provider's own methods do, and the error is
// theirs to report. A name that leaves the root fails with ErrOutside
// (with that walking Handle, which needs no Close).
func Hold(p Provider, name string) (Handle, error) {
	if h, ok := p.(Holder); ok {
		held, err := h.Hold(name)
		switch {
		case err == nil:
			return held, nil
		case errors.Is(err, ErrOutside):
			return Walking(p, name), err
		}
		return Walking(p, name), nil
	}
	w := &walking{p: p, name: name}
	t, err := Trace(p, name)
	switch {
	case err == nil:
		w.trace = t
	case errors.Is(err, ErrOutside):
		return w, err
	}
	return w, nil
}

// Walking returns the Handle of name that holds nothing: each operation is
// p's method on name, walking it from the root.
func Walking(p Provider, name string) Handle { return &walking{p: p, name: name} }

type walking struct {
	p     Provider
	name  string
	trace []string
}

func (w *walking) Trace() []string {
	if w.trace == nil {
		t, err := Trace(w.p, w.name)
		if err != nil || len(t) == 0 {
			return []string{path.Clean(w.name)}
		}
		w.trace = t
	}
	return w.trace
}

func (w *walking) Held() bool          { return false }
func (w *walking) Stat() (Info, error) { return w.p.Stat(w.name) }
func (w *walking) Beside(name string) (Info, error) {
	// The walking Handle knows no directory: a sibling is looked up by its
	// own walk (through Lstat where the provider has it).
	n := path.Join(path.Dir(path.Clean(w.name)), name)
	if l, ok := w.p.(interface{ Lstat(string) (Info, error) }); ok {
		return l.Lstat(n)
	}
	return w.p.Stat(n)
}
func (w *walking) Open() (io.ReadCloser, Info, error) { return Open(w.p, w.name) }
func (w *walking) ReadFile() ([]byte, error)          { return w.p.ReadFile(w.name) }
func (w *walking) Check(e Expected) (bool, error)     { return Check(w.p, w.name, e) }
func (w *walking) Lock(ctx context.Context) (func(), error) {
	return Lock(ctx, w.p, w.name)
}

// readyCreator is a provider whose create waits for Expected.Ready once the
// new bytes are durable in their temp file (fsys/local's CreateWith).
type readyCreator interface {
	CreateWith(name string, data []byte, perm fs.FileMode, exp Expected) (Commit, error)
}

func (w *walking) Create(data []byte, perm fs.FileMode, exp Expected) (Commit, error) {
	if cp, ok := w.p.(readyCreator); ok && exp.Temp != "" {
		return cp.CreateWith(w.name, data, perm, exp)
	}
	if exp.Ready != nil {
		if err := exp.Ready(); err != nil {
			return Commit{}, err
		}
	}
	return CreateAs(w.p, w.name, data, perm, exp.Temp)
}
func (w *walking) Replace(data []byte, e Expected) (Commit, error) {
	return w.p.Replace(w.name, data, e)
}
func (w *walking) Remove(e Expected) (Commit, error) { return w.p.Remove(w.name, e) }
func (w *walking) ReplaceKeep(data []byte, e Expected, k Keep) (Commit, Kept, error) {
	return ReplaceKeeping(w.p, w.name, data, e, k)
}
func (w *walking) RemoveKeep(e Expected, k Keep) (Commit, Kept, error) {
	return RemoveKeeping(w.p, w.name, e, k)
}
func (w *walking) Close() error { return nil }
