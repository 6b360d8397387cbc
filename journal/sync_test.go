package journal_test

import (
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
	var index bool
	for _, n := range synced {
		if len(n) > len("sessions/") && n[:len("sessions/")] == "sessions/" {
			index = true
		}
	}
	if !index {
		t.Errorf("Append did not fsync the session index of its durable record (fsynced %v)", synced)
	}
}
