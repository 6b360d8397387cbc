package stet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// reopen opens the workspace at root again over state, as a new process
// would, and returns its session "test".
func reopen(t *testing.T, root, state string) (*stet.Workspace, *stet.Session) {
	t.Helper()
	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	s, err := ws.Session("test")
	if err != nil {
		t.Fatal(err)
	}
	return ws, s
}

// removeFile deletes a file behind stet's back.
func removeFile(root, name string) error {
	return os.Remove(filepath.Join(root, filepath.FromSlash(name)))
}

// TestSessionAcrossProcesses: two Workspaces on one state directory (two
// processes' views) share a session: each call catches up with what the
// other appended, so a turn pinned by one binds the other at once, and
// observations, created files and deletes made by one count in the other.
func TestSessionAcrossProcesses(t *testing.T) {
	ws1, a, root := open(t, map[string]string{"sales.csv": "a\nb\nc\n", "notes.md": "n\n"}, stet.Options{})
	_, b := reopen(t, root, ws1.StateDir())

	// b reads sales.csv, then a pins a turn declaring it.
	if _, err := b.Read(ctx, stet.ReadArgs{Path: "sales.csv"}); err != nil {
		t.Fatal(err)
	}
	if err := a.Turn("tidy the figures", "sales.csv"); err != nil {
		t.Fatal(err)
	}
	_, err := b.Write(ctx, stet.WriteArgs{Path: "sales.csv", Content: "x\n", Overwrite: true})
	if kindOf(err) != stet.KindInput {
		t.Fatalf("b's write over the input a declared: %v, want refused input", err)
	}
	if _, in := b.Request(); len(in) != 1 || in[0] != "sales.csv" {
		t.Fatalf("b's declared inputs = %q", in)
	}
	// A request pinned by a names the file; b refuses a replace without
	// overwrite, and a's EndTurn lifts it.
	if err := a.Turn("Update notes.md, please."); err != nil {
		t.Fatal(err)
	}
	b.Read(ctx, stet.ReadArgs{Path: "notes.md"})
	if _, err := b.Write(ctx, stet.WriteArgs{Path: "notes.md", Content: "x\n"}); kindOf(err) != stet.KindInput {
		t.Fatalf("b's write over a file a's request names: %v", err)
	}
	if err := a.EndTurn(); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Write(ctx, stet.WriteArgs{Path: "notes.md", Content: "x\n"}); err != nil {
		t.Fatalf("b's write after a ended the turn: %v", err)
	}

	// a edits what b read (and wrote): b's observation counts for a.
	if _, err := a.Edit(ctx, stet.EditArgs{Path: "notes.md", OldString: ptr("x"), NewString: ptr("y")}); err != nil {
		t.Fatalf("a's edit of a file b observed: %v", err)
	}
	// b creates a file; for a it is a file this session created.
	b.List(ctx, stet.ListArgs{})
	if _, err := b.Write(ctx, stet.WriteArgs{Path: "new.txt", Content: "1\n2\n"}); err != nil {
		t.Fatal(err)
	}
	res, err := a.Write(ctx, stet.WriteArgs{Path: "new.txt", Content: "3\n"})
	if err != nil || !strings.Contains(res.Message, "a file this session created") {
		t.Fatalf("a's write over the file b created: %v, %v", res, err)
	}
	// a deletes it; b no longer holds an observation of it: a new file at
	// that name is a create for b, not a replace of what b saw.
	if _, err := a.Delete(ctx, stet.DeleteArgs{Path: "new.txt"}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "new.txt"), []byte("theirs\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := b.Edit(ctx, stet.EditArgs{Path: "new.txt", OldString: ptr("theirs"), NewString: ptr("mine")}); kindOf(err) != stet.KindNotRead {
		t.Fatalf("b's edit of a file a deleted and someone recreated: %v, want not_read", err)
	}
}
