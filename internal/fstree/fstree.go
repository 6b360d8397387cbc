package fstree

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/fsystest"
	"github.com/stet-dev/stet/fsys/memfs"
)

// Tree is one root under test with its outside.
type Tree struct {
	// Root is the absolute root directory to give stet.Open.
	Root string
	// Mem is the in-memory backend, nil for a host tree. Give it to
	// stet.Options.Providers.
	Mem *memfs.FS

	h    fsystest.Harness
	base *os.Root // the temp dir holding "ws" and "outside" (host only)
}

// Host makes a fresh host tree: base/ws is the root, base/outside holds
// "secret" (SECRET) and "dir/secret" (SECRET2). The tree is removed with the
// test's temp dir.
func Host(t testing.TB) *Tree {
	t.Helper()
	dir := t.TempDir()
	base, err := os.OpenRoot(dir) // not a workspace path: the test's temp directory, opened to confine the tree
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { base.Close() })
	for _, d := range []string{"ws", "outside", "outside/dir"} {
		if err := base.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for name, data := range map[string]string{"outside/secret": "SECRET", "outside/dir/secret": "SECRET2"} {
		if err := writeIn(base, name, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := func(name string) string { return path.Join("ws", name) }
	tr := &Tree{Root: filepath.Join(dir, "ws"), base: base}
	tr.h = fsystest.Harness{
		Dir:     tr.Root,
		Outside: filepath.Join(dir, "outside"),
		Mkdir:   func(name string) error { return base.Mkdir(ws(name), 0o755) },
		WriteFile: func(name string, data []byte, perm fs.FileMode) error {
			return writeIn(base, ws(name), data, perm)
		},
		Symlink:  func(target, name string) error { return base.Symlink(filepath.FromSlash(target), ws(name)) },
		Readlink: func(name string) (string, error) { return base.Readlink(ws(name)) },
		RemoveAll: func(name string) error {
			return base.RemoveAll(ws(name))
		},
		Mkfifo: mkfifo(dir, "ws"),
	}
	return tr
}

// writeIn writes data to name under r in place, with perm exactly when the
// file is created (as an editor saving in place would).
func writeIn(r *os.Root, name string, data []byte, perm fs.FileMode) error {
	_, err := r.Lstat(name)
	created := errors.Is(err, fs.ErrNotExist)
	f, err := r.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, perm)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil && created {
		err = r.Chmod(name, perm)
	}
	return err
}

// Mem makes a fresh in-memory tree; it has no outside.
func Mem(t testing.TB) *Tree {
	t.Helper()
	return MemWith(t, memfs.Options{})
}

// MemWith is Mem with the backend's options: a folding volume
// (memfs.Options.Fold), say.
func MemWith(t testing.TB, o memfs.Options) *Tree {
	t.Helper()
	m := memfs.NewWithOptions(o)
	return &Tree{
		Root: m.Dir(),
		Mem:  m,
		h: fsystest.Harness{
			Dir:       m.Dir(),
			Outside:   "/outside",
			Mkdir:     m.Mkdir,
			WriteFile: m.WriteFile,
			Symlink:   m.Symlink,
			Readlink:  m.Readlink,
			RemoveAll: m.RemoveAll,
			Mkfifo:    m.Mkfifo,
		},
	}
}

// Build makes the entries under the root, creating missing parents. An entry
// the backend cannot make (a FIFO where there are none) skips the test.
func (tr *Tree) Build(t testing.TB, entries ...string) {
	t.Helper()
	fsystest.Build(t, tr.h, entries...)
}

// WriteFile changes name (relative to the root) in place as another program
// would, bypassing stet.
func (tr *Tree) WriteFile(name string, data []byte) error {
	return tr.h.WriteFile(name, data, 0o644)
}

// ReadFile returns the bytes of the file at name (relative to the root,
// following symlinks inside the root).
func (tr *Tree) ReadFile(name string) ([]byte, error) {
	if tr.Mem != nil {
		return tr.Mem.ReadFile(name)
	}
	return tr.base.ReadFile(path.Join("ws", name))
}

// Chmod sets the permission bits of name (host trees only).
func (tr *Tree) Chmod(name string, mode fs.FileMode) error {
	if tr.Mem != nil {
		return errors.New("fstree: chmod is not supported in memory")
	}
	return tr.base.Chmod(path.Join("ws", name), mode)
}

// Entry is one name in a snapshot.
type Entry struct {
	Path string      // slash-separated, relative to the root
	Type fsys.Type   // file, dir, symlink or other
	Data string      // bytes of a file, target of a symlink
	Mode fs.FileMode // permission bits (0 for symlinks)
}

// String renders e in the notation, with the mode appended when it is not
// the default (0644 files, 0755 directories): "a.txt=hi", "bin/x=hi (0755)".
func (e Entry) String() string {
	var s string
	def := fs.FileMode(0o644)
	switch e.Type {
	case fsys.TypeDir:
		s, def = e.Path+"/", 0o755
	case fsys.TypeFile:
		s = e.Path + "=" + e.Data
	case fsys.TypeSymlink:
		return e.Path + " => " + e.Data
	default:
		s = e.Path + "|"
	}
	if e.Mode != def {
		s += fmt.Sprintf(" (%04o)", uint32(e.Mode))
	}
	return s
}

// Snapshot lists every entry under the root, sorted by path, without
// following symlinks.
func (tr *Tree) Snapshot(t testing.TB) []Entry {
	t.Helper()
	var out []Entry
	var err error
	if tr.Mem != nil {
		err = tr.memWalk(".", &out)
	} else {
		err = hostWalk(tr.base, "ws", "", &out)
	}
	if err != nil {
		t.Fatalf("snapshot: %v", err)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Path < out[j].Path })
	return out
}

// Lines is Snapshot rendered in the notation.
func (tr *Tree) Lines(t testing.TB) []string {
	t.Helper()
	var out []string
	for _, e := range tr.Snapshot(t) {
		out = append(out, e.String())
	}
	return out
}

func (tr *Tree) memWalk(dir string, out *[]Entry) error {
	ents, err := tr.Mem.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := path.Join(dir, e.Name)
		en := Entry{Path: name, Type: e.Type, Mode: e.Mode.Perm()}
		switch e.Type {
		case fsys.TypeDir:
			*out = append(*out, en)
			if err := tr.memWalk(name, out); err != nil {
				return err
			}
			continue
		case fsys.TypeFile:
			b, err := tr.Mem.ReadFile(name)
			if err != nil {
				return err
			}
			en.Data = string(b)
		case fsys.TypeSymlink:
			target, err := tr.Mem.Readlink(name)
			if err != nil {
				return err
			}
			en.Data, en.Mode = target, 0
		}
		*out = append(*out, en)
	}
	return nil
}

// hostWalk lists dir (relative to r) into out, naming entries relative to
// prefix.
func hostWalk(r *os.Root, dir, prefix string, out *[]Entry) error {
	f, err := r.Open(dir)
	if err != nil {
		return err
	}
	names, err := f.Readdirnames(-1)
	f.Close()
	if err != nil {
		return err
	}
	sort.Strings(names)
	for _, n := range names {
		full := path.Join(dir, n)
		rel := path.Join(prefix, n)
		fi, err := r.Lstat(full)
		if err != nil {
			return err
		}
		en := Entry{Path: rel, Mode: fi.Mode().Perm()}
		switch m := fi.Mode(); {
		case m.IsDir():
			en.Type = fsys.TypeDir
			*out = append(*out, en)
			if err := hostWalk(r, full, rel, out); err != nil {
				return err
			}
			continue
		case m.IsRegular():
			en.Type = fsys.TypeFile
			b, err := r.ReadFile(full)
			if err != nil {
				return err
			}
			en.Data = string(b)
		case m&fs.ModeSymlink != 0:
			en.Type = fsys.TypeSymlink
			target, err := r.Readlink(full)
			if err != nil {
				return err
			}
			en.Data, en.Mode = filepath.ToSlash(target), 0
		default:
			en.Type = fsys.TypeOther
		}
		*out = append(*out, en)
	}
	return nil
}

// OutsideDigest summarises every name, type, mode, link target and byte
// outside the root ("" in memory, where there is no outside).
func (tr *Tree) OutsideDigest(t testing.TB) string {
	t.Helper()
	if tr.Mem != nil {
		return ""
	}
	var out []Entry
	if err := hostWalk(tr.base, ".", "", &out); err != nil {
		t.Fatalf("outside digest: %v", err)
	}
	h := sha256.New()
	for _, e := range out {
		if e.Path == "ws" || strings.HasPrefix(e.Path, "ws/") {
			continue
		}
		fmt.Fprintf(h, "%s\x00%s\x00%o\x00%d\x00%s\n", e.Path, e.Type, e.Mode, len(e.Data), e.Data)
	}
	return hex.EncodeToString(h.Sum(nil))
}
