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

// TestMkdirOfAnExistingDirectoryObservesNothing: mkdir of a directory that
// is already there neither created nor listed it, so creating a file in it
// still needs a list (SPEC section 1: list, a read of a file in it, or the
// session creating it).
func TestMkdirOfAnExistingDirectoryObservesNothing(t *testing.T) {
	ctx := context.Background()
	_, s, _ := open(t, map[string]string{"src/main.go": "package main\n"}, stet.Options{})
	if _, err := s.Mkdir(ctx, stet.MkdirArgs{Path: "src"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "src/new.go", Content: "package main\n"}); kindOf(err) != stet.KindNotRead {
		t.Errorf("write into a directory mkdir found already there: %v, want not_read", err)
	}
}
