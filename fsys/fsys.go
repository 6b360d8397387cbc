package fsys

import (
	"context"
	"io/fs"
	"path"
	"time"
)

// Type is the kind of a directory entry.
type Type string

// Entry types, as reported in list results.
const (
	TypeFile    Type = "file"
	TypeDir     Type = "dir"
	TypeSymlink Type = "symlink"
	TypeOther   Type = "other"
)

// Info describes a file or directory. Paths are slash-separated and relative
// to the backend's root.
type Info struct {
	Name    string      // base name
	Type    Type        // file, dir, symlink (only from ReadDir, which does not follow) or other
	Size    int64       // bytes, for files
	Mode    fs.FileMode // permission bits and setuid, setgid, sticky (ModeBits)
	Links   int         // hard link count (1 where unknown)
	ModTime time.Time   // informational only; never used for freshness
	// ID identifies the file itself, not its name, where the backend knows
	// it (a device and inode number): two names with one ID are hard links
	// to one file. "" where unknown.
	ID string
}

// ModeBits are the bits of a file's mode that Info.Mode reports, Create
// sets and Replace keeps: the permission bits and the setuid, setgid and
// sticky flags.
const ModeBits = fs.ModePerm | fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky

// Provider is the seam between stet and a filesystem. Every name is a
// slash-separated path relative to the provider's root; "." is the root.
// Implementations confine every operation to the root: a name or a symlink
// that leaves it fails with ErrOutside. Symlinks inside the root are
// followed, except by ReadDir entries and Lstat-style information.
//
// Implementations must be safe for concurrent use.
type Provider interface {
	// ReadFile returns the bytes of a regular file. A special file fails with
	// ErrNotRegular without blocking.
	ReadFile(name string) ([]byte, error)
	// Stat describes name, following symlinks inside the root.
	Stat(name string) (Info, error)
	// ReadDir lists a directory, sorted by name; entries are not followed.
	ReadDir(name string) ([]Info, error)
	// MkdirAll creates a directory and its missing parents.
	MkdirAll(name string) error
	// Create makes a new regular file holding data, atomically and durably:
	// it never replaces anything, and fails with ErrExists if name exists
	// (link-or-fail, never check-then-create).
	Create(name string, data []byte, perm fs.FileMode) (Commit, error)
	// Replace swaps in data for the regular file at name if and only if the
	// file holds bytes of Version expect. Otherwise it fails with
	// ErrConflict (wrapping a *ConflictError) and leaves the file as it was.
	// The old mode is kept. Writing through a symlink changes its target.
	Replace(name string, data []byte, expect Expected) (Commit, error)
	// Remove deletes the regular file at name if it holds the expected bytes;
	// otherwise ErrConflict. It never removes directories.
	Remove(name string, expect Expected) (Commit, error)
	// Rename moves from to to, proving both names at the swap, as Replace
	// proves its file. src is what the regular file at from must hold; a
	// zero src.Version checks nothing (a directory or a symlink moves by
	// name only). A nil dst means to must not exist (ErrExists otherwise,
	// atomically); a non-nil dst is what the regular file at to must hold,
	// and it is replaced. A mismatch on either side fails with ErrConflict
	// and leaves both names as they were. Neither final component is
	// followed: renaming a symlink moves the link.
	Rename(from, to string, src Expected, dst *Expected) (Commit, error)
}

// Expected is what a compare-and-swap expects the file to hold. Version is
// required. Bytes, when not nil, are those very bytes (the caller's promise
// that VersionOf(Bytes) == Version); a backend may then compare bytes directly
// instead of hashing what it finds, which is cheaper for large files.
//
// Ready, when not nil, is called by Replace once the new bytes are durable in
// their temp file and just before the swap; an error from it aborts the
// replace (the temp file is removed, the file keeps its bytes) and is
// returned. A caller uses it to finish durable work of its own, such as
// saving the bytes about to be replaced, while the new bytes are written.
//
// Temp, when not empty, is the base name a backend that writes through a
// temp file beside the file gives it (Replace, and Remove, which sets the
// file aside under it before it unlinks it): a name the caller got from that
// backend and recorded beforehand, so that recovery after a crash removes
// exactly it. A backend without temp files ignores it; one that would never
// make that name fails with ErrInvalid, and one that finds it taken fails
// with ErrExists, changing nothing.
//
// Discard, when not nil, takes over the removal of the old file a Replace
// swapped out and compared, no longer needed: the backend calls it with a
// func that removes that file, instead of removing it before it returns, and
// the caller must call that func once (in the background, beside its
// readback: freeing a large file's blocks is slow). Until then the old file
// lies under the temp name, as a crash right after the swap leaves it. A
// backend may ignore Discard and remove the file itself.
type Expected struct {
	Version Version
	Bytes   []byte
	Ready   func() error
	Temp    string
	Discard func(remove func())
}

// Matches reports whether data is what e expects.
func (e Expected) Matches(data []byte) bool {
	if e.Bytes != nil {
		return len(e.Bytes) == len(data) && string(e.Bytes) == string(data)
	}
	return VersionOf(data) == e.Version
}

// Commit reports how a mutation landed.
type Commit struct {
	// Resolved is the path that was actually changed, after following
	// in-root symlinks (equal to the name given when there were none).
	Resolved string
	// Notes are facts worth telling the user, such as a hard link split by
	// the rename ("had 2 hard links; the others keep the old bytes").
	Notes []string
	// Fallback is true when the backend could not compare-and-swap
	// atomically (no RENAME_EXCHANGE) and re-checked before renaming.
	Fallback bool
}

// Locker is an optional capability: a lock per file identity, held by the
// caller from its freshness check to the end of verification, so calls on the
// same file in this process are serialized and calls on different files run
// in parallel. The lock is advisory and in-process; compare-and-swap covers
// other processes.
type Locker interface {
	Lock(ctx context.Context, name string) (unlock func(), err error)
}

// Resolver is an optional capability: it returns the path name designates
// after following symlinks inside the root, or ErrOutside.
type Resolver interface {
	Resolve(name string) (string, error)
}

// Tracer is an optional capability: Trace returns every path the walk to
// name passed through, so rules can be checked on each: the path of every
// symlink followed (in the order met, the final one included), then the
// path name resolves to (as Resolver returns it). A name without symlinks
// traces to itself alone. A link that leaves the root fails with ErrOutside.
type Tracer interface {
	Trace(name string) ([]string, error)
}

// Trace asks p's Tracer if it has one, or falls back to its Resolver (the
// resolved path only), or to the cleaned name.
func Trace(p Provider, name string) ([]string, error) {
	if t, ok := p.(Tracer); ok {
		return t.Trace(name)
	}
	if r, ok := p.(Resolver); ok {
		res, err := r.Resolve(name)
		if err != nil {
			return nil, err
		}
		return []string{res}, nil
	}
	return []string{path.Clean(name)}, nil
}

// Checker is an optional capability: Check reports whether the regular file
// at name holds what expect describes, reading it in small chunks (and
// comparing bytes when expect.Bytes is set) instead of into one buffer of
// the file's size. It suits read-back verification of large files.
type Checker interface {
	Check(name string, expect Expected) (bool, error)
}

// Check asks p's Checker if it has one, or reads the file and compares.
func Check(p Provider, name string, expect Expected) (bool, error) {
	if c, ok := p.(Checker); ok {
		return c.Check(name, expect)
	}
	data, err := p.ReadFile(name)
	if err != nil {
		return false, err
	}
	return expect.Matches(data), nil
}

// Hooks are fault-injection points for tests. A nil field does nothing.
type Hooks struct {
	// BeforeSwap runs after the new bytes are durable in the temp file and
	// just before they are swapped in.
	BeforeSwap func(name string)
	// AfterSwap runs just after the swap, before the directory is synced.
	AfterSwap func(name string)
}

// Lock takes p's per-file lock if it has one, or returns a no-op unlock.
func Lock(ctx context.Context, p Provider, name string) (func(), error) {
	if l, ok := p.(Locker); ok {
		return l.Lock(ctx, name)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return func() {}, nil
}
