package textedit

import (
	"context"
	"errors"
	"math"
	"slices"
	"testing"
)

// Edges of the decisions an edit rests on, each case placed so that an
// off-by-one or a flipped sign changes the answer.
func TestAmbiguousLinesAndOverlaps(t *testing.T) {
	_, err := Apply([]byte("a\nx\nb\nx\n"), []Edit{{Old: "x", New: "y"}})
	var am *AmbiguousError
	if !errors.As(err, &am) {
		t.Fatalf("got %v, want ambiguous", err)
	}
	if am.Count != 2 || !slices.Equal(am.Lines, []int{2, 4}) {
		t.Errorf("count %d lines %v, want 2 at lines 2 and 4", am.Count, am.Lines)
	}
	// Overlapping occurrences count: "aa" stands three times in "aaaa".
	_, err = Apply([]byte("aaaa\n"), []Edit{{Old: "aa", New: "b"}})
	if !errors.As(err, &am) || am.Count != 3 {
		t.Errorf("got %v, want 3 overlapping matches", err)
	}
}

func TestResultSizeAtOverflow(t *testing.T) {
	n, grow := 10, 2
	hits := (math.MaxInt - n) / grow // the largest count whose size still fits an int
	size, ok := resultSize(n, hits, 1, 1+grow, 100)
	if ok || size != n+hits*grow {
		t.Errorf("resultSize at the edge of overflow = %d, %v; want %d, false", size, ok, n+hits*grow)
	}
	size, ok = resultSize(n, hits+1, 1, 1+grow, 100)
	if ok || size != 101 {
		t.Errorf("resultSize past overflow = %d, %v; want 101 (max+1), false", size, ok)
	}
}

func TestToCRLFKeepsExistingCRLF(t *testing.T) {
	for in, want := range map[string]string{
		"a\r\nb\n":   "a\r\nb\r\n",
		"\n":         "\r\n",
		"\r\n\n":     "\r\n\r\n",
		"a\rb\n":     "a\rb\r\n",
		"no newline": "no newline",
	} {
		if got := string(toCRLF([]byte(in))); got != want {
			t.Errorf("toCRLF(%q) = %q, want %q", in, got, want)
		}
	}
}

// The many-edits engine and the one-by-one engine give the same answers at
// the size where one hands over to the other.
func TestEnginesAgreeAtTheirThreshold(t *testing.T) {
	text := make([]byte, 0, indexMinBytes+64)
	for len(text) < indexMinBytes {
		text = append(text, "line of text\n"...)
	}
	text = append(text, "tail one\ntail two\n"...)
	edits := make([]Edit, indexMinEdits)
	for i := range edits {
		edits[i] = Edit{Old: "tail one\n", New: "tail one\n"}
	}
	edits[0] = Edit{Old: "tail one", New: "TAIL ONE"}
	for i := 1; i < len(edits); i++ {
		edits[i] = Edit{Old: "TAIL ONE", New: "tail one"}
		if i%2 == 0 {
			edits[i] = Edit{Old: "tail one", New: "TAIL ONE"}
		}
	}
	a, errA := applyIndexed(context.Background(), text, edits, 0, nil)
	b, errB := applySequential(context.Background(), text, edits, 0, nil)
	if (errA == nil) != (errB == nil) || string(a.Text) != string(b.Text) {
		t.Errorf("engines differ: %v / %v", errA, errB)
	}
}
