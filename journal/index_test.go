package journal_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// sessionFromAll collects what SessionFrom hands out.
func sessionFromAll(t *testing.T, j *journal.Journal, id string, from int64) (recs []journal.Record, offs []int64, end int64) {
	t.Helper()
	end, err := j.SessionFrom(id, from, func(r journal.Record, off int64) error {
		recs = append(recs, r)
		offs = append(offs, off)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return recs, offs, end
}

// crashedLine returns r as Append would have written it after the log line
// last: what a crash after writing the log, before the index, leaves.
func crashedLine(t *testing.T, last string, r journal.Record) string {
	t.Helper()
	var prev journal.Record
	if err := json.Unmarshal([]byte(last), &prev); err != nil {
		t.Fatal(err)
	}
	r.Seq, r.Prev = prev.Seq+1, hashOf([]byte(last))
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// Each offset SessionFrom hands out is where a later call resumes with
// that very record, and its end offset is where nothing is left.
func TestSessionFromOffsetsResume(t *testing.T) {
	j := open(t, t.TempDir())
	for i := range 6 {
		mustAppend(t, j, journal.Record{Type: "t", Session: "s", Data: data(strings.Repeat("x", i*40))}, journal.Record{Type: "t", Session: "o"})
	}
	all, offs, end := sessionFromAll(t, j, "s", 0)
	if len(all) != 6 {
		t.Fatalf("SessionFrom(0) = %d records, want 6", len(all))
	}
	for i, off := range offs {
		got, gotOffs, gotEnd := sessionFromAll(t, j, "s", off)
		if len(got) != len(all)-i || got[0].Seq != all[i].Seq || gotOffs[0] != off || gotEnd != end {
			t.Errorf("SessionFrom(%d) = %d records from seq %d at %v, end %d; want %d from seq %d, end %d",
				off, len(got), got[0].Seq, gotOffs, gotEnd, len(all)-i, all[i].Seq, end)
		}
	}
	if got, _, gotEnd := sessionFromAll(t, j, "s", end); len(got) != 0 || gotEnd != end {
		t.Errorf("SessionFrom(end) = %d records, end %d; want none, end %d", len(got), gotEnd, end)
	}
}

// SessionFrom hands out the session as it was when it started: a record
// fn appends meanwhile is left for the next call, from the end returned,
// which hands it out once.
func TestSessionFromSeesTheIndexAsItStarted(t *testing.T) {
	j := open(t, t.TempDir())
	for range 4 {
		// Large enough that the index is not read in one go.
		mustAppend(t, j, journal.Record{Type: "old", Session: "s", Data: data(strings.Repeat("x", 8<<10))})
	}
	_, offs, _ := sessionFromAll(t, j, "s", 0)
	var seen []int64
	end, err := j.SessionFrom("s", offs[1], func(r journal.Record, _ int64) error {
		seen = append(seen, r.Seq)
		if len(seen) == 1 {
			mustAppend(t, j, journal.Record{Type: "new", Session: "s"}, journal.Record{Type: "new", Session: "s"})
		}
		return nil
	})
	if err != nil || fmt.Sprint(seen) != "[2 3 4]" {
		t.Fatalf("SessionFrom while fn appends = seqs %v, %v; want [2 3 4]", seen, err)
	}
	next, _, _ := sessionFromAll(t, j, "s", end)
	if len(next) != 2 || next[0].Seq != 5 || next[1].Seq != 6 {
		t.Errorf("SessionFrom(end) after the appends = %+v, want seqs 5 and 6", next)
	}
}

// Reading a session while another goroutine appends to it never fails:
// the index and the log are read as of one moment, however long the read.
func TestSessionFromWhileAppending(t *testing.T) {
	j := openWith(t, t.TempDir(), journal.Options{NoSync: true, Now: clock()})
	for range 100 {
		// An index of many reads' worth, so appends land while it is read.
		mustAppend(t, j, journal.Record{Type: "first", Session: "s", Data: data(strings.Repeat("x", 1<<10))})
	}
	_, offs, _ := sessionFromAll(t, j, "s", 0)
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 1000 {
			if _, err := j.AppendLazy(journal.Record{Type: "more", Session: "s"}, journal.Record{Type: "x", Session: "o"}); err != nil {
				t.Error(err)
				return
			}
		}
	}()
	for reads := 0; ; reads++ {
		select {
		case <-done:
			if reads > 0 {
				return
			}
		default:
		}
		var last int64
		if _, err := j.SessionFrom("s", offs[1], func(r journal.Record, _ int64) error {
			if r.Seq <= last {
				t.Errorf("seq %d after %d", r.Seq, last)
			}
			last = r.Seq
			return nil
		}); err != nil {
			<-done
			t.Fatalf("SessionFrom while appending: %v", err)
		}
	}
}

// Reading sessions leaves no file open behind it.
func TestSessionClosesItsFiles(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("counts open files through /proc/self/fd")
	}
	j := open(t, t.TempDir())
	mustAppend(t, j, journal.Record{Type: "a", Session: "s"}, journal.Record{Type: "b", Session: "s"})
	openFiles := func() int {
		ents, err := os.ReadDir("/proc/self/fd")
		if err != nil {
			t.Skip(err)
		}
		return len(ents)
	}
	sessionAll(t, j, "s") // the first call may open files kept for good
	// No collection meanwhile: it would close files left open.
	defer debug.SetGCPercent(debug.SetGCPercent(-1))
	before := openFiles()
	for range 50 {
		sessionAll(t, j, "s")
		sessionAll(t, j, "nobody")
	}
	if after := openFiles(); after > before+2 {
		t.Errorf("%d files open after 100 reads, %d before", after, before)
	}
}

// A watermark in journal.lock that points into the middle of a line (a
// damaged lock file) is not trusted: the index is completed from the start
// of the log, so a line a crash left out of its index is not lost.
func TestIndexCompletedPastAMidLineWatermark(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	out := mustAppend(t, j, journal.Record{Type: "a", Session: "s"}, journal.Record{Type: "b", Session: "s"})
	j.Close()
	lines := logLines(t, dir)
	crashed := crashedLine(t, lines[1], journal.Record{Time: out[1].Time, Type: "c", Session: "s"})
	appendFile(t, filepath.Join(dir, "journal.jsonl"), string(crashed)+"\n")
	size := int64(len(lines[0]) + len(lines[1]) + len(crashed) + 3)
	for _, wm := range []int64{size - 2, size - 10, int64(len(lines[0])) + 5} {
		t.Run(fmt.Sprint(wm), func(t *testing.T) {
			if err := os.WriteFile(filepath.Join(dir, "journal.lock"), fmt.Appendf(nil, "index %020d\n", wm), 0o600); err != nil {
				t.Fatal(err)
			}
			os.Remove(indexFile(dir, "s")) // as a crash left it: before line 3
			if err := os.WriteFile(indexFile(dir, "s"), []byte(lines[0]+"\n"+lines[1]+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			j := open(t, dir)
			if got := sessionAll(t, j, "s"); len(got) != 3 || got[2].Type != "c" {
				t.Errorf("Session(s) = %+v, want a, b, c", got)
			}
			mustVerifyOK(t, j)
		})
	}
}

// If a session's index cannot be written, Append still succeeds (the log is
// the record), and the index is completed once it can be.
func TestIndexCompletedAfterAFailedWrite(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "a", Session: "s"})
	idx := indexFile(dir, "t")
	if err := os.Mkdir(idx, 0o700); err != nil { // t's index cannot be opened as a file
		t.Fatal(err)
	}
	mustAppend(t, j, journal.Record{Type: "b", Session: "t"}, journal.Record{Type: "c", Session: "s"})
	if err := os.Remove(idx); err != nil {
		t.Fatal(err)
	}
	if got := sessionAll(t, j, "t"); len(got) != 1 || got[0].Type != "b" {
		t.Errorf("Session(t) after its index could be written again = %+v, want b", got)
	}
	if got := sessionAll(t, j, "s"); len(got) != 2 {
		t.Errorf("Session(s) = %+v, want a, c", got)
	}
	mustVerifyOK(t, j)
}

// A log put back from an older, shorter copy, its derived indexes removed,
// is indexed again from its first line.
func TestIndexRebuiltForARestoredLog(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "a", Session: "s"}, journal.Record{Type: "b", Session: "o"})
	logPath := filepath.Join(dir, "journal.jsonl")
	backup, err := os.ReadFile(logPath)
	if err != nil {
		t.Fatal(err)
	}
	for range 5 {
		mustAppend(t, j, journal.Record{Type: "later", Session: "s"})
	}
	j.Close()
	if err := os.WriteFile(logPath, backup, 0o600); err != nil {
		t.Fatal(err)
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "sessions"))
	for _, e := range ents {
		os.Remove(filepath.Join(dir, "sessions", e.Name()))
	}
	j = open(t, dir)
	if got := sessionAll(t, j, "s"); len(got) != 1 || got[0].Type != "a" {
		t.Errorf("Session(s) over the restored log = %+v, want a", got)
	}
	mustVerifyOK(t, j)
}

// Verify completes an index a crash left behind before checking it: that
// is not damage.
func TestVerifyCompletesIndexAfterCrash(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	out := mustAppend(t, j, journal.Record{Type: "a", Session: "s"})
	lines := logLines(t, dir)
	crashed := crashedLine(t, lines[0], journal.Record{Time: out[0].Time, Type: "b", Session: "s"})
	appendFile(t, filepath.Join(dir, "journal.jsonl"), string(crashed)+"\n")
	if rep := mustVerifyOK(t, j); rep.Lines != 2 {
		t.Errorf("Verify saw %d lines, want 2", rep.Lines)
	}
	if got := sessionAll(t, j, "s"); len(got) != 2 {
		t.Errorf("Session(s) = %+v, want a, b", got)
	}
}

// A duplicated index line is refused by Session and reported by Verify.
func TestDuplicatedIndexLine(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "a", Session: "s"}, journal.Record{Type: "b", Session: "s"})
	mustFlush(t, j)
	b, err := os.ReadFile(indexFile(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.SplitAfter(string(b), "\n")
	if err := os.WriteFile(indexFile(dir, "s"), []byte(lines[0]+lines[1]+lines[1]), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := j.Session("s", func(journal.Record) error { return nil }); !errors.Is(err, journal.ErrCorrupt) {
		t.Errorf("Session over a duplicated index line: %v, want ErrCorrupt", err)
	}
	rep, err := j.Verify()
	if err != nil || rep.OK() || !strings.Contains(fmt.Sprint(rep.Problems), "seq 2 after seq 2") {
		t.Errorf("Verify = %v, %v; want the duplicate reported", rep.Problems, err)
	}
}

// A torn line at the end of an index, longer than any read buffer, is
// skipped by Session and reported by Verify with its size.
func TestTornLongIndexLine(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "a", Session: "s"})
	mustFlush(t, j)
	appendFile(t, indexFile(dir, "s"), `{"seq":2,"data":"`+strings.Repeat("x", 20000-17))
	if got := sessionAll(t, j, "s"); len(got) != 1 {
		t.Errorf("Session(s) = %+v, want a", got)
	}
	rep := mustVerifyOK(t, j)
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Msg, "(20000 bytes)") {
		t.Errorf("Verify warnings = %v, want the torn line of 20000 bytes", rep.Warnings)
	}
}
