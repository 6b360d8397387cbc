package stet

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
)

func openIntentWS(t *testing.T, files map[string]string) (*Workspace, *Session, string, string) {
	t.Helper()
	root, state := t.TempDir(), t.TempDir()
	for n, c := range files {
		if err := os.WriteFile(filepath.Join(root, n), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := Open([]string{root}, Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	s, err := ws.Session("t")
	if err != nil {
		t.Fatal(err)
	}
	return ws, s, root, state
}

// appendIntent journals it, as a process that is gone wrote it.
func appendIntent(t *testing.T, ws *Workspace, it engine.IntentData) {
	t.Helper()
	b, _ := json.Marshal(it)
	if _, err := ws.e.Journal.Append(journal.Record{Type: engine.RecIntent, Session: engine.IntentSession, Data: b}); err != nil {
		t.Fatal(err)
	}
}

// reopen closes ws and opens the workspace at root again, as the next
// start does: what ws left pending is resolved.
func reopen(t *testing.T, ws *Workspace, root string, o Options) *Workspace {
	t.Helper()
	ws.e.Close()
	ws2, err := Open([]string{root}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws2.e.Close() })
	return ws2
}

// outcomeOf returns the state of intent id's done record ("" while open).
func outcomeOf(ws *Workspace, id string) string {
	var out string
	ws.e.Journal.Session(engine.IntentSession, func(r journal.Record) error {
		var d engine.DoneData
		if r.Type == engine.RecDone && json.Unmarshal(r.Data, &d) == nil && d.ID == id {
			out = d.State
		}
		return nil
	})
	return out
}

// When the intent cannot be made durable (the state disk is full, or the
// journal is gone), the change is refused before anything moves.
func TestIntentFailureChangesNothing(t *testing.T) {
	ctx := context.Background()
	for _, tool := range []string{"edit", "write", "delete", "move", "create"} {
		t.Run(tool, func(t *testing.T) {
			ws, s, root, _ := openIntentWS(t, map[string]string{"a.txt": "one\ntwo\n"})
			if _, err := s.Read(ctx, ReadArgs{Path: "a.txt"}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.List(ctx, ListArgs{}); err != nil {
				t.Fatal(err)
			}
			// The state disk is full when the intent is appended; everything
			// before it (reads, the session's catch-up, a saved blob) works.
			intents := 0
			ws.e.Opts.Hooks.BeforeIntent = func(string) error { intents++; return syscall.ENOSPC }
			var err error
			switch tool {
			case "edit":
				one, uno := "one", "uno"
				_, err = s.Edit(ctx, EditArgs{Path: "a.txt", OldString: &one, NewString: &uno})
			case "write":
				_, err = s.Write(ctx, WriteArgs{Path: "a.txt", Content: "new\n", Overwrite: true})
			case "delete":
				_, err = s.Delete(ctx, DeleteArgs{Path: "a.txt"})
			case "move":
				_, err = s.Move(ctx, MoveArgs{From: "a.txt", To: "b.txt"})
			case "create":
				_, err = s.Write(ctx, WriteArgs{Path: "c.txt", Content: "new\n"})
			}
			if err == nil {
				t.Fatalf("%s landed without its intent", tool)
			}
			if intents != 1 || !errors.Is(err, syscall.ENOSPC) {
				t.Fatalf("%s: %d intents tried, error %v; want the intent's write to be what failed", tool, intents, err)
			}
			ents, _ := os.ReadDir(root)
			for _, e := range ents {
				if strings.HasPrefix(e.Name(), ".stet-tmp-") {
					t.Errorf("%s left its temp file %s", tool, e.Name())
				}
			}
			got, rerr := os.ReadFile(filepath.Join(root, "a.txt"))
			if rerr != nil || string(got) != "one\ntwo\n" {
				t.Errorf("a.txt after the refused %s: %q, %v", tool, got, rerr)
			}
			for _, n := range []string{"b.txt", "c.txt"} {
				if _, err := os.Stat(filepath.Join(root, n)); err == nil {
					t.Errorf("%s exists after the refused %s", n, tool)
				}
			}
		})
	}
}

// An interrupted change whose file holds neither its old nor its new bytes
// is left alone at Open and reported by verify --all.
func TestUnresolvedIntentIsReported(t *testing.T) {
	ws, s, root, state := openIntentWS(t, map[string]string{"a.txt": "one\n"})
	tgt, ref := ws.e.Resolve("edit", "a.txt")
	if ref != nil {
		t.Fatal(ref)
	}
	old, nw := []byte("one\n"), []byte("uno\n")
	r := receipt.Receipt{ID: "r_interrupted", Session: s.e.ID(), Tool: "edit", Path: "a.txt",
		Before: receipt.StateOf(old), After: receipt.StateOf(nw),
		Matches: []receipt.Match{{Offset: 0, OldBytes: 3, NewBytes: 3, Line: 1}}}
	it := engine.IntentData{ID: r.ID, Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{{Key: tgt.Key(), Data: engine.ReceiptData{Receipt: r, Old: []string{"one"}}}}}
	appendIntent(t, ws, it) // as a process that is gone wrote it
	// Someone else wrote other bytes before the next start.
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("edited by hand\n"), 0o644)
	ws2 := reopen(t, ws, root, Options{State: state})
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "edited by hand\n" {
		t.Fatalf("recovery changed a file it could not place: %q", b)
	}
	rep, err := ws2.Verify("")
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, p := range rep.Problems {
		if strings.Contains(p.Msg, "r_interrupted") && strings.Contains(p.Msg, "could not be resolved") {
			found = true
		}
	}
	if !found {
		t.Errorf("verify --all does not report the unresolved change: %+v", rep.Problems)
	}
}

// An intent that changes one file twice (as an undo set taking back two
// edits does) is resolved as a chain: the file's old bytes drop it, its last
// new bytes complete it, and the middle state rolls the first link back.
func TestChainedIntentIsResolved(t *testing.T) {
	v0, v1, v2 := []byte("zero\n"), []byte("one\n"), []byte("two\n")
	for _, c := range []struct {
		name    string
		disk    []byte
		want    []byte
		outcome string
	}{
		{"nothing landed", v0, v0, engine.DoneDropped},
		{"both landed", v2, v2, engine.DoneCompleted},
		{"the first landed", v1, v0, engine.DoneRolledBack},
		{"neither state", []byte("by hand\n"), []byte("by hand\n"), engine.DoneUnresolved},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, s, root, state := openIntentWS(t, map[string]string{"a.txt": string(c.disk)})
			tgt, ref := ws.e.Resolve("edit", "a.txt")
			if ref != nil {
				t.Fatal(ref)
			}
			link := func(id string, from, to []byte) engine.IntentFile {
				r := receipt.Receipt{ID: id, Session: s.e.ID(), Tool: "edit", Path: "a.txt",
					Before: receipt.StateOf(from), After: receipt.StateOf(to), EOL: "lf",
					Matches: []receipt.Match{{Offset: 0, OldBytes: len(from), NewBytes: len(to), Line: 1}}}
				return engine.IntentFile{Key: tgt.Key(), Data: engine.ReceiptData{Receipt: r, Old: []string{string(from)}}}
			}
			it := engine.IntentData{ID: "p_chain", Session: s.e.ID(), PID: 1 << 30,
				Files: []engine.IntentFile{link("r_first", v0, v1), link("r_second", v1, v2)}}
			appendIntent(t, ws, it)
			ws2 := reopen(t, ws, root, Options{State: state})
			got, _ := os.ReadFile(filepath.Join(root, "a.txt"))
			if string(got) != string(c.want) {
				t.Errorf("a.txt = %q, want %q", got, c.want)
			}
			outcome := outcomeOf(ws2, "p_chain")
			if outcome != c.outcome {
				t.Errorf("outcome %q, want %q", outcome, c.outcome)
			}
		})
	}
}

// A move over a file stopped between its exchange and the unlink of the
// file it replaced (both names present: the moved bytes under the new name,
// the replaced bytes under the old one) is finished at the next start.
func TestMoveStoppedAfterItsExchangeIsFinished(t *testing.T) {
	moved, replaced := []byte("the moved notes\n"), []byte("the user's notes\n")
	// The disk right after RENAME_EXCHANGE.
	ws, s, root, state := openIntentWS(t, map[string]string{"b.txt": string(moved), "a.txt": string(replaced)})
	from, ref := ws.e.Resolve("move", "a.txt")
	if ref != nil {
		t.Fatal(ref)
	}
	to, ref := ws.e.Resolve("move", "b.txt")
	if ref != nil {
		t.Fatal(ref)
	}
	blob, err := ws.e.Journal.Put(replaced) // saved before the swap, as prepare does
	if err != nil {
		t.Fatal(err)
	}
	r := receipt.Receipt{ID: "r_move", Session: s.e.ID(), Tool: "move", Path: "b.txt", From: "a.txt",
		Before: receipt.StateOf(moved), After: receipt.StateOf(moved), Matches: []receipt.Match{}, EOL: "none"}
	it := engine.IntentData{ID: "r_move", Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{{Key: to.Key(),
		Data: engine.ReceiptData{Receipt: r, FromKey: from.Key(), Over: blob}}}}
	appendIntent(t, ws, it)
	ws2 := reopen(t, ws, root, Options{State: state})
	if _, err := os.Stat(filepath.Join(root, "a.txt")); !os.IsNotExist(err) {
		t.Errorf("the old name still holds the replaced file: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "b.txt")); string(got) != string(moved) {
		t.Errorf("b.txt = %q, want the moved bytes", got)
	}
	s2, _ := ws2.Session(s.e.ID())
	if _, err := s2.Undo(context.Background(), UndoArgs{Path: "b.txt"}); err != nil {
		t.Fatalf("undo of the finished move: %v", err)
	}
	for name, want := range map[string][]byte{"a.txt": moved, "b.txt": replaced} {
		if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != string(want) {
			t.Errorf("after undo %s = %q, want %q", name, got, want)
		}
	}
}

// An intent is one sequence: a patch's update of a.txt, the move of a.txt
// to d.txt, then an update of b.txt. Each point of the sequence the disk
// can show after a crash resolves as a whole.
func TestSequenceIntentIsResolved(t *testing.T) {
	a0, a1, b0, b1 := "a zero\n", "a one\n", "b zero\n", "b one\n"
	none := "<none>"
	for _, c := range []struct {
		name       string
		disk       [3]string // a.txt, d.txt, b.txt
		want       [3]string
		outcome    string
		stillThere bool
	}{
		{"nothing landed", [3]string{a0, none, b0}, [3]string{a0, none, b0}, engine.DoneDropped, false},
		{"the update landed", [3]string{a1, none, b0}, [3]string{a0, none, b0}, engine.DoneRolledBack, false},
		{"the update and the move landed", [3]string{none, a1, b0}, [3]string{a0, none, b0}, engine.DoneRolledBack, false},
		{"all landed", [3]string{none, a1, b1}, [3]string{none, a1, b1}, engine.DoneCompleted, false},
		{"moved but not updated", [3]string{none, a0, b0}, [3]string{none, a0, b0}, engine.DoneUnresolved, false},
		{"the second file first", [3]string{a0, none, b1}, [3]string{a0, none, b1}, engine.DoneUnresolved, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			files := map[string]string{}
			for i, n := range []string{"a.txt", "d.txt", "b.txt"} {
				if c.disk[i] != none {
					files[n] = c.disk[i]
				}
			}
			ws, s, root, state := openIntentWS(t, files)
			key := func(n string) string {
				tg, ref := ws.e.Resolve("patch", n)
				if ref != nil {
					t.Fatal(ref)
				}
				return tg.Key()
			}
			edit := func(id, path, from, to string) engine.IntentFile {
				r := receipt.Receipt{ID: id, Session: s.e.ID(), Tool: "patch", Path: path,
					Before: receipt.StateOf([]byte(from)), After: receipt.StateOf([]byte(to)), EOL: "lf",
					Matches: []receipt.Match{{Offset: 0, OldBytes: len(from), NewBytes: len(to), Line: 1}}}
				return engine.IntentFile{Key: key(path), Data: engine.ReceiptData{Receipt: r, Old: []string{from}}}
			}
			mv := receipt.Receipt{ID: "r_2", Session: s.e.ID(), Tool: "move", Path: "d.txt", From: "a.txt",
				Before: receipt.StateOf([]byte(a1)), After: receipt.StateOf([]byte(a1)), Matches: []receipt.Match{}, EOL: "none"}
			it := engine.IntentData{ID: "p_seq", Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{
				edit("r_1", "a.txt", a0, a1),
				{Key: key("d.txt"), Data: engine.ReceiptData{Receipt: mv, FromKey: key("a.txt")}},
				edit("r_3", "b.txt", b0, b1),
			}}
			appendIntent(t, ws, it)
			ws2 := reopen(t, ws, root, Options{State: state})
			for i, n := range []string{"a.txt", "d.txt", "b.txt"} {
				got, err := os.ReadFile(filepath.Join(root, n))
				if err != nil {
					got = []byte(none)
				}
				if string(got) != c.want[i] {
					t.Errorf("%s = %q, want %q", n, got, c.want[i])
				}
			}
			outcome := outcomeOf(ws2, "p_seq")
			if outcome != c.outcome {
				t.Errorf("outcome %q, want %q", outcome, c.outcome)
			}
			if c.outcome == engine.DoneCompleted {
				log, err := ws2.Log(s.e.ID(), "")
				if err != nil || len(log) != 3 {
					t.Fatalf("completed receipts: %v %+v", err, log)
				}
				for _, e := range log {
					if !e.Receipt.Verified {
						t.Errorf("receipt %s completed at open but not verified", e.Receipt.ID)
					}
				}
			}
		})
	}
}

// A change's temp file is named before its intent is written, and the
// intent records the name: the next start removes exactly that file, with
// the sweep off, and leaves a file that merely looks like a temp file.
func TestRecordedTempFileIsRemoved(t *testing.T) {
	ws, s, root, state := openIntentWS(t, map[string]string{"a.txt": "one\n"})
	tgt, ref := ws.e.Resolve("edit", "a.txt")
	if ref != nil {
		t.Fatal(ref)
	}
	recorded, other := ".stet-tmp-1073741824-00000000000000aa", ".stet-tmp-1073741824-00000000000000bb"
	// A name in a protected tree (only a damaged or forged journal could
	// record one: no change lands there) is never touched.
	inGit := ".git/.stet-tmp-1073741824-00000000000000cc"
	if err := os.Mkdir(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{recorded, other, inGit} {
		if err := os.WriteFile(filepath.Join(root, n), []byte("two\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	r := receipt.Receipt{ID: "r_tmp", Session: s.e.ID(), Tool: "edit", Path: "a.txt",
		Before: receipt.StateOf([]byte("one\n")), After: receipt.StateOf([]byte("two\n")), EOL: "lf",
		Matches: []receipt.Match{{Offset: 0, OldBytes: 4, NewBytes: 4, Line: 1}}}
	it := engine.IntentData{ID: "r_tmp", Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{{Key: tgt.Key(),
		Data: engine.ReceiptData{Receipt: r, Old: []string{"one\n"}}, Temp: recorded},
		{Key: tgt.Key(), Data: engine.ReceiptData{Receipt: r, Old: []string{"one\n"}}, Temp: inGit}}}
	appendIntent(t, ws, it)
	reopen(t, ws, root, Options{State: state, NoSweep: true})
	if _, err := os.Stat(filepath.Join(root, recorded)); !os.IsNotExist(err) {
		t.Errorf("the temp file the intent recorded is still there: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, other)); err != nil {
		t.Errorf("a file no intent names was removed with the sweep off: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, inGit)); err != nil {
		t.Errorf("a name recorded inside .git was removed: %v", err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != "one\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// Every change that writes through a temp file records its name in the
// intent before the swap, and the file takes that very name.
func TestIntentNamesTheTempFile(t *testing.T) {
	ctx := context.Background()
	root, state := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	var seen []string
	ws, err := Open([]string{root}, Options{State: state, Hooks: Hooks{BeforeSwap: func(string) {
		ents, _ := os.ReadDir(root)
		for _, e := range ents {
			if strings.HasPrefix(e.Name(), ".stet-tmp-") {
				seen = append(seen, e.Name())
			}
		}
	}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.e.Close()
	s, _ := ws.Session("t")
	if _, err := s.Read(ctx, ReadArgs{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	one, two := "one", "two"
	if _, err := s.Edit(ctx, EditArgs{Path: "a.txt", OldString: &one, NewString: &two}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, WriteArgs{Path: "b.txt", Content: "new\n"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Delete(ctx, DeleteArgs{Path: "b.txt"}); err != nil {
		t.Fatal(err)
	}
	var named []string
	ws.e.Journal.Session(engine.IntentSession, func(r journal.Record) error {
		var it engine.IntentData
		if r.Type == engine.RecIntent && json.Unmarshal(r.Data, &it) == nil {
			for _, f := range it.Files {
				named = append(named, f.Temp)
			}
		}
		return nil
	})
	// Remove sets the file aside under its temp name after the hook; the
	// edit and the create wrote through theirs before it.
	if len(named) != 3 || len(seen) != 2 || named[0] != seen[0] || named[1] != seen[1] || named[2] == "" {
		t.Errorf("the intents name temp files %q; the changes wrote through %q", named, seen)
	}
}

// A writer in another PID namespace has a process id that means nothing
// here (or names another process): its intent is left alone while the
// liveness lock it names is held, and resolved once that lock is free.
func TestIntentOfALiveWriterIsLeftAlone(t *testing.T) {
	ws, s, root, state := openIntentWS(t, map[string]string{"a.txt": "one\n"})
	holder, err := journal.Open(state, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	live, err := holder.Live()
	if err != nil {
		t.Fatal(err)
	}
	tgt, _ := ws.e.Resolve("edit", "a.txt")
	r := receipt.Receipt{ID: "r_live", Session: s.e.ID(), Tool: "edit", Path: "a.txt",
		Before: receipt.StateOf([]byte("zero\n")), After: receipt.StateOf([]byte("one\n")), EOL: "lf",
		Matches: []receipt.Match{{Offset: 0, OldBytes: 5, NewBytes: 4, Line: 1}}}
	it := engine.IntentData{ID: "r_live", Session: s.e.ID(), PID: 1 << 30, Live: live, Files: []engine.IntentFile{{Key: tgt.Key(),
		Data: engine.ReceiptData{Receipt: r, Old: []string{"zero\n"}}}}}
	appendIntent(t, ws, it)
	ws2 := reopen(t, ws, root, Options{State: state})
	if got := outcomeOf(ws2, "r_live"); got != "" {
		t.Errorf("the intent of a live writer was closed as %q", got)
	}
	holder.Close()
	ws3 := reopen(t, ws2, root, Options{State: state})
	if got := outcomeOf(ws3, "r_live"); got != engine.DoneCompleted {
		t.Errorf("after the writer is gone the intent closed as %q, want %q", got, engine.DoneCompleted)
	}
}

// A process killed while recovery rolled a patch back leaves two open
// intents: the patch's (a.txt and b.txt landed, c.txt not), and inside it
// the rollback of b.txt, which had not moved yet. The next start settles the newer one first (it
// is dropped) and then rolls the patch back once: each file gets one
// rollback receipt, not a second one completed from the stale inner intent.
func TestNestedRollbackIsSettledOnce(t *testing.T) {
	v0, v1 := "zero\n", "one\n"
	ws, s, root, state := openIntentWS(t, map[string]string{"a.txt": v1, "b.txt": v1, "c.txt": v0})
	key := func(n string) string {
		tg, ref := ws.e.Resolve("patch", n)
		if ref != nil {
			t.Fatal(ref)
		}
		return tg.Key()
	}
	step := func(id, tool, path, from, to string) engine.IntentFile {
		r := receipt.Receipt{ID: id, Session: s.e.ID(), Tool: tool, Path: path,
			Before: receipt.StateOf([]byte(from)), After: receipt.StateOf([]byte(to)), EOL: "lf",
			Matches: []receipt.Match{{Offset: 0, OldBytes: len(from), NewBytes: len(to), Line: 1}}}
		return engine.IntentFile{Key: key(path), Data: engine.ReceiptData{Receipt: r, Old: []string{from}}}
	}
	for _, it := range []engine.IntentData{
		{ID: "p_outer", Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{step("r_a", "patch", "a.txt", v0, v1), step("r_b", "patch", "b.txt", v0, v1), step("r_c", "patch", "c.txt", v0, v1)}},
		{ID: "r_inner", Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{step("r_back", "rollback", "b.txt", v1, v0)}},
	} {
		appendIntent(t, ws, it)
	}
	ws2 := reopen(t, ws, root, Options{State: state})
	if got, _ := os.ReadFile(filepath.Join(root, "c.txt")); string(got) != v0 {
		t.Errorf("c.txt = %q, want it untouched", got)
	}
	for _, n := range []string{"a.txt", "b.txt"} {
		if got, _ := os.ReadFile(filepath.Join(root, n)); string(got) != v0 {
			t.Errorf("%s = %q, want the patch rolled back", n, got)
		}
		log, err := ws2.Log(s.e.ID(), n)
		if err != nil || len(log) != 1 || log[0].Receipt.Tool != "rollback" {
			var tools []string
			for _, e := range log {
				tools = append(tools, e.Receipt.Tool+" "+e.Receipt.ID)
			}
			t.Errorf("%s: receipts %v (%v); want one rollback", n, tools, err)
		}
	}
	if rep, err := ws2.Verify(""); err != nil || !rep.OK() {
		t.Errorf("verify --all: %v %+v", err, rep.Problems)
	}
}

// Recovery changes files only through the floor every change passes: an
// intent whose rollback would write into .git (only a damaged or forged
// journal holds one: no change lands there) is reported, never acted on.
func TestRecoveryKeepsToTheFloor(t *testing.T) {
	ws, s, root, state := openIntentWS(t, map[string]string{"a.txt": "a zero\n"})
	if err := os.MkdirAll(filepath.Join(root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".git", "config"), []byte("real\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	key := func(n string) string {
		tg, ref := ws.e.Resolve("patch", n)
		if ref != nil {
			t.Fatal(ref)
		}
		return tg.Key()
	}
	step := func(id, path, from, to string) engine.IntentFile {
		r := receipt.Receipt{ID: id, Session: s.e.ID(), Tool: "patch", Path: path,
			Before: receipt.StateOf([]byte(from)), After: receipt.StateOf([]byte(to)), EOL: "lf",
			Matches: []receipt.Match{{Offset: 0, OldBytes: len(from), NewBytes: len(to), Line: 1}}}
		return engine.IntentFile{Key: key(path), Data: engine.ReceiptData{Receipt: r, Old: []string{from}}}
	}
	it := engine.IntentData{ID: "p_forged", Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{
		step("r_1", ".git/config", "[core]\n\tfsmonitor = evil\n", "real\n"),
		step("r_2", "a.txt", "a zero\n", "a one\n"),
	}}
	appendIntent(t, ws, it)
	ws2 := reopen(t, ws, root, Options{State: state})
	if got, _ := os.ReadFile(filepath.Join(root, ".git", "config")); string(got) != "real\n" {
		t.Errorf(".git/config = %q: recovery wrote into .git", got)
	}
	if rep, err := ws2.Verify(""); err != nil || rep.OK() {
		t.Errorf("verify --all: %v %+v; want the refused intent reported", err, rep)
	}
}

// Killed between its exchange and its compare, a replace leaves in its temp
// file whatever was at the name; bytes that are neither the change's old nor
// its new ones (another writer's) are saved in the journal before recovery
// removes the temp file, and the done record says where.
func TestRecoverySavesForeignBytesInATemp(t *testing.T) {
	ws, s, root, state := openIntentWS(t, map[string]string{"a.txt": "two\n"})
	tgt, ref := ws.e.Resolve("edit", "a.txt")
	if ref != nil {
		t.Fatal(ref)
	}
	temp := ".stet-tmp-1073741824-00000000000000dd"
	if err := os.WriteFile(filepath.Join(root, temp), []byte("someone else's\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	r := receipt.Receipt{ID: "r_x", Session: s.e.ID(), Tool: "edit", Path: "a.txt",
		Before: receipt.StateOf([]byte("one\n")), After: receipt.StateOf([]byte("two\n")), EOL: "lf",
		Matches: []receipt.Match{{Offset: 0, OldBytes: 4, NewBytes: 4, Line: 1}}}
	appendIntent(t, ws, engine.IntentData{ID: "r_x", Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{{Key: tgt.Key(),
		Data: engine.ReceiptData{Receipt: r, Old: []string{"one\n"}}, Temp: temp}}})
	ws2 := reopen(t, ws, root, Options{State: state})
	if _, err := os.Stat(filepath.Join(root, temp)); !os.IsNotExist(err) {
		t.Errorf("temp file still there: %v", err)
	}
	want := string(receipt.StateOf([]byte("someone else's\n")).Version)
	var detail string
	ws2.e.Journal.Session(engine.IntentSession, func(r journal.Record) error {
		var d engine.DoneData
		if r.Type == engine.RecDone && json.Unmarshal(r.Data, &d) == nil && d.ID == "r_x" {
			detail = d.Detail
		}
		return nil
	})
	if !strings.Contains(detail, want) {
		t.Errorf("done detail %q does not name the saved blob %s", detail, want)
	}
	if b, err := ws2.e.Journal.Get(want); err != nil || string(b) != "someone else's\n" {
		t.Errorf("saved bytes: %q %v", b, err)
	}
}
