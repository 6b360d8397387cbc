//go:build unix

package local_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/journal"
)

// moveSetup is setup with a second file g = moved beside f = old.
func moveSetup(t *testing.T, old, moved []byte, o local.Options) (*local.FS, string, *store) {
	l, dir, s := setup(t, old, o)
	must(t, os.WriteFile(filepath.Join(dir, "g"), moved, 0o600))
	return l, dir, s
}

func exp(b []byte) fsys.Expected { return fsys.Expected{Version: fsys.VersionOf(b), Bytes: b} }

func holds(t *testing.T, name string, want []byte) {
	t.Helper()
	got, err := os.ReadFile(name)
	must(t, err)
	if !bytes.Equal(got, want) {
		t.Fatalf("%s holds %q, want %q", filepath.Base(name), got, want)
	}
}

// A move over a file hands the file it replaces to the store: the blob is
// that file's inode, nothing is copied, and only the moved file is left.
func TestRenameKeepAdoptsTheReplacedFile(t *testing.T) {
	old, moved := []byte("the file moved over\n"), []byte("the moved file\n")
	l, dir, s := moveSetup(t, old, moved, local.Options{})
	was := inode(t, filepath.Join(dir, "f"))
	k, done := s.keep(old)
	defer done()
	cm, kept, err := l.RenameKeep("g", "f", exp(moved), exp(old), k)
	must(t, err)
	if !kept.Adopted || kept.Saved || cm.Fallback {
		t.Fatalf("kept = %+v (fallback %v), want adopted after an exchange, not copied", kept, cm.Fallback)
	}
	if s.saves != 0 {
		t.Errorf("%d copies made", s.saves)
	}
	holds(t, filepath.Join(dir, "f"), moved)
	s.has(old)
	if inode(t, s.blob(old)) != was {
		t.Error("the blob is a copy: its inode is not the replaced file's")
	}
	onlyFiles(t, dir, "f")
}

// Where the store cannot own the file, it gets a copy, made before the
// swap while the replaced bytes are still at their name: other hard links,
// no exchange, no store directory.
func TestRenameKeepCopiesWhereItCannotAdopt(t *testing.T) {
	old, moved := []byte("old\n"), []byte("moved\n")
	for _, c := range []struct {
		name  string
		o     local.Options
		link  bool
		noDir bool
		why   string
	}{
		{name: "hard links", link: true, why: "hard links"},
		{name: "no exchange", o: local.Options{NoExchange: true}, why: "no exchange"},
		{name: "no store", noDir: true, why: "no store directory"},
	} {
		t.Run(c.name, func(t *testing.T) {
			l, dir, s := moveSetup(t, old, moved, c.o)
			if c.link {
				must(t, os.Link(filepath.Join(dir, "f"), filepath.Join(dir, "h")))
			}
			k, done := s.keep(old)
			defer done()
			if c.noDir {
				k.Dir = nil
			}
			k.Save = func() error {
				holds(t, filepath.Join(dir, "f"), old) // before the swap
				s.saves++
				_, err := s.j.Put(old)
				return err
			}
			_, kept, err := l.RenameKeep("g", "f", exp(moved), exp(old), k)
			must(t, err)
			if kept.Adopted || !kept.Saved || !strings.Contains(kept.Why, c.why) {
				t.Fatalf("kept = %+v, want a copy because of %s", kept, c.why)
			}
			holds(t, filepath.Join(dir, "f"), moved)
			s.has(old)
			if c.link {
				holds(t, filepath.Join(dir, "h"), old)
				if inode(t, s.blob(old)) == inode(t, filepath.Join(dir, "h")) {
					t.Error("the store adopted a file another link still names")
				}
				onlyFiles(t, dir, "f", "h")
				return
			}
			onlyFiles(t, dir, "f")
		})
	}
}

// A store that refuses the file after the exchange gets a copy, and the
// old name is freed all the same.
func TestRenameKeepAdoptRefused(t *testing.T) {
	old, moved := []byte("old\n"), []byte("moved\n")
	l, dir, s := moveSetup(t, old, moved, local.Options{})
	k, done := s.keep(old)
	defer done()
	k.Adopt = func(os.FileInfo) error { return errors.New("no room") }
	_, kept, err := l.RenameKeep("g", "f", exp(moved), exp(old), k)
	must(t, err)
	if kept.Adopted || !kept.Saved || !strings.Contains(kept.Why, "no room") {
		t.Fatalf("kept = %+v, want a copy after the refusal", kept)
	}
	s.has(old)
	holds(t, filepath.Join(dir, "f"), moved)
	onlyFiles(t, dir, "f")
}

// A conflict on either name moves nothing and keeps nothing.
func TestRenameKeepConflict(t *testing.T) {
	old, moved := []byte("old\n"), []byte("moved\n")
	stale := []byte("what the session read earlier\n")
	for _, c := range []struct {
		name     string
		src, dst []byte
	}{{"target", moved, stale}, {"source", stale, old}} {
		t.Run(c.name, func(t *testing.T) {
			l, dir, s := moveSetup(t, old, moved, local.Options{})
			k, done := s.keep(c.dst)
			defer done()
			_, kept, err := l.RenameKeep("g", "f", exp(c.src), exp(c.dst), k)
			if !errors.Is(err, fsys.ErrConflict) {
				t.Fatalf("err = %v, want a conflict", err)
			}
			if kept.Adopted || kept.Saved {
				t.Errorf("kept = %+v after a conflict", kept)
			}
			holds(t, filepath.Join(dir, "f"), old)
			holds(t, filepath.Join(dir, "g"), moved)
			if _, err := s.j.Get(string(fsys.VersionOf(old))); !errors.Is(err, journal.ErrNotFound) {
				t.Errorf("the store holds the replaced bytes after a conflict: %v", err)
			}
			onlyFiles(t, dir, "f", "g")
		})
	}
}

// Another process that moves the source's or the target's directory away
// between the rename's walk and its swap fails the rename with ErrMoved,
// and nothing moves: the descriptors would follow the directory wherever
// it went, outside the workspace too.
func TestRenameRefusesADirectoryMovedBeforeTheSwap(t *testing.T) {
	for _, side := range []string{"from", "to"} {
		for _, mode := range []string{"fresh", "over", "keep"} {
			base := t.TempDir()
			root, outside := filepath.Join(base, "root"), filepath.Join(base, "outside")
			must(t, os.MkdirAll(filepath.Join(root, "src"), 0o755))
			must(t, os.MkdirAll(filepath.Join(root, "dst"), 0o755))
			old, moved := []byte("old\n"), []byte("moved\n")
			must(t, os.WriteFile(filepath.Join(root, "src", "g"), moved, 0o644))
			must(t, os.WriteFile(filepath.Join(root, "dst", "f"), old, 0o644))
			away := map[string]string{"from": "src", "to": "dst"}[side]
			hooks := fsys.Hooks{BeforeSwap: func(string) {
				must(t, os.Rename(filepath.Join(root, away), outside))
			}}
			l, err := local.Open(root, local.Options{Hooks: hooks})
			must(t, err)
			over := exp(old)
			switch mode {
			case "fresh":
				_, err = l.Rename("src/g", "dst/new", exp(moved), nil)
			case "over":
				_, err = l.Rename("src/g", "dst/f", exp(moved), &over)
			case "keep":
				s := newStore(t, filepath.Join(base, "state"))
				k, done := s.keep(old)
				_, _, err = l.RenameKeep("src/g", "dst/f", exp(moved), over, k)
				done()
			}
			l.Close()
			if !errors.Is(err, fsys.ErrMoved) {
				t.Fatalf("%s moved away (%s): err = %v, want ErrMoved", side, mode, err)
			}
			// Nothing moved, in the directory that went away or the other.
			src, dst := filepath.Join(root, "src"), filepath.Join(root, "dst")
			if side == "from" {
				src = outside
			} else {
				dst = outside
			}
			holds(t, filepath.Join(src, "g"), moved)
			holds(t, filepath.Join(dst, "f"), old)
			onlyFiles(t, src, "g")
			onlyFiles(t, dst, "f")
		}
	}
}

// AdoptMoved takes the file a crashed move left under its old name if it
// holds the replaced bytes; it leaves any other file, and where it cannot
// adopt it copies and leaves the name for the caller's compare.
func TestAdoptMoved(t *testing.T) {
	old := []byte("replaced by a move that died\n")
	l, dir, s := setup(t, old, local.Options{})
	was := inode(t, filepath.Join(dir, "f"))
	other := []byte("someone else's\n")
	k, done := s.keep(other)
	defer done()
	if _, err := l.AdoptMoved("f", fsys.Expected{Version: fsys.VersionOf(other)}, k); !errors.Is(err, fsys.ErrConflict) {
		t.Fatalf("AdoptMoved of a file holding other bytes: %v, want a conflict", err)
	}
	holds(t, filepath.Join(dir, "f"), old)

	must(t, os.Link(filepath.Join(dir, "f"), filepath.Join(dir, "h")))
	k, done2 := s.keep(old)
	defer done2()
	kept, err := l.AdoptMoved("f", fsys.Expected{Version: fsys.VersionOf(old)}, k)
	must(t, err)
	if kept.Adopted || !kept.Saved {
		t.Fatalf("kept = %+v, want a copy (hard links)", kept)
	}
	onlyFiles(t, dir, "f", "h")
	must(t, os.Remove(filepath.Join(dir, "h")))

	k, done3 := s.keep(old)
	defer done3()
	kept, err = l.AdoptMoved("f", fsys.Expected{Version: fsys.VersionOf(old)}, k)
	must(t, err)
	if !kept.Adopted {
		t.Fatalf("kept = %+v", kept)
	}
	s.has(old)
	if inode(t, s.blob(old)) != was {
		t.Error("the blob is a copy")
	}
	onlyFiles(t, dir)
}
