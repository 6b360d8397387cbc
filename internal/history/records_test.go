package history_test

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/stet-dev/stet/internal/golden"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

// record builds a journal record of type typ for session and path with the
// payload encoded as its Data, as the facade builds one (see
// history.Encode).
func record(typ, session, path string, payload any) (journal.Record, error) {
	b, err := history.Encode(payload)
	if err != nil {
		return journal.Record{}, err
	}
	return journal.Record{Type: typ, Session: session, Path: path, Data: b}, nil
}

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

var fixedTime = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const (
	verA = "sha256:aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
	verB = "sha256:bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
)

// sample is one record of each type stet writes, every field set that the
// type has, so that a renamed, dropped or reordered field changes a line.
type sample struct {
	name    string
	typ     string
	session string
	path    string
	payload any
}

func samples() []sample {
	r := receipt.Receipt{ID: "r_0001", Session: "s1", Tool: "edit", Path: "src/a.go",
		Before:  &receipt.State{Version: verA, Bytes: 12, Lines: 2, Mode: "0644"},
		After:   &receipt.State{Version: verB, Bytes: 14, Lines: 2, Mode: "0644"},
		Matches: []receipt.Match{{Offset: 3, OldBytes: 2, NewBytes: 4, Line: 1}},
		EOL:     "lf", Verified: true, Notes: []string{"a note"}, Time: fixedTime}
	moved := r
	moved.ID, moved.Tool, moved.Path, moved.From, moved.Matches = "r_0002", "move", "src/b.go", "src/a.go", nil
	undo := r
	undo.ID, undo.Tool, undo.Before, undo.After = "r_0003", "undo", r.After, r.Before
	full := history.Receipt{Receipt: r, Pre: verA, Old: []string{"ab"}}
	client := history.ClientIntent{ID: "toolu_01", Tool: "Edit", Files: []history.IntentFile{{Key: "src/a.go", Data: full}}, Unknown: true}
	return []sample{
		{"observe", history.TypeObserve, "s1", "src/a.go", &history.Observation{Version: verA, Seen: policy.Ranges{{Start: 0, End: 12}}, Whole: true, Size: 12, Lines: 2}},
		{"dir", history.TypeDir, "s1", "src", nil},
		{"created", history.TypeCreated, "s1", "src/new.go", nil},
		{"turn", history.TypeTurn, "s1", "", history.Turn{Request: "fix the bug", Inputs: []string{"src/a.go"}}},
		{"turn-end", history.TypeTurn, "s1", "", history.Turn{}},
		{"receipt", history.TypeReceipt, "s1", "src/a.go", &full},
		{"receipt-move", history.TypeReceipt, "s1", "src/b.go", &history.Receipt{Receipt: moved, Pre: verA, Over: verB, OverMode: "0600", FromKey: "src/a.go"}},
		{"receipt-undo", history.TypeReceipt, "s1", "src/a.go", &history.Receipt{Receipt: undo, Pre: verB, Undoes: "r_0001"}},
		{"undo", history.TypeUndo, "s1", "src/a.go", history.Undo{Receipt: "r_0001", By: "r_0003"}},
		{"refusal", history.TypeRefusal, "s1", "", history.Refusal{Kind: "stale", Tool: "edit", Path: "src/a.go", Message: "src/a.go changed since it was read"}},
		{"snapshot", history.TypeSnapshot, "s1", "", history.Snapshot{
			Files:   map[string]*history.Observation{"src/a.go": {Version: verB, Seen: policy.Ranges{{Start: 0, End: 4}}, Size: 14, Lines: 2}},
			Dirs:    []string{"src"},
			Created: []string{"src/new.go"},
			Removed: map[string]receipt.State{"src/old.go": {Version: verA, Bytes: 12, Lines: 2}},
			Request: "fix the bug", Inputs: []string{"src/a.go"},
			Clients: map[string]history.ClientIntent{"toolu_01": client}}},
		{"intent", history.TypeIntent, "stet:intents", "", history.Intent{ID: "i_0001", Session: "s1", PID: 4242,
			Start: "123456", Live: "0123456789abcdef01234567",
			Files: []history.IntentFile{{Key: "src/a.go", Data: full, Temp: "src/.stet-tmp-0001"}, {Key: "src/d", Data: history.Receipt{Receipt: moved}, Dir: true}}}},
		{"done", history.TypeDone, "stet:intents", "", history.Done{ID: "i_0001", State: "rolled_back", Detail: "src/a.go: taken back"}},
		{"client_intent", history.TypeClientIntent, "s1", "", client},
		{"client_done", history.TypeClientDone, "s1", "", history.ClientDone{ID: "toolu_01", State: history.ClientLanded}},
	}
}

// TestRecordGoldens pins the journal line of every record type: the
// payloads are appended to a journal with a fixed clock, compacted (the
// checkpoint record), and the log's lines are compared with
// testdata/records.txtar. A changed field name, a dropped field or a new
// order of fields fails here; go test ./internal/history -update rewrites
// the file after a meant change, for review.
func TestRecordGoldens(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(dir, journal.Options{NoSync: true, Now: func() time.Time { return fixedTime }})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	ss := samples()
	for _, s := range ss {
		rec, err := record(s.typ, s.session, s.path, s.payload)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := j.Append(rec); err != nil {
			t.Fatal(err)
		}
	}
	lines := logLines(t, dir)
	if len(lines) != len(ss) {
		t.Fatalf("journal has %d lines, want %d", len(lines), len(ss))
	}
	a := &golden.Archive{Comment: []byte("The journal line of every record type stet writes, from fixed payloads and a fixed clock.\nRewrite with: go test ./internal/history -update\n")}
	for i, s := range ss {
		a.Files = append(a.Files, golden.File{Name: s.name + ".jsonl", Data: lines[i]})
		checkRoundTrip(t, s, lines[i])
	}
	if _, err := j.Compact(journal.CompactOptions{Keep: func(r journal.Record) bool { return r.Type == history.TypeReceipt }}); err != nil {
		t.Fatal(err)
	}
	a.Files = append(a.Files, golden.File{Name: "checkpoint.jsonl", Data: logLines(t, dir)[0]})
	golden.Check(t, filepath.Join("testdata", "records.txtar"), a, *update)
}

// checkRoundTrip decodes a line's payload into its type and encodes it
// again: the same bytes, so reading a record loses nothing of it.
func checkRoundTrip(t *testing.T, s sample, line []byte) {
	t.Helper()
	var r journal.Record
	if err := json.Unmarshal(line, &r); err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	if r.Type != s.typ || r.Session != s.session || r.Path != s.path || !r.Time.Equal(fixedTime) {
		t.Errorf("%s: record %+v, want type %q session %q path %q time %v", s.name, r, s.typ, s.session, s.path, fixedTime)
	}
	if s.payload == nil {
		if len(r.Data) != 0 {
			t.Errorf("%s: data %s, want none", s.name, r.Data)
		}
		return
	}
	v := reflect.New(reflect.Indirect(reflect.ValueOf(s.payload)).Type())
	if err := json.Unmarshal(r.Data, v.Interface()); err != nil {
		t.Fatalf("%s: %v", s.name, err)
	}
	again, err := history.Encode(v.Interface())
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(again, r.Data) {
		t.Errorf("%s: decoded and encoded again:\n%s\nwant\n%s", s.name, again, r.Data)
	}
}

func logLines(t *testing.T, dir string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "journal.jsonl")) // the test's own state directory
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

// An observation is the same as another only when every field agrees:
// one that differs in any of them is journaled again; a missing one is
// never the same.
func TestObservationSame(t *testing.T) {
	base := history.Observation{Version: "sha256:aa", Seen: policy.Ranges{{Start: 0, End: 4}}, Whole: true, Size: 10, Lines: 2}
	same := base
	same.Seen = policy.Ranges{{Start: 0, End: 4}}
	if !base.Same(&same) {
		t.Errorf("%+v is not the same as an equal copy", base)
	}
	for name, change := range map[string]func(*history.Observation){
		"version": func(o *history.Observation) { o.Version = "sha256:bb" },
		"seen":    func(o *history.Observation) { o.Seen = policy.Ranges{{Start: 0, End: 5}} },
		"no seen": func(o *history.Observation) { o.Seen = nil },
		"whole":   func(o *history.Observation) { o.Whole = false },
		"size":    func(o *history.Observation) { o.Size = 11 },
		"lines":   func(o *history.Observation) { o.Lines = 3 },
	} {
		o := base
		change(&o)
		if base.Same(&o) || o.Same(&base) {
			t.Errorf("observations differing in %s: Same says they agree", name)
		}
	}
	var none *history.Observation
	if base.Same(nil) || none.Same(&base) || none.Same(nil) {
		t.Error("a missing observation is the same as another")
	}
}
