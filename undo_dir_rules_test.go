package stet_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet"
)

// Undo of a directory move is a move like any other: a protected path that
// appeared under the directory since is not carried back out from under its
// pattern.
func TestUndoDirMoveKeepsRules(t *testing.T) {
	_, s, root := open(t, map[string]string{"app/main.go": "package main\n"}, stet.Options{Protect: []string{"app2/keys/**"}})
	if _, err := s.List(ctx, stet.ListArgs{Path: "."}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.List(ctx, stet.ListArgs{Path: "app"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Move(ctx, stet.MoveArgs{From: "app", To: "app2"}); err != nil {
		t.Fatal(err)
	}
	os.MkdirAll(filepath.Join(root, "app2/keys"), 0o755)
	os.WriteFile(filepath.Join(root, "app2/keys/id"), []byte("secret\n"), 0o600)
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "app2"}); kindOf(err) != stet.KindProtected {
		t.Fatalf("undo carrying a protected file out: %v, want protected", err)
	}
	if got := content(t, root, "app2/keys/id"); got != "secret\n" {
		t.Errorf("the protected file moved: %q", got)
	}
}
