package journal_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// catchUpRecs are records of session "s" among others', with two lines
// far longer than any read buffer of the log's line lookups (as a session
// snapshot is), one of them in the middle of the log.
func catchUpRecs() []journal.Record {
	long := func(n int) json.RawMessage {
		b, _ := json.Marshal(map[string]string{"blob": strings.Repeat("x", n)})
		return b
	}
	var recs []journal.Record
	for i := range 200 {
		s := "s"
		if i%3 != 0 {
			s = fmt.Sprint("other-", i%7)
		}
		r := journal.Record{Type: "observe", Session: s, Path: fmt.Sprint("f", i)}
		switch i {
		case 99:
			r.Data = long(700 << 10)
		case 100, 101:
			r.Session, r.Data = "s", long(3<<20)
		}
		recs = append(recs, r)
	}
	return recs
}

type atRecord struct {
	r  journal.Record
	at int64
}

func catchUpFrom(t *testing.T, j *journal.Journal, from int64) ([]atRecord, int64) {
	t.Helper()
	var got []atRecord
	end, err := j.SessionFrom("s", from, func(r journal.Record, at int64) error {
		got = append(got, atRecord{r, at})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return got, end
}

// SessionFrom hands out the same records at the same offsets whether it
// keeps the records its check decoded or decodes every line again, from
// the start and from the middle of the index, and they are the session's
// records as Scan sees them.
func TestSessionFromKeptAndDecodedAgain(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, catchUpRecs()...)
	j.Close()
	var want []journal.Record
	j = open(t, dir)
	for _, r := range scanAll(t, j) {
		if r.Session == "s" {
			want = append(want, r)
		}
	}
	all, end := catchUpFrom(t, j, 0)
	if len(all) != len(want) {
		t.Fatalf("SessionFrom: %d records, want %d", len(all), len(want))
	}
	for i, a := range all {
		if !reflect.DeepEqual(a.r, want[i]) {
			t.Fatalf("record %d: %+v, want %+v", i, a.r.Seq, want[i].Seq)
		}
	}
	mid := all[len(all)/2].at
	for _, max := range []int64{0, 1 << 10} {
		j2 := open(t, dir)
		journal.SetKeptMax(j2, max)
		for _, from := range []int64{0, mid} {
			got, end2 := catchUpFrom(t, j2, from)
			var ref []atRecord
			for _, a := range all {
				if a.at >= from {
					ref = append(ref, a)
				}
			}
			if end2 != end || !reflect.DeepEqual(got, ref) {
				t.Errorf("kept max %d, from %d: %d records to %d, want %d to %d", max, from, len(got), end2, len(ref), end)
			}
		}
	}
}

// A forged line at the end of the index (chained to the index's last line,
// absent from the log) fails the catch-up before fn sees any record, on
// either path.
func TestSessionFromChecksEveryLineFirst(t *testing.T) {
	for _, max := range []int64{-1, 0} {
		t.Run(fmt.Sprint("kept max ", max), func(t *testing.T) {
			dir := t.TempDir()
			j := open(t, dir)
			mustAppend(t, j, catchUpRecs()...)
			mustFlush(t, j)
			idx := indexFile(dir, "s")
			b, _ := os.ReadFile(idx)
			lines := splitLines(b)
			forged := chained(t, lines[len(lines)-1], map[string]any{"type": "receipt", "session": "s", "path": "x"})
			os.WriteFile(idx, joinLines(append(lines, forged)), 0o600)
			j2 := open(t, dir)
			if max >= 0 {
				journal.SetKeptMax(j2, max)
			}
			n := 0
			_, err := j2.SessionFrom("s", 0, func(journal.Record, int64) error { n++; return nil })
			if !errors.Is(err, journal.ErrCorrupt) || n != 0 {
				t.Errorf("SessionFrom over a forged last line: %v after %d records; want ErrCorrupt before any", err, n)
			}
		})
	}
}
