package stet_test

import (
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// TestPatchAddOverExisting: "*** Add File:" over an existing file is a
// replace under write's rules: the input guard holds (and, since a patch has
// no overwrite argument, says what to do instead), a declared input is never
// replaced, a file read only in part is not_seen, and a replace that lands
// saves the old bytes so undo brings them back.
func TestPatchAddOverExisting(t *testing.T) {
	add := "*** Begin Patch\n*** Add File: sales.csv\n+x\n*** End Patch\n"
	big := strings.Repeat("a,b\n", 3000)

	t.Run("named by the request", func(t *testing.T) {
		_, s, root := open(t, map[string]string{"sales.csv": "a,b\n1,2\n"}, stet.Options{})
		if err := s.Turn("tidy up sales.csv please"); err != nil {
			t.Fatal(err)
		}
		s.Read(ctx, stet.ReadArgs{Path: "sales.csv"})
		_, err := s.Patch(ctx, stet.PatchArgs{Patch: add})
		r, ok := stet.AsRefusal(err)
		if !ok || r.Kind != stet.KindInput || !strings.Contains(r.Message, "a patch cannot: update the file with @@ hunks") {
			t.Fatalf("Patch: %v", err)
		}
		if content(t, root, "sales.csv") != "a,b\n1,2\n" {
			t.Fatal("the refused add changed the file")
		}
	})

	t.Run("a declared input", func(t *testing.T) {
		_, s, _ := open(t, map[string]string{"sales.csv": "a,b\n1,2\n"}, stet.Options{})
		if err := s.Turn("tidy", "sales.csv"); err != nil {
			t.Fatal(err)
		}
		s.Read(ctx, stet.ReadArgs{Path: "sales.csv"})
		if _, err := s.Patch(ctx, stet.PatchArgs{Patch: add}); kindOf(err) != stet.KindInput {
			t.Fatalf("Patch: %v, want input", err)
		}
	})

	t.Run("read only in part", func(t *testing.T) {
		_, s, _ := open(t, map[string]string{"sales.csv": big}, stet.Options{})
		s.Read(ctx, stet.ReadArgs{Path: "sales.csv", Limit: 10})
		if _, err := s.Patch(ctx, stet.PatchArgs{Patch: add}); kindOf(err) != stet.KindNotSeen {
			t.Fatalf("Patch: %v, want not_seen", err)
		}
	})

	t.Run("lands, saved, undone", func(t *testing.T) {
		_, s, root := open(t, map[string]string{"sales.csv": "a,b\n1,2\n"}, stet.Options{})
		s.Read(ctx, stet.ReadArgs{Path: "sales.csv"})
		res, err := s.Patch(ctx, stet.PatchArgs{Patch: add})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(res.Message, "replaced the user's file sales.csv") || content(t, root, "sales.csv") != "x\n" {
			t.Fatalf("Patch: %s", res.Message)
		}
		if _, err := s.Undo(ctx, stet.UndoArgs{Path: "sales.csv"}); err != nil {
			t.Fatal(err)
		}
		if content(t, root, "sales.csv") != "a,b\n1,2\n" {
			t.Fatalf("after undo: %q", content(t, root, "sales.csv"))
		}
	})
}
