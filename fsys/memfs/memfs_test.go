package memfs_test

import (
	"errors"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/fsystest"
	"github.com/stet-dev/stet/fsys/memfs"
)

func TestConformance(t *testing.T) {
	fsystest.Run(t, fsystest.MemHarness)
}

func TestDifferentialSelf(t *testing.T) {
	// Two memfs trees must agree with each other step for step: this
	// checks the runner itself is deterministic.
	fsystest.Differential(t, fsystest.MemHarness, fsystest.MemHarness, 1, 300)
}

func TestAbsoluteLinksReadAgainstDir(t *testing.T) {
	m := memfs.NewWithOptions(memfs.Options{Dir: "/srv/tree/"})
	if m.Dir() != "/srv/tree" {
		t.Fatalf("Dir = %q", m.Dir())
	}
	if err := m.WriteFile("f", []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	for target, kind := range map[string]error{
		"/srv/tree/f":    nil,
		"/srv/tree/../f": fsys.ErrOutside,
		"/srv/treef":     fsys.ErrOutside,
		"/memfs/f":       fsys.ErrOutside,
		"/srv/tree/./f/": fsys.ErrNotDir,
		"/srv/tree/nope": fsys.ErrNotFound,
		"/srv/tree//f":   nil,
	} {
		if err := m.RemoveAll("l"); err != nil {
			t.Fatal(err)
		}
		if err := m.Symlink(target, "l"); err != nil {
			t.Fatal(err)
		}
		data, err := m.ReadFile("l")
		if kind == nil && (err != nil || string(data) != "x") {
			t.Errorf("read through %q: %q, %v", target, data, err)
		}
		if kind != nil && !errors.Is(err, kind) {
			t.Errorf("read through %q: %v, want %v", target, err, kind)
		}
	}
}

func TestTreeSharesNoMemoryWithCallers(t *testing.T) {
	m := memfs.New()
	data := []byte("abc")
	if _, err := m.Create("f", data, 0o644); err != nil {
		t.Fatal(err)
	}
	data[0] = 'X'
	got, _ := m.ReadFile("f")
	got[1] = 'Y'
	again, _ := m.ReadFile("f")
	if string(again) != "abc" {
		t.Fatalf("the tree shares memory with callers: %q", again)
	}
}
