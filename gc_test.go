package stet_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

// testClock is a settable Options.Now.
type testClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *testClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *testClock) set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

func TestGCKeepsWhatKeptReceiptsNeed(t *testing.T) {
	now := time.Now().UTC()
	clock := &testClock{now: now.Add(-60 * 24 * time.Hour)}
	files := map[string]string{"old.txt": "old one\n", "a.txt": "a one\nA\n", "b.txt": "b one\n", "c.txt": "c one\n", "d.txt": "d one\n"}
	ws, s, root := open(t, files, stet.Options{Now: clock.Now})
	m := must[*stet.MutationResult](t)
	readAll(t, s, "old.txt")
	m(s.Write(ctx, stet.WriteArgs{Path: "old.txt", Content: "old two\n", Overwrite: true}))
	old, err := ws.Session("gone")
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, old, "d.txt")

	clock.set(now)
	for _, p := range []string{"a.txt", "b.txt", "c.txt"} {
		readAll(t, s, p)
	}
	m(s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("a one"), NewString: ptr("a two")}))
	m(s.Write(ctx, stet.WriteArgs{Path: "b.txt", Content: "b two\n", Overwrite: true}))
	m(s.Delete(ctx, stet.DeleteArgs{Path: "c.txt"}))
	m(s.Write(ctx, stet.WriteArgs{Path: "new.txt", Content: "new\n"}))
	m(s.Move(ctx, stet.MoveArgs{From: "new.txt", To: "moved.txt"}))

	before, err := ws.Log("", "")
	if err != nil {
		t.Fatal(err)
	}
	rep, err := ws.GC(30 * 24 * time.Hour)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("gc: %+v, freed %d", rep, rep.Freed())
	if rep.Dropped == 0 || rep.Kept == 0 {
		t.Errorf("gc dropped nothing: %+v", rep)
	}
	vr, err := ws.Verify("")
	if err != nil {
		t.Fatal(err)
	}
	if !vr.OK() {
		t.Fatalf("verify --all after gc: %+v", vr.Problems)
	}
	after, err := ws.Log("", "")
	if err != nil {
		t.Fatal(err)
	}
	if len(after) != len(before)-1 {
		t.Fatalf("receipts after gc: %d, want %d (all but the old one)", len(after), len(before)-1)
	}
	for _, e := range after {
		if e.Receipt.Path == "old.txt" {
			t.Errorf("gc kept the receipt older than the retention")
		}
	}

	// A new process: the session rebuilds from the compacted journal, and
	// every kept receipt can be undone.
	ws.Close()
	ws2, err := stet.Open([]string{root}, stet.Options{State: ws.StateDir(), Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.Close()
	s2, err := ws2.Session("test")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"moved.txt", "c.txt", "b.txt", "a.txt"} {
		if _, err := s2.Undo(ctx, stet.UndoArgs{Path: p}); err != nil {
			t.Errorf("undo %s after gc: %v", p, err)
		}
	}
	for name, want := range files {
		if name == "old.txt" {
			want = "old two\n"
		}
		if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != want {
			t.Errorf("%s after undo: %q, want %q", name, got, want)
		}
	}
	vr, err = ws2.Verify("")
	if err != nil || !vr.OK() {
		t.Fatalf("verify --all after undo: %v %+v", err, vr.Problems)
	}
	// The old session is gone.
	gone, _ := ws2.Session("gone")
	if _, err := gone.Edit(ctx, stet.EditArgs{Path: "d.txt", OldString: ptr("d one"), NewString: ptr("d two")}); err == nil {
		t.Errorf("an edit in a session whose observations were dropped: %v, want a refusal", err)
	}
}

// gc never lifts a guard: a session's pinned turn and declared inputs, and
// the files it created, stay however old they are, so a write over a
// declared input refused before gc is refused after it, in a fresh
// process as in the one that ran gc.
func TestGCKeepsWhatLiveRulesStandOn(t *testing.T) {
	now := time.Now().UTC()
	clock := &testClock{now: now.Add(-60 * 24 * time.Hour)}
	ws, s, root := open(t, map[string]string{"data.csv": "a,b\n1,2\n"}, stet.Options{Now: clock.Now})
	if err := s.Turn("Summarize data.csv into report.md", "data.csv"); err != nil {
		t.Fatal(err)
	}
	readAll(t, s, "data.csv")
	if _, err := s.Do(ctx, stet.ListArgs{Path: "."}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "report.md", Content: "# Report\n"}); err != nil {
		t.Fatal(err)
	}
	overInput := stet.WriteArgs{Path: "data.csv", Content: "x\n", Overwrite: true}
	if _, err := s.Write(ctx, overInput); !errors.Is(err, stet.ErrInput) {
		t.Fatalf("write over a declared input before gc: %v", err)
	}
	clock.set(now)
	if _, err := ws.GC(30 * 24 * time.Hour); err != nil {
		t.Fatal(err)
	}
	check := func(where string, s *stet.Session) {
		t.Helper()
		readAll(t, s, "data.csv")
		if _, err := s.Write(ctx, overInput); !errors.Is(err, stet.ErrInput) {
			t.Fatalf("%s: write over a declared input after gc: %v", where, err)
		}
		readAll(t, s, "report.md")
		out, err := s.Write(ctx, stet.WriteArgs{Path: "report.md", Content: "# Report\n\nmore\n"})
		if err != nil {
			t.Fatalf("%s: rewrite of a file the session created: %v", where, err)
		}
		if strings.Contains(out.Message, "replaced the user's file") {
			t.Fatalf("%s: a file the session created counts as the user's after gc: %s", where, out.Message)
		}
	}
	check("the process that ran gc", s)
	state := ws.StateDir()
	ws.Close()
	ws2, err := stet.Open([]string{root}, stet.Options{State: state, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.Close()
	s2, _ := ws2.Session(s.ID())
	check("a fresh process", s2)
	if b, _ := os.ReadFile(filepath.Join(root, "data.csv")); string(b) != "a,b\n1,2\n" {
		t.Fatalf("data.csv: %q", b)
	}
}
