package fsys

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// Error kinds. Backends wrap one of these in a *PathError so callers can
// branch with errors.Is without parsing messages.
var (
	// ErrOutside: the path, or a symlink on the way to it, leaves the root.
	ErrOutside = errors.New("outside the workspace")
	// ErrNotFound: nothing exists at the path.
	ErrNotFound = errors.New("not found")
	// ErrNotRegular: the path is a FIFO, device, socket or other special file.
	ErrNotRegular = errors.New("not a regular file")
	// ErrIsDir: a file operation met a directory.
	ErrIsDir = errors.New("is a directory")
	// ErrNotDir: a directory operation (or a path component) met a non-directory.
	ErrNotDir = errors.New("not a directory")
	// ErrExists: a create or a move found something already at the target.
	ErrExists = errors.New("already exists")
	// ErrConflict: a compare-and-swap found bytes other than the expected ones.
	ErrConflict = errors.New("changed by someone else")
	// ErrInvalid: the path is malformed (NUL byte, empty, not local).
	ErrInvalid = errors.New("invalid path")
	// ErrNotEmpty: a directory removal met a non-empty directory.
	ErrNotEmpty = errors.New("directory not empty")
	// ErrBusy: another process holds a lock on the directory and did not
	// release it within the bounded wait (a *BusyError says which).
	ErrBusy = errors.New("locked by another process")
	// ErrOpenWriter: another process holds the file open for writing (a
	// logger, tee -a, a dev server), so whatever it writes after a replace
	// or a delete would go to the old file and be lost. Nothing moved. A
	// *WriterError says how long the backend waited and who, where it could
	// tell, holds the file.
	ErrOpenWriter = errors.New("held open for writing by another process")
	// ErrMoved: the directory a change held open (Handle) is no longer the
	// directory at its path inside the root: another process moved it, or
	// a directory above it, away (or replaced one by a symlink) between the
	// name's resolution and the swap. Nothing moved.
	ErrMoved = errors.New("its directory was moved while the change was made")
)

// PathError records a failed operation on a path with its kind.
// Kind is one of the sentinels above; Err is the underlying cause, if any.
type PathError struct {
	Op   string // "read", "replace", "create", ...
	Path string // the path as given to the backend (slash-separated, relative to the root)
	Kind error  // one of the Err* sentinels
	Err  error  // the cause (may be nil)
}

// Error returns the message, as the error interface asks.
func (e *PathError) Error() string {
	if e.Err != nil && e.Err != e.Kind {
		return fmt.Sprintf("%s %s: %v: %v", e.Op, e.Path, e.Kind, e.Err)
	}
	return fmt.Sprintf("%s %s: %v", e.Op, e.Path, e.Kind)
}

// Unwrap returns both the kind and the cause so errors.Is matches either.
func (e *PathError) Unwrap() []error {
	if e.Err == nil {
		return []error{e.Kind}
	}
	return []error{e.Kind, e.Err}
}

// E builds a *PathError.
func E(op, path string, kind, err error) error {
	return &PathError{Op: op, Path: path, Kind: kind, Err: err}
}

// ConflictError is returned (wrapped in a *PathError with Kind ErrConflict)
// when a compare-and-swap found other bytes than expected.
type ConflictError struct {
	Expected Version // what the caller said the file held
	Found    Version // what the backend found (empty if the file was gone)
}

// Error returns the message, as the error interface asks.
func (e *ConflictError) Error() string {
	if e.Found == "" {
		return fmt.Sprintf("expected %s, found no file", e.Expected.Short())
	}
	return fmt.Sprintf("expected %s, found %s", e.Expected.Short(), e.Found.Short())
}

// BusyError is returned (wrapped in a *PathError with Kind ErrBusy) when a
// directory lock held by another process was not released in time.
type BusyError struct {
	Dir    string        // the locked directory, slash-separated, relative to the root
	Waited time.Duration // how long the backend waited
}

// Error returns the message, as the error interface asks.
func (e *BusyError) Error() string {
	return fmt.Sprintf("another process holds a lock on %s (waited %v); retry when it finishes", e.Dir, e.Waited)
}

// WriterError is returned (wrapped in a *PathError with Kind ErrOpenWriter)
// when the file stayed open for writing through the backend's bounded wait:
// a descriptor that closes within it (a child process forked while the file
// was open, before its exec closed the descriptor; a process on its way out)
// does not refuse the change.
type WriterError struct {
	Waited time.Duration // how long the backend waited for the writer to close the file
	// Holders names the processes seen holding the file open for writing,
	// as "pid 4242 (tail)"; empty where none could be seen (another user's
	// process, no /proc).
	Holders []string
}

// Error returns the message, as the error interface asks.
func (e *WriterError) Error() string {
	who := "a process"
	if len(e.Holders) > 0 {
		who = strings.Join(e.Holders, ", ")
	}
	return fmt.Sprintf("%s has the file open for writing (still after %v)", who, e.Waited)
}
