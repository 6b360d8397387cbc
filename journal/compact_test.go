package journal_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet/journal"
)

func TestCompactKeepsAVerifiableChain(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	other := open(t, dir) // another process's handle
	blob, err := j.Put([]byte("old bytes a kept receipt needs"))
	if err != nil {
		t.Fatal(err)
	}
	lost, err := j.Put([]byte("old bytes nobody needs"))
	if err != nil {
		t.Fatal(err)
	}
	old := testTime.Add(-48 * time.Hour)
	for _, name := range []string{blob, lost} {
		h := strings.TrimPrefix(name, "sha256:")
		os.Chtimes(filepath.Join(dir, "objects", h[:2], h[2:]), old, old)
	}
	for i := range 50 {
		mustAppend(t, j, journal.Record{Type: "observe", Session: "a", Path: "f", Data: data(i)})
	}
	mustAppend(t, other, journal.Record{Type: "receipt", Session: "a", Data: data(map[string]string{"pre": blob})})
	mustAppend(t, j, journal.Record{Type: "observe", Session: "b", Data: data("b")})

	rep, err := j.Compact(journal.CompactOptions{
		Keep:        func(r journal.Record) bool { return r.Type == "receipt" || r.Session == "b" },
		BlobsBefore: testTime,
	})
	if err != nil {
		t.Fatal(err)
	}
	cp := rep.Checkpoint
	if cp.Generation != 1 || cp.OldLines != 52 || cp.Kept != 2 || cp.Dropped != 50 || cp.LastDropped == "" {
		t.Errorf("checkpoint %+v", cp)
	}
	if rep.BlobsDropped != 1 || rep.BytesAfter >= rep.BytesBefore {
		t.Errorf("report %+v", rep)
	}
	if _, err := j.Get(blob); err != nil {
		t.Errorf("the blob a kept record names: %v", err)
	}
	if _, err := j.Get(lost); !errors.Is(err, journal.ErrNotFound) {
		t.Errorf("an unreferenced old blob: %v, want it dropped", err)
	}
	vr := mustVerifyOK(t, j)
	if vr.Checkpoint == nil || vr.Lines != 3 {
		t.Errorf("verify: %d lines, checkpoint %v", vr.Lines, vr.Checkpoint)
	}
	if got := sessionAll(t, j, "a"); len(got) != 1 || got[0].Type != "receipt" || got[0].Seq != 2 {
		t.Errorf("session a after compaction: %+v", got)
	}
	// The other handle follows the new log: its appends and reads land there.
	mustAppend(t, other, journal.Record{Type: "observe", Session: "b", Data: data("after")})
	if got := sessionAll(t, other, "b"); len(got) != 2 {
		t.Errorf("session b through the other handle: %+v", got)
	}
	all := scanAll(t, j)
	if len(all) != 4 || all[0].Type != journal.RecCheckpoint || all[3].Seq != 4 {
		t.Errorf("log after compaction and an append: %+v", all)
	}
	mustVerifyOK(t, other)

	// Compacting again chains the counts.
	rep, err = other.Compact(journal.CompactOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Checkpoint.Generation != 2 || rep.Checkpoint.Kept != 3 || rep.Checkpoint.DroppedTotal != 51 {
		t.Errorf("second checkpoint %+v", rep.Checkpoint)
	}
	mustVerifyOK(t, j)
}

func TestForgedCheckpointIsNeverActedOn(t *testing.T) {
	j := open(t, t.TempDir())
	if _, err := j.Append(journal.Record{Type: journal.RecCheckpoint}); err == nil {
		t.Fatal("Append wrote a checkpoint record")
	}
	for i := range 5 {
		mustAppend(t, j, journal.Record{Type: "observe", Session: "s", Data: data(i)})
	}
	if _, err := j.Compact(journal.CompactOptions{Keep: func(r journal.Record) bool { return true }}); err != nil {
		t.Fatal(err)
	}
	log := filepath.Join(j.Dir(), "journal.jsonl")
	good, _ := os.ReadFile(log)
	lines := strings.SplitAfter(string(good), "\n")
	cases := map[string]string{
		// More kept than follow: lines after it were removed (and the
		// last line re-chained would not help).
		"kept": strings.Replace(lines[0], `"kept":5`, `"kept":9`, 1) + strings.Join(lines[1:], ""),
		// The checkpoint alone, the records dropped.
		"alone": lines[0],
		// A checkpoint in the middle.
		"middle": lines[0] + lines[1] + lines[0] + strings.Join(lines[2:], ""),
	}
	for name, forged := range cases {
		t.Run(name, func(t *testing.T) {
			os.WriteFile(log, []byte(forged), 0o600)
			defer os.WriteFile(log, good, 0o600)
			rep, err := j.Verify()
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() {
				t.Errorf("Verify accepted a forged checkpoint")
			}
			if _, err := j.Compact(journal.CompactOptions{}); err == nil {
				t.Errorf("Compact acted on a log with a forged checkpoint")
			}
		})
	}
}
