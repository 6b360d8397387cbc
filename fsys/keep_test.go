package fsys_test

import (
	"bytes"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/memfs"
)

// plain hides every optional capability of its provider.
type plain struct{ fsys.Provider }

// A provider without Keeper gets the copy before anything moves.
func TestKeepingFallsBackToACopyFirst(t *testing.T) {
	m := memfs.New()
	old := []byte("old\n")
	if err := m.WriteFile("f", old, 0o644); err != nil {
		t.Fatal(err)
	}
	var during []byte
	keep := fsys.Keep{Save: func() error { during, _ = m.ReadFile("f"); return nil }}
	_, kept, err := fsys.ReplaceKeeping(plain{m}, "f", []byte("new\n"), fsys.Expected{Version: fsys.VersionOf(old)}, keep)
	if err != nil || !kept.Saved || kept.Adopted {
		t.Fatalf("ReplaceKeeping = %+v, %v", kept, err)
	}
	if !bytes.Equal(during, old) {
		t.Errorf("the copy ran when the file held %q, not its old bytes", during)
	}
	now := []byte("new\n")
	during = nil
	if _, kept, err = fsys.RemoveKeeping(plain{m}, "f", fsys.Expected{Version: fsys.VersionOf(now)}, keep); err != nil || !kept.Saved {
		t.Fatalf("RemoveKeeping = %+v, %v", kept, err)
	}
	if !bytes.Equal(during, now) {
		t.Errorf("the copy ran when the file held %q", during)
	}
}

// A move over a file on a provider without Keeper, and on memfs, copies
// the replaced bytes before anything moves.
func TestRenameKeepingCopiesFirst(t *testing.T) {
	for _, wrap := range []bool{true, false} {
		m := memfs.New()
		old, moved := []byte("old\n"), []byte("moved\n")
		if err := m.WriteFile("f", old, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteFile("g", moved, 0o644); err != nil {
			t.Fatal(err)
		}
		var during []byte
		keep := fsys.Keep{Save: func() error { during, _ = m.ReadFile("f"); return nil }}
		var p fsys.Provider = m
		if wrap {
			p = plain{m}
		}
		_, kept, err := fsys.RenameKeeping(p, "g", "f", fsys.Expected{Version: fsys.VersionOf(moved)}, fsys.Expected{Version: fsys.VersionOf(old)}, keep)
		if err != nil || !kept.Saved || kept.Adopted {
			t.Fatalf("RenameKeeping (plain %v) = %+v, %v", wrap, kept, err)
		}
		if !bytes.Equal(during, old) {
			t.Errorf("the copy ran when f held %q, not the replaced bytes", during)
		}
		if got, _ := m.ReadFile("f"); !bytes.Equal(got, moved) {
			t.Errorf("f = %q after the move", got)
		}
		if _, err := m.ReadFile("g"); err == nil {
			t.Error("g is still there")
		}
	}
}
