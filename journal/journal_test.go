package journal_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/stet-dev/stet/journal"
)

func TestRoundTrip(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	written := mustAppend(t, j,
		journal.Record{Type: "session", Session: "s1"},
		journal.Record{Type: "observe", Session: "s1", Path: "a.txt", Data: json.RawMessage(`{ "version" : "sha256:00", "ranges": [ [0, 10] ] }`)},
		journal.Record{Type: "note", Path: "a<b>&c.txt", Data: json.RawMessage(`"<&>"`)},
	)
	written = append(written, mustAppend(t, j,
		journal.Record{Type: "session", Session: "s2"},
		journal.Record{Type: "receipt", Session: "s1", Path: "a.txt", Time: time.Date(2020, 1, 1, 0, 0, 0, 0, time.FixedZone("x", 3600))},
	)...)

	for i, r := range written {
		if r.Seq != int64(i+1) {
			t.Errorf("record %d: seq %d", i, r.Seq)
		}
		if r.Time.Location() != time.UTC {
			t.Errorf("record %d: time %v not in UTC", i, r.Time)
		}
	}
	if got, want := string(written[1].Data), `{"version":"sha256:00","ranges":[[0,10]]}`; got != want {
		t.Errorf("Data stored as %s, want compact %s", got, want)
	}
	if !strings.Contains(strings.Join(logLines(t, dir), "\n"), `"path":"a<b>&c.txt","data":"<&>"`) {
		t.Error("<, > and & are not stored as written")
	}
	if want := time.Date(2019, 12, 31, 23, 0, 0, 0, time.UTC); !written[4].Time.Equal(want) {
		t.Errorf("caller's time became %v, want %v", written[4].Time, want)
	}
	if written[0].Prev != "" || written[0].Time != testTime {
		t.Errorf("first record: %+v", written[0])
	}

	if diff := cmp.Diff(written, scanAll(t, j)); diff != "" {
		t.Errorf("Scan differs from what Append returned (-appended +scanned):\n%s", diff)
	}
	want := []journal.Record{written[0], written[1], written[4]}
	if diff := cmp.Diff(want, sessionAll(t, j, "s1")); diff != "" {
		t.Errorf("Session(s1) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(written[3:4], sessionAll(t, j, "s2")); diff != "" {
		t.Errorf("Session(s2) (-want +got):\n%s", diff)
	}
	if got := sessionAll(t, j, "nobody"); len(got) != 0 {
		t.Errorf("Session(nobody) = %v", got)
	}

	// Prev is the hash of the exact bytes of the line before.
	lines := logLines(t, dir)
	for i := 1; i < len(lines); i++ {
		sum := sha256.Sum256([]byte(lines[i-1]))
		if want := "sha256:" + hex.EncodeToString(sum[:]); written[i].Prev != want {
			t.Errorf("line %d prev %s, want %s", i+1, written[i].Prev, want)
		}
	}
	rep := mustVerifyOK(t, j)
	if rep.Lines != 5 || len(rep.Warnings) != 0 {
		t.Errorf("Verify = %+v", rep)
	}
}

func TestAppendRejects(t *testing.T) {
	j := open(t, t.TempDir())
	if _, err := j.Append(journal.Record{Session: "s"}); err == nil {
		t.Error("Append of a record without a type succeeded")
	}
	if _, err := j.Append(journal.Record{Type: "x", Data: json.RawMessage(`{"a":`)}); err == nil {
		t.Error("Append of invalid JSON data succeeded")
	}
	if got := scanAll(t, j); len(got) != 0 {
		t.Errorf("refused appends wrote %v", got)
	}
	// Seq and Prev set by the caller are replaced.
	out := mustAppend(t, j, journal.Record{Type: "x", Seq: 99, Prev: "sha256:bogus"})
	if out[0].Seq != 1 || out[0].Prev != "" {
		t.Errorf("caller's Seq/Prev kept: %+v", out[0])
	}
}

func TestContinuityAcrossReopen(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "a", Session: "s"}, journal.Record{Type: "b", Session: "s"})
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(journal.Record{Type: "c"}); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Append after Close: %v, want os.ErrClosed", err)
	}

	j2 := open(t, dir)
	out := mustAppend(t, j2, journal.Record{Type: "c", Session: "s"})
	lines := logLines(t, dir)
	sum := sha256.Sum256([]byte(lines[1]))
	if out[0].Seq != 3 || out[0].Prev != "sha256:"+hex.EncodeToString(sum[:]) {
		t.Errorf("after reopen: seq %d prev %s", out[0].Seq, out[0].Prev)
	}
	if got := sessionAll(t, j2, "s"); len(got) != 3 || got[2].Type != "c" {
		t.Errorf("Session after reopen: %v", got)
	}
	mustVerifyOK(t, j2)
}

func TestConcurrentGoroutines(t *testing.T) {
	// Locking, not durability, is under test (TestManyProcesses syncs).
	j := openWith(t, t.TempDir(), journal.Options{NoSync: true})
	const writers, each = 8, 40
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				if _, err := j.Append(journal.Record{Type: "w", Session: fmt.Sprint("w", w), Data: data(i)}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	// Readers run beside the writers and must only ever see consistent prefixes.
	for range 2 {
		wg.Go(func() {
			for range 20 {
				var last int64
				err := j.Scan(func(r journal.Record) error {
					if r.Seq != last+1 {
						return fmt.Errorf("seq %d after %d", r.Seq, last)
					}
					last = r.Seq
					return nil
				})
				if err != nil {
					t.Error(err)
				}
				if err := j.Session("w3", func(journal.Record) error { return nil }); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	recs := scanAll(t, j)
	if len(recs) != writers*each {
		t.Fatalf("%d records, want %d", len(recs), writers*each)
	}
	for w := range writers {
		got := sessionAll(t, j, fmt.Sprint("w", w))
		if len(got) != each {
			t.Errorf("session w%d: %d records", w, len(got))
		}
		for i, r := range got {
			if string(r.Data) != fmt.Sprint(i) {
				t.Errorf("session w%d record %d: data %s", w, i, r.Data)
				break
			}
		}
	}
	mustVerifyOK(t, j)
}

func TestScanStopsAtCallbackError(t *testing.T) {
	j := open(t, t.TempDir())
	mustAppend(t, j, journal.Record{Type: "a", Session: "s"}, journal.Record{Type: "b", Session: "s"})
	stop := errors.New("stop")
	n := 0
	if err := j.Scan(func(journal.Record) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("Scan: err %v after %d calls", err, n)
	}
	n = 0
	if err := j.Session("s", func(journal.Record) error { n++; return stop }); err != stop || n != 1 {
		t.Errorf("Session: err %v after %d calls", err, n)
	}
	// A callback may append: no lock is held while it runs.
	if err := j.Scan(func(r journal.Record) error {
		_, err := j.Append(journal.Record{Type: "echo"})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	if got := len(scanAll(t, j)); got != 4 {
		t.Errorf("%d records after appending from Scan, want 4", got)
	}
}

// A crash after the log was written but before the session index was: the
// line is in the log only. Session must still return it.
func TestSessionCompletesIndexAfterCrash(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	out := mustAppend(t, j, journal.Record{Type: "a", Session: "s"}, journal.Record{Type: "b", Session: "t"})

	// Write line 3 by hand, as a crashed Append would have left it.
	lines := logLines(t, dir)
	sum := sha256.Sum256([]byte(lines[len(lines)-1]))
	crashed := journal.Record{Seq: 3, Prev: "sha256:" + hex.EncodeToString(sum[:]), Time: out[1].Time, Type: "c", Session: "s"}
	b, _ := json.Marshal(crashed)
	appendFile(t, filepath.Join(dir, "journal.jsonl"), string(b)+"\n")

	j2 := open(t, dir)
	got := sessionAll(t, j2, "s")
	if len(got) != 2 || got[1].Seq != 3 {
		t.Fatalf("Session(s) after crash = %+v, want seqs 1 and 3", got)
	}
	// Completing is idempotent: no duplicates after more appends and reopens.
	mustAppend(t, j2, journal.Record{Type: "d", Session: "s"})
	j3 := open(t, dir)
	if got := sessionAll(t, j3, "s"); len(got) != 3 {
		t.Errorf("Session(s) = %d records, want 3", len(got))
	}
	mustVerifyOK(t, j3)
}

// Session reads only its own lines and their links in the chain: damage
// elsewhere in the log does not break it (Verify still reports the damage);
// damage to the line its record chains to does.
func TestSessionReadsOnlyItsIndex(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "aaaa", Session: "other"}, journal.Record{Type: "filler", Session: "other"}, journal.Record{Type: "x", Session: "mine"})
	replaceInFile(t, filepath.Join(dir, "journal.jsonl"), `"type":"aaaa"`, `"type":"bbbb"`)
	if got := sessionAll(t, j, "mine"); len(got) != 1 {
		t.Errorf("Session(mine) = %v", got)
	}
	rep, err := j.Verify()
	if err != nil || rep.OK() {
		t.Errorf("Verify = %+v, %v; want damage reported", rep, err)
	}
	replaceInFile(t, filepath.Join(dir, "journal.jsonl"), `"type":"filler"`, `"type":"FILLER"`)
	if err := j.Session("mine", func(journal.Record) error { return nil }); !errors.Is(err, journal.ErrCorrupt) {
		t.Errorf("Session(mine) after its chain link changed: %v, want ErrCorrupt", err)
	}
}

func TestSessionDetectsBrokenIndex(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j,
		journal.Record{Type: "a", Session: "s"},
		journal.Record{Type: "middle", Session: "s"},
		journal.Record{Type: "c", Session: "s"},
	)
	mustFlush(t, j)
	idx := indexFile(dir, "s")
	replaceInFile(t, idx, `"type":"middle"`, `"type":"MIDDLE"`)
	err := j.Session("s", func(journal.Record) error { return nil })
	if !errors.Is(err, journal.ErrCorrupt) || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("Session over a changed index line: %v, want ErrCorrupt naming line 2", err)
	}
	rep, verr := j.Verify()
	if verr != nil || !hasProblemAt(rep, 2) {
		t.Errorf("Verify = %+v, %v; want a problem at line 2", rep.Problems, verr)
	}

	replaceInFile(t, idx, `"session":"s"`, `"session":"z"`)
	if err := j.Session("s", func(journal.Record) error { return nil }); !errors.Is(err, journal.ErrCorrupt) {
		t.Errorf("Session over a foreign record: %v, want ErrCorrupt", err)
	}
}

// Nothing outside the state directory is touched, even through a symlink
// planted inside it.
func TestStaysInsideStateDir(t *testing.T) {
	dir := t.TempDir()
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(dir, "sessions")); err != nil {
		t.Skip("symlinks unavailable:", err)
	}
	j := open(t, dir)
	if _, err := j.Append(journal.Record{Type: "x", Session: "s"}); err != nil {
		t.Fatal(err) // the log is written; only the index could not be
	}
	if err := j.Session("s", func(journal.Record) error { return nil }); err == nil {
		t.Error("Session read through a symlink leaving the state directory")
	}
	ents, _ := os.ReadDir(outside)
	if len(ents) != 0 {
		t.Errorf("wrote outside the state directory: %v", ents)
	}
}

func TestOpenCreatesLayout(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "state", "ws")
	open(t, dir)
	for _, name := range []string{"journal.jsonl", "journal.lock", "objects", "sessions"} {
		if _, err := os.Stat(filepath.Join(dir, name)); err != nil {
			t.Error(err)
		}
	}
	info, err := os.Stat(dir)
	if err != nil || info.Mode().Perm()&0o077 != 0 {
		t.Errorf("state dir mode %v, %v; want private", info.Mode(), err)
	}
}

// logLines returns the complete lines of journal.jsonl.
func logLines(t testing.TB, dir string) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	} else {
		return nil
	}
	return strings.Split(s, "\n")
}

func writeLines(t testing.TB, dir string, lines []string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte(strings.Join(lines, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
}

func indexFile(dir, session string) string {
	sum := sha256.Sum256([]byte(session))
	return filepath.Join(dir, "sessions", hex.EncodeToString(sum[:])+".jsonl")
}

func appendFile(t testing.TB, name, s string) {
	t.Helper()
	f, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func replaceInFile(t testing.TB, name, old, new string) {
	t.Helper()
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), old) {
		t.Fatalf("%s does not contain %s", name, old)
	}
	os.Chmod(name, 0o600)
	if err := os.WriteFile(name, []byte(strings.Replace(string(b), old, new, 1)), 0o600); err != nil {
		t.Fatal(err)
	}
}

func hasProblemAt(rep journal.Report, line int64) bool {
	for _, p := range rep.Problems {
		if p.Line == line {
			return true
		}
	}
	return false
}

// A lost or damaged watermark in journal.lock makes the next reader rebuild
// the index from the log, without duplicating what is already indexed.
func TestIndexRebuiltWithoutDuplicates(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	for i := range 4 {
		mustAppend(t, j, journal.Record{Type: "t", Session: "s", Data: data(i)}, journal.Record{Type: "t", Session: "u"})
	}
	for _, content := range []string{"", "index garbage\n", "index 00000000000000000003\n"} {
		if err := os.WriteFile(filepath.Join(dir, "journal.lock"), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		if got := sessionAll(t, j, "s"); len(got) != 4 {
			t.Errorf("lock %q: Session(s) = %d records, want 4", content, len(got))
		}
		mustVerifyOK(t, j)
		b, _ := os.ReadFile(indexFile(dir, "s"))
		if n := strings.Count(string(b), "\n"); n != 4 {
			t.Errorf("lock %q: index holds %d lines, want 4", content, n)
		}
	}
}

func TestAppendLazyKeepsTheChain(t *testing.T) {
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append(journal.Record{Type: "receipt", Session: "s"}); err != nil {
		t.Fatal(err)
	}
	if _, err := j.AppendLazy(journal.Record{Type: "observe", Session: "s"}, journal.Record{Type: "observe", Session: "s"}); err != nil {
		t.Fatal(err)
	}
	var seqs []int64
	j.Session("s", func(r journal.Record) error { seqs = append(seqs, r.Seq); return nil })
	if len(seqs) != 3 || seqs[2] != 3 {
		t.Fatalf("session sees %v, want 1..3", seqs)
	}
	rep, err := j.Verify()
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %+v %v", rep, err)
	}
}

// AppendThen calls logged once the record is in the log, and its session
// sees it once AppendThen returned; it never calls logged for records that
// were not written.
func TestAppendThen(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "a", Session: "s"})
	calls := 0
	_, err := j.AppendThen(func() {
		calls++
		if lines := logLines(t, dir); len(lines) != 2 || !strings.Contains(lines[1], `"type":"b"`) {
			t.Errorf("logged called before the log holds the record: %q", lines)
		}
	}, journal.Record{Type: "b", Session: "s"})
	if err != nil || calls != 1 {
		t.Fatalf("AppendThen: err %v, logged called %d times, want once", err, calls)
	}
	if got := sessionAll(t, j, "s"); len(got) != 2 || got[1].Type != "b" {
		t.Fatalf("Session(s) = %+v, want a, b", got)
	}
	mustVerifyOK(t, j)
	j.Close()
	if _, err := j.AppendThen(func() { calls++ }, journal.Record{Type: "c", Session: "s"}); err == nil || calls != 1 {
		t.Fatalf("AppendThen on a closed journal: err %v, logged called %d times", err, calls)
	}
}

// A handle whose state directory was replaced under its path appends
// nothing: its records would land where no process opening the path looks.
func TestAppendRefusedWhenStateDirectoryReplaced(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "state")
	j, err := journal.Open(dir, journal.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append(journal.Record{Type: "note", Session: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, filepath.Join(base, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Append(journal.Record{Type: "note", Session: "s"}); !errors.Is(err, journal.ErrMoved) {
		t.Fatalf("append after the state directory was replaced: %v, want ErrMoved", err)
	}
	if b, err := os.ReadFile(filepath.Join(base, "old", "journal.jsonl")); err != nil || bytes.Count(b, []byte("\n")) != 1 {
		t.Fatalf("old journal: %d lines, %v", bytes.Count(b, []byte("\n")), err)
	}
}

// Compact (stet gc) on a handle whose state directory was replaced under
// its path rewrites nothing: the journal its path names now is another's.
func TestCompactRefusedWhenStateDirectoryReplaced(t *testing.T) {
	base := t.TempDir()
	dir := filepath.Join(base, "state")
	j, err := journal.Open(dir, journal.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	if _, err := j.Append(journal.Record{Type: "note", Session: "s"}); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(dir, filepath.Join(base, "old")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	if _, err := j.Compact(journal.CompactOptions{Keep: func(journal.Record) bool { return false }}); !errors.Is(err, journal.ErrMoved) {
		t.Fatalf("compact after the state directory was replaced: %v, want ErrMoved", err)
	}
}
