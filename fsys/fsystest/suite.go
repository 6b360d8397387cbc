package fsystest

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/tempname"
)

// Run runs the conformance suite. mk makes a fresh harness for each test.
func Run(t *testing.T, mk func(t *testing.T) Harness) {
	t.Run("Paths", func(t *testing.T) { testPaths(t, mk) })
	t.Run("BadNames", func(t *testing.T) { testBadNames(t, mk) })
	t.Run("ReadFile", func(t *testing.T) { testReadFile(t, mk) })
	t.Run("Stat", func(t *testing.T) { testStat(t, mk) })
	t.Run("ReadDir", func(t *testing.T) { testReadDir(t, mk) })
	t.Run("MkdirAll", func(t *testing.T) { testMkdirAll(t, mk) })
	t.Run("Create", func(t *testing.T) { testCreate(t, mk) })
	t.Run("Replace", func(t *testing.T) { testReplace(t, mk) })
	t.Run("Remove", func(t *testing.T) { testRemove(t, mk) })
	t.Run("Rename", func(t *testing.T) { testRename(t, mk) })
	t.Run("Races", func(t *testing.T) { testRaces(t, mk) })
	t.Run("HardLinks", func(t *testing.T) { testHardLinks(t, mk) })
	t.Run("Locker", func(t *testing.T) { testLocker(t, mk) })
	t.Run("Concurrent", func(t *testing.T) { testConcurrent(t, mk) })
	t.Run("TempFiles", func(t *testing.T) { testTempFiles(t, mk) })
	t.Run("Sweep", func(t *testing.T) { testSweep(t, mk) })
	t.Run("OpenDir", func(t *testing.T) { testOpenDir(t, mk) })
}

// env is one test's harness and provider, with the checks every test uses.
type env struct {
	t       *testing.T
	h       Harness
	p       fsys.Provider
	outside string // digest of the outside at the start
}

func newEnv(t *testing.T, mk func(t *testing.T) Harness, fs ...string) *env {
	t.Helper()
	h := mk(t)
	Build(t, h, fs...)
	return newEnvOn(t, h, fsys.Hooks{})
}

func newEnvOn(t *testing.T, h Harness, hooks fsys.Hooks) *env {
	t.Helper()
	e := &env{t: t, h: h, p: h.Open(hooks)}
	e.outside = e.digest()
	return e
}

func (e *env) digest() string {
	e.t.Helper()
	if e.h.OutsideDigest == nil {
		return ""
	}
	d, err := e.h.OutsideDigest()
	if err != nil {
		e.t.Fatalf("outside digest: %v", err)
	}
	return d
}

func (e *env) tree() []string {
	e.t.Helper()
	return Tree(e.t, e.h, e.p)
}

// settle checks what must hold after any operation: the outside is as it
// was and no temp file is left under the root.
func (e *env) settle(what string) {
	e.t.Helper()
	if d := e.digest(); d != e.outside {
		e.t.Fatalf("%s: something outside the root changed", what)
	}
	for _, line := range e.tree() {
		if _, ok := tempname.Parse(path.Base(entryName(line))); ok {
			e.t.Fatalf("%s: temp file left behind: %s", what, line)
		}
	}
}

// wantTree checks the whole tree.
func (e *env) wantTree(what string, want []string) {
	e.t.Helper()
	e.settle(what)
	got := e.tree()
	want = slices.Sorted(slices.Values(want))
	if !slices.Equal(got, want) {
		e.t.Fatalf("%s: tree\n got  %q\n want %q", what, got, want)
	}
}

func wantKind(t *testing.T, what string, err, kind error) {
	t.Helper()
	switch {
	case kind == nil && err != nil:
		t.Fatalf("%s: unexpected error %v", what, err)
	case kind != nil && err == nil:
		t.Fatalf("%s: succeeded, want %v", what, kind)
	case kind != nil && !errors.Is(err, kind):
		t.Fatalf("%s: error %v, want kind %v", what, err, kind)
	case kind != nil:
		var pe *fsys.PathError
		if !errors.As(err, &pe) {
			t.Fatalf("%s: error %v is not a *fsys.PathError", what, err)
		}
	}
}

// with replaces (or with data == "" and del, removes) the entry of file
// name in tree.
func with(tree []string, name, data string, del bool) []string {
	var out []string
	found := false
	for _, l := range tree {
		if strings.HasPrefix(l, name+"=") {
			found = true
			if del {
				continue
			}
			l = name + "=" + data
		}
		out = append(out, l)
	}
	if !found && !del {
		out = append(out, name+"="+data)
	}
	return out
}

// normMode turns Unix special bits written as octal (0o4000, 0o2000,
// 0o1000) into their fs.FileMode flags and keeps only fsys.ModeBits.
func normMode(m fs.FileMode) fs.FileMode {
	for bit, flag := range map[fs.FileMode]fs.FileMode{0o4000: fs.ModeSetuid, 0o2000: fs.ModeSetgid, 0o1000: fs.ModeSticky} {
		if m&bit != 0 {
			m = m&^bit | flag
		}
	}
	return m & fsys.ModeBits
}

func ver(s string) fsys.Version { return fsys.VersionOf([]byte(s)) }

func expect(s string) fsys.Expected { return fsys.Expected{Version: ver(s)} }

// pathCase is one name resolved in one tree, after os/root_test.go.
type pathCase struct {
	name   string
	fs     []string
	open   string
	target string // the file open designates, holding its own name; "" with err
	err    error  // kind for every operation that follows the name
	// createErr overrides the kind Create gives; with createOK Create
	// succeeds and makes target.
	createErr error
	createOK  bool
	resolve   string // for ErrNotFound cases: what Resolve returns
}

var pathCases = []pathCase{
	{name: "plain", fs: []string{"target"}, open: "target", target: "target"},
	{name: "nested", fs: []string{"a/target"}, open: "a/target", target: "a/target"},
	{name: "dot segments", fs: []string{"a/", "target"}, open: "./a/../target", target: "target"},
	{name: "double slash", fs: []string{"a/target"}, open: "a//target", target: "a/target"},
	{name: "dotdot", fs: []string{"target"}, open: "../target", err: fsys.ErrOutside},
	{name: "dotdot nested", fs: []string{"a/", "target"}, open: "a/../../target", err: fsys.ErrOutside},
	{name: "dotdot outside", open: "../outside/secret", err: fsys.ErrOutside},
	{name: "absolute name", fs: []string{"target"}, open: "/target", err: fsys.ErrOutside},
	{name: "absolute name inside", fs: []string{"target"}, open: "$ROOT/target", err: fsys.ErrOutside},
	{name: "empty name", open: "", err: fsys.ErrInvalid},
	{name: "nul byte", fs: []string{"target"}, open: "tar\x00get", err: fsys.ErrInvalid},
	{name: "missing", open: "target", err: fsys.ErrNotFound, createOK: true, target: "target", resolve: "target"},
	{name: "missing dir", open: "a/target", err: fsys.ErrNotFound, resolve: "a/target"},
	{name: "file as dir", fs: []string{"f"}, open: "f/target", err: fsys.ErrNotDir},
	{name: "link", fs: []string{"link => target", "target"}, open: "link", target: "target"},
	{name: "link nested", fs: []string{"a/target", "link => a/target"}, open: "link", target: "a/target"},
	{name: "link in dir", fs: []string{"a/link => target", "a/target"}, open: "a/link", target: "a/target"},
	{name: "link dir", fs: []string{"a/target", "d => a"}, open: "d/target", target: "a/target"},
	{name: "link dir slash", fs: []string{"a/target", "d => a/"}, open: "d/target", target: "a/target"},
	{name: "link up inside", fs: []string{"a/link => ../target", "target"}, open: "a/link", target: "target"},
	{name: "link dot", fs: []string{"d => .", "target"}, open: "d/d/d/target", target: "target"},
	{name: "link chain", fs: []string{"a => b", "b => c/target", "c/target"}, open: "a", target: "c/target"},
	{name: "link chain dirs", fs: []string{"x => y", "y => z", "z/", "z/target"}, open: "x/target", target: "z/target"},
	{name: "absolute link", fs: []string{"link => $ROOT/target", "target"}, open: "link", target: "target"},
	{name: "absolute dir link", fs: []string{"a/target", "d => $ROOT/a"}, open: "d/target", target: "a/target"},
	{name: "absolute link to root", fs: []string{"r => $ROOT", "target"}, open: "r/target", target: "target"},
	{name: "link out", fs: []string{"link => ../outside/secret"}, open: "link", err: fsys.ErrOutside},
	{name: "link out and back", fs: []string{"link => ../$NAME/target", "target"}, open: "link", err: fsys.ErrOutside},
	{name: "link out absolute", fs: []string{"link => $OUTSIDE/secret"}, open: "link", err: fsys.ErrOutside},
	{name: "link to parent", fs: []string{"link => .."}, open: "link/outside/secret", err: fsys.ErrOutside},
	{name: "link to slash", fs: []string{"link => /"}, open: "link", err: fsys.ErrOutside},
	{name: "dangling", fs: []string{"link => missing"}, open: "link", err: fsys.ErrNotFound, createErr: fsys.ErrExists, resolve: "missing"},
	{name: "dangling nested", fs: []string{"link => a/missing"}, open: "link", err: fsys.ErrNotFound, createErr: fsys.ErrExists, resolve: "a/missing"},
	{name: "dangling out", fs: []string{"link => ../outside/missing"}, open: "link", err: fsys.ErrOutside},
	{name: "dangling out absolute", fs: []string{"link => $OUTSIDE/missing"}, open: "link", err: fsys.ErrOutside},
	{name: "chain out", fs: []string{"a => b", "b => ../outside/secret"}, open: "a", err: fsys.ErrOutside},
	{name: "chain out absolute", fs: []string{"a => b", "b => c", "c => $OUTSIDE/secret"}, open: "a", err: fsys.ErrOutside},
	{name: "chain out via dir", fs: []string{"a => d/b", "d/b => ../../outside/secret"}, open: "a", err: fsys.ErrOutside},
	{name: "dir link out", fs: []string{"d => ../outside"}, open: "d/secret", err: fsys.ErrOutside},
	{name: "dir link out new file", fs: []string{"d => ../outside"}, open: "d/new", err: fsys.ErrOutside},
	{name: "dir link out absolute", fs: []string{"d => $OUTSIDE"}, open: "d/secret", err: fsys.ErrOutside},
	{name: "nested link out", fs: []string{"a/link => ../../outside/secret"}, open: "a/link", err: fsys.ErrOutside},
	{name: "loop", fs: []string{"a => b", "b => a"}, open: "a", err: fsys.ErrInvalid},
	{name: "self loop", fs: []string{"a => a"}, open: "a", err: fsys.ErrInvalid},
	{name: "link through file", fs: []string{"f", "link => f/x"}, open: "link", err: fsys.ErrNotDir},
}

func (c pathCase) openName(h Harness) string { return h.expand(c.open) }

func testPaths(t *testing.T, mk func(t *testing.T) Harness) {
	for _, c := range pathCases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			for _, op := range pathOps {
				t.Run(op.name, func(t *testing.T) {
					t.Parallel()
					e := newEnv(t, mk, c.fs...)
					op.run(t, c, e, c.openName(e.h))
				})
			}
		})
	}
}

// pathOps are the operations every pathCase runs, each on a fresh tree.
var pathOps = []struct {
	name string
	run  func(t *testing.T, c pathCase, e *env, name string)
}{
	{"ReadFile", pathReadFile},
	{"Stat", pathStat},
	{"Check", pathCheck},
	{"Resolve", pathResolve},
	{"Replace", pathReplace},
	{"Remove", pathRemove},
	{"Create", pathCreate},
	{"Lock", pathLock},
}

func pathReadFile(t *testing.T, c pathCase, e *env, name string) {
	before := e.tree()
	data, err := e.p.ReadFile(name)
	if c.err != nil {
		wantKind(t, "read", err, c.err)
	} else {
		wantKind(t, "read", err, nil)
		if string(data) != c.target {
			t.Fatalf("read %q = %q, want %q", name, data, c.target)
		}
	}
	e.wantTree("read", before)
}

func pathStat(t *testing.T, c pathCase, e *env, name string) {
	fi, err := e.p.Stat(name)
	wantKind(t, "stat", err, c.err)
	if c.err == nil && (fi.Type != fsys.TypeFile || fi.Size != int64(len(c.target))) {
		t.Fatalf("stat %q = %+v, want a file of %d bytes", name, fi, len(c.target))
	}
}

func pathCheck(t *testing.T, c pathCase, e *env, name string) {
	for _, x := range []fsys.Expected{expect(c.target), {Version: ver(c.target), Bytes: []byte(c.target)}} {
		ok, err := fsys.Check(e.p, name, x)
		wantKind(t, "check", err, c.err)
		if c.err == nil && !ok {
			t.Fatalf("check %q: no match with its own bytes", name)
		}
	}
	ok, err := fsys.Check(e.p, name, expect("other"))
	if c.err == nil && (ok || err != nil) {
		t.Fatalf("check %q against other bytes: %v, %v", name, ok, err)
	}
}

func pathResolve(t *testing.T, c pathCase, e *env, name string) {
	r, ok := e.p.(fsys.Resolver)
	if !ok {
		t.Skip("not a Resolver")
	}
	got, err := r.Resolve(name)
	want := c.target
	kind := c.err
	if kind == fsys.ErrNotFound {
		kind, want = nil, c.resolve
	}
	wantKind(t, "resolve", err, kind)
	if kind == nil && got != want {
		t.Fatalf("resolve %q = %q, want %q", name, got, want)
	}
}

func pathReplace(t *testing.T, c pathCase, e *env, name string) {
	before := e.tree()
	cm, err := e.p.Replace(name, []byte("new bytes"), expect(c.target))
	if c.err != nil {
		wantKind(t, "replace", err, c.err)
		e.wantTree("replace", before)
		return
	}
	wantKind(t, "replace", err, nil)
	if cm.Resolved != c.target {
		t.Errorf("Commit.Resolved = %q, want %q", cm.Resolved, c.target)
	}
	e.wantTree("replace", with(before, c.target, "new bytes", false))
}

func pathRemove(t *testing.T, c pathCase, e *env, name string) {
	before := e.tree()
	cm, err := e.p.Remove(name, expect(c.target))
	if c.err != nil {
		wantKind(t, "remove", err, c.err)
		e.wantTree("remove", before)
		return
	}
	wantKind(t, "remove", err, nil)
	if cm.Resolved != c.target {
		t.Errorf("Commit.Resolved = %q, want %q", cm.Resolved, c.target)
	}
	e.wantTree("remove", with(before, c.target, "", true))
}

func pathCreate(t *testing.T, c pathCase, e *env, name string) {
	before := e.tree()
	cm, err := e.p.Create(name, []byte("created"), 0o644)
	kind := c.err
	switch {
	case c.createOK:
		kind = nil
	case c.createErr != nil:
		kind = c.createErr
	case kind == nil:
		kind = fsys.ErrExists
	}
	wantKind(t, "create", err, kind)
	if kind != nil {
		e.wantTree("create", before)
		return
	}
	if cm.Resolved != c.target {
		t.Errorf("Commit.Resolved = %q, want %q", cm.Resolved, c.target)
	}
	e.wantTree("create", with(before, c.target, "created", false))
}

func pathLock(t *testing.T, c pathCase, e *env, name string) {
	l, ok := e.p.(fsys.Locker)
	if !ok {
		t.Skip("not a Locker")
	}
	unlock, err := l.Lock(context.Background(), name)
	if c.err == fsys.ErrOutside || c.err == fsys.ErrInvalid {
		wantKind(t, "lock", err, c.err)
		return
	}
	wantKind(t, "lock", err, nil)
	unlock()
}

// lstater is a backend that describes a name without following a final
// symlink. Both backends have it; only this suite uses it (stet's callers
// learn about links from ReadDir and Trace), so it is declared here, where
// it is consumed, and not in fsys.
type lstater interface {
	Lstat(name string) (fsys.Info, error)
}

func testBadNames(t *testing.T, mk func(t *testing.T) Harness) {
	bad := []struct {
		name string
		kind error
	}{
		{"", fsys.ErrInvalid},
		{"a\x00b", fsys.ErrInvalid},
		{"..", fsys.ErrOutside},
		{"../x", fsys.ErrOutside},
		{"a/../../x", fsys.ErrOutside},
		{"/x", fsys.ErrOutside},
		{"/", fsys.ErrOutside},
	}
	for _, b := range bad {
		t.Run(fmt.Sprintf("%q", b.name), func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, mk, "a/", "f")
			before := e.tree()
			_, err := e.p.ReadDir(b.name)
			wantKind(t, "list", err, b.kind)
			wantKind(t, "mkdir", e.p.MkdirAll(b.name), b.kind)
			wantKind(t, "rename from", second(Rename(e.p, b.name, "g", false)), b.kind)
			wantKind(t, "rename to", second(Rename(e.p, "f", b.name, true)), b.kind)
			if lp, ok := e.p.(lstater); ok {
				_, err := lp.Lstat(b.name)
				wantKind(t, "lstat", err, b.kind)
			}
			e.wantTree("bad names", before)
		})
	}
}

func testReadFile(t *testing.T, mk func(t *testing.T) Harness) {
	t.Run("dir", func(t *testing.T) {
		e := newEnv(t, mk, "d/")
		_, err := e.p.ReadFile("d")
		wantKind(t, "read dir", err, fsys.ErrIsDir)
		_, err = e.p.ReadFile(".")
		wantKind(t, "read root", err, fsys.ErrIsDir)
		_, err = fsys.Check(e.p, "d", expect(""))
		wantKind(t, "check dir", err, fsys.ErrIsDir)
	})
	t.Run("empty", func(t *testing.T) {
		e := newEnv(t, mk, "f=")
		data, err := e.p.ReadFile("f")
		wantKind(t, "read", err, nil)
		if data == nil || len(data) != 0 {
			t.Fatalf("read empty file = %#v, want empty non-nil", data)
		}
	})
	t.Run("fifo", func(t *testing.T) {
		e := newEnv(t, mk, "p|", "link => p")
		for _, name := range []string{"p", "link"} {
			done := make(chan error, 1)
			go func() {
				_, err := e.p.ReadFile(name)
				done <- err
			}()
			select {
			case err := <-done:
				wantKind(t, "read fifo", err, fsys.ErrNotRegular)
			case <-time.After(5 * time.Second):
				t.Fatalf("ReadFile(%q) on a FIFO with no writer blocked", name)
			}
		}
		_, err := fsys.Check(e.p, "p", expect(""))
		wantKind(t, "check fifo", err, fsys.ErrNotRegular)
		_, err = e.p.Replace("p", []byte("x"), expect(""))
		wantKind(t, "replace fifo", err, fsys.ErrNotRegular)
		_, err = e.p.Remove("p", expect(""))
		wantKind(t, "remove fifo", err, fsys.ErrNotRegular)
		_, err = e.p.Create("p", nil, 0o644)
		wantKind(t, "create over fifo", err, fsys.ErrExists)
		fi, err := e.p.Stat("link")
		wantKind(t, "stat fifo", err, nil)
		if fi.Type != fsys.TypeOther {
			t.Fatalf("stat fifo type = %q, want %q", fi.Type, fsys.TypeOther)
		}
	})
	t.Run("large", func(t *testing.T) {
		e := newEnv(t, mk)
		big := strings.Repeat("0123456789abcdef", 70000)
		if _, err := e.p.Create("big", []byte(big), 0o644); err != nil {
			t.Fatal(err)
		}
		data, err := e.p.ReadFile("big")
		if err != nil || string(data) != big {
			t.Fatalf("read big: %d bytes, %v", len(data), err)
		}
		// Check in chunks: a difference in the last chunk, and a longer file.
		for _, other := range []string{big[:len(big)-1] + "X", big + "0", big[1:]} {
			for _, x := range []fsys.Expected{expect(other), {Version: ver(other), Bytes: []byte(other)}} {
				if ok, err := fsys.Check(e.p, "big", x); ok || err != nil {
					t.Fatalf("check big against other bytes: %v, %v", ok, err)
				}
			}
		}
		if ok, err := fsys.Check(e.p, "big", fsys.Expected{Version: ver(big), Bytes: []byte(big)}); !ok || err != nil {
			t.Fatalf("check big: %v, %v", ok, err)
		}
	})
}

func testStat(t *testing.T, mk func(t *testing.T) Harness) {
	e := newEnv(t, mk, "d/", "f=12345", "l => f", "ld => d", "dangling => nope")
	cases := []struct {
		name string
		typ  fsys.Type
		size int64
		kind error
	}{
		{".", fsys.TypeDir, 0, nil},
		{"d", fsys.TypeDir, 0, nil},
		{"f", fsys.TypeFile, 5, nil},
		{"l", fsys.TypeFile, 5, nil},
		{"ld", fsys.TypeDir, 0, nil},
		{"dangling", "", 0, fsys.ErrNotFound},
	}
	for _, c := range cases {
		fi, err := e.p.Stat(c.name)
		wantKind(t, "stat "+c.name, err, c.kind)
		if c.kind == nil && (fi.Type != c.typ || fi.Size != c.size) {
			t.Errorf("stat %s = %+v, want %s of %d bytes", c.name, fi, c.typ, c.size)
		}
		if c.kind == nil && c.name != "." && fi.Name != c.name {
			t.Errorf("stat %s: Name = %q", c.name, fi.Name)
		}
	}
	lp, ok := e.p.(lstater)
	if !ok {
		return
	}
	for _, c := range []struct {
		name string
		typ  fsys.Type
	}{{"l", fsys.TypeSymlink}, {"ld", fsys.TypeSymlink}, {"dangling", fsys.TypeSymlink}, {"f", fsys.TypeFile}} {
		fi, err := lp.Lstat(c.name)
		wantKind(t, "lstat "+c.name, err, nil)
		if fi.Type != c.typ {
			t.Errorf("lstat %s type = %q, want %q", c.name, fi.Type, c.typ)
		}
	}
}

func testReadDir(t *testing.T, mk func(t *testing.T) Harness) {
	e := newEnv(t, mk, "d/", "d/b=bb", "d/a=a", "d/c/", "d/l => b", "d/out => ../../outside", "ld => d", "f", "lout => ../outside")
	type ent struct {
		Name string
		Type fsys.Type
		Size int64
	}
	list := func(name string) ([]ent, error) {
		infos, err := e.p.ReadDir(name)
		var out []ent
		for _, i := range infos {
			out = append(out, ent{i.Name, i.Type, i.Size})
		}
		return out, err
	}
	want := []ent{{"a", fsys.TypeFile, 1}, {"b", fsys.TypeFile, 2}, {"c", fsys.TypeDir, 0}, {"l", fsys.TypeSymlink, 0}, {"out", fsys.TypeSymlink, 0}}
	for _, name := range []string{"d", "ld", "./d/c/.."} {
		got, err := list(name)
		wantKind(t, "list "+name, err, nil)
		if !slices.Equal(got, want) {
			t.Errorf("list %s =\n %v, want\n %v", name, got, want)
		}
	}
	got, err := list(".")
	wantKind(t, "list .", err, nil)
	var names []string
	for _, g := range got {
		names = append(names, g.Name)
	}
	if !slices.Equal(names, []string{"d", "f", "ld", "lout"}) {
		t.Errorf("list . = %v", names)
	}
	_, err = list("f")
	wantKind(t, "list file", err, fsys.ErrNotDir)
	_, err = list("missing")
	wantKind(t, "list missing", err, fsys.ErrNotFound)
	_, err = list("lout")
	wantKind(t, "list link out", err, fsys.ErrOutside)
	_, err = list("d/out")
	wantKind(t, "list nested link out", err, fsys.ErrOutside)
	// ReadDirTypes: the same entries, names and types, and the same errors.
	for _, name := range []string{"d", "ld", "./d/c/..", ".", "f", "missing", "lout", "d/out"} {
		full, ferr := e.p.ReadDir(name)
		typed, terr := fsys.ReadDirTypes(e.p, name)
		if !sameKind(ferr, terr) {
			t.Errorf("ReadDirTypes(%q): %v, ReadDir: %v", name, terr, ferr)
		}
		if len(full) != len(typed) {
			t.Errorf("ReadDirTypes(%q) = %v, ReadDir = %v", name, typed, full)
			continue
		}
		for i := range full {
			if full[i].Name != typed[i].Name || full[i].Type != typed[i].Type {
				t.Errorf("ReadDirTypes(%q)[%d] = %s %s, ReadDir: %s %s", name, i, typed[i].Name, typed[i].Type, full[i].Name, full[i].Type)
			}
		}
	}
	e.settle("list")
}

// sameKind reports whether a and b are both nil or of the same kind.
func sameKind(a, b error) bool {
	if a == nil || b == nil {
		return a == b
	}
	for _, k := range []error{fsys.ErrNotFound, fsys.ErrNotDir, fsys.ErrOutside, fsys.ErrInvalid, fsys.ErrIsDir, fsys.ErrNotRegular} {
		if errors.Is(a, k) != errors.Is(b, k) {
			return false
		}
	}
	return true
}

func testMkdirAll(t *testing.T, mk func(t *testing.T) Harness) {
	cases := []struct {
		name string
		fs   []string
		dir  string
		kind error
		made []string // directories that must exist after
	}{
		{name: "new", dir: "a/b/c", made: []string{"a/", "a/b/", "a/b/c/"}},
		{name: "exists", fs: []string{"a/b/"}, dir: "a/b", made: []string{"a/", "a/b/"}},
		{name: "root", dir: ".", made: nil},
		{name: "through link", fs: []string{"x/", "l => x"}, dir: "l/y/z", made: []string{"x/", "x/y/", "x/y/z/", "l => x"}},
		{name: "through absolute link", fs: []string{"x/", "l => $ROOT/x"}, dir: "l/y", made: []string{"x/", "x/y/", "l => $ROOT/x"}},
		{name: "link to dir", fs: []string{"x/", "l => x"}, dir: "l", made: []string{"x/", "l => x"}},
		{name: "through dangling link", fs: []string{"l => x"}, dir: "l/y", made: []string{"x/", "x/y/", "l => x"}},
		{name: "final dangling link", fs: []string{"l => x"}, dir: "l", kind: fsys.ErrExists, made: []string{"l => x"}},
		{name: "over file", fs: []string{"f"}, dir: "f", kind: fsys.ErrNotDir, made: []string{"f=f"}},
		{name: "under file", fs: []string{"f"}, dir: "f/x", kind: fsys.ErrNotDir, made: []string{"f=f"}},
		{name: "through link out", fs: []string{"l => ../outside"}, dir: "l/x", kind: fsys.ErrOutside, made: []string{"l => ../outside"}},
		{name: "through absolute link out", fs: []string{"l => $OUTSIDE"}, dir: "l/x", kind: fsys.ErrOutside, made: []string{"l => $OUTSIDE"}},
		{name: "dangling out", fs: []string{"l => ../outside/newdir"}, dir: "l", kind: fsys.ErrOutside, made: []string{"l => ../outside/newdir"}},
		{name: "dotdot", dir: "a/../../x", kind: fsys.ErrOutside},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, mk, c.fs...)
			err := e.p.MkdirAll(e.h.expand(c.dir))
			wantKind(t, "mkdir", err, c.kind)
			var want []string
			for _, m := range c.made {
				want = append(want, e.h.expand(m))
			}
			e.wantTree("mkdir", want)
		})
	}
}

func testCreate(t *testing.T, mk func(t *testing.T) Harness) {
	t.Run("perm", func(t *testing.T) {
		e := newEnv(t, mk)
		if _, err := e.p.Create("f", []byte("x"), 0o600); err != nil {
			t.Fatal(err)
		}
		fi, err := e.p.Stat("f")
		if err != nil || fi.Mode != 0o600 {
			t.Fatalf("mode after create 0o600: %v, %v", fi.Mode, err)
		}
		if _, err := e.p.Create("g", []byte("x"), 0); err != nil {
			t.Fatal(err)
		}
		fi, err = e.p.Stat("g")
		if err != nil || fi.Mode&0o600 != 0o600 || fi.Mode&0o111 != 0 {
			t.Fatalf("mode after create with perm 0: %v, %v", fi.Mode, err)
		}
		e.wantTree("create", []string{"f=x", "g=x"})
	})
	t.Run("perm exact", func(t *testing.T) {
		// A restore must get back the mode it recorded, special bits
		// included, whatever the process umask would strip.
		e := newEnv(t, mk)
		for i, perm := range []fs.FileMode{0o600, 0o755, 0o777, 0o666, 0o4755, 0o2750 | fs.ModeSetgid, 0o755 | fs.ModeSetuid, 0o1777 | fs.ModeSticky} {
			perm = normMode(perm)
			name := fmt.Sprintf("f%d", i)
			if _, err := e.p.Create(name, []byte("x"), perm); err != nil {
				t.Fatal(err)
			}
			fi, err := e.p.Stat(name)
			if err != nil || fi.Mode != perm {
				t.Errorf("mode after create with %v: %v, %v", perm, fi.Mode, err)
			}
		}
	})
	cases := []struct {
		name     string
		fs       []string
		file     string
		kind     error
		resolved string
	}{
		{name: "new", file: "new", resolved: "new"},
		{name: "in dir", fs: []string{"d/"}, file: "d/new", resolved: "d/new"},
		{name: "through dir link", fs: []string{"d/", "l => d"}, file: "l/new", resolved: "d/new"},
		{name: "through absolute dir link", fs: []string{"d/", "l => $ROOT/d"}, file: "l/new", resolved: "d/new"},
		{name: "exists", fs: []string{"new=old"}, file: "new", kind: fsys.ErrExists},
		{name: "exists dir", fs: []string{"new/"}, file: "new", kind: fsys.ErrExists},
		{name: "exists link", fs: []string{"f", "new => f"}, file: "new", kind: fsys.ErrExists},
		{name: "root", file: ".", kind: fsys.ErrExists},
		{name: "missing parent", file: "d/new", kind: fsys.ErrNotFound},
		{name: "parent is file", fs: []string{"d"}, file: "d/new", kind: fsys.ErrNotDir},
		{name: "through dir link out", fs: []string{"l => ../outside"}, file: "l/new", kind: fsys.ErrOutside},
		{name: "through dir link out absolute", fs: []string{"l => $OUTSIDE"}, file: "l/new", kind: fsys.ErrOutside},
		{name: "dangling out", fs: []string{"new => ../outside/new"}, file: "new", kind: fsys.ErrOutside},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, mk, c.fs...)
			before := e.tree()
			cm, err := e.p.Create(c.file, []byte("created"), 0o644)
			wantKind(t, "create", err, c.kind)
			if c.kind != nil {
				e.wantTree("create", before)
				return
			}
			if cm.Resolved != c.resolved {
				t.Errorf("Commit.Resolved = %q, want %q", cm.Resolved, c.resolved)
			}
			e.wantTree("create", with(before, c.resolved, "created", false))
		})
	}
}

func testReplace(t *testing.T, mk func(t *testing.T) Harness) {
	t.Run("conflict", func(t *testing.T) { testReplaceConflict(t, mk) })
	t.Run("expected forms", func(t *testing.T) { testReplaceExpectedForms(t, mk) })
	t.Run("mode kept", func(t *testing.T) { testReplaceModeKept(t, mk) })
	t.Run("special mode bits kept", func(t *testing.T) { testReplaceSpecialBits(t, mk) })
	t.Run("not a file", func(t *testing.T) { testReplaceNotAFile(t, mk) })
	t.Run("symlink kept", func(t *testing.T) { testReplaceSymlinkKept(t, mk) })
	t.Run("hooks", func(t *testing.T) { testReplaceHooks(t, mk) })
}

// testReplaceConflict: a stale Expected, by version or bytes, is refused
// with a *fsys.ConflictError and the file keeps its bytes.
func testReplaceConflict(t *testing.T, mk func(t *testing.T) Harness) {
	for _, exp := range []fsys.Expected{
		expect("stale"),
		{Version: ver("stale"), Bytes: []byte("stale")},
		{Version: ver("stale!"), Bytes: []byte("stale!")}, // same length as "actual"
	} {
		e := newEnv(t, mk, "f=actual")
		_, err := e.p.Replace("f", []byte("new"), exp)
		wantKind(t, "replace", err, fsys.ErrConflict)
		var ce *fsys.ConflictError
		if !errors.As(err, &ce) {
			t.Fatalf("error %v does not wrap a *fsys.ConflictError", err)
		}
		if ce.Expected != exp.Version || ce.Found != ver("actual") {
			t.Fatalf("ConflictError = %+v, want expected %s found %s", ce, exp.Version.Short(), ver("actual").Short())
		}
		e.wantTree("conflict", []string{"f=actual"})
	}
}

// testReplaceExpectedForms: every form of Expected (version, bytes, empty
// file, empty data) lands.
func testReplaceExpectedForms(t *testing.T, mk func(t *testing.T) Harness) {
	e := newEnv(t, mk, "f=one")
	if _, err := e.p.Replace("f", []byte("two"), expect("one")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.p.Replace("f", []byte("three"), fsys.Expected{Version: ver("two"), Bytes: []byte("two")}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.p.Replace("f", nil, expect("three")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.p.Replace("f", []byte("four"), fsys.Expected{Version: ver(""), Bytes: []byte{}}); err != nil {
		t.Fatal(err)
	}
	e.wantTree("replace", []string{"f=four"})
}

// testReplaceModeKept: the permission bits of the old file are kept.
func testReplaceModeKept(t *testing.T, mk func(t *testing.T) Harness) {
	e := newEnv(t, mk)
	for _, perm := range []uint32{0o640, 0o755, 0o600, 0o444} {
		name := fmt.Sprintf("f%o", perm)
		if err := e.h.WriteFile(name, []byte("old"), fs.FileMode(perm)); err != nil {
			t.Fatal(err)
		}
		if _, err := e.p.Replace(name, []byte("new"), expect("old")); err != nil {
			t.Fatal(err)
		}
		fi, err := e.p.Stat(name)
		if err != nil || uint32(fi.Mode) != perm {
			t.Errorf("mode after replace of %o: %o, %v", perm, fi.Mode, err)
		}
	}
}

// testReplaceSpecialBits: setuid, setgid and sticky are kept, and the file
// has one link after.
func testReplaceSpecialBits(t *testing.T, mk func(t *testing.T) Harness) {
	e := newEnv(t, mk)
	for i, perm := range []fs.FileMode{fs.ModeSetuid | 0o755, fs.ModeSetgid | 0o2750, fs.ModeSticky | 0o644, fs.ModeSetuid | fs.ModeSetgid | fs.ModeSticky | 0o700} {
		perm = normMode(perm)
		name := fmt.Sprintf("s%d", i)
		if err := e.h.WriteFile(name, []byte("old"), perm); err != nil {
			t.Fatal(err)
		}
		if fi, err := e.p.Stat(name); err != nil || fi.Mode != perm {
			t.Fatalf("Stat mode of a %v file: %v, %v", perm, fi.Mode, err)
		}
		if _, err := e.p.Replace(name, []byte("new"), expect("old")); err != nil {
			t.Fatal(err)
		}
		fi, err := e.p.Stat(name)
		if err != nil || fi.Mode != perm || fi.Links != 1 {
			t.Errorf("after replace of a %v file: mode %v, %d links, %v", perm, fi.Mode, fi.Links, err)
		}
	}
}

// testReplaceNotAFile: a directory, the root included, is refused with
// fsys.ErrIsDir.
func testReplaceNotAFile(t *testing.T, mk func(t *testing.T) Harness) {
	e := newEnv(t, mk, "d/")
	_, err := e.p.Replace("d", []byte("x"), expect(""))
	wantKind(t, "replace dir", err, fsys.ErrIsDir)
	_, err = e.p.Replace(".", []byte("x"), expect(""))
	wantKind(t, "replace root", err, fsys.ErrIsDir)
	e.wantTree("replace", []string{"d/"})
}

// testReplaceSymlinkKept: a replace through a symlink changes its target and
// keeps the link.
func testReplaceSymlinkKept(t *testing.T, mk func(t *testing.T) Harness) {
	e := newEnv(t, mk, "a/target=old", "l => a/target", "a/rel => target")
	cm, err := e.p.Replace("l", []byte("new"), expect("old"))
	if err != nil || cm.Resolved != "a/target" {
		t.Fatalf("replace through link: %+v, %v", cm, err)
	}
	if _, err := e.p.Replace("a/rel", []byte("newer"), expect("new")); err != nil {
		t.Fatal(err)
	}
	e.wantTree("replace", []string{"a/", "a/target=newer", "l => a/target", "a/rel => target"})
}

// testReplaceHooks: the hooks run around the swap with the resolved path,
// and a refused replace runs only BeforeSwap.
func testReplaceHooks(t *testing.T, mk func(t *testing.T) Harness) {
	h := mk(t)
	Build(t, h, "f=old", "l => f")
	var calls []string
	e := newEnvOn(t, h, fsys.Hooks{
		BeforeSwap: func(name string) { calls = append(calls, "before "+name) },
		AfterSwap:  func(name string) { calls = append(calls, "after "+name) },
	})
	if _, err := e.p.Replace("l", []byte("new"), expect("old")); err != nil {
		t.Fatal(err)
	}
	if _, err := e.p.Replace("l", []byte("x"), expect("stale")); !errors.Is(err, fsys.ErrConflict) {
		t.Fatalf("stale replace: %v", err)
	}
	want := []string{"before f", "after f", "before f"}
	if !slices.Equal(calls, want) {
		t.Fatalf("hook calls %q, want %q", calls, want)
	}
}

func testRemove(t *testing.T, mk func(t *testing.T) Harness) {
	t.Run("conflict", func(t *testing.T) {
		e := newEnv(t, mk, "f=actual")
		_, err := e.p.Remove("f", expect("stale"))
		wantKind(t, "remove", err, fsys.ErrConflict)
		var ce *fsys.ConflictError
		if !errors.As(err, &ce) || ce.Found != ver("actual") {
			t.Fatalf("error %v: want a ConflictError finding %s", err, ver("actual").Short())
		}
		_, err = e.p.Remove("f", fsys.Expected{Version: ver("ACTUAL"), Bytes: []byte("ACTUAL")})
		wantKind(t, "remove", err, fsys.ErrConflict)
		e.wantTree("remove", []string{"f=actual"})
	})
	t.Run("not a file", func(t *testing.T) {
		e := newEnv(t, mk, "d/")
		_, err := e.p.Remove("d", expect(""))
		wantKind(t, "remove dir", err, fsys.ErrIsDir)
		_, err = e.p.Remove("missing", expect(""))
		wantKind(t, "remove missing", err, fsys.ErrNotFound)
		e.wantTree("remove", []string{"d/"})
	})
	t.Run("through symlink", func(t *testing.T) {
		e := newEnv(t, mk, "f=old", "l => f")
		cm, err := e.p.Remove("l", expect("old"))
		if err != nil || cm.Resolved != "f" {
			t.Fatalf("remove through link: %+v, %v", cm, err)
		}
		if !slices.ContainsFunc(cm.Notes, func(n string) bool { return strings.Contains(n, "dangles") }) {
			t.Errorf("notes %q do not say the link dangles", cm.Notes)
		}
		e.wantTree("remove", []string{"l => f"})
	})
}

func testRename(t *testing.T, mk func(t *testing.T) Harness) {
	cases := []struct {
		name      string
		fs        []string
		from, to  string
		overwrite bool
		kind      error
		after     []string
	}{
		{name: "file", fs: []string{"a=1"}, from: "a", to: "b", after: []string{"b=1"}},
		{name: "into dir", fs: []string{"a=1", "d/"}, from: "a", to: "d/a", after: []string{"d/", "d/a=1"}},
		{name: "through dir link", fs: []string{"a=1", "d/", "l => d"}, from: "a", to: "l/a", after: []string{"d/", "d/a=1", "l => d"}},
		{name: "dir", fs: []string{"d/x=1"}, from: "d", to: "e", after: []string{"e/", "e/x=1"}},
		{name: "link moves", fs: []string{"f=1", "l => f", "d/"}, from: "l", to: "d/l", after: []string{"f=1", "d/", "d/l => f"}},
		{name: "exists", fs: []string{"a=1", "b=2"}, from: "a", to: "b", kind: fsys.ErrExists, after: []string{"a=1", "b=2"}},
		{name: "exists dir", fs: []string{"a=1", "b/"}, from: "a", to: "b", kind: fsys.ErrExists, after: []string{"a=1", "b/"}},
		{name: "same", fs: []string{"a=1"}, from: "a", to: "a", kind: fsys.ErrInvalid, after: []string{"a=1"}},
		{name: "same overwrite", fs: []string{"a=1"}, from: "a", to: "a", overwrite: true, kind: fsys.ErrInvalid, after: []string{"a=1"}},
		{name: "overwrite", fs: []string{"a=1", "b=2"}, from: "a", to: "b", overwrite: true, after: []string{"b=1"}},
		{name: "overwrite link", fs: []string{"a=1", "f=2", "b => f"}, from: "a", to: "b", overwrite: true, kind: fsys.ErrNotRegular, after: []string{"a=1", "b => f", "f=2"}},
		{name: "overwrite leaving link", fs: []string{"a=1", "b => ../outside/secret"}, from: "a", to: "b", overwrite: true, kind: fsys.ErrOutside, after: []string{"a=1", "b => ../outside/secret"}},
		{name: "overwrite empty dir", fs: []string{"d/x=1", "e/"}, from: "d", to: "e", overwrite: true, kind: fsys.ErrIsDir, after: []string{"d/", "d/x=1", "e/"}},
		{name: "overwrite full dir", fs: []string{"d/x=1", "e/y=2"}, from: "d", to: "e", overwrite: true, kind: fsys.ErrIsDir, after: []string{"d/", "d/x=1", "e/", "e/y=2"}},
		{name: "file over dir", fs: []string{"a=1", "e/"}, from: "a", to: "e", overwrite: true, kind: fsys.ErrIsDir, after: []string{"a=1", "e/"}},
		{name: "dir over file", fs: []string{"d/", "f=1"}, from: "d", to: "f", overwrite: true, kind: fsys.ErrIsDir, after: []string{"d/", "f=1"}},
		{name: "dir into itself", fs: []string{"d/"}, from: "d", to: "d/e", kind: fsys.ErrInvalid, after: []string{"d/"}},
		{name: "missing", from: "a", to: "b", kind: fsys.ErrNotFound},
		{name: "missing parent", fs: []string{"a=1"}, from: "a", to: "x/b", kind: fsys.ErrNotFound, after: []string{"a=1"}},
		{name: "root", fs: []string{"d/"}, from: ".", to: "d/x", kind: fsys.ErrInvalid, after: []string{"d/"}},
		{name: "onto root", fs: []string{"a=1"}, from: "a", to: ".", overwrite: true, kind: fsys.ErrInvalid, after: []string{"a=1"}},
		{name: "to link out", fs: []string{"a=1", "l => ../outside"}, from: "a", to: "l/a", kind: fsys.ErrOutside, after: []string{"a=1", "l => ../outside"}},
		{name: "to link out absolute", fs: []string{"a=1", "l => $OUTSIDE"}, from: "a", to: "l/a", kind: fsys.ErrOutside, after: []string{"a=1", "l => $OUTSIDE"}},
		{name: "from link out dir", fs: []string{"l => ../outside"}, from: "l/secret", to: "stolen", kind: fsys.ErrOutside, after: []string{"l => ../outside"}},
		{name: "leaving link", fs: []string{"l => ../outside/secret"}, from: "l", to: "m", kind: fsys.ErrOutside, after: []string{"l => ../outside/secret"}},
		{name: "dotdot", fs: []string{"a=1"}, from: "a", to: "../a", kind: fsys.ErrOutside, after: []string{"a=1"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			e := newEnv(t, mk, c.fs...)
			_, err := Rename(e.p, c.from, c.to, c.overwrite)
			wantKind(t, "rename", err, c.kind)
			var want []string
			for _, a := range c.after {
				want = append(want, e.h.expand(a))
			}
			e.wantTree("rename", want)
		})
	}
}

// raceCase is one race: op runs on a tree built from fs, another writer
// (inject) changes the tree at the instant before the swap, and the op
// must end with kind, leaving after.
type raceCase struct {
	name   string
	fs     []string
	op     func(p fsys.Provider) (fsys.Commit, error)
	inject func(h Harness) error
	kind   error
	after  []string
}

// moveOverB moves a (holding "mine") over b (holding "old").
func moveOverB(p fsys.Provider) (fsys.Commit, error) {
	dst := expect("old")
	return p.Rename("a", "b", expect("mine"), &dst)
}

// moveToB moves a (holding "mine") to the free name b.
func moveToB(p fsys.Provider) (fsys.Commit, error) { return p.Rename("a", "b", expect("mine"), nil) }

// replaceF replaces f (holding "old") with "mine".
func replaceF(p fsys.Provider) (fsys.Commit, error) {
	return p.Replace("f", []byte("mine"), expect("old"))
}

// removeF removes f (holding "old").
func removeF(p fsys.Provider) (fsys.Commit, error) { return p.Remove("f", expect("old")) }

// createF creates f holding "mine".
func createF(p fsys.Provider) (fsys.Commit, error) { return p.Create("f", []byte("mine"), 0o644) }

// writes returns an injection that writes data to name in place.
func writes(name, data string) func(h Harness) error {
	return func(h Harness) error { return h.WriteFile(name, []byte(data), 0o644) }
}

// removes returns an injection that removes name.
func removes(name string) func(h Harness) error {
	return func(h Harness) error { return h.RemoveAll(name) }
}

// swapsF returns an injection that removes f and has put make a new entry there.
func swapsF(put func(h Harness) error) func(h Harness) error {
	return func(h Harness) error {
		if err := h.RemoveAll("f"); err != nil {
			return err
		}
		return put(h)
	}
}

var raceCases = []raceCase{
	{name: "move over vs target writer", fs: []string{"a=mine", "b=old"}, op: moveOverB, inject: writes("b", "theirs"),
		kind: fsys.ErrConflict, after: []string{"a=mine", "b=theirs"}},
	{name: "move over vs source writer", fs: []string{"a=mine", "b=old"}, op: moveOverB, inject: writes("a", "theirs"),
		kind: fsys.ErrConflict, after: []string{"a=theirs", "b=old"}},
	{name: "move vs source writer", fs: []string{"a=mine"}, op: moveToB, inject: writes("a", "theirs"),
		kind: fsys.ErrConflict, after: []string{"a=theirs"}},
	{name: "move vs creator of the target", fs: []string{"a=mine"}, op: moveToB, inject: writes("b", "theirs"),
		kind: fsys.ErrExists, after: []string{"a=mine", "b=theirs"}},
	{name: "move over vs remover of the target", fs: []string{"a=mine", "b=old"}, op: moveOverB, inject: removes("b"),
		kind: fsys.ErrConflict, after: []string{"a=mine"}},
	{name: "replace vs writer", fs: []string{"f=old"}, op: replaceF, inject: writes("f", "theirs"),
		kind: fsys.ErrConflict, after: []string{"f=theirs"}},
	{name: "replace vs rename writer", fs: []string{"f=old"}, op: replaceF, inject: swapsF(writes("f", "theirs")),
		kind: fsys.ErrConflict, after: []string{"f=theirs"}},
	{name: "replace vs remover", fs: []string{"f=old"}, op: replaceF, inject: removes("f"),
		kind: fsys.ErrConflict, after: nil},
	{name: "replace vs symlink out", fs: []string{"f=old"}, op: replaceF,
		inject: swapsF(func(h Harness) error { return h.Symlink("../outside/secret", "f") }),
		kind:   fsys.ErrConflict, after: []string{"f => ../outside/secret"}},
	{name: "replace vs dir", fs: []string{"f=old"}, op: replaceF, inject: swapsF(func(h Harness) error { return h.Mkdir("f") }),
		kind: fsys.ErrConflict, after: []string{"f/"}},
	{name: "replace vs same bytes", fs: []string{"f=old"}, op: replaceF, inject: writes("f", "old"),
		after: []string{"f=mine"}},
	{name: "remove vs writer", fs: []string{"f=old"}, op: removeF, inject: writes("f", "theirs"),
		kind: fsys.ErrConflict, after: []string{"f=theirs"}},
	{name: "remove vs remover", fs: []string{"f=old"}, op: removeF, inject: removes("f"),
		kind: fsys.ErrConflict, after: nil},
	{name: "create vs creator", op: createF, inject: writes("f", "theirs"),
		kind: fsys.ErrExists, after: []string{"f=theirs"}},
	{name: "create vs symlink", op: createF, inject: func(h Harness) error { return h.Symlink("../outside/secret", "f") },
		kind: fsys.ErrExists, after: []string{"f => ../outside/secret"}},
}

// testRaces injects another writer at the instant before the swap.
func testRaces(t *testing.T, mk func(t *testing.T) Harness) {
	for _, r := range raceCases {
		t.Run(r.name, func(t *testing.T) {
			t.Parallel()
			h := mk(t)
			Build(t, h, r.fs...)
			var injected int
			e := newEnvOn(t, h, fsys.Hooks{BeforeSwap: func(string) {
				injected++
				if err := r.inject(h); err != nil {
					t.Errorf("inject: %v", err)
				}
			}})
			_, err := r.op(e.p)
			if injected != 1 {
				t.Fatalf("BeforeSwap ran %d times", injected)
			}
			wantKind(t, r.name, err, r.kind)
			e.wantTree(r.name, r.after)
		})
	}
}

func testHardLinks(t *testing.T, mk func(t *testing.T) Harness) {
	h := mk(t)
	if h.Link == nil {
		t.Skip("no hard links")
	}
	Build(t, h, "a=old", "d/")
	if err := h.Link("a", "b"); err != nil {
		t.Skipf("hard link: %v", err)
	}
	if err := h.Link("a", "d/c"); err != nil {
		t.Skipf("hard link: %v", err)
	}
	e := newEnvOn(t, h, fsys.Hooks{})
	fi, err := e.p.Stat("a")
	if err != nil || fi.Links != 3 {
		t.Fatalf("stat a: links %d, %v; want 3", fi.Links, err)
	}
	cm, err := e.p.Replace("a", []byte("new"), expect("old"))
	if err != nil {
		t.Fatal(err)
	}
	want := "a had 3 hard links; the other 2 keep the old bytes"
	if !slices.Contains(cm.Notes, want) {
		t.Errorf("notes %q, want %q", cm.Notes, want)
	}
	e.wantTree("replace", []string{"a=new", "b=old", "d/", "d/c=old"})
	cm, err = e.p.Replace("b", []byte("newer"), expect("old"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "b had 2 hard links; the other keeps the old bytes"; !slices.Contains(cm.Notes, want) {
		t.Errorf("notes %q, want %q", cm.Notes, want)
	}
	cm, err = e.p.Replace("d/c", []byte("last"), expect("old"))
	if err != nil || len(cm.Notes) != 0 {
		t.Fatalf("replace of a single link: notes %q, %v", cm.Notes, err)
	}
	e.wantTree("replace", []string{"a=new", "b=newer", "d/", "d/c=last"})
}

// testLocker runs in a synctest bubble: the waits are on the lock's
// channels and the context's timer, so "still waiting" is decided when
// every goroutine is blocked, not after a guess at wall time.
func testLocker(t *testing.T, mk func(t *testing.T) Harness) {
	synctest.Test(t, func(t *testing.T) {
		e := newEnv(t, mk, "a", "b", "l => a")
		l, ok := e.p.(fsys.Locker)
		if !ok {
			t.Skip("not a Locker")
		}
		ctx := context.Background()
		unlockA, err := l.Lock(ctx, "a")
		if err != nil {
			t.Fatal(err)
		}
		// Another file does not wait.
		unlockB, err := l.Lock(ctx, "b")
		if err != nil {
			t.Fatal(err)
		}
		unlockB()
		// The same file, by another name, waits until ctx gives up.
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		if _, err := l.Lock(short, "l"); !errors.Is(err, context.DeadlineExceeded) {
			t.Fatalf("lock through link while held: %v, want deadline exceeded", err)
		}
		got := make(chan error, 1)
		go func() {
			unlock, err := l.Lock(ctx, "./a")
			if err == nil {
				unlock()
			}
			got <- err
		}()
		synctest.Wait() // the second lock is blocked, or has returned
		select {
		case err := <-got:
			t.Fatalf("second lock of a returned (%v) while the first is held", err)
		default:
		}
		unlockA()
		unlockA() // harmless
		synctest.Wait()
		select {
		case err := <-got:
			if err != nil {
				t.Fatal(err)
			}
		default:
			t.Fatal("lock not handed over after unlock")
		}
		cancelled, cancel2 := context.WithCancel(ctx)
		cancel2()
		if _, err := l.Lock(cancelled, "b"); !errors.Is(err, context.Canceled) {
			t.Fatalf("lock with cancelled context: %v", err)
		}
	})
}

// testConcurrent runs compare-and-swap loops from many goroutines on one
// file, and plain commits on private files beside it: every call lands or
// conflicts, and no increment is lost, fallback or not.
func testConcurrent(t *testing.T, mk func(t *testing.T) Harness) {
	e := newEnv(t, mk, "n=0", "d/")
	const workers, each = 4, 15
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := fmt.Sprintf("d/w%d", w)
			if _, err := e.p.Create(own, []byte("0"), 0o644); err != nil {
				t.Error(err)
				return
			}
			for i := 0; i < each; {
				cur, err := e.p.ReadFile("n")
				if err != nil {
					t.Error(err)
					return
				}
				var n int
				fmt.Sscan(string(cur), &n)
				_, err = e.p.Replace("n", []byte(fmt.Sprint(n+1)), fsys.Expected{Version: fsys.VersionOf(cur), Bytes: cur})
				if errors.Is(err, fsys.ErrConflict) {
					continue
				}
				if err != nil {
					t.Error(err)
					return
				}
				if _, err := e.p.Replace(own, []byte(fmt.Sprint(i+1)), expect(fmt.Sprint(i))); err != nil {
					t.Error(err)
					return
				}
				i++
			}
		}()
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	want := []string{"d/", "n=" + fmt.Sprint(workers*each)}
	for w := range workers {
		want = append(want, fmt.Sprintf("d/w%d=%d", w, each))
	}
	e.wantTree("concurrent", want)
}

// Rename calls p.Rename as a caller that has just read both names would:
// src is what ReadFile finds at from now, and with overwrite dst is what it
// finds at to (nil when to does not exist).
func Rename(p fsys.Provider, from, to string, overwrite bool) (fsys.Commit, error) {
	var src fsys.Expected
	if b, err := p.ReadFile(from); err == nil {
		src = fsys.Expected{Version: fsys.VersionOf(b)}
	}
	var dst *fsys.Expected
	if overwrite {
		b, err := p.ReadFile(to)
		switch {
		case err == nil:
			dst = &fsys.Expected{Version: fsys.VersionOf(b)}
		case !errors.Is(err, fsys.ErrNotFound):
			dst = &fsys.Expected{Version: fsys.VersionOf(nil)}
		}
	}
	return p.Rename(from, to, src, dst)
}

func second(_ fsys.Commit, err error) error { return err }
