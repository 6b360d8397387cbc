package stet_test

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/fstree"
)

// What a move guarantees about its target, each as a test of what a user
// checks: the bytes under both names, the refusal kind, the result's words.

// watchdog fails the test with every goroutine's stack if done is not
// closed within d, instead of letting a deadlock hang CI.
func watchdog(t *testing.T, d time.Duration, done <-chan struct{}) {
	t.Helper()
	select {
	case <-done:
	case <-time.After(d):
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		t.Fatalf("deadlock: not done after %v; goroutines:\n%s", d, buf)
	}
}

// moveTree opens a host workspace holding a.txt and b.txt, both read by the
// session.
func moveTree(t *testing.T, opts stet.Options) (*fstree.Tree, *stet.Workspace, *stet.Session) {
	t.Helper()
	tr := fstree.Host(t)
	tr.Build(t, "a.txt=alpha\n", "b.txt=bravo\nsecond line\n")
	ws, s := openTree(t, tr, opts)
	for _, p := range []string{"a.txt", "b.txt"} {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	return tr, ws, s
}

// TestCrossedRefusedMovesNeverDeadlock: move a→b and move b→a at the same time in one
// process must not deadlock. Both are refused (the target exists), so the
// tree never changes and the race can be tried many times.
func TestCrossedRefusedMovesNeverDeadlock(t *testing.T) {
	tr, ws, s1 := moveTree(t, stet.Options{})
	s2, err := ws.Session("other")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{"a.txt", "b.txt"} {
		if _, err := s2.Read(ctx, stet.ReadArgs{Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	before := tr.Lines(t)
	done := make(chan struct{})
	var mu sync.Mutex
	var kinds []string
	go func() {
		defer close(done)
		for range 300 {
			var wg sync.WaitGroup
			start := make(chan struct{})
			for _, c := range []struct {
				s        *stet.Session
				from, to string
			}{{s1, "a.txt", "b.txt"}, {s2, "b.txt", "a.txt"}} {
				wg.Go(func() {
					<-start
					_, err := c.s.Move(ctx, stet.MoveArgs{From: c.from, To: c.to})
					mu.Lock()
					kinds = append(kinds, kindOf(err))
					mu.Unlock()
				})
			}
			close(start)
			wg.Wait()
		}
	}()
	watchdog(t, 15*time.Second, done)
	for _, k := range slices.Compact(slices.Sorted(slices.Values(kinds))) {
		if k != stet.KindExists {
			t.Errorf("a move onto an existing name without overwrite: got %q, want %q", k, stet.KindExists)
		}
	}
	if after := tr.Lines(t); !slices.Equal(after, before) {
		t.Errorf("tree changed:\n got  %q\n want %q", after, before)
	}
}

// TestMoveNeverReplacesAnInputOrRequestNamedFile: rule 8 applies to a move. A declared input
// is edit-only (a move onto or away from it is refused whatever overwrite
// says), and a file the pinned request names is not replaced by a move.
func TestMoveNeverReplacesAnInputOrRequestNamedFile(t *testing.T) {
	cases := []struct {
		name    string
		request string
		inputs  []string
		move    stet.MoveArgs
	}{
		{name: "onto a declared input", request: "tidy up the notes", inputs: []string{"b.txt"},
			move: stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true}},
		{name: "away from a declared input", request: "tidy up the notes", inputs: []string{"a.txt"},
			move: stet.MoveArgs{From: "a.txt", To: "c.txt"}},
		{name: "onto a file the request names", request: "Fix the spelling in b.txt, keep the rest.",
			move: stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			tr, _, s := moveTree(t, stet.Options{})
			if _, err := s.List(ctx, stet.ListArgs{Path: "."}); err != nil {
				t.Fatal(err)
			}
			if err := s.Turn(c.request, c.inputs...); err != nil {
				t.Fatal(err)
			}
			before := tr.Lines(t)
			_, err := s.Move(ctx, c.move)
			if got := kindOf(err); got != stet.KindInput {
				t.Errorf("move %s → %s: got %q, want %q", c.move.From, c.move.To, got, stet.KindInput)
			}
			if after := tr.Lines(t); !slices.Equal(after, before) {
				t.Errorf("tree changed:\n got  %q\n want %q", after, before)
			}
		})
	}
}

// TestMoveOverwriteSaysItReplacedTheUsersFile: a move over an existing file the session did not
// create says so with rule 9's words.
func TestMoveOverwriteSaysItReplacedTheUsersFile(t *testing.T) {
	_, _, s := moveTree(t, stet.Options{})
	res, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"replaced the user's file b.txt", "previous content saved — undo brings it back"} {
		if !strings.Contains(res.Message, want) {
			t.Errorf("move result %q lacks %q", res.Message, want)
		}
	}
}

// TestMoveOverAFileSavedAtTheSwapIsRefused: the overwritten target of a move is
// proved at the swap. An editor saving b.txt between the check and the
// rename must win: the move is refused as a conflict and both names keep
// their bytes. Hooks.BeforeSwap must fire for a move, with the target path.
func TestMoveOverAFileSavedAtTheSwapIsRefused(t *testing.T) {
	const editor = "bravo, saved by the editor\n"
	var tr *fstree.Tree
	var fired []string
	opts := stet.Options{Hooks: stet.Hooks{BeforeSwap: func(p string) {
		fired = append(fired, p)
		if p == "b.txt" {
			if err := tr.WriteFile("b.txt", []byte(editor)); err != nil {
				t.Error(err)
			}
		}
	}}}
	tr, _, s := moveTree(t, opts)
	_, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true})
	if !slices.Contains(fired, "b.txt") {
		t.Fatalf("Hooks.BeforeSwap did not fire for the move's target b.txt (fired for %q)", fired)
	}
	if got := kindOf(err); got != stet.KindConflict && got != stet.KindChanged {
		t.Errorf("move over a file changed at the swap: got %q, want %q", got, stet.KindConflict)
	}
	want := []string{"a.txt=alpha\n", "b.txt=" + editor}
	if got := tr.Lines(t); !slices.Equal(got, want) {
		t.Errorf("tree after\n got  %q\n want %q", got, want)
	}
}

// TestEveryMoveReachesTheSwapHook: a plain move (nothing overwritten) runs
// the commit's BeforeSwap point too, so fault injection reaches every change.
func TestEveryMoveReachesTheSwapHook(t *testing.T) {
	var fired []string
	tr, _, s := moveTree(t, stet.Options{Hooks: stet.Hooks{BeforeSwap: func(p string) { fired = append(fired, p) }}})
	if _, err := s.List(ctx, stet.ListArgs{Path: "."}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "c.txt"}); err != nil {
		t.Fatal(err)
	}
	if len(fired) == 0 {
		t.Errorf("Hooks.BeforeSwap did not fire for move a.txt → c.txt")
	}
	want := []string{"b.txt=bravo\nsecond line\n", "c.txt=alpha\n"}
	if got := tr.Lines(t); !slices.Equal(got, want) {
		t.Errorf("tree after\n got  %q\n want %q", got, want)
	}
}

// outsideWrite replaces name under root as an editor saving atomically
// would: a temp file beside the root, then a rename over the name.
func outsideWrite(tmp, root, name string, data []byte) error {
	f, err := os.CreateTemp(tmp, "editor-")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	return os.Rename(f.Name(), filepath.Join(root, filepath.FromSlash(name)))
}
