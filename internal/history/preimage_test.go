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

// Matches at the very start and the very end of the file, and two that
// touch, are taken back like any other; the inverse splice rebuilds the
// previous bytes too.
func TestPreimageEdges(t *testing.T) {
	before, after := "abXYcd", "AbXYcDD"
	ms := []receipt.Match{{Offset: 0, OldBytes: 1, NewBytes: 1}, {Offset: 1, OldBytes: 1, NewBytes: 1}, {Offset: 5, OldBytes: 1, NewBytes: 2}}
	// the second match replaced b by b: the receipt still records it
	r := receipt.Receipt{ID: "r1", Path: "a.txt", Before: &receipt.State{Version: ver(before), Bytes: len(before)}, Matches: ms}
	d := &history.Receipt{Receipt: r, Old: []string{"a", "b", "d"}}
	got, err := history.Preimage(blobs{}, d, []byte(after))
	if err != nil || string(got) != before {
		t.Fatalf("rebuilt preimage = %q, %v; want %q", got, err, before)
	}
	inv, err := history.Invert([]byte(after), []byte(before), ms)
	if err != nil || string(inv.Text) != before {
		t.Errorf("Invert = %q, %v; want %q", inv.Text, err, before)
	}
}

// A receipt whose matches do not fit the file's current bytes (the file
// is shorter than the change left it, or the matches overlap: a damaged or
// forged journal) is refused with an error naming the receipt, not
// rebuilt and not a crash.
func TestPreimageDoesNotFit(t *testing.T) {
	before := "one two three\n"
	r := receipt.Receipt{ID: "r1", Path: "a.txt", Before: &receipt.State{Version: ver(before), Bytes: len(before)},
		Matches: []receipt.Match{{Offset: 4, OldBytes: 3, NewBytes: 1}, {Offset: 13, OldBytes: 0, NewBytes: 2}}}
	d := &history.Receipt{Receipt: r, Old: []string{"two", ""}}
	for _, cur := range []string{"one 2 three ", "one", ""} {
		if _, err := history.Preimage(blobs{}, d, []byte(cur)); err == nil || !strings.Contains(err.Error(), "does not fit") || !strings.Contains(err.Error(), "r1") {
			t.Errorf("current bytes %q: %v, want a does-not-fit error naming r1", cur, err)
		}
	}
	overlap := r
	overlap.Matches = []receipt.Match{{Offset: 4, OldBytes: 3, NewBytes: 3}, {Offset: 5, OldBytes: 1, NewBytes: 1}}
	od := &history.Receipt{Receipt: overlap, Old: []string{"two", "w"}}
	if _, err := history.Preimage(blobs{}, od, []byte(before)); err == nil || !strings.Contains(err.Error(), "does not fit") {
		t.Errorf("overlapping matches: %v, want a does-not-fit error", err)
	}
	short := &history.Receipt{Receipt: r, Old: []string{"two"}}
	if _, err := history.Preimage(blobs{}, short, []byte("one 2 three 3\n")); err == nil || !strings.Contains(err.Error(), "does not record") {
		t.Errorf("one old region for two matches: %v, want a does-not-record error", err)
	}
	created := &history.Receipt{Receipt: receipt.Receipt{ID: "c1", Path: "a.txt"}}
	if _, err := history.Preimage(blobs{}, created, nil); err == nil || !strings.Contains(err.Error(), "no previous bytes") {
		t.Errorf("a create's receipt: %v, want a no-previous-bytes error", err)
	}
}

// Invert refuses matches that lie outside the previous bytes, and current
// bytes that are not what the matches made of them, instead of handing
// back a splice that would not restore the file.
func TestInvertRefuses(t *testing.T) {
	pre := []byte("abcd")
	for _, m := range []receipt.Match{{Offset: -1, OldBytes: 1, NewBytes: 1}, {Offset: 3, OldBytes: 2, NewBytes: 2}, {Offset: 5, OldBytes: 0, NewBytes: 1}} {
		if _, err := history.Invert([]byte("abcd"), pre, []receipt.Match{m}); err == nil || !strings.Contains(err.Error(), "outside") {
			t.Errorf("match %+v: %v, want an outside error", m, err)
		}
	}
	// cur is not pre with its first byte replaced: its last byte differs too
	if _, err := history.Invert([]byte("Xbcz"), pre, []receipt.Match{{Offset: 0, OldBytes: 1, NewBytes: 1}}); err == nil || !strings.Contains(err.Error(), "does not rebuild") {
		t.Errorf("cur not the after bytes: %v, want a does-not-rebuild error", err)
	}
	// a splice that cannot be made: its region runs past cur
	if _, err := history.Invert([]byte("ab"), pre, []receipt.Match{{Offset: 0, OldBytes: 1, NewBytes: 3}}); err == nil {
		t.Error("a match whose new bytes run past the current bytes was inverted")
	}
}
