package memfs_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/memfs"
)

// TestFoldingTree: with Options.Fold, every spelling that folds alike
// names one entry, which keeps the spelling it was made with.
func TestFoldingTree(t *testing.T) {
	m := memfs.NewWithOptions(memfs.Options{Fold: strings.ToLower})
	if err := m.Mkdir("Dir"); err != nil {
		t.Fatal(err)
	}
	if err := m.WriteFile("Dir/A.txt", []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := m.ReadFile("dir/a.TXT"); err != nil || string(b) != "one\n" {
		t.Fatalf("read under another spelling: %q %v", b, err)
	}
	if _, err := m.Create("DIR/a.txt", []byte("two\n"), 0o644); !errors.Is(err, fsys.ErrExists) {
		t.Fatalf("create over another spelling: %v", err)
	}
	if _, err := m.Replace("dir/a.txt", []byte("two\n"), fsys.Expected{Version: fsys.VersionOf([]byte("one\n"))}); err != nil {
		t.Fatal(err)
	}
	ents, err := m.ReadDir("dir")
	if err != nil || len(ents) != 1 || ents[0].Name != "A.txt" {
		t.Fatalf("the entry keeps its spelling: %+v %v", ents, err)
	}
	if _, err := m.Rename("dir/A.TXT", "dir/b.txt", fsys.Expected{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := m.Remove("DIR/B.TXT", fsys.Expected{Version: fsys.VersionOf([]byte("two\n"))}); err != nil {
		t.Fatal(err)
	}
	if ents, _ := m.ReadDir("Dir"); len(ents) != 0 {
		t.Fatalf("left: %+v", ents)
	}
	// Without Fold, names are byte-exact.
	plain := memfs.New()
	plain.WriteFile("A.txt", []byte("x"), 0o644)
	if _, err := plain.ReadFile("a.txt"); !errors.Is(err, fsys.ErrNotFound) {
		t.Fatalf("a plain tree folded: %v", err)
	}
}
