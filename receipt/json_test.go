package receipt

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test -update to create it)", err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("%s differs:\n got %s\nwant %s", name, got, want)
	}
}

func TestReceiptJSON(t *testing.T) {
	at := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	pre, post := []byte("a\nhello\n"), []byte("a\nhello, world\n")
	tests := []struct {
		name string
		r    Receipt
		keys []string
	}{
		{"edit.json", Receipt{
			ID: "r_1", Session: "default", Tool: "edit", Path: "src/a.go",
			Before: StateOf(pre), After: StateOf(post),
			Matches: []Match{{Offset: 7, OldBytes: 0, NewBytes: 7, Line: 2, Old: []byte{}, New: []byte(", world")}},
			EOL:     "lf", Verified: true, Notes: []string{"a note"}, Time: at,
		}, []string{"after", "before", "eol", "id", "matches", "notes", "path", "session", "time", "tool", "verified"}},
		{"create.json", Receipt{
			ID: "r_2", Session: "s", Tool: "write", Path: "new.txt",
			After:   StateOf(post),
			Matches: []Match{{Offset: 0, NewBytes: len(post), Line: 1}},
			EOL:     "lf", Verified: true, Time: at,
		}, []string{"after", "before", "eol", "id", "matches", "path", "session", "time", "tool", "verified"}},
		{"delete.json", Receipt{
			ID: "r_3", Session: "s", Tool: "delete", Path: "old.txt",
			Before: StateOf(pre), EOL: "lf", Verified: true, Time: at,
		}, []string{"after", "before", "eol", "id", "matches", "path", "session", "time", "tool", "verified"}},
		{"move.json", Receipt{
			ID: "r_4", Session: "s", Tool: "move", Path: "b.txt", From: "a.txt",
			Before: StateOf(pre), After: StateOf(pre), EOL: "none", DryRun: true, Time: at,
		}, []string{"after", "before", "dry_run", "eol", "from", "id", "matches", "path", "session", "time", "tool", "verified"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.MarshalIndent(tt.r, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			golden(t, tt.name, append(got, '\n'))

			var m map[string]json.RawMessage
			if err := json.Unmarshal(got, &m); err != nil {
				t.Fatal(err)
			}
			var keys []string
			for k := range m {
				keys = append(keys, k)
			}
			slices.Sort(keys)
			if !slices.Equal(keys, tt.keys) {
				t.Errorf("keys %v, want %v", keys, tt.keys)
			}
			if tt.r.Before == nil && string(m["before"]) != "null" {
				t.Errorf("before = %s, want null", m["before"])
			}
			if tt.r.After == nil && string(m["after"]) != "null" {
				t.Errorf("after = %s, want null", m["after"])
			}
			if len(tt.r.Matches) == 0 && string(m["matches"]) != "[]" {
				t.Errorf("matches = %s, want []", m["matches"])
			}

			// Through a pointer, and back.
			viaPtr, err := json.MarshalIndent(&tt.r, "", "  ")
			if err != nil || !bytes.Equal(viaPtr, got) {
				t.Errorf("marshalling a *Receipt differs: %s", viaPtr)
			}
			var back Receipt
			if err := json.Unmarshal(got, &back); err != nil {
				t.Fatal(err)
			}
			again, _ := json.MarshalIndent(back, "", "  ")
			if !bytes.Equal(again, got) {
				t.Errorf("round trip differs:\n%s\n%s", again, got)
			}
		})
	}
}
