package stet_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

func readAll(t *testing.T, s *stet.Session, paths ...string) {
	t.Helper()
	for _, p := range paths {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: p}); err != nil {
			t.Fatalf("read %s: %v", p, err)
		}
	}
}

// A move over a file the session read, then undo: both names hold their
// previous bytes again (the overwritten file comes back under its name, not
// only as a journal blob).
func TestMoveOverwriteUndoRestoresBoth(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "new notes\n", "b.txt": "the user's notes\nline 2\n"}, stet.Options{})
	os.Chmod(filepath.Join(root, "b.txt"), 0o600)
	readAll(t, s, "a.txt", "b.txt")
	res, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(res.Message, "replaced the user's file b.txt") || !strings.Contains(res.Message, "undo brings it back") {
		t.Errorf("move over a user's file lacks rule 9's message: %q", res.Message)
	}
	if got := content(t, root, "b.txt"); got != "new notes\n" {
		t.Fatalf("after the move b.txt = %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "a.txt")); !os.IsNotExist(err) {
		t.Fatalf("a.txt still exists after the move: %v", err)
	}
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "b.txt"}); err != nil {
		t.Fatal(err)
	}
	if got := content(t, root, "a.txt"); got != "new notes\n" {
		t.Errorf("after undo a.txt = %q", got)
	}
	if got := content(t, root, "b.txt"); got != "the user's notes\nline 2\n" {
		t.Errorf("after undo b.txt = %q, want the user's previous bytes", got)
	}
}

// An outside change to the overwritten target between the check and the
// swap is never destroyed: the move is refused and both files stay.
func TestMoveNeverDestroysAnOutsideChangeToItsTarget(t *testing.T) {
	var root string
	hook := func(p string) {
		if p == "b.txt" {
			os.WriteFile(filepath.Join(root, "b.txt"), []byte("edited meanwhile\n"), 0o644)
		}
	}
	_, s, r := open(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"}, stet.Options{Hooks: stet.Hooks{BeforeSwap: hook}})
	root = r
	readAll(t, s, "a.txt", "b.txt")
	_, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true})
	if kindOf(err) != stet.KindConflict {
		t.Fatalf("move over a file changed at the swap: got %v, want a conflict refusal", err)
	}
	if got := content(t, root, "b.txt"); got != "edited meanwhile\n" {
		t.Errorf("b.txt = %q, the outside change was lost", got)
	}
	if got := content(t, root, "a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q, want it untouched", got)
	}
}

// Move a→b and b→a at once never deadlock: locks are taken in one order.
func TestCrossedMovesDoNotDeadlock(t *testing.T) {
	ws, _, root := open(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"}, stet.Options{})
	for round := range 50 {
		os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
		os.WriteFile(filepath.Join(root, "b.txt"), []byte("b\n"), 0o644)
		s1, _ := ws.Session("one")
		s2, _ := ws.Session("two")
		readAll(t, s1, "a.txt", "b.txt")
		readAll(t, s2, "a.txt", "b.txt")
		c, cancel := context.WithTimeout(ctx, 20*time.Second)
		var wg sync.WaitGroup
		errs := make([]error, 2)
		wg.Go(func() { _, errs[0] = s1.Move(c, stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true}) })
		wg.Go(func() { _, errs[1] = s2.Move(c, stet.MoveArgs{From: "b.txt", To: "a.txt", Overwrite: true}) })
		wg.Wait()
		expired := c.Err() != nil
		cancel()
		if expired {
			t.Fatalf("round %d: crossed moves deadlocked (%v)", round, errs)
		}
		for _, err := range errs {
			if errors.Is(err, context.DeadlineExceeded) || kindOf(err) == stet.KindConflict {
				t.Fatalf("round %d: a crossed move waited on the other: %v", round, err)
			}
		}
		if errs[0] == nil && errs[1] == nil {
			t.Fatalf("round %d: both crossed moves landed; the second must see its source changed or gone", round)
		}
	}
}

// A move is a change like any other: rule 8 guards the file it would
// replace and a declared input cannot be moved away.
func TestMoveInputGuard(t *testing.T) {
	files := map[string]string{"draft.csv": "x\n", "sales.csv": "region,total\nnorth,3\n", "in.csv": "a,b\n"}
	_, s, root := open(t, files, stet.Options{})
	if err := s.Turn("Tidy the reports; keep sales.csv as it is.", "in.csv"); err != nil {
		t.Fatal(err)
	}
	readAll(t, s, "draft.csv", "sales.csv", "in.csv")
	for _, c := range []stet.MoveArgs{
		{From: "draft.csv", To: "sales.csv", Overwrite: true}, // named by the request
		{From: "draft.csv", To: "in.csv", Overwrite: true},    // a declared input replaced
		{From: "in.csv", To: "moved.csv"},                     // a declared input moved away
	} {
		_, err := s.Move(ctx, c)
		if kindOf(err) != stet.KindInput {
			t.Errorf("move %s → %s: got %v, want kind input", c.From, c.To, err)
		}
	}
	for name, want := range files {
		if got := content(t, root, name); got != want {
			t.Errorf("%s = %q after refused moves", name, got)
		}
	}
}

// Undo of a directory move takes it back; undo refuses, changing nothing,
// when the old name is taken again.
func TestMoveDirUndo(t *testing.T) {
	_, s, root := open(t, map[string]string{"app/main.go": "package main\n", "app/util/u.go": "package util\n"}, stet.Options{})
	if _, err := s.List(ctx, stet.ListArgs{Path: "."}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, stet.ListArgs{Path: "app"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Move(ctx, stet.MoveArgs{From: "app", To: "app2"}); err != nil {
		t.Fatal(err)
	}
	if got := content(t, root, "app2/util/u.go"); got != "package util\n" {
		t.Fatalf("after the move: %q", got)
	}
	os.Mkdir(filepath.Join(root, "app"), 0o755)
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "app2"}); kindOf(err) != stet.KindChanged {
		t.Fatalf("undo with the old name taken: %v, want changed", err)
	}
	if got := content(t, root, "app2/main.go"); got != "package main\n" {
		t.Fatalf("a refused undo changed the tree")
	}
	os.Remove(filepath.Join(root, "app"))
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "app2"}); err != nil {
		t.Fatal(err)
	}
	if got := content(t, root, "app/util/u.go"); got != "package util\n" {
		t.Errorf("after undo: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "app2")); !os.IsNotExist(err) {
		t.Errorf("app2 still there after undo")
	}
}

// A symlink is not moved to another directory: the rename would move the
// link, whose relative target then leads elsewhere, while the move was
// planned and proven on the file it led to. Refused with nothing changed
// (within its directory a link moves: TestToolPaths); a file reached
// through a linked directory still moves.
func TestMoveRefusesASymlink(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "a\n", "real/b.txt": "b\n"}, stet.Options{})
	symlink(t, root, "a.txt", "link.txt")
	symlink(t, root, "real", "alias")
	mustList(t, s, ".")
	for _, p := range []string{"link.txt", "alias/b.txt"} {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Mkdir(ctx, stet.MkdirArgs{Path: "sub"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Move(ctx, stet.MoveArgs{From: "link.txt", To: "sub/link.txt"}); kindOf(err) != stet.KindNotRegular {
		t.Errorf("move of a symlink: %v, want not_regular", err)
	}
	if l, err := os.Readlink(filepath.Join(root, "link.txt")); err != nil || l != "a.txt" {
		t.Errorf("link.txt now %q %v", l, err)
	}
	if _, err := s.Move(ctx, stet.MoveArgs{From: "alias/b.txt", To: "sub/b.txt"}); err != nil {
		t.Errorf("move of a file through a linked directory: %v", err)
	}
}
