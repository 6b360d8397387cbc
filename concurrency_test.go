package stet_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/fstree"
)

var stressSeed = flag.Uint64("stress.seed", 20260101, "seed of TestConcurrentSessions")

// TestConcurrentSessions: 8 sessions × 200 random operations (edit, write,
// move, delete, undo) over 5 files of one workspace, while an editor outside
// stet saves the files at random. No call may deadlock; every receipt must
// start from a version that was really there (the previous receipt's result
// or an editor's save); every editor save is either the final content, or
// seen by a later change, or replaced by the editor's own next save; the
// final files are explained by the receipts and the saves; verify --all
// passes.
func TestConcurrentSessions(t *testing.T) {
	// The soak (STET_SOAK=1) runs twice the operations of the test command.
	workers, ops, editorSaves := 8, 100, 75
	if os.Getenv("STET_SOAK") == "1" {
		ops, editorSaves = 200, 150
	}
	seed := *stressSeed
	t.Logf("seed %d (rerun with -stress.seed=%d)", seed, seed)
	names := []string{"f0.txt", "f1.txt", "f2.txt", "f3.txt", "f4.txt"}

	tr := fstree.Host(t)
	var entries []string
	for _, n := range names {
		entries = append(entries, n+"=start of "+n+"\nline two\nline three\n")
	}
	tr.Build(t, entries...)
	ws, _ := openTree(t, tr, stet.Options{})

	// saved[name] lists the versions the editor (and the initial tree)
	// put at name, in order.
	var mu sync.Mutex
	saved := map[string][]string{}
	for _, n := range names {
		b, err := tr.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		saved[n] = append(saved[n], string(fsys.VersionOf(b)))
	}

	// Generous bounds: a deadlock hangs forever, a slow shared machine only
	// takes longer (about 12 s under -race on 2 idle cores).
	c, cancel := context.WithTimeout(ctx, 150*time.Second)
	defer cancel()
	done := make(chan struct{})
	var wg sync.WaitGroup
	errs := make(chan error, workers*ops)
	tmp := t.TempDir()
	for g := range workers {
		s, err := ws.Session(fmt.Sprintf("worker-%d", g))
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(seed, uint64(g)))
		wg.Go(func() {
			if _, err := s.List(c, stet.ListArgs{Path: "."}); err != nil {
				errs <- err
			}
			for i := range ops {
				if err := randomOp(c, s, rng, names, fmt.Sprintf("w%d-%d", g, i)); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Go(func() {
		rng := rand.New(rand.NewPCG(seed, 1000))
		for i := range editorSaves {
			n := names[rng.IntN(len(names))]
			data := fmt.Sprintf("editor save %d of %s\nline two\n", i, n)
			mu.Lock()
			saved[n] = append(saved[n], string(fsys.VersionOf([]byte(data))))
			mu.Unlock()
			if err := outsideWrite(tmp, tr.Root, n, []byte(data)); err != nil {
				errs <- err
			}
			if rng.IntN(4) == 0 {
				time.Sleep(time.Millisecond) // let the workers run between saves
			}
		}
	})
	go func() { wg.Wait(); close(done) }()
	watchdog(t, 150*time.Second, done)
	close(errs)
	for err := range errs {
		t.Errorf("seed %d: %v", seed, err)
	}

	log, err := ws.Log("", "")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("%d receipts, %d editor saves", len(log), editorSaves)
	tools := map[string]int{}
	for _, e := range log {
		tools[e.Receipt.Tool]++
	}
	// The history check below means something only if the run did work.
	if len(log) < 100 {
		t.Errorf("seed %d: only %d receipts from %d operations", seed, len(log), 8*200)
	}
	for _, tool := range []string{"edit", "write", "move", "delete", "undo"} {
		if tools[tool] == 0 {
			t.Errorf("seed %d: no %s landed (receipts per tool: %v)", seed, tool, tools)
		}
	}
	checkHistory(t, tr, names, log, saved)
	rep, err := ws.Verify("")
	if err != nil {
		t.Fatal(err)
	}
	if !rep.OK() {
		t.Errorf("seed %d: verify --all: %+v", seed, rep.Problems)
	}
}

// randomOp makes one random call the way an agent would (reading before
// changing). A refusal is a normal answer; an error that is not a refusal
// is returned, except a verification failure caused by the editor saving
// between the swap and the read-back.
func randomOp(c context.Context, s *stet.Session, rng *rand.Rand, names []string, tag string) error {
	p := names[rng.IntN(len(names))]
	read := func(p string) (string, bool) {
		r, err := s.Read(c, stet.ReadArgs{Path: p})
		if err != nil {
			return "", false
		}
		text, err := frame.Decode(r.Frame)
		return string(text), err == nil
	}
	var err error
	switch op := rng.IntN(10); {
	case op < 3: // edit the first line
		text, ok := read(p)
		if !ok {
			return nil
		}
		first := text
		for i := range len(text) {
			if text[i] == '\n' {
				first = text[:i]
				break
			}
		}
		if first == "" {
			return nil
		}
		_, err = s.Edit(c, stet.EditArgs{Path: p, OldString: &first, NewString: ptr("edited " + tag)})
	case op < 5: // replace or create
		read(p)
		_, err = s.Write(c, stet.WriteArgs{Path: p, Content: "written " + tag + "\nline two\n", Overwrite: true})
	case op < 6:
		read(p)
		_, err = s.Delete(c, stet.DeleteArgs{Path: p})
	case op < 8: // move to a free name
		to := names[rng.IntN(len(names))]
		read(p)
		_, err = s.Move(c, stet.MoveArgs{From: p, To: to})
	default:
		_, err = s.Undo(c, stet.UndoArgs{Path: p})
	}
	if _, ok := stet.AsRefusal(err); ok || err == nil {
		return nil
	}
	var ve *stet.VerifyError
	if errors.As(err, &ve) {
		return nil
	}
	return fmt.Errorf("%s: %w", tag, err)
}

// checkHistory replays the receipts per name, in journal order.
func checkHistory(t *testing.T, tr *fstree.Tree, names []string, log []stet.LogEntry, saved map[string][]string) {
	t.Helper()
	last := map[string]string{}  // name -> the version the last receipt left ("" gone)
	seen := map[string]bool{}    // versions some receipt started from
	moved := map[string]string{} // name -> version a move brought
	isSaved := func(name, v string) bool {
		for _, s := range saved[name] {
			if s == v {
				return true
			}
		}
		return false
	}
	explained := func(name, v string) bool {
		l, ok := last[name]
		return ok && l == v || isSaved(name, v) || moved[name] == v
	}
	for _, e := range log {
		r := e.Receipt
		if r.From != "" { // a move (or the undo of one): the bytes change names
			if r.Before != nil {
				seen[r.Before.Version] = true
				if !explained(r.From, r.Before.Version) {
					t.Errorf("receipt %s (%s %s → %s) moved version %s, which %s never held", r.ID, r.Tool, r.From, r.Path, short(r.Before.Version), r.From)
				}
			}
			last[r.From] = ""
			if r.After != nil {
				last[r.Path] = r.After.Version
				moved[r.Path] = r.After.Version
			}
			continue
		}
		if r.Before != nil {
			seen[r.Before.Version] = true
			if !explained(r.Path, r.Before.Version) {
				t.Errorf("receipt %s (%s %s) started from version %s, which was neither the previous receipt's result nor an editor's save", r.ID, r.Tool, r.Path, short(r.Before.Version))
			}
		}
		last[r.Path] = ""
		if r.After != nil {
			last[r.Path] = r.After.Version
		}
	}
	for _, n := range names {
		b, err := tr.ReadFile(n)
		now := ""
		if err == nil {
			now = string(fsys.VersionOf(b))
		} else if !errors.Is(err, os.ErrNotExist) {
			t.Fatal(err)
		}
		switch {
		case now == "":
			if l, ok := last[n]; !ok || l != "" {
				t.Errorf("%s is gone, but no receipt removed it last", filepath.Base(n))
			}
		case !explained(n, now):
			t.Errorf("%s holds version %s, explained by no receipt and no editor save", n, short(now))
		}
		// The editor's last save of n must not be lost silently: it is the
		// final content, or a later change started from it.
		if vs := saved[n]; len(vs) > 1 {
			v := vs[len(vs)-1]
			if now != v && !seen[v] {
				t.Errorf("the editor's last save of %s (%s) was overwritten by a change that never saw it", n, short(v))
			}
		}
	}
}

func short(v string) string {
	if len(v) > 19 {
		return v[:19]
	}
	return v
}
