package stet_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet"
)

// receiptCount is how many receipts the journal holds.
func receiptCount(t *testing.T, ws *stet.Workspace) int {
	t.Helper()
	log, err := ws.Log("", "")
	if err != nil {
		t.Fatal(err)
	}
	return len(log)
}

// TestMultiStepChangeIsProvenBeforeItsFirstStep: in every change of several steps, a step
// that could only be refused once an earlier one had landed is proven
// possible before the first byte moves, so the refused call leaves no
// receipt and no change: never a step landed, the next refused and the
// first rolled back, two receipts for a call reported refused.
func TestMultiStepChangeIsProvenBeforeItsFirstStep(t *testing.T) {
	t.Run("patch: an update moved below a file, without the gate", func(t *testing.T) {
		ws, s, root := open(t, map[string]string{"a.txt": "a\n", "b.txt": "b\n"}, stet.Options{NoGate: true})
		_, err := s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt/a.txt\n@@\n-a\n+A\n*** End Patch\n"})
		if kindOf(err) != stet.KindNotFound {
			t.Fatalf("Patch: %v, want not_found", err)
		}
		if content(t, root, "a.txt") != "a\n" || receiptCount(t, ws) != 0 {
			t.Fatalf("a.txt = %q, %d receipts: the refused patch changed something", content(t, root, "a.txt"), receiptCount(t, ws))
		}
	})

	t.Run("patch: a moved file that another section puts a file below", func(t *testing.T) {
		ws, s, root := open(t, map[string]string{"a.txt": "a\n"}, stet.Options{})
		s.List(ctx, stet.ListArgs{Path: "."})
		s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
		for _, p := range []string{
			"*** Begin Patch\n*** Update File: a.txt\n*** Move to: b\n@@\n-a\n+A\n*** Add File: b/c.txt\n+c\n*** End Patch\n",
			"*** Begin Patch\n*** Add File: b/c.txt\n+c\n*** Update File: a.txt\n*** Move to: b\n@@\n-a\n+A\n*** End Patch\n",
			"*** Begin Patch\n*** Add File: b\n+b\n*** Add File: b/c/d.txt\n+c\n*** End Patch\n",
		} {
			_, err := s.Patch(ctx, stet.PatchArgs{Patch: p})
			if kindOf(err) != stet.KindInvalid {
				t.Fatalf("Patch: %v, want invalid\n%s", err, p)
			}
			if content(t, root, "a.txt") != "a\n" || receiptCount(t, ws) != 0 {
				t.Fatalf("a.txt = %q, %d receipts: the refused patch changed something", content(t, root, "a.txt"), receiptCount(t, ws))
			}
			if _, err := os.Stat(filepath.Join(root, "b")); !os.IsNotExist(err) {
				t.Fatalf("b exists after a refused patch: %v", err)
			}
		}
	})

	t.Run("patch: a move into a missing directory lands whole", func(t *testing.T) {
		ws, s, root := open(t, map[string]string{"old/a.txt": "a\n"}, stet.Options{})
		s.List(ctx, stet.ListArgs{Path: "."})
		s.Read(ctx, stet.ReadArgs{Path: "old/a.txt"})
		res, err := s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: old/a.txt\n*** Move to: new/dir/a.txt\n@@\n-a\n+A\n*** End Patch\n"})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Receipts) != 2 || receiptCount(t, ws) != 2 || content(t, root, "new/dir/a.txt") != "A\n" {
			t.Fatalf("%d receipts, %d logged", len(res.Receipts), receiptCount(t, ws))
		}
		if _, err := os.Stat(filepath.Join(root, "old/a.txt")); !os.IsNotExist(err) {
			t.Fatalf("old/a.txt is still there: %v", err)
		}
	})

	t.Run("move: into a missing directory, then undone", func(t *testing.T) {
		ws, s, root := open(t, map[string]string{"a.txt": "a\n"}, stet.Options{})
		s.List(ctx, stet.ListArgs{Path: "."})
		s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
		if _, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "x/y/a.txt"}); err != nil {
			t.Fatal(err)
		}
		if content(t, root, "x/y/a.txt") != "a\n" || receiptCount(t, ws) != 1 {
			t.Fatalf("move: %d receipts", receiptCount(t, ws))
		}
		if _, err := s.Undo(ctx, stet.UndoArgs{Path: "x/y/a.txt"}); err != nil {
			t.Fatal(err)
		}
		if content(t, root, "a.txt") != "a\n" {
			t.Fatal("undo did not bring a.txt back")
		}
	})

	t.Run("undo set: a move back below a file an earlier step restores", func(t *testing.T) {
		ws, s, root := open(t, map[string]string{"d/x.txt": "x\n"}, stet.Options{})
		s.List(ctx, stet.ListArgs{Path: "."})
		s.Read(ctx, stet.ReadArgs{Path: "d/x.txt"})
		if _, err := s.Move(ctx, stet.MoveArgs{From: "d/x.txt", To: "y.txt"}); err != nil {
			t.Fatal(err)
		}
		// The user replaces the emptied directory with a file, which the
		// session then deletes: undoing that delete brings the file d back,
		// and the move back into d/ could only fail after it.
		if err := os.Remove(filepath.Join(root, "d")); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(root, "d"), []byte("now a file\n"), 0o644)
		s.Read(ctx, stet.ReadArgs{Path: "d"})
		if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "d"}); err != nil {
			t.Fatal(err)
		}
		before := receiptCount(t, ws)
		_, err := ws.UndoChanges(ctx, stet.UndoSpec{Session: "test"})
		if kindOf(err) != stet.KindNotFound {
			t.Fatalf("UndoChanges: %v, want not_found", err)
		}
		if _, err := os.Stat(filepath.Join(root, "d")); !os.IsNotExist(err) || content(t, root, "y.txt") != "x\n" || receiptCount(t, ws) != before {
			t.Fatalf("d: %v, %d receipts (were %d): the refused undo changed something", err, receiptCount(t, ws), before)
		}
	})

	t.Run("undo set: a move back into a removed directory lands whole", func(t *testing.T) {
		ws, s, root := open(t, map[string]string{"d/x.txt": "x\n", "z.txt": "z\n"}, stet.Options{})
		s.List(ctx, stet.ListArgs{Path: "."})
		s.Read(ctx, stet.ReadArgs{Path: "d/x.txt"})
		s.Read(ctx, stet.ReadArgs{Path: "z.txt"})
		if _, err := s.Move(ctx, stet.MoveArgs{From: "d/x.txt", To: "y.txt"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Edit(ctx, stet.EditArgs{Path: "z.txt", OldString: ptr("z"), NewString: ptr("Z")}); err != nil {
			t.Fatal(err)
		}
		if err := os.Remove(filepath.Join(root, "d")); err != nil {
			t.Fatal(err)
		}
		before := receiptCount(t, ws)
		res, err := ws.UndoChanges(ctx, stet.UndoSpec{Session: "test"})
		if err != nil {
			t.Fatal(err)
		}
		if content(t, root, "z.txt") != "z\n" || content(t, root, "d/x.txt") != "x\n" || receiptCount(t, ws) != before+len(res.Receipts) || len(res.Receipts) != 2 {
			t.Fatalf("undo set: %+v", res)
		}
	})
}
