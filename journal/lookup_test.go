package journal_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet/journal"
)

// Session checks each index line against the log line with the same seq,
// found by seq with small reads (512 bytes to find a line start, 2 KiB to
// read a line, 4 KiB backwards to find the line before, 160 bytes for the
// head of the next line), bisecting over other sessions' lines and walking
// line by line over the last 2 KiB. These tests put lines of every length
// around those sizes where each read can end, with sessions interleaved so
// that every path runs.

// sizedLog appends records one by one, each padded so that its line in the
// log is exactly the length asked for (without its "\n").
type sizedLog struct {
	t    *testing.T
	j    *journal.Journal
	seq  int64
	want map[string][]int64 // seqs per session, in order
}

func newSizedLog(t *testing.T, dir string) *sizedLog {
	return &sizedLog{t: t, j: openWith(t, dir, journal.Options{NoSync: true, Now: clock()}), want: map[string][]int64{}}
}

// add appends one record of session with a line of n bytes.
func (l *sizedLog) add(session string, n int) {
	l.t.Helper()
	l.seq++
	r := journal.Record{Time: testTime, Type: "pad", Session: session, Data: json.RawMessage(`""`)}
	probe := r
	probe.Seq = l.seq
	if l.seq > 1 {
		probe.Prev = "sha256:" + strings.Repeat("0", 64)
	}
	base, err := json.Marshal(probe)
	if err != nil {
		l.t.Fatal(err)
	}
	pad := n - len(base)
	if pad < 0 {
		l.t.Fatalf("a line of %d bytes is too short for seq %d", n, l.seq)
	}
	r.Data = json.RawMessage(`"` + strings.Repeat("x", pad) + `"`)
	out := mustAppend(l.t, l.j, r)
	if out[0].Seq != l.seq {
		l.t.Fatalf("appended seq %d, want %d", out[0].Seq, l.seq)
	}
	l.want[session] = append(l.want[session], l.seq)
}

// check reads every session back and compares the seqs it gets, through a
// fresh handle, and through the plain log for the line lengths.
func (l *sizedLog) check(lens []int) {
	l.t.Helper()
	lines := logLines(l.t, l.j.Dir())
	for i, n := range lens {
		if len(lines[i]) != n {
			l.t.Fatalf("fixture: line %d is %d bytes, want %d", i+1, len(lines[i]), n)
		}
	}
	for session, want := range l.want {
		var got []int64
		err := within(l.t, func() error {
			return l.j.Session(session, func(r journal.Record) error {
				got = append(got, r.Seq)
				return nil
			})
		})
		if err != nil {
			l.t.Errorf("Session(%s): %v", session, err)
			continue
		}
		if fmt.Sprint(got) != fmt.Sprint(want) {
			l.t.Errorf("Session(%s) = seqs %v, want %v", session, got, want)
		}
	}
}

// within runs fn and fails the test if it does not return in time: a
// lookup that loops must fail, not hang the test run.
func within(t *testing.T, fn func() error) error {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- fn() }()
	select {
	case err := <-done:
		return err
	case <-time.After(10 * time.Second):
		t.Fatal("no answer after 10s: the lookup loops")
		return nil
	}
}

// Lines whose length puts their "\n" exactly where a read ends, or just
// before or after, are found and read whole: as the session's own lines, as
// the lines walked over between them, and as the line before one.
func TestSessionLinesAtReadBoundaries(t *testing.T) {
	for _, n := range []int{170, 511, 512, 513, 1023, 1024, 1025, 2047, 2048, 2049, 4095, 4096, 4097, 9000} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			l := newSizedLog(t, t.TempDir())
			var lens []int
			add := func(session string, size int) {
				l.add(session, size)
				lens = append(lens, size)
			}
			add("s", n) // the log's first line
			add("o", n)
			add("s", n)
			// Walked over: other sessions' lines of this length, between
			// two lines of s, with little else after them.
			add("o", n)
			add("o", n)
			add("s", 250)
			add("o", n)
			add("s", n)
			// Bisected over: more than 2 KiB of short lines, then lines of
			// this length before and as the session's next line.
			for range 40 {
				add("o", 170)
			}
			add("o", n)
			add("o", n)
			add("s", n)
			add("s", 250)
			for range 20 {
				add("o", 170)
			}
			add("o", n)
			add("s", n) // the log's last line
			l.check(lens)
		})
	}
}

// Many sessions interleaved in a long log, in lines of many lengths: every
// session's records come back in order, the first and the last included.
func TestSessionManyInterleavedSessions(t *testing.T) {
	l := newSizedLog(t, t.TempDir())
	sizes := []int{170, 511, 512, 513, 700, 1024, 2048, 2049, 4095, 4096, 300}
	var lens []int
	for i := range 400 {
		session := fmt.Sprintf("s%d", i*i%7)
		if i%50 == 49 {
			session = "rare"
		}
		n := sizes[(i*5+i/11)%len(sizes)]
		l.add(session, n)
		lens = append(lens, n)
	}
	l.check(lens)
}

// A session index that claims lines past the end of the log (a log put
// back from an older copy while the index was kept) is refused, whatever
// the log's size, and refused promptly.
func TestSessionRefusesIndexAheadOfLog(t *testing.T) {
	for _, others := range []int{0, 5, 100} {
		t.Run(fmt.Sprint(others), func(t *testing.T) {
			dir := t.TempDir()
			l := newSizedLog(t, dir)
			for range others {
				l.add("o", 180)
			}
			l.add("s", 180)
			logPath := filepath.Join(dir, "journal.jsonl")
			older, err := os.ReadFile(logPath)
			if err != nil {
				t.Fatal(err)
			}
			for range 3 {
				l.add("o", 180)
				l.add("s", 180)
			}
			if err := os.WriteFile(logPath, older, 0o600); err != nil {
				t.Fatal(err)
			}
			var got []int64
			err = within(t, func() error {
				return l.j.Session("s", func(r journal.Record) error {
					got = append(got, r.Seq)
					return nil
				})
			})
			if !errors.Is(err, journal.ErrCorrupt) || len(got) != 0 {
				t.Errorf("Session over an index ahead of the log: %v, records %v; want ErrCorrupt and none", err, got)
			}
		})
	}
}

// A log line removed from the middle of a long log, its seq still in the
// session index, is refused, wherever it was.
func TestSessionRefusesLineRemovedFromLog(t *testing.T) {
	for _, at := range []int{1, 30, 59, 60} {
		t.Run(fmt.Sprint(at), func(t *testing.T) {
			dir := t.TempDir()
			l := newSizedLog(t, dir)
			for i := 1; i <= 60; i++ {
				session := "o"
				if i == at {
					session = "s"
				}
				l.add(session, 170+i*7)
			}
			lines := logLines(t, dir)
			lines = append(lines[:at-1], lines[at:]...)
			writeLines(t, dir, lines)
			err := within(t, func() error {
				return l.j.Session("s", func(journal.Record) error { return nil })
			})
			if !errors.Is(err, journal.ErrCorrupt) {
				t.Errorf("Session with its line removed from the log: %v, want ErrCorrupt", err)
			}
		})
	}
}

// A damaged line right after a session's line in the log breaks the chain
// from it: Session refuses the session's line (and does not crash on it).
func TestSessionRefusesDamagedNextLine(t *testing.T) {
	cases := map[string]func(line string) string{
		"prev another hash": func(line string) string {
			return replaceField(line, "prev", `"sha256:`+strings.Repeat("0", 64)+`"`)
		},
		"prev overlong": func(line string) string {
			return replaceField(line, "prev", `"`+strings.Repeat("a", 300)+`"`)
		},
		"prev empty": func(line string) string { return replaceField(line, "prev", `""`) },
		"prev not a string": func(line string) string {
			return replaceField(line, "prev", `null`)
		},
		"seq changed":  func(line string) string { return strings.Replace(line, `"seq":3,`, `"seq":4,`, 1) },
		"not a record": func(string) string { return "not json at all" },
		"keys reordered": func(line string) string {
			var r map[string]any
			json.Unmarshal([]byte(line), &r)
			r["prev"] = "sha256:" + strings.Repeat("1", 64)
			b, _ := json.Marshal(r) // keys sorted: "data" before "seq"
			return string(b)
		},
	}
	for name, damage := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			j := open(t, dir)
			mustAppend(t, j,
				journal.Record{Type: "a", Session: "other", Data: data(strings.Repeat("o", 300))},
				journal.Record{Type: "b", Session: "s", Data: data(strings.Repeat("s", 300))},
				journal.Record{Type: "c", Session: "other", Data: data(strings.Repeat("o", 300))},
				journal.Record{Type: "d", Session: "other"},
			)
			mustFlush(t, j)
			lines := logLines(t, dir)
			lines[2] = damage(lines[2])
			writeLines(t, dir, lines)
			var got []journal.Record
			err := j.Session("s", func(r journal.Record) error { got = append(got, r); return nil })
			if !errors.Is(err, journal.ErrCorrupt) || len(got) != 0 {
				t.Errorf("Session: %v, %d records; want ErrCorrupt and none", err, len(got))
			}
		})
	}
}

// replaceField replaces the value of a string or null field of a JSON line.
func replaceField(line, key, value string) string {
	i := strings.Index(line, `"`+key+`":`)
	if i < 0 {
		panic("no " + key + " in " + line)
	}
	start := i + len(key) + 3
	end := start + 4 // null
	if line[start] == '"' {
		end = start + 1 + strings.IndexByte(line[start+1:], '"') + 1
	}
	return line[:start] + value + line[end:]
}

// Scan refuses a line cut short (its end lost, a "\n" still after it), at
// any point in its head, and Verify names it.
func TestScanRefusesLineCutShort(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "a"}, journal.Record{Type: "b"}, journal.Record{Type: "c"})
	good := logLines(t, dir)
	for _, cut := range []int{5, 9, 12, 20, 40, 80, len(good[1]) - 1} {
		t.Run(fmt.Sprint(cut), func(t *testing.T) {
			lines := append([]string(nil), good...)
			lines[1] = lines[1][:cut]
			writeLines(t, dir, lines)
			var got []journal.Record
			err := j.Scan(func(r journal.Record) error { got = append(got, r); return nil })
			if !errors.Is(err, journal.ErrCorrupt) || len(got) != 0 {
				t.Errorf("Scan: %v, %d records; want ErrCorrupt and none", err, len(got))
			}
			rep, err := j.Verify()
			if err != nil || !hasProblemAt(rep, 2) {
				t.Errorf("Verify = %v, %v; want a problem at line 2", rep.Problems, err)
			}
		})
	}
	writeLines(t, dir, good)
	if got := scanAll(t, j); len(got) != 3 {
		t.Errorf("Scan of the intact log = %d records", len(got))
	}
}

// The log's first line must be seq 1 with no prev: a log whose first lines
// were cut off, the new first line's prev blanked to pass for a start, is
// refused by Session as it is by Scan.
func TestSessionRefusesLogWithItsStartCut(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "a", Session: "o"}, journal.Record{Type: "b", Session: "o"}, journal.Record{Type: "c", Session: "s"})
	lines := logLines(t, dir)
	last := replaceField(lines[2], "prev", `""`)
	writeLines(t, dir, []string{last})
	if err := os.WriteFile(indexFile(dir, "s"), []byte(last+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for name, read := range map[string]func(func(journal.Record) error) error{
		"Scan":    j.Scan,
		"Session": func(fn func(journal.Record) error) error { return j.Session("s", fn) },
	} {
		var got []journal.Record
		err := read(func(r journal.Record) error { got = append(got, r); return nil })
		if !errors.Is(err, journal.ErrCorrupt) || len(got) != 0 {
			t.Errorf("%s: %v, %d records; want ErrCorrupt and none", name, err, len(got))
		}
	}
}

// A next line in another valid form than Append's (a space after a comma)
// is read whole to find its seq and prev: it chains, and Session accepts
// the session's line before it, as Scan accepts the log.
func TestSessionAcceptsNextLineInAnotherForm(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "a", Session: "s"}, journal.Record{Type: "b", Session: "o"})
	lines := logLines(t, dir)
	lines[1] = strings.Replace(lines[1], `,"prev":`, `, "prev":`, 1)
	writeLines(t, dir, lines)
	if got := scanAll(t, j); len(got) != 2 {
		t.Fatalf("Scan = %+v, want 2 records", got)
	}
	if got := sessionAll(t, j, "s"); len(got) != 1 || got[0].Type != "a" {
		t.Errorf("Session(s) = %+v, want a", got)
	}
}
