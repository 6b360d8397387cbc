package journal_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

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

// AppendAtSessionEnd appends only while the session's index still ends
// where the caller last read it: with the index file written and lines
// still waiting, for a session with no index file yet, and after another
// session's records; it refuses once the session has a record the caller
// has not seen, and then appends nothing.
func TestAppendAtSessionEnd(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	end := func(id string) int64 {
		_, _, e := sessionFromAll(t, j, id, 0)
		return e
	}
	atEnd := func(id string, at int64, step int) bool {
		t.Helper()
		ok, err := j.AppendAtSessionEnd(id, at, journal.Record{Type: "step", Session: id, Data: data(step)})
		if err != nil {
			t.Fatal(err)
		}
		return ok
	}
	if !atEnd("s", end("s"), 0) {
		t.Fatal("a session with no records: not appended at its end 0")
	}
	mustFlush(t, j) // the index file holds step 0
	if _, err := j.AppendLazy(journal.Record{Type: "step", Session: "s", Data: data(1)}); err != nil {
		t.Fatal(err)
	}
	e := end("s") // the file and a waiting line
	if atEnd("s", e-1, 9) || atEnd("s", e+1, 9) || atEnd("s", 0, 9) {
		t.Error("appended at an offset that is not the session's end")
	}
	if !atEnd("s", e, 2) {
		t.Fatal("not appended at the session's end, with index lines waiting")
	}
	e = end("s")
	mustAppend(t, j, journal.Record{Type: "step", Session: "other", Data: data(0)})
	if !atEnd("s", e, 3) {
		t.Error("another session's record stopped an append at this session's end")
	}
	mustAppend(t, j, journal.Record{Type: "step", Session: "s", Data: data(4)})
	if atEnd("s", e, 9) {
		t.Error("appended at an end the session has moved past")
	}
	wantSteps(t, "the session", stepsOf(t, sessionAll(t, j, "s")), 5)
	if _, err := j.AppendAtSessionEnd("", 0, journal.Record{Type: "step"}); err == nil {
		t.Error("an empty session id was accepted")
	}
	mustVerifyOK(t, j)
}

// A reader whose index lacks another handle's lines reads them from the
// log past the watermark, and checks them as it goes: a line there that is
// not a record, or that gives its seq twice with different values, fails
// the read with an error naming the log's line, rather than being used.
func TestReaderRefusesDamageInTheLogsTail(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(line string) string
	}{
		{"not JSON", func(line string) string { return "x" + line[1:] }},
		{"seq given twice", func(line string) string { return line[:len(line)-1] + `,"seq":9}` }},
		{"a line lost", func(string) string { return "" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			a := open(t, dir)
			b := open(t, dir)
			for i := range 3 {
				if _, err := a.AppendLazy(journal.Record{Type: "step", Session: "s", Data: data(i)}); err != nil {
					t.Fatal(err)
				}
			}
			wantSteps(t, "before the damage", stepsOf(t, sessionAll(t, b, "s")), 3)
			log := filepath.Join(dir, "journal.jsonl")
			raw, err := os.ReadFile(log)
			if err != nil {
				t.Fatal(err)
			}
			lines := strings.Split(strings.TrimSuffix(string(raw), "\n"), "\n")
			if len(lines) != 3 {
				t.Fatalf("the log has %d lines, want 3", len(lines))
			}
			lines[1] = tc.damage(lines[1])
			if lines[1] == "" {
				lines = slices.Delete(lines, 1, 2)
			}
			if err := os.WriteFile(log, []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			err = b.Session("s", func(journal.Record) error { return nil })
			if err == nil || !strings.Contains(err.Error(), "journal.jsonl line 2") {
				t.Errorf("reading past a damaged second line: %v, want an error naming journal.jsonl line 2", err)
			}
		})
	}
}

// A flush that writes only the index lines whose log lines are durable
// (the background flush's kind) moves the watermark over those only: a
// lazy append after them, still unsynced, stays past the watermark, so
// another handle still reads it (from the log). A full Flush then moves
// the watermark to the log's end, past a last record in no session too.
func TestPartialFlushLeavesTheRestPastTheWatermark(t *testing.T) {
	dir := t.TempDir()
	a := open(t, dir)
	b := open(t, dir)
	mustAppend(t, a, journal.Record{Type: "step", Session: "s", Data: data(0)})
	if _, err := a.AppendLazy(journal.Record{Type: "step", Session: "s", Data: data(1)}); err != nil {
		t.Fatal(err)
	}
	if err := journal.FlushSynced(a); err != nil {
		t.Fatal(err)
	}
	if wm, size := watermarkOf(t, dir); wm >= size {
		t.Errorf("watermark at %d covers the whole log (%d bytes), over a line whose index line is not written", wm, size)
	}
	wantSteps(t, "another handle, after the partial flush", stepsOf(t, sessionAll(t, b, "s")), 2)
	if _, err := a.AppendLazy(journal.Record{Type: "note"}); err != nil {
		t.Fatal(err)
	}
	mustFlush(t, a)
	if wm, size := watermarkOf(t, dir); wm != size {
		t.Errorf("watermark at %d after Flush, want the log's end %d", wm, size)
	}
	wantSteps(t, "another handle, after Flush", stepsOf(t, sessionAll(t, b, "s")), 2)
	mustVerifyOK(t, b)
}

// A long run of lazy appends, with no Flush, Close or durable append
// after it, still gets its index written and synced: the background flush
// syncs the log for it once enough entries wait.
func TestBackgroundFlushOfALongLazyRun(t *testing.T) {
	dir := t.TempDir()
	indexed := make(chan struct{})
	var once sync.Once
	j := openWith(t, dir, journal.Options{Now: clock(), OnSync: func(name string) {
		if strings.HasPrefix(name, "sessions/") && strings.HasSuffix(name, ".jsonl") {
			once.Do(func() { close(indexed) })
		}
	}})
	for i := 0; i < 4096; i++ {
		if _, err := j.AppendLazy(journal.Record{Type: "observe", Session: "s", Data: data(i)}); err != nil {
			t.Fatal(err)
		}
		select {
		case <-indexed:
			return
		default:
		}
	}
	select {
	case <-indexed:
	case <-time.After(time.Minute): // a liveness guard, not a measure
		t.Fatal("4096 lazy appends, and the background flush never synced the session index")
	}
}

// Reading never fsyncs, even on a handle whose index lacks another
// handle's lines: it takes them from the log past the watermark (a log
// long enough that the watermark sits past lagMax's worth of bytes from
// its start, but only a few lines behind its end), and it ignores a torn
// last line that a crash mid-append left.
func TestReadingBehindTheIndexDoesNotSync(t *testing.T) {
	dir := t.TempDir()
	var rec syncRecorder
	a := open(t, dir)
	b := openWith(t, dir, journal.Options{Now: clock(), OnSync: rec.onSync})
	big := strings.Repeat("x", 200<<10)
	mustAppend(t, a, journal.Record{Type: "blob", Session: "big", Data: data(big)})
	mustFlush(t, a)
	for i := range 3 {
		if _, err := a.AppendLazy(journal.Record{Type: "step", Session: "s", Data: data(i)}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := os.OpenFile(filepath.Join(dir, "journal.jsonl"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := f.WriteString(`{"seq":5,"session":"s","ty`); err != nil {
		t.Fatal(err)
	}
	f.Close()
	rec.take()
	wantSteps(t, "Session", stepsOf(t, sessionAll(t, b, "s")), 3)
	recs, _, _ := sessionFromAll(t, b, "s", 0)
	wantSteps(t, "SessionFrom", stepsOf(t, recs), 3)
	if synced := rec.take(); len(synced) > 0 {
		t.Errorf("reading fsynced %v", synced)
	}
}

// A run of lazy appends, however long, never fsyncs the log while fewer
// than maxPendingEntries (256) wait, not even at Close: the background
// flush only writes what a sync already covered.
func TestLazyRunDoesNotSyncTheLog(t *testing.T) {
	var mu sync.Mutex
	var synced []string
	j, err := journal.Open(t.TempDir(), journal.Options{Now: clock(), OnSync: func(name string) {
		mu.Lock()
		synced = append(synced, name)
		mu.Unlock()
	}})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 200 {
		if _, err := j.AppendLazy(journal.Record{Type: "observe", Session: "s", Data: data(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if hasSync(synced, "journal.jsonl") {
		t.Errorf("200 lazy appends and Close fsynced the log (fsynced %v)", synced)
	}
}

// Flush on a handle that appended behind another handle's unwritten lines
// completes the index: the watermark then reaches the log's end, and a new
// handle reads every record from the index.
func TestFlushBehindAnotherHandle(t *testing.T) {
	dir := t.TempDir()
	a := open(t, dir)
	b := open(t, dir)
	if _, err := a.AppendLazy(journal.Record{Type: "step", Session: "s", Data: data(0)}); err != nil {
		t.Fatal(err)
	}
	mustAppend(t, b, journal.Record{Type: "step", Session: "s", Data: data(1)})
	mustFlush(t, b)
	if wm, size := watermarkOf(t, dir); wm != size {
		t.Errorf("watermark at %d after Flush, want the log's end %d", wm, size)
	}
	wantSteps(t, "a new handle", stepsOf(t, sessionAll(t, open(t, dir), "s")), 2)
}

// A watermark left behind lines its index already holds (a lost update
// of journal.lock: the watermark is not synced) costs nothing but some
// reading: another handle takes from the log only the lines past the
// index's last one, so it sees each record once.
func TestReaderWithAWatermarkBehindTheIndex(t *testing.T) {
	dir := t.TempDir()
	a := open(t, dir)
	mustAppend(t, a, journal.Record{Type: "step", Session: "s", Data: data(0)})
	mustFlush(t, a)
	first, _ := watermarkOf(t, dir)
	mustAppend(t, a, journal.Record{Type: "step", Session: "s", Data: data(1)})
	mustFlush(t, a)
	if err := a.Close(); err != nil {
		t.Fatal(err)
	}
	lock := filepath.Join(dir, "journal.lock")
	f, err := os.OpenFile(lock, os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Fprintf(f, "index %020d\n", first); err != nil {
		t.Fatal(err)
	}
	f.Close()
	b := open(t, dir)
	wantSteps(t, "Session", stepsOf(t, sessionAll(t, b, "s")), 2)
	recs, _, _ := sessionFromAll(t, b, "s", 0)
	wantSteps(t, "SessionFrom", stepsOf(t, recs), 2)
}

// Verify writes this handle's waiting index lines so that it checks them;
// a Flush after it still syncs them and moves the watermark to the log's
// end.
func TestFlushAfterVerify(t *testing.T) {
	dir := t.TempDir()
	a := open(t, dir)
	for i := range 2 {
		if _, err := a.AppendLazy(journal.Record{Type: "step", Session: "s", Data: data(i)}); err != nil {
			t.Fatal(err)
		}
	}
	mustVerifyOK(t, a)
	mustFlush(t, a)
	if wm, size := watermarkOf(t, dir); wm != size {
		t.Errorf("watermark at %d after Verify and Flush, want the log's end %d", wm, size)
	}
}
