package stet_test

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/frame"
)

// TestNotReadShowsAndObserves: through the library, a not_read refusal
// carries what it asks the session to see (a file's frame, a directory's
// listing), its error text shows it, and the same call retried lands; a
// patch, a directory move and a delete get the same. The input guard still
// applies to the retry.
func TestNotReadShowsAndObserves(t *testing.T) {
	_, s, root := open(t, map[string]string{
		"a.txt":         "one\ntwo\n",
		"b.txt":         "bee\n",
		"docs/guide.md": "# Guide\n",
		"pkg/x/x.go":    "package x\n",
	}, stet.Options{})

	edit := stet.EditArgs{Path: "a.txt", OldString: ptr("two"), NewString: ptr("TWO")}
	_, err := s.Edit(ctx, edit)
	var r *stet.Refusal
	if !errors.As(err, &r) || r.Kind != stet.KindNotRead {
		t.Fatalf("first edit: %v", err)
	}
	fr, _ := r.Details[stet.ShownFrame].(*stet.ReadResult)
	if fr == nil || fr.Frame != wholeFrame([]byte("one\ntwo\n")) || !strings.HasSuffix(err.Error(), "\n\n"+fr.Frame) || !strings.HasPrefix(err.Error(), r.Message) {
		t.Fatalf("refusal shows %+v; error text %q", fr, err)
	}
	if _, err := s.Edit(ctx, edit); err != nil {
		t.Fatalf("retried edit: %v", err)
	}

	// A create in a directory never listed: the listing, then the retry.
	w := stet.WriteArgs{Path: "docs/new.md", Content: "new\n"}
	_, err = s.Write(ctx, w)
	if !errors.As(err, &r) || r.Kind != stet.KindNotRead {
		t.Fatalf("first create: %v", err)
	}
	ls, _ := r.Details[stet.ShownListing].(*stet.ListResult)
	if ls == nil || len(ls.Entries) != 1 || ls.Entries[0].Name != "guide.md" || !strings.Contains(err.Error(), "\n\nguide.md  (8 bytes)") {
		t.Fatalf("refusal shows %+v; error text %q", ls, err)
	}
	if _, err := s.Write(ctx, w); err != nil {
		t.Fatalf("retried create: %v", err)
	}

	// A directory move: the listing of the directory, then the retry.
	mv := stet.MoveArgs{From: "pkg/x", To: "pkg/y"}
	if _, err := s.Move(ctx, mv); kindOf(err) != stet.KindNotRead {
		t.Fatalf("first directory move: %v", err)
	}
	if _, err := s.Move(ctx, mv); err != nil {
		t.Fatalf("retried directory move: %v", err)
	}

	// A patch updating a file never read.
	p := stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: b.txt\n@@\n-bee\n+BEE\n*** End Patch\n"}
	if _, err := s.Patch(ctx, p); kindOf(err) != stet.KindNotRead {
		t.Fatalf("first patch: %v", err)
	}
	if _, err := s.Patch(ctx, p); err != nil {
		t.Fatalf("retried patch: %v", err)
	}
	if got := content(t, root, "b.txt"); got != "BEE\n" {
		t.Fatalf("b.txt = %q", got)
	}

	// The input guard applies to the retry as to any call: a file the
	// request names needs overwrite: true.
	if err := s.Turn("Please fix the typo in guide.md."); err != nil {
		t.Fatal(err)
	}
	over := stet.WriteArgs{Path: "docs/guide.md", Content: "gone\n"}
	if _, err := s.Write(ctx, over); kindOf(err) != stet.KindNotRead {
		t.Fatalf("first overwrite: %v", err)
	}
	if _, err := s.Write(ctx, over); kindOf(err) != stet.KindInput {
		t.Fatalf("retried overwrite without overwrite: true: %v, want input", err)
	}
	over.Overwrite = true
	res, err := s.Write(ctx, over)
	if err != nil || !strings.Contains(res.Message, "previous content saved") {
		t.Fatalf("overwrite: true: %v %+v", err, res)
	}
}

// wholeFrame is the whole-file frame of text, as a read of all of it shows.
func wholeFrame(text []byte) string {
	w, err := frame.EncodeWindow(text, frame.Options{Limit: frame.LineCount(text) + 1, MaxBytes: len(text)*2 + 1024})
	if err != nil || !w.Whole {
		panic(fmt.Sprintf("wholeFrame: %v", err))
	}
	return w.Frame
}
