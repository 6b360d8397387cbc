package textedit

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"
)

func TestResultSize(t *testing.T) {
	cases := []struct {
		n, hits, old, repl, max int
		size                    int
		ok                      bool
	}{
		{10, 2, 1, 1, 10, 10, true},
		{10, 2, 3, 1, 5, 6, true},    // shrinking is always within
		{10, 2, 1, 3, 14, 14, true},  // exactly the bound
		{10, 2, 1, 3, 13, 14, false}, // one over
		{10, 5, 1, 2, 14, 15, false},
		{10, 1 << 40, 1, 1 << 40, 100, 101, false}, // would overflow
		{0, 0, 1, 5, 0, 0, true},
	}
	for _, c := range cases {
		size, ok := resultSize(c.n, c.hits, c.old, c.repl, c.max)
		if size != c.size || ok != c.ok {
			t.Errorf("resultSize(%d, %d, %d, %d, %d) = %d, %v; want %d, %v", c.n, c.hits, c.old, c.repl, c.max, size, ok, c.size, c.ok)
		}
	}
	if _, ok := resultSize(math.MaxInt-1, 1, 1, 3, math.MaxInt-1); ok {
		t.Error("a result past the bound near MaxInt was accepted")
	}
}

func TestApplyContextTooLarge(t *testing.T) {
	text := []byte(strings.Repeat("a\n", 50))
	_, err := ApplyContext(context.Background(), text, []Edit{{Old: "x", New: "y", ReplaceAll: true}, {Old: "a", New: "bbbb", ReplaceAll: true}}, 200)
	if err == nil {
		t.Fatal("no error")
	}
	var nm *NoMatchError
	if !errors.As(err, &nm) || nm.Index != 0 {
		t.Fatalf("first edit misses: %v", err)
	}
	_, err = ApplyContext(context.Background(), text, []Edit{{Old: "a\n", New: "a\n\n"}, {Old: "a", New: "bbbb", ReplaceAll: true}}, 200)
	var am *AmbiguousError
	if !errors.As(err, &am) {
		t.Fatalf("ambiguous first: %v", err)
	}
	_, err = ApplyContext(context.Background(), text, []Edit{{Old: "a", New: "bbbb", ReplaceAll: true}}, 249)
	var tl *TooLargeError
	if !errors.As(err, &tl) || !errors.Is(err, ErrTooLarge) {
		t.Fatalf("err = %v, want a *TooLargeError", err)
	}
	want := TooLargeError{Index: 0, Count: 50, Old: 1, New: 4, Size: 250, Max: 249}
	if *tl != want {
		t.Fatalf("got %+v, want %+v", *tl, want)
	}
	if msg := tl.Error(); msg != "50 replacements × 4-byte new_string would make the file 250 bytes, over the 249-byte edit limit; replace fewer matches at a time or use a shorter new_string" {
		t.Fatalf("message %q", msg)
	}
	res, err := ApplyContext(context.Background(), text, []Edit{{Old: "a", New: "bbbb", ReplaceAll: true}}, 250)
	if err != nil || len(res.Text) != 250 {
		t.Fatalf("at the bound: %d bytes, %v", len(res.Text), err)
	}
	res, err = ApplyContext(context.Background(), text, []Edit{{Old: "a", New: "bbbb", ReplaceAll: true}}, 0)
	if err != nil || len(res.Text) != 250 {
		t.Fatalf("no bound: %d bytes, %v", len(res.Text), err)
	}
	// The second edit is measured on the result of the first.
	_, err = ApplyContext(context.Background(), text, []Edit{{Old: "a", New: "bb", ReplaceAll: true}, {Old: "b", New: "cc", ReplaceAll: true}}, 249)
	if !errors.As(err, &tl) || tl.Index != 1 || tl.Size != 250 || tl.Count != 100 {
		t.Fatalf("second edit: %v", err)
	}
	if (&TooLargeError{Count: 1, New: 1234, Size: 1234567, Max: 1000}).Error() != "1 replacement × 1,234-byte new_string would make the file 1,234,567 bytes, over the 1,000-byte edit limit; replace fewer matches at a time or use a shorter new_string" {
		t.Fatal("singular message")
	}
}

// countdown is a context cancelled after n calls of Err.
type countdown struct {
	context.Context
	n int
}

func (c *countdown) Err() error {
	c.n--
	if c.n < 0 {
		return context.Canceled
	}
	return nil
}

func TestApplyContextCancelled(t *testing.T) {
	text := []byte(strings.Repeat("ab", 10*checkEvery))
	for _, e := range []Edit{{Old: "a", New: "c", ReplaceAll: true}, {Old: "b", New: "d"}} {
		// One check before the edit, then checks inside its loop.
		_, err := ApplyContext(&countdown{Context: context.Background(), n: 2}, text, []Edit{e}, 0)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%+v: err = %v, want context.Canceled", e, err)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := ApplyContext(ctx, text, []Edit{{Old: "zz", New: "y"}}, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled before: %v", err)
	}
}
