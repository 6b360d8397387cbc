package fsys_test

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/fsys/memfs"
	"github.com/stet-dev/stet/internal/fstree"
)

// noOpener hides a provider's optional capabilities, to test the fallbacks.
type noOpener struct{ fsys.Provider }

func providers(t *testing.T) map[string]fsys.Provider {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("hello\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := fstree.Mkfifo(filepath.Join(dir, "pipe")); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	l, err := local.Open(dir, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { l.Close() })
	m := memfs.New()
	m.WriteFile("a.txt", []byte("hello\n"), 0o644)
	m.Mkfifo("pipe")
	return map[string]fsys.Provider{"local": l, "memfs": m, "local without Opener": noOpener{l}, "memfs without Opener": noOpener{m}}
}

func TestOpenAndReadFileMax(t *testing.T) {
	for name, p := range providers(t) {
		f, info, err := fsys.Open(p, "a.txt")
		if err != nil {
			t.Fatalf("%s: open: %v", name, err)
		}
		b, err := io.ReadAll(f)
		f.Close()
		if err != nil || string(b) != "hello\n" || info.Size != 6 || info.Type != fsys.TypeFile {
			t.Errorf("%s: read %q, info %+v, %v", name, b, info, err)
		}
		if _, _, err := fsys.Open(p, "pipe"); !errors.Is(err, fsys.ErrNotRegular) {
			t.Errorf("%s: open of a FIFO: %v", name, err)
		}
		if _, _, err := fsys.Open(p, "../x"); !errors.Is(err, fsys.ErrOutside) && !errors.Is(err, fsys.ErrInvalid) {
			t.Errorf("%s: open outside: %v", name, err)
		}
		if b, err := fsys.ReadFileMax(p, "a.txt", 6); err != nil || string(b) != "hello\n" {
			t.Errorf("%s: at the bound: %q %v", name, b, err)
		}
		_, err = fsys.ReadFileMax(p, "a.txt", 5)
		var tl *fsys.TooLargeError
		if !errors.Is(err, fsys.ErrTooLarge) || !errors.As(err, &tl) || tl.Size != 6 || tl.Max != 5 {
			t.Errorf("%s: over the bound: %v", name, err)
		} else if !strings.Contains(err.Error(), "6 bytes, over the 5-byte bound") {
			t.Errorf("%s: message %q", name, err)
		}
		if _, err := fsys.ReadFileMax(p, "missing", 5); !errors.Is(err, fsys.ErrNotFound) {
			t.Errorf("%s: missing: %v", name, err)
		}
	}
}

// tracerOnly hides every optional capability of a provider but Tracer.
type tracerOnly struct {
	fsys.Provider
	t fsys.Tracer
}

func (p tracerOnly) Trace(name string) ([]string, error) { return p.t.Trace(name) }

// The Dir of a backend without directory handles refuses a symlink as the
// Dir contract says, and opens a regular file.
func TestFallbackDirRefusesSymlink(t *testing.T) {
	m := memfs.New()
	if err := m.Mkdir("d"); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteFile("d/real.txt", []byte("x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Symlink("real.txt", "d/link.txt"); err != nil {
		t.Fatal(err)
	}
	d, err := fsys.OpenDir(tracerOnly{m, m}, "d") // memfs has its own Dir: hidden
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := d.Open("link.txt"); !errors.Is(err, fsys.ErrNotRegular) {
		t.Errorf("Open(link.txt) = %v, want not regular", err)
	}
	r, _, err := d.Open("real.txt")
	if err != nil {
		t.Fatal(err)
	}
	r.Close()
}
