package stet_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/golden"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden files in testdata")

// counter is a deterministic source of randomness: ids come out the same
// on every run.
type counter struct{ n byte }

func (c *counter) Read(p []byte) (int, error) {
	for i := range p {
		c.n++
		p[i] = c.n
	}
	return len(p), nil
}

// journalNormalize makes a journal line independent of the process that
// wrote it: the process id, its start time and liveness lock of an intent,
// temp file names, and so the chain hashes (pinned by the internal/history
// goldens instead).
var journalNormalize = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`"prev":"sha256:[0-9a-f]{64}"`), `"prev":"PREV"`},
	{regexp.MustCompile(`"pid":[0-9]+`), `"pid":PID`},
	{regexp.MustCompile(`"start":"[^"]*"`), `"start":"START"`},
	{regexp.MustCompile(`"live":"[^"]*"`), `"live":"LIVE"`},
	{regexp.MustCompile(`\.stet-tmp-[^"/]*`), `.stet-tmp-TEMP`},
}

// TestJournalGolden runs one session through every kind of record the
// facade writes (a turn, reads, an edit, a create, a move, an undo, a
// delete, a refusal, the intents and done records of each commit) with a
// fixed clock and fixed ids, and compares the journal's lines with
// testdata/journal.txtar: the bytes a workspace writes are the format's.
func TestJournalGolden(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "w")
	if err := os.MkdirAll(filepath.Join(root, "src"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "src", "a.txt"), []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tick := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	now := func() time.Time { tick = tick.Add(time.Second); return tick }
	ws, err := stet.Open([]string{root}, stet.Options{State: filepath.Join(dir, "state"), Now: now, Rand: &counter{}, NoSweep: true})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ws.Session("golden")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	ok := func(what string, err error) {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
	}
	ok("turn", s.Turn("change two to 2", "src/a.txt"))
	_, err = s.Read(ctx, stet.ReadArgs{Path: "src/a.txt"})
	ok("read", err)
	two, two2 := "two", "2"
	_, err = s.Edit(ctx, stet.EditArgs{Path: "src/a.txt", OldString: &two, NewString: &two2})
	ok("edit", err)
	_, err = s.Write(ctx, stet.WriteArgs{Path: "src/b.txt", Content: "new\n"})
	ok("write", err)
	_, err = s.Move(ctx, stet.MoveArgs{From: "src/b.txt", To: "src/c.txt"})
	ok("move", err)
	_, err = s.Undo(ctx, stet.UndoArgs{Path: "src/a.txt"})
	ok("undo", err)
	_, err = s.Delete(ctx, stet.DeleteArgs{Path: "src/c.txt"})
	ok("delete", err)
	_, err = s.Write(ctx, stet.WriteArgs{Path: "src/a.txt", Content: "replaced\n"})
	r, refused := stet.AsRefusal(err)
	if !refused {
		t.Fatalf("write over a.txt: %v, want a refusal", err)
	}
	s.NoteRefusal("write", r)
	ok("end turn", s.EndTurn())
	ok("close", ws.Close())

	b, err := os.ReadFile(filepath.Join(dir, "state", "journal.jsonl")) // the test's own state directory
	ok("journal", err)
	a := &golden.Archive{Comment: []byte("The journal a session writes, line by line, with a fixed clock and fixed ids.\nNormalized: chain hashes, process ids and start times, liveness locks, temp names.\nRewrite with: go test . -run TestJournalGolden -update\n")}
	typ := regexp.MustCompile(`"type":"([a-z]+)"`)
	for i, line := range bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n")) {
		for _, n := range journalNormalize {
			line = n.re.ReplaceAll(line, []byte(n.with))
		}
		m := typ.FindSubmatch(line)
		if m == nil {
			t.Fatalf("line %d has no type: %s", i+1, line)
		}
		a.Files = append(a.Files, golden.File{Name: fmt.Sprintf("%02d-%s.jsonl", i+1, m[1]), Data: line})
	}
	golden.Check(t, filepath.Join("testdata", "journal.txtar"), a, *updateGolden)
}
