package journal_test

import (
	"path"
	"strings"
	"testing"

	"github.com/stet-dev/stet/journal"
)

func TestOnlyDurableAppendsSync(t *testing.T) {
	var synced []string
	j := openWith(t, t.TempDir(), journal.Options{Now: clock(), OnSync: func(name string) { synced = append(synced, name) }})
	mustNone := func(what string) {
		t.Helper()
		if len(synced) > 0 {
			t.Errorf("%s fsynced %v", what, synced)
		}
		synced = nil
	}
	mustNone("Open")
	if _, err := j.AppendLazy(journal.Record{Type: "observe", Session: "s"}); err != nil {
		t.Fatal(err)
	}
	mustNone("AppendLazy")
	sessionAll(t, j, "s")
	scanAll(t, j)
	if _, err := j.SessionFrom("s", 0, func(journal.Record, int64) error { return nil }); err != nil {
		t.Fatal(err)
	}
	mustNone("reading")
	mustAppend(t, j, journal.Record{Type: "receipt", Session: "s"})
	want := map[string]bool{"journal.jsonl": false, "./": false}
	for _, n := range synced {
		if _, ok := want[n]; ok {
			want[n] = true
		}
	}
	for n, ok := range want {
		if !ok {
			t.Errorf("Append did not fsync %s (fsynced %v)", n, synced)
		}
	}
	if hasSync(synced, "sessions/*") {
		t.Errorf("Append fsynced a session index on its path (fsynced %v); that is the flush's", synced)
	}
	synced = nil
	mustFlush(t, j)
	if !hasSync(synced, "sessions/*.jsonl") {
		t.Errorf("Flush did not fsync the session index of the durable record (fsynced %v)", synced)
	}
}

// syncRecorder is an Options.OnSync that remembers what was fsynced.
type syncRecorder struct{ names []string }

func (s *syncRecorder) onSync(name string) { s.names = append(s.names, name) }

// take returns what was fsynced since the last call.
func (s *syncRecorder) take() []string {
	n := s.names
	s.names = nil
	return n
}

// hasSync reports whether names holds want, or a name starting with want
// if want ends in "*".
func hasSync(names []string, want string) bool {
	for _, n := range names {
		if ok, _ := path.Match(want, n); ok || n == want || strings.HasSuffix(want, "*") && strings.HasPrefix(n, want[:len(want)-1]) {
			return true
		}
	}
	return false
}

// Every write that must survive a power loss fsyncs the file before it is
// renamed into place and the directory that holds the new name.
func TestDurableWritesSync(t *testing.T) {
	var rec syncRecorder
	j := openWith(t, t.TempDir(), journal.Options{Now: clock(), OnSync: rec.onSync})

	v, err := j.Put([]byte("a blob"))
	if err != nil {
		t.Fatal(err)
	}
	h := strings.TrimPrefix(v, "sha256:")
	synced := rec.take()
	for _, want := range []string{"objects/.tmp-*", "objects/" + h[:2] + "/", "objects/"} {
		if !hasSync(synced, want) {
			t.Errorf("Put of a new blob did not fsync %s (fsynced %v)", want, synced)
		}
	}

	mustAppend(t, j, journal.Record{Type: "receipt", Session: "new"})
	mustFlush(t, j)
	if synced := rec.take(); !hasSync(synced, "sessions/") {
		t.Errorf("the flush of a session's first record did not fsync sessions/ (fsynced %v)", synced)
	}

	if _, err := j.Compact(journal.CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	synced = rec.take()
	for _, want := range []string{".tmp-journal.jsonl-*", "./", "journal.lock"} {
		if !hasSync(synced, want) {
			t.Errorf("Compact did not fsync %s (fsynced %v)", want, synced)
		}
	}
}

// The state directory's entries are fsynced with the first durable record
// only: a later durable Append fsyncs the log and nothing else.
func TestLaterDurableAppendSyncsOnlyTheLog(t *testing.T) {
	var rec syncRecorder
	j := openWith(t, t.TempDir(), journal.Options{Now: clock(), OnSync: rec.onSync})
	mustAppend(t, j, journal.Record{Type: "receipt", Session: "s"})
	if synced := rec.take(); !hasSync(synced, "./") {
		t.Errorf("the first durable Append did not fsync ./ (fsynced %v)", synced)
	}
	for range 3 {
		mustAppend(t, j, journal.Record{Type: "receipt", Session: "s"})
		if synced := rec.take(); len(synced) != 1 || synced[0] != "journal.jsonl" {
			t.Errorf("a later durable Append fsynced %v, want only journal.jsonl", synced)
		}
	}
}
