//go:build unix

package local_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
)

// movedAway are the ways another process takes a directory on a change's
// path away between the name's resolution and the swap: moved out of the
// workspace, moved out and replaced by a symlink to where it went, or
// renamed inside it. A held descriptor follows the directory each time.
var movedAway = map[string]func(t *testing.T, ws, out string){
	"moved out": func(t *testing.T, ws, out string) {
		must(t, os.Rename(filepath.Join(ws, "d"), filepath.Join(out, "moved")))
	},
	"replaced by a link out": func(t *testing.T, ws, out string) {
		must(t, os.Rename(filepath.Join(ws, "d"), filepath.Join(out, "moved")))
		must(t, os.Symlink("../out/moved", filepath.Join(ws, "d")))
	},
	"renamed inside": func(t *testing.T, ws, out string) {
		must(t, os.Rename(filepath.Join(ws, "d"), filepath.Join(ws, "e")))
	},
}

// heldLayout makes base/ws (the root) holding d/secret, and base/out.
func heldLayout(t *testing.T) (ws, out string) {
	base := t.TempDir()
	ws, out = filepath.Join(base, "ws"), filepath.Join(base, "out")
	must(t, os.MkdirAll(filepath.Join(ws, "d"), 0o755))
	must(t, os.MkdirAll(out, 0o755))
	must(t, os.WriteFile(filepath.Join(out, "secret"), []byte("SECRET"), 0o644))
	must(t, os.WriteFile(filepath.Join(ws, "d", "secret"), []byte("inside"), 0o644))
	return ws, out
}

// putBack undoes a movedAway, so that the next change starts from ws/d.
func putBack(t *testing.T, ws, out string) {
	t.Helper()
	if fi, err := os.Lstat(filepath.Join(ws, "d")); err == nil && fi.Mode()&os.ModeSymlink != 0 {
		must(t, os.Remove(filepath.Join(ws, "d")))
	}
	for _, from := range []string{filepath.Join(out, "moved"), filepath.Join(ws, "e")} {
		if _, err := os.Lstat(from); err == nil {
			must(t, os.Rename(from, filepath.Join(ws, "d")))
		}
	}
}

// wantUntouched fails unless the directory d holds exactly what
// heldLayout put there: no change, no temp file, nothing new.
func wantUntouched(t *testing.T, what, dir string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	must(t, err)
	var names []string
	for _, e := range ents {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"secret"}) {
		t.Errorf("%s: the moved directory holds %q, want only the file it held", what, names)
	}
	data, err := os.ReadFile(filepath.Join(dir, "secret"))
	if err != nil || string(data) != "inside" {
		t.Errorf("%s: the moved file holds %q (%v), want its old bytes", what, data, err)
	}
}

// TestHeldDirMovedBeforeSwap moves the file's directory away (movedAway)
// at the instant before the swap, through the provider's hook: the change
// must fail with fsys.ErrMoved and change nothing, wherever the directory
// went. Without the check at the swap, the held descriptor writes into
// the directory where it now is: outside the workspace.
func TestHeldDirMovedBeforeSwap(t *testing.T) {
	inside := fsys.Expected{Version: fsys.VersionOf([]byte("inside")), Bytes: []byte("inside")}
	changes := map[string]func(l *local.FS) error{
		"replace": func(l *local.FS) error { _, err := l.Replace("d/secret", []byte("pwned"), inside); return err },
		"remove":  func(l *local.FS) error { _, err := l.Remove("d/secret", inside); return err },
		"create":  func(l *local.FS) error { _, err := l.Create("d/new", []byte("pwned"), 0o644); return err },
	}
	for way, move := range movedAway {
		for _, noEx := range []bool{false, true} {
			ws, out := heldLayout(t)
			var armed bool
			hook := func(string) {
				if armed {
					armed = false
					move(t, ws, out)
				}
			}
			l := openRoot(t, ws, local.Options{NoExchange: noEx, Hooks: fsys.Hooks{BeforeSwap: hook}})
			for op, change := range changes {
				what := way + ", " + op
				armed = true
				err := change(l)
				if !errors.Is(err, fsys.ErrMoved) {
					t.Errorf("%s (NoExchange=%v): %v, want fsys.ErrMoved", what, noEx, err)
				} else if !strings.Contains(err.Error(), "no longer at that path") {
					t.Errorf("%s: the error does not say what happened: %v", what, err)
				}
				where := filepath.Join(out, "moved")
				if way == "renamed inside" {
					where = filepath.Join(ws, "e")
				}
				wantUntouched(t, what, where)
				putBack(t, ws, out)
			}
		}
	}
}

// TestHandleDirMovedAfterHold holds a name, then moves its directory away
// before the change, as another process may at any time during a call: the
// handle's change must fail with fsys.ErrMoved and change nothing, while
// its reads still see the file it holds.
func TestHandleDirMovedAfterHold(t *testing.T) {
	inside := fsys.Expected{Version: fsys.VersionOf([]byte("inside")), Bytes: []byte("inside")}
	for way, move := range movedAway {
		ws, out := heldLayout(t)
		l := openRoot(t, ws, local.Options{})
		for _, op := range []string{"replace", "remove", "create"} {
			name := "d/secret"
			if op == "create" {
				name = "d/new"
			}
			h, err := l.Hold(name)
			must(t, err)
			move(t, ws, out)
			switch op {
			case "replace":
				_, err = h.Replace([]byte("pwned"), inside)
			case "remove":
				_, err = h.Remove(inside)
			case "create":
				_, err = h.Create([]byte("pwned"), 0o644, fsys.Expected{})
			}
			h.Close()
			if !errors.Is(err, fsys.ErrMoved) {
				t.Errorf("%s, %s: %v, want fsys.ErrMoved", way, op, err)
			}
			where := filepath.Join(out, "moved")
			if way == "renamed inside" {
				where = filepath.Join(ws, "e")
			}
			wantUntouched(t, way+", "+op, where)
			putBack(t, ws, out)
		}
	}
}

// TestHandleSteps: a held name's steps (read, stat, check, the sibling
// look-up, the lock, replace, readback) answer as the provider's own
// methods, a final symlink inside the root is followed (the change lands
// on its target), and a symlink that leaves fails with fsys.ErrOutside.
func TestHandleSteps(t *testing.T) {
	ws, _ := heldLayout(t)
	must(t, os.Symlink("d/secret", filepath.Join(ws, "link")))
	must(t, os.Symlink("../out/secret", filepath.Join(ws, "out-link")))
	l := openRoot(t, ws, local.Options{})
	if _, err := l.Hold("out-link"); !errors.Is(err, fsys.ErrOutside) {
		t.Fatalf("Hold(out-link): %v, want outside", err)
	}
	h, err := l.Hold("link")
	must(t, err)
	defer h.Close()
	if got, want := h.Trace(), []string{"link", "d/secret"}; !slices.Equal(got, want) {
		t.Fatalf("Trace: %q, want %q", got, want)
	}
	data, err := h.ReadFile()
	if err != nil || string(data) != "inside" {
		t.Fatalf("ReadFile: %q %v", data, err)
	}
	fi, err := h.Stat()
	want, werr := l.Stat("link")
	if err != nil || werr != nil || fi.ID != want.ID || fi.Size != want.Size || fi.Mode != want.Mode || fi.Name != want.Name {
		t.Fatalf("Stat: %+v %v, want %+v %v", fi, err, want, werr)
	}
	if b, err := h.Beside("secret"); err != nil || b.Type != fsys.TypeFile {
		t.Fatalf("Beside(secret): %+v %v", b, err)
	}
	if _, err := h.Beside(".git"); !errors.Is(err, fsys.ErrNotFound) {
		t.Fatalf("Beside(.git): %v, want not found", err)
	}
	unlock, err := h.Lock(t.Context())
	must(t, err)
	unlock()
	cm, err := h.Replace([]byte("new"), fsys.Expected{Version: fsys.VersionOf([]byte("inside"))})
	if err != nil || cm.Resolved != "d/secret" {
		t.Fatalf("Replace: %+v %v", cm, err)
	}
	if ok, err := h.Check(fsys.Expected{Version: fsys.VersionOf([]byte("new"))}); !ok || err != nil {
		t.Fatalf("Check after replace: %v %v", ok, err)
	}
	if fi, err := os.Lstat(filepath.Join(ws, "link")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v %v", fi, err)
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "d", "secret")); string(data) != "new" {
		t.Fatalf("the link's target holds %q", data)
	}
	h.Close()
	if _, err := h.Stat(); err == nil {
		t.Fatal("Stat after Close succeeded")
	}
}
