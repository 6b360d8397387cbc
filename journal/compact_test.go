package journal_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
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

// Compacting a log just compacted, with nothing appended since, works and
// chains the counts: the checkpoint's kept records are all there.
func TestCompactTwiceInARow(t *testing.T) {
	j := open(t, t.TempDir())
	for i := range 4 {
		mustAppend(t, j, journal.Record{Type: "observe", Session: "s", Data: data(i)})
	}
	if _, err := j.Compact(journal.CompactOptions{Keep: func(r journal.Record) bool { return r.Data[0] != '0' }}); err != nil {
		t.Fatal(err)
	}
	rep, err := j.Compact(journal.CompactOptions{})
	if err != nil {
		t.Fatalf("second Compact: %v", err)
	}
	if cp := rep.Checkpoint; cp.Generation != 2 || cp.Kept != 3 || cp.Dropped != 1 || cp.DroppedTotal != 2 {
		t.Errorf("second checkpoint %+v", cp)
	}
	mustVerifyOK(t, j)
	if got := sessionAll(t, j, "s"); len(got) != 3 {
		t.Errorf("session after two compactions: %+v", got)
	}
}

// rechain rewrites lines as one unbroken chain (seqs from 1, each prev the
// hash of the line before), as Append writes them: what a forger who
// removed lines would do to hide it.
func rechain(t *testing.T, lines []string) []string {
	t.Helper()
	out := make([]string, len(lines))
	prev := ""
	for i, l := range lines {
		var r journal.Record
		if err := json.Unmarshal([]byte(l), &r); err != nil {
			t.Fatal(err)
		}
		r.Seq, r.Prev = int64(i+1), prev
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(r); err != nil {
			t.Fatal(err)
		}
		out[i] = strings.TrimSuffix(b.String(), "\n")
		prev = hashOf([]byte(out[i]))
	}
	return out
}

// Records removed after a checkpoint, the rest re-chained so that every
// link holds, are still caught by the checkpoint's count of kept records,
// by Verify and by Compact alike; one removed record is enough.
func TestCheckpointCountCatchesRemovedRecords(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	for i := range 5 {
		mustAppend(t, j, journal.Record{Type: "observe", Data: data(i)})
	}
	if _, err := j.Compact(journal.CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	lines := logLines(t, dir)
	if got := rechain(t, lines); !slices.Equal(got, lines) {
		t.Fatalf("rechain changes an intact log:\n%q\n%q", got, lines)
	}
	writeLines(t, dir, rechain(t, slices.Delete(lines, 3, 4)))
	rep, err := j.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if !hasProblemAt(rep, 1) || !strings.Contains(fmt.Sprint(rep.Problems), "5 records were kept, but only 4 lines follow it") {
		t.Errorf("Verify = %v, want line 1: 5 kept but only 4 follow", rep.Problems)
	}
	if _, err := j.Compact(journal.CompactOptions{}); !errors.Is(err, journal.ErrCorrupt) || !strings.Contains(err.Error(), "only 4 lines follow it") {
		t.Errorf("Compact over the re-chained log: %v, want ErrCorrupt: only 4 lines follow it", err)
	}
}

// Compact removes only blobs written more than an hour ago, whatever
// BlobsBefore says: a younger one may belong to a change in flight.
func TestCompactKeepsYoungBlobs(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	young, err := j.Put([]byte("written ten minutes ago"))
	if err != nil {
		t.Fatal(err)
	}
	old, err := j.Put([]byte("written two hours ago"))
	if err != nil {
		t.Fatal(err)
	}
	for name, age := range map[string]time.Duration{young: 10 * time.Minute, old: 2 * time.Hour} {
		h := strings.TrimPrefix(name, "sha256:")
		at := testTime.Add(-age)
		if err := os.Chtimes(filepath.Join(dir, "objects", h[:2], h[2:]), at, at); err != nil {
			t.Fatal(err)
		}
	}
	mustAppend(t, j, journal.Record{Type: "observe"})
	rep, err := j.Compact(journal.CompactOptions{BlobsBefore: testTime})
	if err != nil {
		t.Fatal(err)
	}
	if rep.BlobsDropped != 1 {
		t.Errorf("%d blobs dropped, want 1", rep.BlobsDropped)
	}
	if _, err := j.Get(young); err != nil {
		t.Errorf("the young blob: %v, want it kept", err)
	}
	if _, err := j.Get(old); !errors.Is(err, journal.ErrNotFound) {
		t.Errorf("the old blob: %v, want it dropped", err)
	}
}

// Cursors hold offsets into the session indexes that Compact rebuilds, so
// Compact drops them all.
func TestCompactDropsCursors(t *testing.T) {
	j := open(t, t.TempDir())
	mustAppend(t, j, journal.Record{Type: "observe", Session: "s"})
	for _, name := range []string{"reader-a", "reader-b"} {
		if err := j.SetCursor(name, 42); err != nil {
			t.Fatal(err)
		}
		if got := j.Cursor(name); got != 42 {
			t.Fatalf("Cursor(%s) = %d, want 42", name, got)
		}
	}
	if _, err := j.Compact(journal.CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"reader-a", "reader-b"} {
		if got := j.Cursor(name); got != 0 {
			t.Errorf("Cursor(%s) after Compact = %d, want 0", name, got)
		}
	}
}
