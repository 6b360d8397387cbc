package stet_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/policy"
)

// A user's file the request names cannot be replaced by deleting it and
// writing it anew: the create where it stood is a replace of it, refused
// without overwrite: true as a write over it is. A file the session made
// itself can be deleted and made again freely.
func TestRecreatingARequestNamedFileIsAReplace(t *testing.T) {
	ws, s, root := open(t, map[string]string{"plan.txt": "step one\nstep two\n"}, stet.Options{})
	_ = ws
	if err := s.Turn("Tidy up plan.txt"); err != nil {
		t.Fatal(err)
	}
	readAll(t, s, "plan.txt")
	if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "plan.txt"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Write(ctx, stet.WriteArgs{Path: "plan.txt", Content: "new plan\n"})
	if !errors.Is(err, stet.ErrInput) || !strings.Contains(err.Error(), "3 lines → 2") {
		t.Fatalf("recreate without overwrite: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "plan.txt")); !os.IsNotExist(err) {
		t.Fatalf("plan.txt was written: %v", err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "plan.txt", Content: "new plan\n", Overwrite: true}); err != nil {
		t.Fatalf("recreate with overwrite: %v", err)
	}
	// The session's own file, deleted and made again: no guard.
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "notes.txt", Content: "mine\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "notes.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "notes.txt", Content: "mine again\n"}); err != nil {
		t.Fatalf("recreate of the session's own file: %v", err)
	}
}

// Under --binding full a file over one read window can never be read whole
// in one call: reading all its windows at this version is the whole read,
// and the refusal says to read them, from the first line not read.
func TestBindingFullCountsEveryWindowAsTheWholeRead(t *testing.T) {
	var b strings.Builder
	for i := range 3000 {
		fmt.Fprintf(&b, "line %d\n", i+1)
	}
	_, s, _ := open(t, map[string]string{"big.txt": b.String()}, stet.Options{Binding: policy.BindFull})
	edit := stet.EditArgs{Path: "big.txt", OldString: ptr("line 2999\n"), NewString: ptr("line 2999 (edited)\n")}
	if _, err := s.Do(ctx, stet.ReadArgs{Path: "big.txt"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Edit(ctx, edit)
	var ref *stet.Refusal
	if !errors.As(err, &ref) || ref.Kind != stet.KindNotSeen || !strings.Contains(ref.Message, "window by window from line 2001") {
		t.Fatalf("edit after the first window: %v", err)
	}
	if _, err := s.Do(ctx, stet.ReadArgs{Path: "big.txt", Offset: 2001}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Edit(ctx, edit); err != nil {
		t.Fatalf("edit after every window was read: %v", err)
	}
}
