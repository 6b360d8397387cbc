package stet_test

import (
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/brief"
)

// workerBrief is a brief whose INPUTS section lists sales.csv and
// notes.md, and whose request does not name them.
func workerBrief() string {
	return brief.Render(brief.Brief{
		Inputs:  []string{"data/sales.csv", "`notes.md`", "*.log", "./data/sales.csv"},
		Request: "Tidy up the quarterly figures.",
		Task:    "Fix the totals.",
	})
}

// TestWorkerBriefDeclaresInputs: pinning a worker brief declares the paths
// of its INPUTS section (globs ignored, duplicates by resolved file
// dropped), after those passed explicitly.
func TestWorkerBriefDeclaresInputs(t *testing.T) {
	_, s, _ := open(t, map[string]string{"data/sales.csv": "a,b\n1,2\n", "notes.md": "n\n", "x.txt": "x\n"}, stet.Options{})
	if err := s.Turn(workerBrief(), "x.txt", "data/../data/sales.csv"); err != nil {
		t.Fatal(err)
	}
	_, got := s.Request()
	want := []string{"x.txt", "data/../data/sales.csv", "notes.md"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("declared inputs = %q, want %q", got, want)
	}
	// write with overwrite: true is refused on each.
	for _, p := range []string{"data/sales.csv", "notes.md"} {
		s.Read(ctx, stet.ReadArgs{Path: p})
		_, err := s.Write(ctx, stet.WriteArgs{Path: p, Content: "new\n", Overwrite: true})
		if r, ok := stet.AsRefusal(err); !ok || r.Kind != stet.KindInput || !strings.Contains(r.Message, "edit it in place (edit / patch)") {
			t.Errorf("write over %s, a declared input of the brief: %v", p, err)
		}
	}
}

// TestDeclaredInputsAreEditOnly: a declared input can be edited and
// patched in place; write (any mode, even after a delete), delete, a move
// onto it or away from it, and patch sections that delete, add or move it
// are refused with kind input and a message naming what the worker can do.
// A new turn, or EndTurn, clears them.
func TestDeclaredInputsAreEditOnly(t *testing.T) {
	files := map[string]string{"data/sales.csv": "a,b\n1,2\n", "notes.md": "n\n", "other.txt": "o\n", "empty.txt": ""}
	ws, s, root := open(t, files, stet.Options{})
	if err := s.Turn(workerBrief(), "empty.txt"); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"data/sales.csv", "notes.md", "other.txt", "empty.txt"} {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	s.List(ctx, stet.ListArgs{})
	s.List(ctx, stet.ListArgs{Path: "data"})
	refused := func(what string, err error, says string) {
		t.Helper()
		r, ok := stet.AsRefusal(err)
		if !ok || r.Kind != stet.KindInput {
			t.Errorf("%s: %v, want an input refusal", what, err)
			return
		}
		for _, w := range []string{"edit", "in place", "say so in your reply", "redeclare", says} {
			if !strings.Contains(r.Message, w) {
				t.Errorf("%s: message %q does not say %q", what, r.Message, w)
			}
		}
	}
	refused("write overwrite", func() error {
		_, err := s.Write(ctx, stet.WriteArgs{Path: "data/sales.csv", Content: "x\n", Overwrite: true})
		return err
	}(), "replace")
	refused("write over an empty declared input", func() error {
		_, err := s.Write(ctx, stet.WriteArgs{Path: "empty.txt", Content: "x\n"})
		return err
	}(), "replace")
	refused("delete", func() error {
		_, err := s.Delete(ctx, stet.DeleteArgs{Path: "notes.md"})
		return err
	}(), "delete it")
	refused("move away", func() error {
		_, err := s.Move(ctx, stet.MoveArgs{From: "notes.md", To: "moved.md"})
		return err
	}(), "move it away")
	refused("move onto", func() error {
		_, err := s.Move(ctx, stet.MoveArgs{From: "other.txt", To: "notes.md", Overwrite: true})
		return err
	}(), "")
	refused("move the directory holding one", func() error {
		_, err := s.Move(ctx, stet.MoveArgs{From: "data", To: "data2"})
		return err
	}(), "move it away")
	refused("patch delete", func() error {
		_, err := s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Delete File: notes.md\n*** End Patch\n"})
		return err
	}(), "delete it")
	refused("patch move", func() error {
		_, err := s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: notes.md\n*** Move to: n2.md\n@@\n-n\n+m\n*** End Patch\n"})
		return err
	}(), "move it away")
	for name, want := range files {
		if got := content(t, root, name); got != want {
			t.Fatalf("%s changed by a refused call: %q", name, got)
		}
	}

	// Edits and patch updates land.
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "data/sales.csv", OldString: ptr("1,2"), NewString: ptr("1,3")}); err != nil {
		t.Fatalf("edit of a declared input: %v", err)
	}
	if _, err := s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: notes.md\n@@\n-n\n+m\n*** End Patch\n"}); err != nil {
		t.Fatalf("patch update of a declared input: %v", err)
	}

	// Deleted by someone else, it still cannot be recreated: not by write,
	// not by a patch that adds it.
	ws.Close()
	_, s = reopen(t, root, ws.StateDir())
	if err := removeFile(root, "notes.md"); err != nil {
		t.Fatal(err)
	}
	refused("write after delete", func() error {
		_, err := s.Write(ctx, stet.WriteArgs{Path: "notes.md", Content: "x\n"})
		return err
	}(), "recreate it")
	refused("patch add", func() error {
		_, err := s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Add File: notes.md\n+x\n*** End Patch\n"})
		return err
	}(), "recreate it")

	// EndTurn clears them.
	if err := s.EndTurn(); err != nil {
		t.Fatal(err)
	}
	if req, in := s.Request(); req != "" || len(in) != 0 {
		t.Fatalf("after EndTurn: %q, %q", req, in)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "notes.md", Content: "x\n"}); err != nil {
		t.Fatalf("write after EndTurn: %v", err)
	}
	// So does a new turn.
	if err := s.Turn("next", "other.txt"); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "data/sales.csv"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "data/sales.csv", Content: "x\n", Overwrite: true}); err != nil {
		t.Fatalf("write in the next turn: %v", err)
	}
}
