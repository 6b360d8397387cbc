package fsystest

import (
	"errors"
	"io/fs"
	"path"
	"sort"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/memfs"
)

// Harness is one backend under test, over a fresh, empty root.
type Harness struct {
	// Open returns a provider over the root with hooks installed. It may be
	// called several times; every provider sees the same tree.
	Open func(hooks fsys.Hooks) fsys.Provider
	// Dir is the absolute path through which absolute symlink targets point
	// inside the root ("$ROOT" in the notation).
	Dir string
	// Outside is an absolute path outside the root ("$OUTSIDE").
	Outside string

	// Raw changes, made as another program would make them, bypassing the
	// provider's guards. Names are relative to the root.
	Mkdir     func(name string) error
	WriteFile func(name string, data []byte, perm fs.FileMode) error // in place, exact perm on create
	Symlink   func(target, name string) error
	Readlink  func(name string) (string, error)
	RemoveAll func(name string) error
	Mkfifo    func(name string) error             // nil when unsupported
	Link      func(oldname, newname string) error // nil when unsupported

	// OutsideDigest summarises every name and byte outside the root that a
	// broken confinement could reach; nil when the backend has no outside.
	OutsideDigest func() (string, error)
}

// MemHarness returns a Harness over a fresh memfs tree.
func MemHarness(t *testing.T) Harness {
	m := memfs.New()
	return Harness{
		Open:      func(h fsys.Hooks) fsys.Provider { return m.WithHooks(h) },
		Dir:       m.Dir(),
		Outside:   "/outside",
		Mkdir:     m.Mkdir,
		WriteFile: m.WriteFile,
		Symlink:   m.Symlink,
		Readlink:  m.Readlink,
		RemoveAll: m.RemoveAll,
		Mkfifo:    m.Mkfifo,
		Link:      m.Link,
	}
}

// Build makes the entries (in the notation of the package doc) under h's
// root, creating missing parents.
func Build(t testing.TB, h Harness, entries ...string) {
	t.Helper()
	for _, e := range entries {
		if err := build(h, e); err != nil {
			if errors.Is(err, errSkip) {
				t.Skipf("%q: %v", e, err)
			}
			t.Fatalf("building %q: %v", e, err)
		}
	}
}

var errSkip = errors.New("not supported by this backend")

func build(h Harness, e string) error {
	mkparents := func(name string) error {
		dir := path.Dir(name)
		if dir == "." {
			return nil
		}
		var parts []string
		for d := dir; d != "."; d = path.Dir(d) {
			parts = append(parts, d)
		}
		for i := len(parts) - 1; i >= 0; i-- {
			if err := h.Mkdir(parts[i]); err != nil && !errors.Is(err, fs.ErrExist) && !errors.Is(err, fsys.ErrExists) {
				return err
			}
		}
		return nil
	}
	switch {
	case strings.Contains(e, " => "):
		name, target, _ := strings.Cut(e, " => ")
		if err := mkparents(name); err != nil {
			return err
		}
		return h.Symlink(h.expand(target), name)
	case strings.HasSuffix(e, "|"):
		name := strings.TrimSuffix(e, "|")
		if h.Mkfifo == nil {
			return errSkip
		}
		if err := mkparents(name); err != nil {
			return err
		}
		if err := h.Mkfifo(name); err != nil {
			return errors.Join(errSkip, err)
		}
		return nil
	case strings.HasSuffix(e, "/"):
		name := strings.TrimSuffix(e, "/")
		if err := mkparents(name); err != nil {
			return err
		}
		if err := h.Mkdir(name); err != nil && !errors.Is(err, fs.ErrExist) && !errors.Is(err, fsys.ErrExists) {
			return err
		}
		return nil
	default:
		name, content, ok := strings.Cut(e, "=")
		if !ok {
			content = name
		}
		if err := mkparents(name); err != nil {
			return err
		}
		return h.WriteFile(name, []byte(content), 0o644)
	}
}

func (h Harness) expand(target string) string {
	target = strings.ReplaceAll(target, "$ROOT", h.Dir)
	target = strings.ReplaceAll(target, "$OUTSIDE", h.Outside)
	return strings.ReplaceAll(target, "$NAME", path.Base(h.Dir))
}

// Tree lists everything under the root of p in the notation, sorted:
// directories are not followed through symlinks, files show their bytes,
// links their targets, special files end in "|".
func Tree(t testing.TB, h Harness, p fsys.Provider) []string {
	t.Helper()
	var out []string
	var walk func(dir string)
	walk = func(dir string) {
		ents, err := p.ReadDir(dir)
		if err != nil {
			t.Fatalf("tree: list %s: %v", dir, err)
		}
		for _, e := range ents {
			name := path.Join(dir, e.Name)
			switch e.Type {
			case fsys.TypeDir:
				out = append(out, name+"/")
				walk(name)
			case fsys.TypeFile:
				data, err := p.ReadFile(name)
				if err != nil {
					t.Fatalf("tree: read %s: %v", name, err)
				}
				out = append(out, name+"="+string(data))
			case fsys.TypeSymlink:
				target, err := h.Readlink(name)
				if err != nil {
					t.Fatalf("tree: readlink %s: %v", name, err)
				}
				out = append(out, name+" => "+target)
			default:
				out = append(out, name+"|")
			}
		}
	}
	walk(".")
	sort.Strings(out)
	return out
}

// capabilities are the optional capabilities package fsys declares for a
// Provider, each with its fallback.
var capabilities = []struct {
	name string
	has  func(p fsys.Provider) bool
}{
	{"Locker", func(p fsys.Provider) bool { _, ok := p.(fsys.Locker); return ok }},
	{"Resolver", func(p fsys.Provider) bool { _, ok := p.(fsys.Resolver); return ok }},
	{"Tracer", func(p fsys.Provider) bool { _, ok := p.(fsys.Tracer); return ok }},
	{"Checker", func(p fsys.Provider) bool { _, ok := p.(fsys.Checker); return ok }},
	{"Opener", func(p fsys.Provider) bool { _, ok := p.(fsys.Opener); return ok }},
	{"DirOpener", func(p fsys.Provider) bool { _, ok := p.(fsys.DirOpener); return ok }},
	{"TypeLister", func(p fsys.Provider) bool { _, ok := p.(fsys.TypeLister); return ok }},
	{"TempFiler", func(p fsys.Provider) bool { _, ok := p.(fsys.TempFiler); return ok }},
	{"Sweeper", func(p fsys.Provider) bool { _, ok := p.(fsys.Sweeper); return ok }},
	{"DirSweeper", func(p fsys.Provider) bool { _, ok := p.(fsys.DirSweeper); return ok }},
}

// Capabilities names the optional capabilities of package fsys that p
// implements, in a fixed order. Differential requires both backends to
// have the same: a capability one of them lacks is one the comparison
// would never exercise.
func Capabilities(p fsys.Provider) []string {
	var out []string
	for _, c := range capabilities {
		if c.has(p) {
			out = append(out, c.name)
		}
	}
	return out
}
