package journal_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// TestViewLinesAfter: a view hands out the log's exact lines from any seq
// on, each with the hash its successor's prev holds; a view taken before
// more appends does not see them; after a compaction the view names the
// new generation and how many records it carried.
func TestViewLinesAfter(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	for i := range 30 {
		mustAppend(t, j, journal.Record{Type: "observe", Session: "a", Data: data(i)})
	}
	v, err := j.View()
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, j, journal.Record{Type: "observe", Session: "a", Data: data("late")})
	if h := v.Head(); h.Seq != 30 || h.Generation != 0 {
		t.Fatalf("head %+v, want seq 30 of generation 0", h)
	}
	raw, err := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	lines := bytes.Split(bytes.TrimSuffix(raw, []byte("\n")), []byte("\n"))
	var got []journal.Line
	err = v.LinesAfter(12, func(l journal.Line) error {
		l.Bytes = bytes.Clone(l.Bytes)
		got = append(got, l)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 18 || got[0].Seq != 13 || got[17].Seq != 30 {
		t.Fatalf("got %d lines from seq %d", len(got), got[0].Seq)
	}
	for _, l := range got {
		if !bytes.Equal(l.Bytes, lines[l.Seq-1]) || l.Hash != journal.HashLine(lines[l.Seq-1]) {
			t.Fatalf("seq %d: not the log's line", l.Seq)
		}
		if l.Prev != journal.HashLine(lines[l.Seq-2]) {
			t.Fatalf("seq %d: prev is not the hash of seq %d", l.Seq, l.Seq-1)
		}
	}
	stop := errors.New("stop")
	if err := v.LinesAfter(0, func(journal.Line) error { return stop }); err != stop {
		t.Fatalf("fn's error: %v", err)
	}

	if _, err := j.Compact(journal.CompactOptions{Keep: func(r journal.Record) bool { return r.Seq > 25 }}); err != nil {
		t.Fatal(err)
	}
	v2, err := j.View()
	if err != nil {
		t.Fatal(err)
	}
	if h := v2.Head(); h.Generation != 1 || h.Kept != 6 || h.Seq != 7 {
		t.Fatalf("after a compaction: %+v, want generation 1, 6 kept, seq 7", h)
	}
	// The old view still reads the old log.
	n := 0
	v.LinesAfter(0, func(journal.Line) error { n++; return nil })
	if n != 30 {
		t.Fatalf("the old view reads %d lines after the compaction, want 30", n)
	}
}

// TestTryExclusive: a second holder is told the lock is busy at once.
func TestTryExclusive(t *testing.T) {
	dir := t.TempDir()
	j, k := open(t, dir), open(t, dir)
	err := j.TryExclusive("ship", func() error {
		if err := k.TryExclusive("ship", func() error { return nil }); !errors.Is(err, journal.ErrBusy) {
			t.Fatalf("a second holder: %v, want ErrBusy", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	ran := false
	if err := k.TryExclusive("ship", func() error { ran = true; return nil }); err != nil || !ran {
		t.Fatalf("after release: %v, ran %v", err, ran)
	}
	if _, err := j.Owner(); !errors.Is(err, journal.ErrNotFound) {
		t.Fatalf("owner of an unclaimed directory: %v", err)
	}
}
