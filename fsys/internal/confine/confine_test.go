package confine

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet/fsys"
)

// mapTree is a Tree over a map: "d/" directories, "f" files, "l=>t" links.
type mapTree map[string]string // path -> "" (file), "/" (dir) or link target

func (m mapTree) Lstat(rel string) (fs.FileInfo, error) {
	if rel == "." {
		return fakeInfo{mode: fs.ModeDir}, nil
	}
	// Parents must be directories, as the walk promises.
	for d := path.Dir(rel); d != "."; d = path.Dir(d) {
		if m[d] != "/" {
			return nil, errors.New("walk asked about a path under a non-directory: " + rel)
		}
	}
	v, ok := m[rel]
	switch {
	case !ok:
		return nil, fs.ErrNotExist
	case v == "/":
		return fakeInfo{mode: fs.ModeDir}, nil
	case v == "":
		return fakeInfo{}, nil
	}
	return fakeInfo{mode: fs.ModeSymlink}, nil
}

func (m mapTree) Readlink(rel string) (string, error) { return m[rel], nil }

type fakeInfo struct{ mode fs.FileMode }

func (i fakeInfo) Name() string       { return "" }
func (i fakeInfo) Size() int64        { return 0 }
func (i fakeInfo) Mode() fs.FileMode  { return i.mode }
func (i fakeInfo) ModTime() time.Time { return time.Time{} }
func (i fakeInfo) IsDir() bool        { return i.mode.IsDir() }
func (i fakeInfo) Sys() any           { return nil }

func TestClean(t *testing.T) {
	for name, want := range map[string]string{
		".": ".", "a": "a", "a/": "a", "./a//b/.": "a/b", "a/../b": "b", "a/..": ".", "...": "...", "..a": "..a",
	} {
		got, err := Clean("op", name)
		if err != nil || got != want {
			t.Errorf("Clean(%q) = %q, %v; want %q", name, got, err, want)
		}
	}
	for name, kind := range map[string]error{
		"": fsys.ErrInvalid, "a\x00": fsys.ErrInvalid, "..": fsys.ErrOutside, "../a": fsys.ErrOutside,
		"a/../..": fsys.ErrOutside, "/a": fsys.ErrOutside, "/": fsys.ErrOutside,
	} {
		if _, err := Clean("op", name); !errors.Is(err, kind) {
			t.Errorf("Clean(%q): %v, want %v", name, err, kind)
		}
	}
}

func TestWalk(t *testing.T) {
	tree := mapTree{
		"d": "/", "d/f": "", "d/up": "../f", "f": "", "l": "d/f", "ld": "d", "abs": "/root/d/f",
		"absroot": "/root", "out": "../x", "absout": "/rootx/f", "loop": "loop", "dang": "d/missing",
		"dangdir": "nodir/x", "viafile": "f/x", "slash": "d/f/",
	}
	abs := []string{"/root"}
	cases := []struct {
		name      string
		follow    bool
		path      string
		exists    bool
		rest      string
		finalLink bool
		kind      error
	}{
		{name: "d/f", follow: true, path: "d/f", exists: true},
		{name: "l", follow: true, path: "d/f", exists: true, finalLink: true},
		{name: "l", follow: false, path: "l", exists: true},
		{name: "ld/f", follow: false, path: "d/f", exists: true},
		{name: "ld/up", follow: true, path: "f", exists: true, finalLink: true},
		{name: "abs", follow: true, path: "d/f", exists: true, finalLink: true},
		{name: "absroot/ld/f", follow: true, path: "d/f", exists: true},
		{name: "absroot", follow: true, path: ".", exists: true, finalLink: true},
		{name: "dang", follow: true, path: "d/missing", finalLink: true},
		{name: "dangdir", follow: true, path: "nodir", rest: "x", finalLink: true},
		{name: "missing/a/b", follow: true, path: "missing", rest: "a/b"},
		{name: ".", follow: true, path: ".", exists: true},
		{name: "out", follow: true, kind: fsys.ErrOutside},
		{name: "out", follow: false, path: "out", exists: true},
		{name: "absout", follow: true, kind: fsys.ErrOutside},
		{name: "loop", follow: true, kind: fsys.ErrInvalid},
		{name: "viafile", follow: true, kind: fsys.ErrNotDir},
		{name: "f/x", follow: true, kind: fsys.ErrNotDir},
		{name: "slash", follow: true, kind: fsys.ErrNotDir},
	}
	for _, c := range cases {
		r, err := Walk(tree, "op", c.name, c.follow, abs)
		if c.kind != nil {
			if !errors.Is(err, c.kind) {
				t.Errorf("Walk(%q, %v): %v, want %v", c.name, c.follow, err, c.kind)
			}
			continue
		}
		if err != nil || r.Path != c.path || r.Exists() != c.exists || strings.Join(r.Rest, "/") != c.rest || r.FinalLink != c.finalLink {
			t.Errorf("Walk(%q, %v) = %+v, %v; want path %q exists %v rest %q finalLink %v",
				c.name, c.follow, r, err, c.path, c.exists, c.rest, c.finalLink)
		}
	}
}

// FuzzWalk: whatever the tree of links and whatever the name, a walk
// either fails or ends on a local path free of "..", and Full never
// climbs out.
func FuzzWalk(f *testing.F) {
	f.Add("a/b", "../x", "a/../c", "/root/a", "l/b")
	f.Add("l/l/l", "l", ".", "/root", "l/../..")
	f.Add("x/y/z", "y/../../..", "/rootx", "a//b/", "../root/a")
	f.Fuzz(func(t *testing.T, name, t1, t2, t3, t4 string) {
		tree := mapTree{"a": "/", "a/b": "", "c": ""}
		for i, tg := range []string{t1, t2, t3, t4} {
			if tg != "" && !strings.Contains(tg, "\x00") {
				tree[[]string{"l", "a/l", "m", "a/m"}[i]] = tg
			}
		}
		c, err := Clean("op", name)
		if err != nil {
			return
		}
		for _, follow := range []bool{true, false} {
			r, err := Walk(tree, "op", c, follow, []string{"/root"})
			if err != nil {
				var pe *fsys.PathError
				if !errors.As(err, &pe) {
					t.Fatalf("Walk(%q) error %v is not a PathError", name, err)
				}
				continue
			}
			if r.Path != "." && (strings.HasPrefix(r.Path, "/") || r.Path != path.Clean(r.Path) || r.Path == ".." || strings.HasPrefix(r.Path, "../")) {
				t.Fatalf("Walk(%q) = %q: not a clean local path", name, r.Path)
			}
			if full, ok := r.Full(); ok && (strings.HasPrefix(full, "../") || full == ".." || strings.HasPrefix(full, "/")) {
				t.Fatalf("Walk(%q).Full() = %q climbs out", name, full)
			}
		}
	})
}

func FuzzClean(f *testing.F) {
	for _, s := range []string{"a", "../a", "a/../../b", "/a", "", "a\x00", "./a//b/."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		c, err := Clean("op", name)
		if err != nil {
			if !errors.Is(err, fsys.ErrInvalid) && !errors.Is(err, fsys.ErrOutside) {
				t.Fatalf("Clean(%q): unexpected kind %v", name, err)
			}
			return
		}
		if c != path.Clean(c) || c == ".." || strings.HasPrefix(c, "../") || strings.HasPrefix(c, "/") || strings.Contains(c, "\x00") {
			t.Fatalf("Clean(%q) = %q", name, c)
		}
	})
}
