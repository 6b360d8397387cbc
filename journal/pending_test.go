package journal_test

import (
	"encoding/json"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// stepsOf returns the Data of each record, as ints.
func stepsOf(t *testing.T, recs []journal.Record) []int {
	t.Helper()
	out := make([]int, 0, len(recs))
	for _, r := range recs {
		var n int
		if err := json.Unmarshal(r.Data, &n); err != nil {
			t.Fatalf("record %d: %v", r.Seq, err)
		}
		out = append(out, n)
	}
	return out
}

func wantSteps(t *testing.T, what string, got []int, n int) {
	t.Helper()
	ok := len(got) == n
	for i := 0; ok && i < n; i++ {
		ok = got[i] == i
	}
	if !ok {
		t.Errorf("%s: steps %v, want 0..%d once each, in order", what, got, n-1)
	}
}

// When another handle completes the index while this handle's own index
// lines still wait to be written, this handle's readers see each record
// once: the lines the other handle wrote are not counted again, and those
// appended after it are. Its Close writes none of them twice either.
func TestReaderAfterAnotherHandleCompletedTheIndex(t *testing.T) {
	dir := t.TempDir()
	a := open(t, dir)
	b := open(t, dir)
	for i := range 3 {
		if _, err := a.AppendLazy(journal.Record{Type: "step", Session: "s", Data: data(i)}); err != nil {
			t.Fatal(err)
		}
	}
	mustVerifyOK(t, b) // completes the index from the log
	wantSteps(t, "after the other handle completed the index", stepsOf(t, sessionAll(t, a, "s")), 3)
	for i := 3; i < 5; i++ {
		if _, err := a.AppendLazy(journal.Record{Type: "step", Session: "s", Data: data(i)}); err != nil {
			t.Fatal(err)
		}
	}
	wantSteps(t, "with lines written and lines waiting", stepsOf(t, sessionAll(t, a, "s")), 5)
	recs, offs, end := sessionFromAll(t, a, "s", 0)
	wantSteps(t, "SessionFrom", stepsOf(t, recs), 5)
	if len(offs) == 5 {
		again, _, _ := sessionFromAll(t, a, "s", offs[3])
		if got := stepsOf(t, again); len(got) != 2 || got[0] != 3 || got[1] != 4 {
			t.Errorf("SessionFrom the fourth record's offset: steps %v, want [3 4]", got)
		}
	}
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	c := open(t, dir)
	wantSteps(t, "after Close, from a new handle", stepsOf(t, sessionAll(t, c, "s")), 5)
	if _, _, end2 := sessionFromAll(t, c, "s", 0); end2 != end {
		t.Errorf("the index ends at %d after Close, but the appender said %d", end2, end)
	}
	mustVerifyOK(t, c)
}
