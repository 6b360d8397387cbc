package stet_test

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/stet-dev/stet"
)

// TestForget: a forgotten session is let go from memory (Session returns a
// new one) and rebuilt from the journal, so what it read still counts.
func TestForget(t *testing.T) {
	ws, s, _ := open(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
	ctx := context.Background()
	if _, err := s.Call(ctx, "read", json.RawMessage(`{"path":"a.txt"}`)); err != nil {
		t.Fatal(err)
	}
	ws.Forget("test")
	again, err := ws.Session("test")
	if err != nil {
		t.Fatal(err)
	}
	if again == s {
		t.Fatal("Session returned the forgotten session itself")
	}
	out, err := again.Call(ctx, "edit", json.RawMessage(`{"path":"a.txt","old_string":"hello","new_string":"bye"}`))
	if err != nil {
		t.Fatal(err)
	}
	if out.Refused != nil {
		t.Fatalf("edit after Forget refused: %s", out.Text)
	}
}
