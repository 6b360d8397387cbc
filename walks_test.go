//go:build unix

package stet_test

import (
	"context"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
)

// walkCounter is the host backend with every call that walks a path from
// the root counted by method: one count is one confined walk.
type walkCounter struct {
	*local.FS
	mu sync.Mutex
	n  map[string]int
}

func (w *walkCounter) count(m string) {
	w.mu.Lock()
	w.n[m]++
	w.mu.Unlock()
}

// reset returns the counts so far and starts again.
func (w *walkCounter) reset() map[string]int {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := w.n
	w.n = map[string]int{}
	return n
}

func (w *walkCounter) Check(name string, e fsys.Expected) (bool, error) {
	w.count("Check")
	return w.FS.Check(name, e)
}
func (w *walkCounter) Create(name string, d []byte, p fs.FileMode) (fsys.Commit, error) {
	w.count("Create")
	return w.FS.Create(name, d, p)
}
func (w *walkCounter) CreateAs(name string, d []byte, p fs.FileMode, t string) (fsys.Commit, error) {
	w.count("CreateAs")
	return w.FS.CreateAs(name, d, p, t)
}
func (w *walkCounter) CreateWith(name string, d []byte, p fs.FileMode, e fsys.Expected) (fsys.Commit, error) {
	w.count("CreateWith")
	return w.FS.CreateWith(name, d, p, e)
}
func (w *walkCounter) Hold(name string) (fsys.Handle, error) {
	w.count("Hold")
	return w.FS.Hold(name)
}
func (w *walkCounter) Lock(ctx context.Context, name string) (func(), error) {
	w.count("Lock")
	return w.FS.Lock(ctx, name)
}
func (w *walkCounter) Lstat(name string) (fsys.Info, error) {
	w.count("Lstat")
	return w.FS.Lstat(name)
}
func (w *walkCounter) MkdirAll(name string) error {
	w.count("MkdirAll")
	return w.FS.MkdirAll(name)
}
func (w *walkCounter) Open(name string) (io.ReadCloser, fsys.Info, error) {
	w.count("Open")
	return w.FS.Open(name)
}
func (w *walkCounter) OpenDir(name string) (fsys.Dir, error) {
	w.count("OpenDir")
	return w.FS.OpenDir(name)
}
func (w *walkCounter) ReadDir(name string) ([]fsys.Info, error) {
	w.count("ReadDir")
	return w.FS.ReadDir(name)
}
func (w *walkCounter) ReadDirTypes(name string) ([]fsys.Info, error) {
	w.count("ReadDirTypes")
	return w.FS.ReadDirTypes(name)
}
func (w *walkCounter) ReadFile(name string) ([]byte, error) {
	w.count("ReadFile")
	return w.FS.ReadFile(name)
}
func (w *walkCounter) Remove(name string, e fsys.Expected) (fsys.Commit, error) {
	w.count("Remove")
	return w.FS.Remove(name, e)
}
func (w *walkCounter) RemoveKeep(name string, e fsys.Expected, k fsys.Keep) (fsys.Commit, fsys.Kept, error) {
	w.count("RemoveKeep")
	return w.FS.RemoveKeep(name, e, k)
}
func (w *walkCounter) Rename(from, to string, src fsys.Expected, dst *fsys.Expected) (fsys.Commit, error) {
	w.count("Rename")
	return w.FS.Rename(from, to, src, dst)
}
func (w *walkCounter) Replace(name string, d []byte, e fsys.Expected) (fsys.Commit, error) {
	w.count("Replace")
	return w.FS.Replace(name, d, e)
}
func (w *walkCounter) ReplaceKeep(name string, d []byte, e fsys.Expected, k fsys.Keep) (fsys.Commit, fsys.Kept, error) {
	w.count("ReplaceKeep")
	return w.FS.ReplaceKeep(name, d, e, k)
}
func (w *walkCounter) Resolve(name string) (string, error) {
	w.count("Resolve")
	return w.FS.Resolve(name)
}
func (w *walkCounter) Stat(name string) (fsys.Info, error) {
	w.count("Stat")
	return w.FS.Stat(name)
}
func (w *walkCounter) SweepDir(name string) (int, error) {
	w.count("SweepDir")
	return w.FS.SweepDir(name)
}
func (w *walkCounter) SweepDirKeeping(name string, keep func(string) bool) (int, error) {
	w.count("SweepDirKeeping")
	return w.FS.SweepDirKeeping(name, keep)
}
func (w *walkCounter) Trace(name string) ([]string, error) {
	w.count("Trace")
	return w.FS.Trace(name)
}

func total(n map[string]int) int {
	t := 0
	for _, v := range n {
		t += v
	}
	return t
}

func show(n map[string]int) string {
	var parts []string
	for k, v := range n {
		parts = append(parts, k+"="+strings.Repeat("|", v))
	}
	sort.Strings(parts)
	return strings.Join(parts, " ")
}

// TestWalksPerCall counts the confined walks each kind of change makes
// through the host backend (the rules' own look-ups included: the trace of
// every name, the hard-link check, the git directories, the lock), and
// holds each call to the count it has now, so a step that walks a name
// again shows here. A change resolves each name it touches once
// (fsys.Holder) and every later step works relative to the directory held
// open; the first change in a directory also sweeps it (once per
// workspace); a move holds both names, and its rename walks both (one
// call). A file one directory down costs the walks of the git-directory
// look-ups in the directory above the one held.
func TestWalksPerCall(t *testing.T) {
	root := t.TempDir()
	if err := os.Mkdir(filepath.Join(root, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	for name, data := range map[string]string{"a.txt": "one\ntwo\n", "b.txt": "bee\n", "c.txt": "sea\n", "sub/f.txt": "eff\n"} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	l, err := local.Open(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	w := &walkCounter{FS: l, n: map[string]int{}}
	ws, err := stet.Open([]string{root}, stet.Options{State: t.TempDir(), Providers: []fsys.Provider{w}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("walks")
	if _, err := s.List(ctx, stet.ListArgs{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.txt", "b.txt", "c.txt", "sub/f.txt"} {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: n}); err != nil {
			t.Fatal(err)
		}
	}
	calls := []struct {
		name string
		max  int
		do   func() error
	}{
		{"edit", 2, func() error {
			_, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("two"), NewString: ptr("2")})
			return err
		}},
		{"write (replace)", 1, func() error {
			_, err := s.Write(ctx, stet.WriteArgs{Path: "b.txt", Content: "bee bee\n", Overwrite: true})
			return err
		}},
		{"write (create)", 1, func() error {
			_, err := s.Write(ctx, stet.WriteArgs{Path: "d.txt", Content: "new\n"})
			return err
		}},
		{"delete", 1, func() error {
			_, err := s.Delete(ctx, stet.DeleteArgs{Path: "c.txt"})
			return err
		}},
		{"move", 3, func() error {
			_, err := s.Move(ctx, stet.MoveArgs{From: "d.txt", To: "e.txt"})
			return err
		}},
		{"edit (one directory down)", 4, func() error {
			_, err := s.Edit(ctx, stet.EditArgs{Path: "sub/f.txt", OldString: ptr("eff"), NewString: ptr("F")})
			return err
		}},
		{"edit (again)", 3, func() error {
			_, err := s.Edit(ctx, stet.EditArgs{Path: "sub/f.txt", OldString: ptr("F"), NewString: ptr("eff")})
			return err
		}},
	}
	w.reset()
	for _, c := range calls {
		if err := c.do(); err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		n := w.reset()
		t.Logf("%s: %d walks: %s", c.name, total(n), show(n))
		if total(n) > c.max {
			t.Errorf("%s walks its paths %d times, want at most %d: %s", c.name, total(n), c.max, show(n))
		}
	}
}
