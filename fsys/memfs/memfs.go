package memfs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
	"github.com/stet-dev/stet/fsys/internal/filelock"
	"github.com/stet-dev/stet/fsys/internal/tempname"
)

// DefaultDir is the fake absolute path of the root when Options.Dir is empty.
const DefaultDir = "/memfs"

// Options configure NewWithOptions.
type Options struct {
	// Dir is the fake absolute path of the root, against which absolute
	// symlink targets are read. Empty means DefaultDir.
	Dir string
	// Hooks run around every swap, with the resolved path, as in fsys/local.
	Hooks fsys.Hooks
	// Rand is the source of the random part of temp names, as in
	// fsys/local; nil means crypto/rand.
	Rand io.Reader
	// Fold, when not nil, makes the tree a case- or normalization-
	// insensitive volume (APFS, NTFS, ext4 casefold): two names of one
	// directory that Fold maps to the same string name one entry. An entry
	// keeps the spelling it was made with (ReadDir lists it so), a lookup
	// under any other spelling finds it, and a new name that folds to an
	// existing one is taken. Nil: names are compared byte for byte, as
	// fsys/local compares them on Linux.
	Fold func(name string) string
}

// FS is an in-memory tree. It is safe for concurrent use.
type FS struct {
	*state
	hooks fsys.Hooks
}

// state is the tree, shared by every view WithHooks returns.
type state struct {
	mu    sync.Mutex
	root  *node
	dir   string
	locks filelock.Table
	names tempname.Namer
	fold  func(string) string // Options.Fold
}

var (
	_ fsys.Provider = (*FS)(nil)
	_ fsys.Locker   = (*FS)(nil)
	_ fsys.Resolver = (*FS)(nil)
	_ fsys.Tracer   = (*FS)(nil)
	_ fsys.Checker  = (*FS)(nil)
)

type node struct {
	typ    fsys.Type
	data   []byte
	target string // symlinks
	perm   fs.FileMode
	kids   map[string]*node // directories
	links  int              // names of a file
	mtime  time.Time
}

func newDir() *node {
	return &node{typ: fsys.TypeDir, perm: 0o755, kids: map[string]*node{}, links: 1, mtime: time.Now()}
}

// New returns an empty tree rooted at DefaultDir.
func New() *FS { return NewWithOptions(Options{}) }

// NewWithOptions returns an empty tree.
func NewWithOptions(o Options) *FS {
	dir := o.Dir
	if dir == "" {
		dir = DefaultDir
	}
	st := &state{root: newDir(), dir: path.Clean(dir), fold: o.Fold}
	st.names = tempname.Namer{PID: os.Getpid(), Rand: o.Rand}
	return &FS{state: st, hooks: o.Hooks}
}

// WithHooks returns a view of the same tree (same nodes, same locks) whose
// commits run h instead of m's hooks.
func (m *FS) WithHooks(h fsys.Hooks) *FS { return &FS{state: m.state, hooks: h} }

// Dir returns the fake absolute path of the root.
func (m *FS) Dir() string { return m.dir }

// tree adapts the nodes to the confined walk. Callers hold m.mu.
type tree struct{ m *FS }

func (t tree) Lstat(rel string) (fs.FileInfo, error) {
	n, err := t.m.lookup(rel)
	if err != nil {
		return nil, err
	}
	return info{name: path.Base(rel), n: n}, nil
}

func (t tree) Readlink(rel string) (string, error) {
	n, err := t.m.lookup(rel)
	if err != nil {
		return "", err
	}
	if n.typ != fsys.TypeSymlink {
		return "", fmt.Errorf("readlink %s: not a symlink", rel)
	}
	return n.target, nil
}

var errNotDir = errors.New("not a directory")

// lookup finds the node at a resolved path, following nothing.
func (m *FS) lookup(rel string) (*node, error) {
	n := m.root
	if rel == "." {
		return n, nil
	}
	for _, c := range strings.Split(rel, "/") {
		if n.typ != fsys.TypeDir {
			return nil, errNotDir
		}
		_, k, ok := m.kid(n, c)
		if !ok {
			return nil, fs.ErrNotExist
		}
		n = k
	}
	return n, nil
}

// kid finds the entry name of the directory d: the entry of that exact
// name, or, on a folding tree (Options.Fold), the one whose name folds to
// the same string. It returns the entry's name as stored. Callers hold
// m.mu.
func (s *state) kid(d *node, name string) (string, *node, bool) {
	if n, ok := d.kids[name]; ok || s.fold == nil {
		return name, n, ok
	}
	f := s.fold(name)
	for k, n := range d.kids {
		if s.fold(k) == f {
			return k, n, true
		}
	}
	return "", nil, false
}

// info is an fs.FileInfo for the walk.
type info struct {
	name string
	n    *node
}

func (i info) Name() string { return i.name }
func (i info) Size() int64  { return int64(len(i.n.data)) }
func (i info) Mode() fs.FileMode {
	switch i.n.typ {
	case fsys.TypeDir:
		return fs.ModeDir | i.n.perm
	case fsys.TypeSymlink:
		return fs.ModeSymlink | 0o777
	case fsys.TypeOther:
		return fs.ModeNamedPipe | i.n.perm
	}
	return i.n.perm
}
func (i info) ModTime() time.Time { return i.n.mtime }
func (i info) IsDir() bool        { return i.n.typ == fsys.TypeDir }
func (i info) Sys() any           { return nil }

// walk checks and resolves name. Callers hold m.mu.
func (m *FS) walk(op, name string, follow bool) (confine.Result, error) {
	c, err := confine.Clean(op, name)
	if err != nil {
		return confine.Result{}, err
	}
	r, err := confine.Walk(tree{m}, op, c, follow, []string{m.dir})
	if err != nil {
		return confine.Result{}, fail(op, name, err)
	}
	return r, nil
}

func fail(op, name string, err error) error {
	if kind, cause := confine.Kind(err); kind != nil {
		return fsys.E(op, name, kind, cause)
	}
	if errors.Is(err, errNotDir) {
		return fsys.E(op, name, fsys.ErrNotDir, nil)
	}
	if errors.Is(err, fs.ErrNotExist) {
		return fsys.E(op, name, fsys.ErrNotFound, nil)
	}
	return fmt.Errorf("%s %s: %w", op, name, err)
}

func nodeOf(r confine.Result) *node { return r.Info.(info).n }

// parentOf returns the directory holding the resolved path rel, and rel's
// entry name in it: as stored, when an entry of a folding tree has that
// name under another spelling.
func (m *FS) parentOf(rel string) (*node, string) {
	p, err := m.lookup(path.Dir(rel))
	if err != nil || p.typ != fsys.TypeDir {
		return nil, ""
	}
	base := path.Base(rel)
	if k, _, ok := m.kid(p, base); ok {
		base = k
	}
	return p, base
}

func infoOf(name string, n *node) fsys.Info {
	in := fsys.Info{Name: name, Type: n.typ, Mode: n.perm, Links: 1, ModTime: n.mtime}
	switch n.typ {
	case fsys.TypeFile:
		in.Size = int64(len(n.data))
		in.Links = n.links
		in.ID = fmt.Sprintf("%p", n)
	case fsys.TypeSymlink:
		in.Mode = 0o777
	case fsys.TypeOther:
		in.Links = n.links
	}
	return in
}

// ReadFile returns a copy of the bytes of the regular file at name.
func (m *FS) ReadFile(name string) ([]byte, error) {
	const op = "read"
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.walk(op, name, true)
	if err != nil {
		return nil, err
	}
	if err := r.NeedFile(op, name); err != nil {
		return nil, err
	}
	return append([]byte{}, nodeOf(r).data...), nil
}

// Check reports whether the regular file at name holds what expect
// describes.
func (m *FS) Check(name string, expect fsys.Expected) (bool, error) {
	const op = "check"
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.walk(op, name, true)
	if err != nil {
		return false, err
	}
	if err := r.NeedFile(op, name); err != nil {
		return false, err
	}
	return expect.Matches(nodeOf(r).data), nil
}

// Stat describes name, following symlinks inside the root.
func (m *FS) Stat(name string) (fsys.Info, error) { return m.stat("stat", name, true) }

// Lstat describes name without following a final symlink.
func (m *FS) Lstat(name string) (fsys.Info, error) { return m.stat("lstat", name, false) }

func (m *FS) stat(op, name string, follow bool) (fsys.Info, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.walk(op, name, follow)
	if err != nil {
		return fsys.Info{}, err
	}
	if !r.Exists() {
		return fsys.Info{}, fsys.E(op, name, fsys.ErrNotFound, nil)
	}
	return infoOf(path.Base(path.Clean(name)), nodeOf(r)), nil
}

// ReadDir lists the directory at name, sorted; entries are not followed.
func (m *FS) ReadDir(name string) ([]fsys.Info, error) {
	const op = "list"
	m.mu.Lock()
	defer m.mu.Unlock()
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
	d := nodeOf(r)
	out := make([]fsys.Info, 0, len(d.kids))
	for k, n := range d.kids {
		out = append(out, infoOf(k, n))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// Resolve returns the path name designates after following symlinks inside
// the root (for a missing file, the path it would have), or ErrOutside.
func (m *FS) Resolve(name string) (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.resolve(name)
}

func (m *FS) resolve(name string) (string, error) {
	const op = "resolve"
	r, err := m.walk(op, name, true)
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
func (m *FS) Trace(name string) ([]string, error) {
	const op = "trace"
	m.mu.Lock()
	defer m.mu.Unlock()
	r, err := m.walk(op, name, true)
	if err != nil {
		return nil, err
	}
	p, ok := r.Full()
	if !ok {
		return nil, fsys.E(op, name, fsys.ErrOutside, nil)
	}
	return append(r.Links, p), nil
}

// Lock takes the lock of the file name designates (its resolved path).
func (m *FS) Lock(ctx context.Context, name string) (func(), error) {
	key, err := m.Resolve(name)
	if err != nil {
		if errors.Is(err, fsys.ErrOutside) || errors.Is(err, fsys.ErrInvalid) {
			return nil, err
		}
		key, err = confine.Clean("lock", name)
		if err != nil {
			return nil, err
		}
	}
	return m.locks.Lock(ctx, key)
}

// MkdirAll creates name and its missing parents, as fsys/local does.
func (m *FS) MkdirAll(name string) error {
	const op = "mkdir"
	m.mu.Lock()
	defer m.mu.Unlock()
	c, err := confine.Clean(op, name)
	if err != nil {
		return err
	}
	for range 4096 {
		r, err := confine.Walk(tree{m}, op, c, true, []string{m.dir})
		if err != nil {
			return fail(op, name, err)
		}
		switch {
		case r.Exists() && r.Info.IsDir():
			return nil
		case r.Exists():
			return fsys.E(op, name, fsys.ErrNotDir, nil)
		case r.FinalLink:
			return fsys.E(op, name, fsys.ErrExists, errors.New("a dangling symlink is in the way"))
		}
		for _, p := range r.Rest {
			if p == ".." {
				return fsys.E(op, name, fsys.ErrNotFound, nil)
			}
		}
		parent, base := m.parentOf(r.Path)
		if parent == nil {
			return fsys.E(op, name, fsys.ErrNotFound, nil)
		}
		parent.kids[base] = newDir()
	}
	return fsys.E(op, name, fsys.ErrInvalid, errors.New("the tree keeps changing"))
}

func (m *FS) hook(h func(string), name string) {
	if h != nil {
		h(name)
	}
}

func conflict(op, name string, expect fsys.Version, cur *node) error {
	var found fsys.Version
	if cur != nil && cur.typ == fsys.TypeFile {
		found = fsys.VersionOf(cur.data)
	}
	return fsys.E(op, name, fsys.ErrConflict, &fsys.ConflictError{Expected: expect, Found: found})
}

func linkNote(name string, links int, keep string) string {
	if links == 2 {
		return fmt.Sprintf("%s had 2 hard links; the other keeps the %s", name, keep)
	}
	return fmt.Sprintf("%s had %d hard links; the other %d keep the %s", name, links, links-1, keep)
}

// Create makes a new file at name, failing with ErrExists if anything (a
// dangling symlink included) is there.
func (m *FS) Create(name string, data []byte, perm fs.FileMode) (fsys.Commit, error) {
	return m.CreateAs(name, data, perm, "")
}

// CreateAs is Create as fsys/local makes it through the temp file named
// temp (see fsys.TempFiler): a name memfs would not make fails with
// fsys.ErrInvalid, one an entry of the directory has with fsys.ErrExists.
// memfs keeps no temp file; the name is only checked.
func (m *FS) CreateAs(name string, data []byte, perm fs.FileMode, temp string) (fsys.Commit, error) {
	const op = "create"
	if err := checkTemp(op, name, temp); err != nil {
		return fsys.Commit{}, err
	}
	m.mu.Lock()
	r, err := m.walk(op, name, true)
	switch {
	case err != nil:
	case r.Exists(), r.FinalLink:
		err = fsys.E(op, name, fsys.ErrExists, nil)
	case len(r.Rest) > 0:
		err = fsys.E(op, name, fsys.ErrNotFound, errors.New("parent directory does not exist"))
	}
	var parent *node
	var base string
	if err == nil {
		parent, base = m.parentOf(r.Path)
		err = m.tempTaken(op, name, parent, temp)
	}
	m.mu.Unlock()
	if err != nil {
		return fsys.Commit{}, err
	}
	if perm == 0 {
		perm = 0o644
	}
	n := &node{typ: fsys.TypeFile, data: append([]byte{}, data...), perm: perm & fsys.ModeBits, links: 1, mtime: time.Now()}
	m.hook(m.hooks.BeforeSwap, r.Path)
	m.mu.Lock()
	if _, _, taken := m.kid(parent, base); taken {
		m.mu.Unlock()
		return fsys.Commit{}, fsys.E(op, name, fsys.ErrExists, nil)
	}
	parent.kids[base] = n
	m.mu.Unlock()
	m.hook(m.hooks.AfterSwap, r.Path)
	return fsys.Commit{Resolved: r.Path}, nil
}

// Replace swaps data in for the regular file at name if it holds what
// expect expects; otherwise ErrConflict and the file keeps what it holds.
func (m *FS) Replace(name string, data []byte, expect fsys.Expected) (fsys.Commit, error) {
	const op = "replace"
	if err := checkTemp(op, name, expect.Temp); err != nil {
		return fsys.Commit{}, err
	}
	m.mu.Lock()
	r, err := m.walk(op, name, true)
	if err == nil {
		err = r.NeedFile(op, name)
	}
	var parent *node
	var base string
	var perm fs.FileMode
	if err == nil {
		parent, base = m.parentOf(r.Path)
		perm = nodeOf(r).perm
		err = m.tempTaken(op, name, parent, expect.Temp)
	}
	m.mu.Unlock()
	if err != nil {
		return fsys.Commit{}, err
	}
	n := &node{typ: fsys.TypeFile, data: append([]byte{}, data...), perm: perm, links: 1, mtime: time.Now()}
	cm := fsys.Commit{Resolved: r.Path}
	if expect.Ready != nil {
		if err := expect.Ready(); err != nil {
			return cm, err
		}
	}
	m.hook(m.hooks.BeforeSwap, r.Path)
	m.mu.Lock()
	base, cur, _ := m.kid(parent, base)
	if cur == nil || cur.typ != fsys.TypeFile || !expect.Matches(cur.data) {
		m.mu.Unlock()
		return cm, conflict(op, name, expect.Version, cur)
	}
	parent.kids[base] = n
	links := cur.links
	cur.links--
	m.mu.Unlock()
	m.hook(m.hooks.AfterSwap, r.Path)
	if links > 1 {
		cm.Notes = append(cm.Notes, linkNote(name, links, "old bytes"))
	}
	return cm, nil
}

// Remove deletes the regular file at name if it holds what expect expects;
// a symlink on the way is followed and left dangling, as in fsys/local.
func (m *FS) Remove(name string, expect fsys.Expected) (fsys.Commit, error) {
	const op = "remove"
	if err := checkTemp(op, name, expect.Temp); err != nil {
		return fsys.Commit{}, err
	}
	m.mu.Lock()
	r, err := m.walk(op, name, true)
	if err == nil {
		err = r.NeedFile(op, name)
	}
	var parent *node
	var base string
	if err == nil {
		parent, base = m.parentOf(r.Path)
	}
	m.mu.Unlock()
	if err != nil {
		return fsys.Commit{}, err
	}
	cm := fsys.Commit{Resolved: r.Path}
	if expect.Ready != nil {
		if err := expect.Ready(); err != nil {
			return cm, err
		}
	}
	m.hook(m.hooks.BeforeSwap, r.Path)
	m.mu.Lock()
	if err := m.tempTaken(op, name, parent, expect.Temp); err != nil {
		m.mu.Unlock()
		return cm, err // fsys/local sets the file aside under the name first
	}
	base, cur, _ := m.kid(parent, base)
	if cur == nil || cur.typ != fsys.TypeFile || !expect.Matches(cur.data) {
		m.mu.Unlock()
		return cm, conflict(op, name, expect.Version, cur)
	}
	delete(parent.kids, base)
	links := cur.links
	cur.links--
	m.mu.Unlock()
	m.hook(m.hooks.AfterSwap, r.Path)
	if links > 1 {
		cm.Notes = append(cm.Notes, linkNote(name, links, "bytes"))
	}
	if r.FinalLink {
		cm.Notes = append(cm.Notes, fmt.Sprintf("%s is a symlink; its target %s was removed and the link now dangles", name, r.Path))
	}
	return cm, nil
}

// Rename moves from to to with the rules of fsys/local: final symlinks are
// moved, not followed; the source file must hold src and an overwritten
// target dst (fsys.ErrConflict otherwise); a directory is never moved over
// anything.
func (m *FS) Rename(from, to string, src fsys.Expected, dst *fsys.Expected) (fsys.Commit, error) {
	const op = "rename"
	m.mu.Lock()
	rf, rt, err := m.renameWalk(op, from, to, dst != nil)
	m.mu.Unlock()
	if err != nil {
		return fsys.Commit{}, err
	}
	cm := fsys.Commit{Resolved: rt.Path}
	if dst != nil && dst.Ready != nil {
		if err := dst.Ready(); err != nil {
			return cm, err
		}
	}
	m.hook(m.hooks.BeforeSwap, rt.Path)
	m.mu.Lock()
	fp, fb := m.parentOf(rf.Path)
	tp, tb := m.parentOf(rt.Path)
	fb, sn, _ := m.kid(fp, fb)
	tk, tn, _ := m.kid(tp, tb)
	switch {
	case sn == nil:
		m.mu.Unlock()
		return cm, fsys.E(op, from, fsys.ErrNotFound, nil)
	case src.Version != "" && sn.typ == fsys.TypeFile && !src.Matches(sn.data):
		m.mu.Unlock()
		return cm, conflict(op, from, src.Version, sn)
	case dst == nil && tn != nil:
		m.mu.Unlock()
		return cm, fsys.E(op, to, fsys.ErrExists, nil)
	case dst != nil && (tn == nil || tn.typ != fsys.TypeFile || !dst.Matches(tn.data)):
		m.mu.Unlock()
		return cm, conflict(op, to, dst.Version, tn)
	}
	links := 0
	if tn != nil {
		links = tn.links
		tn.links--
	}
	delete(fp.kids, fb)
	delete(tp.kids, tk) // a folding tree: the entry replaced may be spelt otherwise
	tp.kids[tb] = sn
	m.mu.Unlock()
	m.hook(m.hooks.AfterSwap, rt.Path)
	if links > 1 {
		cm.Notes = append(cm.Notes, linkNote(to, links, "old bytes"))
	}
	return cm, nil
}

// renameWalk resolves both names of a rename and applies the checks that
// need no content. The caller holds m.mu.
func (m *FS) renameWalk(op, from, to string, overwrite bool) (rf, rt confine.Result, err error) {
	rf, err = m.walk(op, from, false)
	if err != nil {
		return rf, rt, err
	}
	switch {
	case !rf.Exists():
		return rf, rt, fsys.E(op, from, fsys.ErrNotFound, nil)
	case rf.Path == ".":
		return rf, rt, fsys.E(op, from, fsys.ErrInvalid, errors.New("cannot rename the root"))
	case nodeOf(rf).typ == fsys.TypeSymlink:
		if _, err := m.walk(op, from, true); errors.Is(err, fsys.ErrOutside) {
			return rf, rt, err
		}
	}
	rt, err = m.walk(op, to, false)
	if err != nil {
		return rf, rt, err
	}
	if rt.Exists() && confine.TypeOf(rt.Info.Mode()) == fsys.TypeSymlink {
		// Replacing such a link touches nothing outside, but it is refused
		// like every other use of a name that leads out.
		if _, err := m.walk(op, to, true); errors.Is(err, fsys.ErrOutside) {
			return rf, rt, err
		}
	}
	isDir := nodeOf(rf).typ == fsys.TypeDir
	switch {
	case len(rt.Rest) > 0:
		return rf, rt, fsys.E(op, to, fsys.ErrNotFound, errors.New("parent directory does not exist"))
	case rt.Path == ".":
		return rf, rt, fsys.E(op, to, fsys.ErrInvalid, errors.New("cannot rename over the root"))
	case rt.Path == rf.Path:
		return rf, rt, fsys.E(op, to, fsys.ErrInvalid, errors.New("from and to are the same file"))
	case isDir && within(rf.Path, rt.Path):
		return rf, rt, fsys.E(op, from, fsys.ErrInvalid, errors.New("cannot move a directory into itself"))
	case rt.Exists() && !overwrite:
		return rf, rt, fsys.E(op, to, fsys.ErrExists, nil)
	case !rt.Exists() && overwrite:
		return rf, rt, conflict(op, to, "", nil)
	case rt.Exists() && overwrite && nodeOf(rt).typ == fsys.TypeSymlink:
		return rf, rt, fsys.E(op, to, fsys.ErrNotRegular, errors.New("a move does not replace a symlink; delete the link first"))
	case rt.Exists() && nodeOf(rt).typ == fsys.TypeDir:
		return rf, rt, fsys.E(op, to, fsys.ErrIsDir, errors.New("a move never replaces a directory"))
	case isDir && overwrite:
		return rf, rt, fsys.E(op, from, fsys.ErrIsDir, errors.New("a directory is never moved over a file"))
	}
	return rf, rt, nil
}

// within reports whether the resolved path p is dir or lies below it.
func within(dir, p string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}
