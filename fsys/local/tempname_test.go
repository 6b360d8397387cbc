package local_test

import (
	"bytes"
	"errors"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
)

// zeros is a random source that repeats itself: every temp name it makes
// is the same.
type zeros struct{}

func (zeros) Read(b []byte) (int, error) { clear(b); return len(b), nil }

// TestTempNameCollisionRetried: a commit whose fresh temp name is taken
// (by a user's file, say) tries another name; the file holding the taken
// name keeps its bytes.
func TestTempNameCollisionRetried(t *testing.T) {
	for _, o := range []local.Options{{}, {NoExchange: true}} {
		dir := t.TempDir()
		taken := tempName(os.Getpid(), "0000000000000000")
		must(t, os.WriteFile(filepath.Join(dir, taken), []byte("someone's"), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644))
		must(t, os.WriteFile(filepath.Join(dir, "g"), []byte("gone"), 0o644))
		// Each commit's first name is the taken one, its second is free.
		names := append(make([]byte, 8), bytes.Repeat([]byte{1}, 8)...)
		names = bytes.Repeat(names, 3)
		o.Rand = bytes.NewReader(names)
		l := openRoot(t, dir, o)
		if _, err := l.Replace("f", []byte("new"), fsys.Expected{Version: fsys.VersionOf([]byte("old"))}); err != nil {
			t.Fatalf("replace with a taken first temp name: %v", err)
		}
		if _, err := l.Create("h", []byte("created"), 0o644); err != nil {
			t.Fatalf("create with a taken first temp name: %v", err)
		}
		if _, err := l.Remove("g", fsys.Expected{Version: fsys.VersionOf([]byte("gone"))}); err != nil {
			t.Fatalf("remove with a taken first temp name: %v", err)
		}
		want := map[string]string{taken: "someone's", "f": "new", "h": "created"}
		if got := files(t, dir); !maps.Equal(got, want) {
			t.Fatalf("NoExchange=%v: after the commits the directory holds %q, want %q", o.NoExchange, got, want)
		}
	}
}

// TestTempNameCollisionRefused: when every fresh name is taken the commit
// fails with fsys.ErrExists, naming the temp file, and changes nothing.
func TestTempNameCollisionRefused(t *testing.T) {
	dir := t.TempDir()
	taken := tempName(os.Getpid(), "0000000000000000")
	must(t, os.WriteFile(filepath.Join(dir, taken), []byte("someone's"), 0o644))
	must(t, os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644))
	l := openRoot(t, dir, local.Options{Rand: zeros{}})
	old := fsys.Expected{Version: fsys.VersionOf([]byte("old"))}
	refused := func(what string, err error) {
		t.Helper()
		if !errors.Is(err, fsys.ErrExists) || !strings.Contains(err.Error(), taken) || !strings.Contains(err.Error(), "taken") {
			t.Errorf("%s with every temp name taken: %v; want ErrExists naming %s as taken", what, err, taken)
		}
	}
	_, err := l.Replace("f", []byte("new"), old)
	refused("replace", err)
	_, err = l.Create("h", []byte("created"), 0o644)
	refused("create", err)
	_, err = l.Remove("f", old)
	refused("remove", err)
	want := map[string]string{taken: "someone's", "f": "old"}
	if got := files(t, dir); !maps.Equal(got, want) {
		t.Fatalf("after the refused commits the directory holds %q, want %q", got, want)
	}
}

// files maps each entry of dir to its bytes.
func files(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	ents, err := os.ReadDir(dir)
	must(t, err)
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			t.Fatal(err)
		}
		out[e.Name()] = string(b)
	}
	return out
}
