package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
	"github.com/stet-dev/stet/fsys/internal/filelock"
	"github.com/stet-dev/stet/fsys/internal/tempname"
)

// Options configure Open.
type Options struct {
	// Hooks are fault-injection points. BeforeSwap runs once the new bytes
	// are durable in the temp file, before Create links them in, Replace
	// swaps them in or Remove sets the file aside (and before the
	// directory lock is taken); AfterSwap runs once the change has landed,
	// before the directory is fsynced. Both receive the resolved path.
	Hooks fsys.Hooks
	// NoExchange forces the paths taken where renameat2 is missing, as if
	// RENAME_EXCHANGE and RENAME_NOREPLACE did not exist: re-check then
	// rename for Replace and Remove, link then unlink for Create and for a
	// no-clobber Rename. For tests.
	NoExchange bool
	// Sweep runs Sweep(nil) at Open: it removes leftover temp files
	// anywhere under the root. Off by default: a caller with trees the
	// sweep must stay out of (protected, hidden) calls Sweep with a skip
	// function itself, when it is about to change something.
	Sweep bool
	// LockWait bounds the wait for a directory lock (see the package doc);
	// 0 means DefaultLockWait.
	LockWait time.Duration
	// Rand is the source of the random part of temp names (TempName and
	// the names commits make for themselves); nil means crypto/rand. Reads
	// are serialized, and a failed read falls back to crypto/rand. A test
	// gives a reader that repeats itself to make two names collide: a
	// commit whose fresh name is taken tries another, and one whose names
	// are all taken fails with fsys.ErrExists, changing nothing.
	Rand io.Reader
}

// FS is a confined view of one host directory. It is safe for concurrent use.
type FS struct {
	root   *os.Root
	dir    string   // absolute path as opened
	abs    []string // where absolute symlink targets may point
	escape error    // os.Root's unexported "path escapes" error
	opts   Options
	pid    int
	names  tempname.Namer
	// procStart tells when a running process started (see Sweep).
	procStart func(pid int) (time.Time, bool)
	locks     filelock.Table
	bufPool   sync.Pool // *[]byte of chunkSize, for comparing swapped-out bytes
	beneath   beneath   // directories opened by one system call where one can (opendir_linux.go)
}

var (
	_ fsys.Provider = (*FS)(nil)
	_ fsys.Locker   = (*FS)(nil)
	_ fsys.Resolver = (*FS)(nil)
	_ fsys.Tracer   = (*FS)(nil)
	_ fsys.Checker  = (*FS)(nil)
)

// Open confines a new FS to the directory dir.
func Open(dir string, o Options) (*FS, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("local: open %s: %w", dir, err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return nil, fmt.Errorf("local: open %s: %w", dir, err)
	}
	root, err := os.OpenRoot(real)
	if err != nil {
		return nil, fmt.Errorf("local: open %s: %w", dir, err)
	}
	l := &FS{root: root, dir: abs, opts: o, pid: os.Getpid(), procStart: processStart}
	l.names = tempname.Namer{PID: l.pid, Rand: o.Rand}
	l.abs = []string{abs}
	if real != abs {
		l.abs = append(l.abs, real)
	}
	// os.Root does not export the error it returns for an escape; capture it
	// once so errors.Is can recognise it.
	if _, err := root.Lstat("../" + TempPrefix); err != nil {
		var pe *os.PathError
		if errors.As(err, &pe) && !errors.Is(err, fs.ErrNotExist) {
			l.escape = pe.Err
		}
	}
	if o.Sweep {
		if _, err := l.Sweep(nil); err != nil {
			root.Close()
			return nil, err
		}
	}
	return l, nil
}

// Close releases the root. Operations after Close fail.
func (l *FS) Close() error {
	l.beneath.close()
	return l.root.Close()
}

// Dir returns the absolute path of the root as opened. Absolute symlink
// targets may use it or the root's real path (symlinks evaluated).
func (l *FS) Dir() string { return l.dir }

// walk checks name and resolves it beneath the root.
func (l *FS) walk(op, name string, follow bool) (confine.Result, error) {
	c, err := confine.Clean(op, name)
	if err != nil {
		return confine.Result{}, err
	}
	r, err := confine.Walk(rootTree{l.root}, op, c, follow, l.abs)
	if err != nil {
		return confine.Result{}, l.fail(op, name, err)
	}
	return r, nil
}

type rootTree struct{ r *os.Root }

func (t rootTree) Lstat(rel string) (fs.FileInfo, error) { return t.r.Lstat(rel) }
func (t rootTree) Readlink(rel string) (string, error)   { return t.r.Readlink(rel) }

// fail turns err into a *fsys.PathError with a kind where one applies.
func (l *FS) fail(op, name string, err error) error {
	if kind, cause := confine.Kind(err); kind != nil {
		return fsys.E(op, name, kind, cause)
	}
	if kind := l.kindOf(err); kind != nil {
		return fsys.E(op, name, kind, err)
	}
	return fmt.Errorf("%s %s: %w", op, name, err)
}

func (l *FS) kindOf(err error) error {
	switch {
	case l.escape != nil && errors.Is(err, l.escape):
		return fsys.ErrOutside
	case errors.Is(err, syscall.ENOENT):
		return fsys.ErrNotFound
	case errors.Is(err, syscall.EEXIST):
		return fsys.ErrExists
	case errors.Is(err, syscall.ENOTDIR):
		return fsys.ErrNotDir
	case errors.Is(err, syscall.EISDIR):
		return fsys.ErrIsDir
	case errors.Is(err, syscall.ENOTEMPTY):
		return fsys.ErrNotEmpty
	case errors.Is(err, syscall.ELOOP), errors.Is(err, syscall.ENAMETOOLONG), errors.Is(err, syscall.EINVAL):
		return fsys.ErrInvalid
	case errors.Is(err, syscall.ENXIO):
		return fsys.ErrNotRegular
	}
	if kind := sysKind(err); kind != nil {
		return kind
	}
	var busy *fsys.BusyError
	if errors.As(err, &busy) {
		return fsys.ErrBusy
	}
	return nil
}

// ReadFile returns the bytes of the regular file at name. A FIFO, device or
// socket fails with fsys.ErrNotRegular without being opened for reading
// in a way that could block.
func (l *FS) ReadFile(name string) ([]byte, error) {
	const op = "read"
	r, err := l.walk(op, name, true)
	if err != nil {
		return nil, err
	}
	if err := r.NeedFile(op, name); err != nil {
		return nil, err
	}
	f, err := l.openForRead(r.Path)
	if err != nil {
		return nil, l.fail(op, name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, l.fail(op, name, err)
	}
	if err := confine.NeedFile(op, name, fi); err != nil {
		return nil, err
	}
	// One spare byte so a file that did not grow ends with a zero-length read
	// instead of a reallocation.
	data := make([]byte, 0, fi.Size()+1)
	for {
		n, err := f.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err != nil {
			if errors.Is(err, io.EOF) {
				return data, nil
			}
			return nil, l.fail(op, name, err)
		}
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
	}
}

// Check reports whether the regular file at name holds what expect
// describes, comparing its bytes chunk by chunk with expect.Bytes (or
// hashing it when Bytes is nil) without reading it into one buffer.
func (l *FS) Check(name string, expect fsys.Expected) (bool, error) {
	const op = "check"
	r, err := l.walk(op, name, true)
	if err != nil {
		return false, err
	}
	if err := r.NeedFile(op, name); err != nil {
		return false, err
	}
	f, err := l.openForRead(r.Path)
	if err != nil {
		return false, l.fail(op, name, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return false, l.fail(op, name, err)
	}
	if err := confine.NeedFile(op, name, fi); err != nil {
		return false, err
	}
	var ok bool
	if expect.Bytes == nil {
		var v fsys.Version
		v, err = l.versionOfFile(f)
		ok = v == expect.Version
	} else {
		ok, err = l.matchesFile(f, fi.Size(), expect.Bytes)
	}
	if err != nil {
		return false, l.fail(op, name, err)
	}
	return ok, nil
}

// Stat describes name, following symlinks inside the root.
func (l *FS) Stat(name string) (fsys.Info, error) {
	return l.stat("stat", name, true)
}

// Lstat describes name without following a final symlink.
func (l *FS) Lstat(name string) (fsys.Info, error) {
	return l.stat("lstat", name, false)
}

func (l *FS) stat(op, name string, follow bool) (fsys.Info, error) {
	r, err := l.walk(op, name, follow)
	if err != nil {
		return fsys.Info{}, err
	}
	if !r.Exists() {
		return fsys.Info{}, fsys.E(op, name, fsys.ErrNotFound, nil)
	}
	return infoOf(path.Base(path.Clean(name)), r.Info), nil
}

// walkDir resolves name through the confined walk and requires an
// existing directory there (fsys.ErrNotFound, fsys.ErrNotDir otherwise).
func (l *FS) walkDir(op, name string) (confine.Result, error) {
	r, err := l.walk(op, name, true)
	if err != nil {
		return r, err
	}
	switch {
	case !r.Exists():
		return r, fsys.E(op, name, fsys.ErrNotFound, nil)
	case !r.Info.IsDir():
		return r, fsys.E(op, name, fsys.ErrNotDir, nil)
	}
	return r, nil
}

// ReadDir lists the directory at name, sorted by name. Entries are not
// followed: a symlink is reported as fsys.TypeSymlink.
func (l *FS) ReadDir(name string) ([]fsys.Info, error) {
	const op = "list"
	r, err := l.walkDir(op, name)
	if err != nil {
		return nil, err
	}
	f, err := l.root.OpenFile(r.Path, os.O_RDONLY|oDirectory, 0)
	if err != nil {
		return nil, l.fail(op, name, err)
	}
	defer f.Close()
	// A directory opened in a Root describes its entries with fstatat on the
	// directory's descriptor, never by path.
	ents, err := f.ReadDir(-1)
	if err != nil {
		return nil, l.fail(op, name, err)
	}
	out := make([]fsys.Info, 0, len(ents))
	for _, e := range ents {
		fi, err := e.Info()
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return nil, l.fail(op, name, err)
		}
		out = append(out, infoOf(e.Name(), fi))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Resolve returns the path name designates after following symlinks inside
// the root; when the file does not exist, the path it would have. A link
// that leaves the root fails with fsys.ErrOutside.
func (l *FS) Resolve(name string) (string, error) {
	const op = "resolve"
	r, err := l.walk(op, name, true)
	if err != nil {
		return "", err
	}
	p, ok := r.Full()
	if !ok {
		return "", fsys.E(op, name, fsys.ErrOutside, nil)
	}
	return p, nil
}

// Trace returns the path of every symlink followed on the way to name, then
// the path name resolves to (see fsys.Tracer).
func (l *FS) Trace(name string) ([]string, error) {
	const op = "trace"
	r, err := l.walk(op, name, true)
	if err != nil {
		return nil, err
	}
	p, ok := r.Full()
	if !ok {
		return nil, fsys.E(op, name, fsys.ErrOutside, nil)
	}
	return append(r.Links, p), nil
}

// Lock takes the in-process lock of the file name designates (its resolved
// path), waiting until it is free or ctx is done. Locks on different files
// do not wait for each other.
func (l *FS) Lock(ctx context.Context, name string) (func(), error) {
	key, err := l.Resolve(name)
	if err != nil {
		if errors.Is(err, fsys.ErrOutside) || errors.Is(err, fsys.ErrInvalid) {
			return nil, err
		}
		key, err = confine.Clean("lock", name)
		if err != nil {
			return nil, err
		}
	}
	return l.locks.Lock(ctx, key)
}

func infoOf(name string, fi fs.FileInfo) fsys.Info {
	in := fsys.Info{
		Name:    name,
		Type:    confine.TypeOf(fi.Mode()),
		Mode:    fi.Mode() & fsys.ModeBits,
		Links:   1,
		ModTime: fi.ModTime(),
	}
	if in.Type == fsys.TypeFile {
		in.Size = fi.Size()
	}
	if in.Type != fsys.TypeDir {
		sysInfo(fi, &in)
	}
	return in
}

// permOf returns the permission bits of fi as the kernel wants them,
// including setuid, setgid and sticky.
func permOf(fi fs.FileInfo) uint32 {
	if p, ok := sysPerm(fi); ok {
		return p
	}
	return unixPerm(fi.Mode())
}

func unixPerm(m fs.FileMode) uint32 {
	p := uint32(m.Perm())
	if m&fs.ModeSetuid != 0 {
		p |= syscall.S_ISUID
	}
	if m&fs.ModeSetgid != 0 {
		p |= syscall.S_ISGID
	}
	if m&fs.ModeSticky != 0 {
		p |= syscall.S_ISVTX
	}
	return p
}

// openForRead opens a resolved regular file for reading. It holds a shared
// flock on the file's directory for the instant of the open, so it never
// opens bytes another stet commit has swapped in but not yet checked (a
// compare-and-swap that fails swaps them back under the exclusive lock).
// Once open, the descriptor's bytes are fixed: commits never write into a
// file, they swap whole files. O_NONBLOCK: if a FIFO was swapped in after the
// walk, the open returns at once and the caller's fstat refuses it.
func (l *FS) openForRead(rel string) (*os.File, error) {
	if d, err := l.openDir(path.Dir(rel)); err == nil {
		defer d.close()
		unlock, err := l.rlock(d)
		if err != nil {
			return nil, err
		}
		defer unlock()
	}
	return l.root.OpenFile(rel, os.O_RDONLY|oNonblock, 0)
}
