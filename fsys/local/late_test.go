//go:build unix

package local_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/journal"
)

// tempFiles returns the temp files beside the root's files.
func tempFiles(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	must(t, err)
	var out []string
	for _, e := range ents {
		if _, ok := local.IsTempName(e.Name()); ok {
			out = append(out, e.Name())
		}
	}
	return out
}

// A store given late (Keep.Open) is asked for once the new bytes are in
// their temp file and before the swap, and the old file is adopted by it.
func TestReplaceKeepOpensTheStoreLate(t *testing.T) {
	old, next := []byte("old bytes\n"), []byte("new bytes\n")
	l, dir, s := setup(t, old, local.Options{})
	was := inode(t, filepath.Join(dir, "f"))
	opens := 0
	var done func()
	k := fsys.Keep{
		Save: func() error { s.saves++; _, err := s.j.Put(old); return err },
		Open: func() (fsys.Keep, error) {
			opens++
			if n := len(tempFiles(t, dir)); n != 1 {
				t.Errorf("Open was called with %d temp files beside f, want the new bytes' one", n)
			}
			if got, _ := os.ReadFile(filepath.Join(dir, "f")); !bytes.Equal(got, old) {
				t.Errorf("Open was called after the swap: f holds %q", got)
			}
			var k fsys.Keep
			k, done = s.keep(old)
			return k, nil
		},
	}
	_, kept, err := l.ReplaceKeep("f", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	must(t, err)
	defer done()
	if opens != 1 || !kept.Adopted || kept.Saved || s.saves != 0 {
		t.Fatalf("Open called %d times, kept = %+v, %d copies: want one call and the old file adopted", opens, kept, s.saves)
	}
	if inode(t, s.blob(old)) != was {
		t.Error("the blob is not the old file")
	}
	onlyFiles(t, dir, "f")
}

// A store that cannot be opened aborts the replace: nothing moved, no temp
// file left, nothing stored.
func TestReplaceKeepOpenFailsChangesNothing(t *testing.T) {
	old, next := []byte("old bytes\n"), []byte("new bytes\n")
	l, dir, s := setup(t, old, local.Options{})
	broken := errors.New("the store is broken")
	k := fsys.Keep{
		Save: func() error { s.saves++; _, err := s.j.Put(old); return err },
		Open: func() (fsys.Keep, error) { return fsys.Keep{}, broken },
	}
	_, kept, err := l.ReplaceKeep("f", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	if !errors.Is(err, broken) {
		t.Fatalf("err = %v, want the store's error", err)
	}
	if kept.Adopted || kept.Saved {
		t.Errorf("kept = %+v", kept)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f")); !bytes.Equal(got, old) {
		t.Errorf("f holds %q, want the old bytes", got)
	}
	if _, err := s.j.Get(string(fsys.VersionOf(old))); !errors.Is(err, journal.ErrNotFound) {
		t.Errorf("the store holds the old bytes: %v", err)
	}
	onlyFiles(t, dir, "f")
}

// A remove asks a late store before it sets the file aside.
func TestRemoveKeepOpensTheStoreLate(t *testing.T) {
	old := []byte("to be deleted\n")
	l, dir, s := setup(t, old, local.Options{})
	var done func()
	k := fsys.Keep{
		Save: func() error { s.saves++; _, err := s.j.Put(old); return err },
		Open: func() (fsys.Keep, error) {
			if _, err := os.Stat(filepath.Join(dir, "f")); err != nil {
				t.Errorf("Open was called after f was set aside: %v", err)
			}
			var k fsys.Keep
			k, done = s.keep(old)
			return k, nil
		},
	}
	_, kept, err := l.RemoveKeep("f", fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, k)
	must(t, err)
	defer done()
	if !kept.Adopted || s.saves != 0 {
		t.Fatalf("kept = %+v, %d copies: want the file adopted", kept, s.saves)
	}
	s.has(old)
	onlyFiles(t, dir)
}

// With Expected.Discard the old file, swapped out and compared, is left
// under its temp name for the caller to remove; it is gone once it does.
func TestReplaceDiscardHandsTheOldFileOver(t *testing.T) {
	old, next := []byte("old bytes\n"), []byte("new bytes\n")
	l, dir, _ := setup(t, old, local.Options{})
	var remove func()
	exp := fsys.Expected{Version: fsys.VersionOf(old), Bytes: old, Discard: func(rm func()) { remove = rm }}
	_, err := l.Replace("f", next, exp)
	must(t, err)
	if got, _ := os.ReadFile(filepath.Join(dir, "f")); !bytes.Equal(got, next) {
		t.Fatalf("f holds %q", got)
	}
	if remove == nil {
		t.Fatal("Discard was not called")
	}
	temps := tempFiles(t, dir)
	if len(temps) != 1 {
		t.Fatalf("temp files %q before the removal, want the old file's", temps)
	}
	if got, _ := os.ReadFile(filepath.Join(dir, temps[0])); !bytes.Equal(got, old) {
		t.Errorf("the temp file holds %q, want the old bytes", got)
	}
	remove()
	remove() // a second call does nothing
	onlyFiles(t, dir, "f")
}

// A conflict never hands anything to Discard: what another writer put at
// the name stays, and no temp file is left.
func TestReplaceDiscardConflict(t *testing.T) {
	old, next := []byte("old\n"), []byte("new\n")
	l, dir, _ := setup(t, old, local.Options{})
	stale := []byte("what the session read earlier\n")
	called := false
	exp := fsys.Expected{Version: fsys.VersionOf(stale), Bytes: stale, Discard: func(func()) { called = true }}
	if _, err := l.Replace("f", next, exp); !errors.Is(err, fsys.ErrConflict) {
		t.Fatalf("err = %v, want a conflict", err)
	}
	if called {
		t.Error("Discard was called on a conflict")
	}
	if got, _ := os.ReadFile(filepath.Join(dir, "f")); !bytes.Equal(got, old) {
		t.Errorf("f holds %q after a conflict", got)
	}
	onlyFiles(t, dir, "f")
}
