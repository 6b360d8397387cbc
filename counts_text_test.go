package stet_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// TestCountsInTextAgreeInNumber: counts in text read as people write them.
func TestCountsInTextAgreeInNumber(t *testing.T) {
	ctx := context.Background()
	_, s, _ := open(t, map[string]string{"a.txt": "a"}, stet.Options{})
	l, err := s.List(ctx, stet.ListArgs{})
	if err != nil {
		t.Fatal(err)
	}
	if text := stet.Text(l); !strings.Contains(text, "a.txt  (1 byte)\n") {
		t.Errorf("list text: %q", text)
	}
	w, err := s.Write(ctx, stet.WriteArgs{Path: "b.txt", Content: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(w.Message, "created b.txt (1 line, 1 byte)") {
		t.Errorf("write message: %q", w.Message)
	}
}
