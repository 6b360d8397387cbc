package journal_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet/journal"
)

// stampOf catches session "s" up from 0 and returns the log's stamp.
func stampOf(t *testing.T, j *journal.Journal) journal.Stamp {
	t.Helper()
	_, st, err := j.SessionStamped("s", 0, func(journal.Record, int64) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	return st
}

// Unchanged holds only while the log is the file, of the size, that the
// stamped read saw: an append by another handle (another process), a log
// replaced by a file of the same size and time (as Compact replaces it),
// and one rewritten in place at the same size each end it, and a zero
// stamp is never unchanged. A session's catch-up returns on it without
// reading the index, so each case here is a record a server would miss.
func TestUnchangedStamp(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	mustAppend(t, a, journal.Record{Type: "turn", Session: "s"})
	if a.Unchanged(journal.Stamp{}) {
		t.Fatal("a zero stamp is unchanged")
	}
	st := stampOf(t, a)
	if !a.Unchanged(st) {
		t.Fatal("nothing was appended, yet the stamp is changed")
	}
	log := filepath.Join(dir, "journal.jsonl")
	info, err := os.Stat(log)
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, b, journal.Record{Type: "turn", Session: "s"})
	if a.Unchanged(st) {
		t.Fatal("another handle appended, yet the stamp is unchanged")
	}
	// A file time's granularity may be coarser than two appends apart.
	if err := os.Chtimes(log, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if a.Unchanged(st) {
		t.Fatal("another handle appended within the same file time, yet the stamp is unchanged")
	}

	st = stampOf(t, a)
	if info, err = os.Stat(log); err != nil {
		t.Fatal(err)
	}
	bytes, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	// The same bytes at the same time, as another file renamed over it.
	tmp := filepath.Join(dir, "replacement")
	if err := os.WriteFile(tmp, bytes, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chtimes(tmp, info.ModTime(), info.ModTime()); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, log); err != nil {
		t.Fatal(err)
	}
	if a.Unchanged(st) {
		t.Fatal("the log was replaced by another file of the same size and time, yet the stamp is unchanged")
	}

	// Rewritten in place, same size, a later time.
	st = stampOf(t, a)
	f, err := os.OpenFile(log, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteAt(bytes[:1], 0); err != nil {
		t.Fatal(err)
	}
	f.Close()
	later := info.ModTime().Add(time.Second)
	if err := os.Chtimes(log, later, later); err != nil {
		t.Fatal(err)
	}
	if a.Unchanged(st) {
		t.Fatal("the log was rewritten in place at a later time, yet the stamp is unchanged")
	}
}

// Processes that each make one change and close leave their index lines
// to the next reader, but not without bound: a Close that finds the index
// lagging the log by closeLagBytes or more flushes it, so a reader never
// takes much more than that from the log's tail.
func TestCloseBoundsTheIndexLag(t *testing.T) {
	dir := t.TempDir()
	payload := data(map[string]string{"x": strings.Repeat("y", 900)})
	var most int64
	for range 60 {
		j := open(t, dir)
		mustAppend(t, j, journal.Record{Type: "intent", Session: "stet:intents", Data: payload},
			journal.Record{Type: "receipt", Session: "s", Data: payload})
		if err := j.Close(); err != nil {
			t.Fatal(err)
		}
		r := open(t, dir)
		most = max(most, journal.LagBytes(r))
		r.Close()
	}
	if limit := int64(journal.CloseLagBytes + 4<<10); most > limit {
		t.Fatalf("the index lagged the log by %d bytes after a Close, want at most %d", most, limit)
	}
	if most == 0 {
		t.Fatal("every Close flushed the index")
	}
}
