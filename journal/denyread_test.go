package journal_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// TestRecordDenyRead: the record of deny-read globs only grows, keeps the
// order first seen, survives a reopen, and is not rewritten by a call
// that adds nothing.
func TestRecordDenyRead(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got, err := j.DenyRead(); err != nil || got != nil {
		t.Fatalf("before any: %q, %v", got, err)
	}
	if err := j.RecordDenyRead([]string{"*.env", "secrets/"}); err != nil {
		t.Fatal(err)
	}
	if err := j.RecordDenyRead([]string{"keys/*.pem", "*.env"}); err != nil {
		t.Fatal(err)
	}
	want := []string{"*.env", "secrets/", "keys/*.pem"}
	if got, _ := j.DenyRead(); !slices.Equal(got, want) {
		t.Fatalf("recorded %q, want %q", got, want)
	}
	name := filepath.Join(dir, "deny-read.json")
	before, err := os.Stat(name)
	if err != nil {
		t.Fatal(err)
	}
	if err := j.RecordDenyRead([]string{"secrets/"}); err != nil {
		t.Fatal(err)
	}
	if after, _ := os.Stat(name); !os.SameFile(before, after) {
		t.Fatal("a call that adds nothing rewrote the record")
	}
	j.Close()
	j2, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if got, _ := j2.DenyRead(); !slices.Equal(got, want) {
		t.Fatalf("after a reopen %q, want %q", got, want)
	}
	if err := os.WriteFile(name, []byte("not json"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := j2.DenyRead(); err == nil {
		t.Fatal("a damaged record read as no rules")
	}
}
