package stet_test

import (
	"context"
	"testing"

	"github.com/stet-dev/stet"
)

// TestMkdirObservesEveryDirectoryItCreates: a directory the session
// created counts as observed (SPEC section 1), parents mkdir made on the
// way included, so a file can be created in any of them.
func TestMkdirObservesEveryDirectoryItCreates(t *testing.T) {
	ctx := context.Background()
	_, s, _ := open(t, map[string]string{"keep.txt": "k\n"}, stet.Options{})
	if _, err := s.Mkdir(ctx, stet.MkdirArgs{Path: "a/b/c"}); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a/new.txt", "a/b/new.txt", "a/b/c/new.txt"} {
		if _, err := s.Write(ctx, stet.WriteArgs{Path: p, Content: "x\n"}); err != nil {
			t.Errorf("write %s after mkdir a/b/c: %v", p, err)
		}
	}
}
