package history_test

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"strings"
	"testing"

	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/receipt"
)

func ver(b string) string {
	s := sha256.Sum256([]byte(b))
	return "sha256:" + hex.EncodeToString(s[:])
}

type blobs map[string]string

func (b blobs) Get(v string) ([]byte, error) {
	s, ok := b[v]
	if !ok {
		return nil, errors.New("no such blob")
	}
	return []byte(s), nil
}

// An edit that kept only what it replaced is taken back from the current
// bytes and the old regions; one that kept the whole file, from its blob;
// bytes that do not hash to the before version are refused.
func TestPreimage(t *testing.T) {
	before, after := "one two three\n", "one 2 three 3\n"
	r := receipt.Receipt{ID: "r1", Path: "a.txt", Before: &receipt.State{Version: ver(before), Bytes: len(before)},
		Matches: []receipt.Match{{Offset: 4, OldBytes: 3, NewBytes: 1}, {Offset: 13, OldBytes: 0, NewBytes: 2}}}
	d := &history.Receipt{Receipt: r, Old: []string{"two", ""}}
	got, err := history.Preimage(blobs{}, d, []byte(after))
	if err != nil || string(got) != before {
		t.Fatalf("rebuilt preimage = %q, %v; want %q", got, err, before)
	}
	inv, err := history.Invert([]byte(after), got, r.Matches)
	if err != nil || string(inv.Text) != before {
		t.Errorf("Invert = %q, %v; want %q", inv.Text, err, before)
	}
	whole := &history.Receipt{Receipt: r, Pre: ver(before)}
	if got, err := history.Preimage(blobs{ver(before): before}, whole, nil); err != nil || string(got) != before {
		t.Errorf("preimage from the blob = %q, %v", got, err)
	}
	if _, err := history.Preimage(blobs{}, whole, nil); err == nil || !strings.Contains(err.Error(), "unreadable") {
		t.Errorf("missing blob: %v, want an unreadable error", err)
	}
	if _, err := history.Preimage(blobs{}, d, []byte("one 2 THREE 3\n")); err == nil || !strings.Contains(err.Error(), "does not match its before version") {
		t.Errorf("changed file: %v, want a version mismatch", err)
	}
}
