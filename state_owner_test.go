package stet_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// One state directory serves one workspace: opened with other roots it is
// refused, naming both, before anything is read or written for the second
// workspace, so an undo in one never restores a file of the other. The
// same roots in another order are the same workspace.
func TestStateDirectoryServesOneWorkspace(t *testing.T) {
	a, b, extra, state := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(a, "plan.txt"), []byte("A's plan\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	wsA, err := stet.Open([]string{a, extra}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := wsA.Session("agent")
	if _, err := s.Do(ctx, stet.ReadArgs{Path: "plan.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Do(ctx, stet.DeleteArgs{Path: "plan.txt"}); err != nil {
		t.Fatal(err)
	}
	wsA.Close()

	_, err = stet.Open([]string{b}, stet.Options{State: state})
	if !errors.Is(err, stet.ErrStateInUse) {
		t.Fatalf("open of another workspace on A's state: %v, want ErrStateInUse", err)
	}
	for _, want := range []string{a, b, "--state"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("refusal %q does not name %q", err, want)
		}
	}
	if _, err := os.Stat(filepath.Join(b, "plan.txt")); !os.IsNotExist(err) {
		t.Fatalf("plan.txt appeared in B: %v", err)
	}
	// The same roots in another order are another workspace too: a
	// relative name in a receipt would resolve in another root.
	if _, err := stet.Open([]string{extra, a}, stet.Options{State: state}); !errors.Is(err, stet.ErrStateInUse) {
		t.Fatalf("open with the roots reordered: %v, want ErrStateInUse", err)
	}
	// The same roots in the same order: the same workspace, whose undo
	// still finds its change.
	wsA, err = stet.Open([]string{a, extra}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	defer wsA.Close()
	s, _ = wsA.Session("agent")
	if _, err := s.Do(ctx, stet.UndoArgs{Path: "plan.txt"}); err != nil {
		t.Fatalf("undo in A: %v", err)
	}
	if got, err := os.ReadFile(filepath.Join(a, "plan.txt")); string(got) != "A's plan\n" {
		_, e2 := os.Stat(filepath.Join(extra, "plan.txt"))
		t.Fatalf("plan.txt in A after undo: %q %v (in extra: %v)", got, err, e2)
	}
}

// A workspace whose state directory was replaced under its path (a
// running server while someone recreates the directory) changes nothing:
// its receipts would land where no other process looks, and a turn pinned
// from there would never bind it. Every change is refused until it is
// opened again; the file keeps its bytes.
func TestChangesRefusedWhenStateDirectoryReplaced(t *testing.T) {
	root, base := t.TempDir(), t.TempDir()
	state := filepath.Join(base, "state")
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("agent")
	if _, err := s.Do(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(state, filepath.Join(base, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	_, err = s.Do(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("two")})
	if err == nil || !strings.Contains(err.Error(), "restart") {
		t.Fatalf("edit after the state directory was replaced: %v", err)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "one\n" {
		t.Fatalf("a.txt: %q", b)
	}
}
