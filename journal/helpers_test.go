package journal_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stet-dev/stet/journal"
)

// testTime is what the test clock always says.
var testTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

// clock is a deterministic Options.Now.
func clock() func() time.Time {
	return func() time.Time { return testTime }
}

func open(t testing.TB, dir string) *journal.Journal {
	t.Helper()
	return openWith(t, dir, journal.Options{Now: clock()})
}

func openWith(t testing.TB, dir string, o journal.Options) *journal.Journal {
	t.Helper()
	j, err := journal.Open(dir, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

func mustAppend(t testing.TB, j *journal.Journal, recs ...journal.Record) []journal.Record {
	t.Helper()
	out, err := j.Append(recs...)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func scanAll(t testing.TB, j *journal.Journal) []journal.Record {
	t.Helper()
	var out []journal.Record
	if err := j.Scan(func(r journal.Record) error {
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func sessionAll(t testing.TB, j *journal.Journal, id string) []journal.Record {
	t.Helper()
	var out []journal.Record
	if err := j.Session(id, func(r journal.Record) error {
		out = append(out, r)
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	return out
}

func data(v any) json.RawMessage {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}

// mustVerifyOK fails the test unless Verify finds no damage.
func mustVerifyOK(t testing.TB, j *journal.Journal) journal.Report {
	t.Helper()
	rep, err := j.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Fatalf("Verify found damage: %v", rep.Problems)
	}
	return rep
}

// mustFlush writes and syncs j's waiting session index lines, so that a
// test can read (or damage) the index files on disk.
func mustFlush(t testing.TB, j *journal.Journal) {
	t.Helper()
	if err := j.Flush(); err != nil {
		t.Fatal(err)
	}
}
