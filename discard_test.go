package stet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The old file an edit or a replace swaps out is removed beside the
// readback, and gone when the call returns: no temp file is left.
func TestNoTempFileAfterTheCall(t *testing.T) {
	ctx := context.Background()
	root, state := t.TempDir(), t.TempDir()
	big := strings.Repeat("a line of text, long enough to make a large file\n", 40000) + "TOKEN1\n"
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	ws, err := Open([]string{root}, Options{State: state, MaxReadBytes: MaxMaxReadBytes})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.e.Close()
	s, _ := ws.Session("t")
	noTemp := func(after string) {
		t.Helper()
		ents, err := os.ReadDir(root)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".stet-tmp-") {
				t.Fatalf("after %s, %s is left beside the file", after, e.Name())
			}
		}
	}
	if _, err := s.Read(ctx, ReadArgs{Path: "a.txt", Limit: 1 << 20}); err != nil {
		t.Fatal(err)
	}
	toks := []string{"TOKEN1", "TOKEN2"}
	for i := 0; i < 10; i++ {
		if _, err := s.Edit(ctx, EditArgs{Path: "a.txt", OldString: &toks[i%2], NewString: &toks[(i+1)%2]}); err != nil {
			t.Fatal(err)
		}
		noTemp("an edit")
	}
	got, err := os.ReadFile(filepath.Join(root, "a.txt"))
	if err != nil || !strings.HasSuffix(string(got), "TOKEN1\n") || len(got) != len(big) {
		t.Fatalf("a.txt holds %d bytes ending %q, %v", len(got), got[max(0, len(got)-10):], err)
	}
	for i := 0; i < 3; i++ {
		if _, err := s.Write(ctx, WriteArgs{Path: "a.txt", Content: big + strings.Repeat("x", i+1), Overwrite: true}); err != nil {
			t.Fatal(err)
		}
		noTemp("a replace")
	}
}
