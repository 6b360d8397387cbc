package receipt_test

import (
	"errors"
	"testing"

	"github.com/stet-dev/stet/receipt"
)

func TestVerifyShape(t *testing.T) {
	pre := []byte("alpha beta gamma\n")
	post := []byte("alpha BETA! gamma\n")
	r := receipt.Receipt{
		Before:  receipt.StateOf(pre),
		After:   receipt.StateOf(post),
		Matches: []receipt.Match{{Offset: 6, OldBytes: 4, NewBytes: 5, Line: 1, Old: []byte("beta"), New: []byte("BETA!")}},
	}
	if err := receipt.VerifyShape(pre, post, r); err != nil {
		t.Fatalf("a correct readback: %v", err)
	}
	for name, bad := range map[string][]byte{
		"gap byte changed":   []byte("alphA BETA! gamma\n"),
		"region byte wrong":  []byte("alpha BETA? gamma\n"),
		"bytes appended":     []byte("alpha BETA! gamma\nx"),
		"region shifted":     []byte("alpha  BETA!gamma\n"),
		"trailing truncated": []byte("alpha BETA! gamma"),
	} {
		rr := r
		rr.After = receipt.StateOf(bad) // the caller derives after from the readback
		if err := receipt.VerifyShape(pre, bad, rr); !errors.Is(err, receipt.ErrMismatch) {
			t.Errorf("%s: VerifyShape accepted %q", name, bad)
		}
	}
}
