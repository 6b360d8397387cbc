package local_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/internal/fstree"
)

// TestOpenDir: files opened by name through an open directory are the
// entries themselves; a symlink (inside or out), a directory, a FIFO and a
// name that is not one element are refused.
func TestOpenDir(t *testing.T) {
	outside := t.TempDir()
	os.WriteFile(filepath.Join(outside, "secret"), []byte("secret\n"), 0o644)
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "d", "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "d", "a.txt"), []byte("one\n"), 0o644)
	os.Symlink("a.txt", filepath.Join(root, "d", "in"))
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "d", "out"))
	fifo := fstree.Mkfifo(filepath.Join(root, "d", "pipe")) == nil
	l, err := local.Open(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.OpenDir("d")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	f, info, err := d.Open("a.txt")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(f)
	f.Close()
	if string(b) != "one\n" || info.Size != 4 || info.Type != fsys.TypeFile {
		t.Fatalf("a.txt: %q %+v", b, info)
	}
	cases := map[string]error{"in": fsys.ErrNotRegular, "out": fsys.ErrNotRegular, "sub": fsys.ErrIsDir,
		"../d/a.txt": fsys.ErrInvalid, "..": fsys.ErrInvalid, "": fsys.ErrInvalid, "missing": fsys.ErrNotFound}
	if fifo {
		cases["pipe"] = fsys.ErrNotRegular
	}
	for name, kind := range cases {
		f, _, err := d.Open(name)
		if f != nil {
			f.Close()
		}
		if !errors.Is(err, kind) {
			t.Errorf("Open(%q): %v, want %v", name, err, kind)
		}
	}
	// OpenEach: the same files and refusals as Open, in order.
	names := []string{"a.txt", "in", "out", "sub", "..", "missing", "a.txt"}
	if fifo {
		names = append(names, "pipe")
	}
	var seen []string
	err = fsys.OpenEach(d, names, func(i int, r io.Reader, info fsys.Info, err error) error {
		seen = append(seen, names[i])
		if names[i] == "a.txt" {
			if err != nil {
				t.Fatalf("OpenEach a.txt: %v", err)
			}
			b, _ := io.ReadAll(r)
			if string(b) != "one\n" || info.Size != 4 || info.Type != fsys.TypeFile || info.Name != "a.txt" {
				t.Errorf("OpenEach a.txt: %q %+v", b, info)
			}
			return nil
		}
		if r != nil || !errors.Is(err, cases[names[i]]) {
			t.Errorf("OpenEach %q: %v, want %v", names[i], err, cases[names[i]])
		}
		return nil
	})
	if err != nil || len(seen) != len(names) {
		t.Errorf("OpenEach: %v, saw %v", err, seen)
	}
	stop := errors.New("stop")
	calls := 0
	err = fsys.OpenEach(d, []string{"a.txt", "a.txt", "a.txt"}, func(int, io.Reader, fsys.Info, error) error {
		calls++
		return stop
	})
	if err != stop || calls != 1 {
		t.Errorf("OpenEach stopped by fn: %v after %d calls", err, calls)
	}
	if _, err := l.OpenDir("d/a.txt"); !errors.Is(err, fsys.ErrNotDir) {
		t.Errorf("OpenDir of a file: %v", err)
	}
	os.Symlink(outside, filepath.Join(root, "away"))
	if _, err := l.OpenDir("away"); !errors.Is(err, fsys.ErrOutside) {
		t.Errorf("OpenDir through a link leaving the root: %v", err)
	}
}

// TestOpenEachInfo: the Info OpenEach gives is the one Open gives.
func TestOpenEachInfo(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "f")
	os.WriteFile(p, []byte("hello\n"), 0o644)
	os.Chmod(p, 0o751|os.ModeSetuid)
	os.Link(p, filepath.Join(root, "g"))
	l, err := local.Open(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	f, want, err := l.Open("f")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	d, err := l.OpenDir(".")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	fsys.OpenEach(d, []string{"f"}, func(_ int, _ io.Reader, got fsys.Info, err error) error {
		if err != nil || got != want {
			t.Errorf("OpenEach: %+v, %v; Open: %+v", got, err, want)
		}
		return nil
	})
}

// TestDirWalker: an open directory lists its entries by type (the same on
// every call) and opens its subdirectories by name, never through a
// symlink, inside the root or out.
func TestDirWalker(t *testing.T) {
	outside := t.TempDir()
	root := t.TempDir()
	os.MkdirAll(filepath.Join(root, "d", "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "d", "sub", "x"), []byte("x\n"), 0o644)
	os.WriteFile(filepath.Join(root, "d", "f"), []byte("f\n"), 0o644)
	os.Symlink("sub", filepath.Join(root, "d", "in"))
	os.Symlink(outside, filepath.Join(root, "d", "out"))
	l, err := local.Open(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	d, err := l.OpenDir("d")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	w := d.(fsys.DirWalker)
	want, err := fsys.ReadDirTypes(l, "d")
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := w.ReadDirTypes()
		if err != nil || !slices.Equal(got, want) {
			t.Fatalf("ReadDirTypes: %v, %v; want %v", got, err, want)
		}
	}
	sub, err := w.OpenDir("sub")
	if err != nil {
		t.Fatal(err)
	}
	defer sub.Close()
	if got, err := sub.(fsys.DirWalker).ReadDirTypes(); err != nil || len(got) != 1 || got[0].Name != "x" || got[0].Type != fsys.TypeFile {
		t.Errorf("sub: %v, %v", got, err)
	}
	f, _, err := sub.Open("x")
	if err != nil {
		t.Fatal(err)
	}
	f.Close()
	cases := map[string]error{"in": fsys.ErrNotDir, "out": fsys.ErrNotDir, "f": fsys.ErrNotDir,
		"missing": fsys.ErrNotFound, "..": fsys.ErrInvalid, "sub/..": fsys.ErrInvalid, "": fsys.ErrInvalid}
	for name, kind := range cases {
		s, err := w.OpenDir(name)
		if s != nil {
			s.Close()
		}
		if !errors.Is(err, kind) {
			t.Errorf("OpenDir(%q): %v, want %v", name, err, kind)
		}
	}
}
