package stet_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

// The attack matrix: every way a file changes (each mutating tool, an
// agent's undo, the undo of a whole session, the review page's undo of a
// receipt, recovery at the next start, gc) × every side path by which a
// change could reach bytes it must not (a symlink, a hard link, a nested
// or another root, a directory moved under the session, a second process,
// a writer that holds the file open, a state directory shared or replaced,
// a kill -9 between the steps of a commit). Each cell is one check a user
// would make: the bytes that must not change did not, and the refusal
// kind. A cell whose guard is built elsewhere, or whose check is not
// written yet, skips with the reason, so every next side path or actor
// has its row and column to go in.

// attackActors are the columns.
var attackActors = []string{"edit", "write", "patch", "move", "delete", "undo", "session undo", "review undo", "recovery", "gc"}

// attackRow is one side path; run checks one actor against it.
type attackRow struct {
	name string
	run  func(t *testing.T, actor string)
}

var attackRows = []attackRow{
	{"symlink", attackSymlink},
	{"hard link", attackHardLink},
	{"hard link across roots", attackCrossRootLink},
	{"nested root", attackNestedRoot},
	{"other root", attackOtherRoot},
	{"directory move", attackDirMove},
	{"second process", attackSecondProcess},
	{"open writer", attackOpenWriter},
	{"shared state", attackSharedState},
	{"replaced state", attackReplacedState},
	{"kill -9 between steps", attackKill},
}

// TestAttackMatrix runs every actor against every side path.
func TestAttackMatrix(t *testing.T) {
	for _, row := range attackRows {
		for _, actor := range attackActors {
			t.Run(row.name+"/"+actor, func(t *testing.T) {
				t.Parallel()
				row.run(t, actor)
			})
		}
	}
}

// toolActor reports whether actor is a tool called on a path.
func toolActor(actor string) bool {
	switch actor {
	case "edit", "write", "patch", "move", "delete":
		return true
	}
	return false
}

// undoActor reports whether actor takes back a receipt.
func undoActor(actor string) bool {
	switch actor {
	case "undo", "session undo", "review undo":
		return true
	}
	return false
}

// callTool applies tool actor to p ("hello" becomes "HELLO" where it
// edits), after the observations a careful agent makes (prep).
func callTool(s *stet.Session, actor, p string) error {
	prep(s, p)
	var err error
	switch actor {
	case "edit":
		_, err = s.Edit(ctx, stet.EditArgs{Path: p, OldString: ptr("hello"), NewString: ptr("HELLO")})
	case "write":
		_, err = s.Write(ctx, stet.WriteArgs{Path: p, Content: "new\n", Overwrite: true})
	case "patch":
		_, err = s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: " + p + "\n@@\n-hello\n+HELLO\n*** End Patch\n"})
	case "move":
		_, err = s.Move(ctx, stet.MoveArgs{From: p, To: "moved.txt"})
	case "delete":
		_, err = s.Delete(ctx, stet.DeleteArgs{Path: p})
	default:
		panic("not a tool actor: " + actor)
	}
	return err
}

// editForUndo reads and edits p in s and returns the receipt's id: the
// change an undo actor then takes back.
func editForUndo(t *testing.T, s *stet.Session, p string) string {
	t.Helper()
	readAll(t, s, p)
	res, err := s.Edit(ctx, stet.EditArgs{Path: p, OldString: ptr("hello"), NewString: ptr("HELLO")})
	if err != nil {
		t.Fatal(err)
	}
	return res.Receipt.ID
}

// callUndo takes back receipt id (of session s, on p) the way actor does.
func callUndo(ws *stet.Workspace, s *stet.Session, actor, p, id string) error {
	var err error
	switch actor {
	case "undo":
		_, err = s.Undo(ctx, stet.UndoArgs{Path: p})
	case "session undo":
		_, err = ws.UndoChanges(ctx, stet.UndoSpec{Session: s.ID()})
	case "review undo":
		// The review page previews the receipt, then confirms that set.
		var pre *stet.UndoResult
		pre, err = ws.UndoChanges(ctx, stet.UndoSpec{Receipts: []string{id}, DryRun: true})
		if err == nil {
			_, err = ws.UndoChanges(ctx, stet.UndoSpec{Receipts: []string{id}, Expect: pre.Set})
		}
	default:
		panic("not an undo actor: " + actor)
	}
	return err
}

// killedAt runs the crash harness's child (crash_test.go) on a tree made
// by crashSetup for op, killed at step killAt ("swap": the new bytes
// durable in their temp file, the intent recorded, nothing swapped yet).
func killedAt(t *testing.T, op, killAt string) (root, state string) {
	t.Helper()
	if runtime.GOOS == "windows" {
		t.Skip("the crash child kills itself with SIGKILL")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no test executable to re-run:", err)
	}
	root, state = crashSetup(t, op)
	cmd := exec.Command(exe, "-test.run=^$")
	cmd.Env = append(os.Environ(), crashEnv+"="+strings.Join([]string{op, root, state, killAt, "0"}, "|"))
	err = cmd.Run()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !strings.Contains(ee.String(), "killed") {
		t.Fatalf("the child (%s) did not end by the kill at %s: %v", op, killAt, err)
	}
	return root, state
}

// reopenAfterKill opens the workspace again: recovery resolves what a killed
// process left.
func reopenAfterKill(t *testing.T, root, state string) *stet.Workspace {
	t.Helper()
	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	t.Cleanup(func() { ws.Close() })
	return ws
}

// mustHold fails unless the file at name under dir holds want.
func mustHold(t *testing.T, dir, name, want string) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if string(b) != want {
		t.Fatalf("%s holds %q, want %q", name, b, want)
	}
}

// wantKind fails unless err is a refusal of one of the kinds ("a|b").
func wantKind(t *testing.T, what string, err error, kinds string) {
	t.Helper()
	if got := kindOf(err); !kindMatches(kinds, got) {
		t.Fatalf("%s: got %q (%v), want %s", what, got, err, kinds)
	}
}

// A symlink inside the root that leads outside it: no actor writes
// through it. Tools are refused outside; an undo of a file since replaced
// by such a link is refused and the outside file keeps its bytes.
func attackSymlink(t *testing.T, actor string) {
	if runtime.GOOS == "windows" {
		t.Skip("symlinks need privileges on Windows")
	}
	outside := t.TempDir()
	secret := "SECRET hello\n"
	if err := os.WriteFile(filepath.Join(outside, "secret"), []byte(secret), 0o644); err != nil {
		t.Fatal(err)
	}
	switch {
	case toolActor(actor):
		_, s, root := open(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
		if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "link")); err != nil {
			t.Fatal(err)
		}
		wantKind(t, actor+" link", callTool(s, actor, "link"), stet.KindOutside)
	case undoActor(actor):
		ws, s, root := open(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
		id := editForUndo(t, s, "a.txt")
		os.Remove(filepath.Join(root, "a.txt"))
		if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "a.txt")); err != nil {
			t.Fatal(err)
		}
		wantKind(t, actor+" of a.txt, now a link out", callUndo(ws, s, actor, "a.txt", id), stet.KindOutside+"|"+stet.KindConflict+"|"+stet.KindChanged)
	case actor == "recovery":
		// Killed with an edit of a.txt half done; a.txt is then swapped for a
		// link that leads out: recovery at the next start writes nothing
		// through it.
		root, state := killedAt(t, "edit", "swap")
		os.Remove(filepath.Join(root, "a.txt"))
		if err := os.Symlink(filepath.Join(outside, "secret"), filepath.Join(root, "a.txt")); err != nil {
			t.Fatal(err)
		}
		reopenAfterKill(t, root, state)
	default:
		t.Skip("no check written yet: a " + actor + " after a.txt became a link that leads out")
	}
	mustHold(t, outside, "secret", secret)
}

// A hard link inside the root to a file a deny-read rule hides: every
// tool sees it as not there; an undo of a file since replaced by such a
// link is refused. The hidden file keeps its bytes.
func attackHardLink(t *testing.T, actor string) {
	secret := "SECRET hello\n"
	opts := stet.Options{DenyRead: []string{"private/**"}}
	files := map[string]string{"a.txt": "hello\n", "private/key.txt": secret}
	switch {
	case toolActor(actor):
		_, s, root := open(t, files, opts)
		if err := os.Link(filepath.Join(root, "private", "key.txt"), filepath.Join(root, "alias.txt")); err != nil {
			t.Skip("no hard links here:", err)
		}
		wantKind(t, actor+" alias.txt", callTool(s, actor, "alias.txt"), stet.KindNotFound)
		mustHold(t, root, "private/key.txt", secret)
	case undoActor(actor):
		ws, s, root := open(t, files, opts)
		id := editForUndo(t, s, "a.txt")
		os.Remove(filepath.Join(root, "a.txt"))
		if err := os.Link(filepath.Join(root, "private", "key.txt"), filepath.Join(root, "a.txt")); err != nil {
			t.Skip("no hard links here:", err)
		}
		wantKind(t, actor+" of a.txt, now a link to a hidden file", callUndo(ws, s, actor, "a.txt", id), stet.KindNotFound+"|"+stet.KindConflict+"|"+stet.KindChanged)
		mustHold(t, root, "private/key.txt", secret)
	case actor == "recovery":
		// Killed with an edit of a.txt half done; a.txt is then made a hard
		// link to a hidden file: recovery at the next start leaves it be.
		root, state := killedAt(t, "edit", "swap")
		os.MkdirAll(filepath.Join(root, "private"), 0o755)
		if err := os.WriteFile(filepath.Join(root, "private", "key.txt"), []byte(secret), 0o644); err != nil {
			t.Fatal(err)
		}
		os.Remove(filepath.Join(root, "a.txt"))
		if err := os.Link(filepath.Join(root, "private", "key.txt"), filepath.Join(root, "a.txt")); err != nil {
			t.Skip("no hard links here:", err)
		}
		ws, err := stet.Open([]string{root}, stet.Options{State: state, DenyRead: opts.DenyRead})
		if err != nil {
			t.Fatalf("reopen: %v", err)
		}
		ws.Close()
		mustHold(t, root, "private/key.txt", secret)
	default:
		t.Skip("no check written yet: a " + actor + " after a.txt became a hard link to a hidden file")
	}
}

// Two roots: a move, or a patch's move, from one to the other is refused
// (invalid), and both files keep their bytes.
func attackOtherRoot(t *testing.T, actor string) {
	if actor != "move" && actor != "patch" {
		t.Skip("links and hard links into another root are being fixed in a parallel change (roots)")
	}
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "a.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(b, "b.txt"), []byte("theirs\n"), 0o644)
	ws, err := stet.Open([]string{a, b}, stet.Options{State: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("agent")
	readAll(t, s, "a.txt")
	list(t, s, b)
	to := filepath.Join(b, "moved.txt")
	if actor == "move" {
		_, err = s.Move(ctx, stet.MoveArgs{From: "a.txt", To: to})
	} else {
		_, err = s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: " + to + "\n@@\n-hello\n+HELLO\n*** End Patch\n"})
	}
	wantKind(t, actor+" across roots", err, stet.KindInvalid)
	mustHold(t, a, "a.txt", "hello\n")
	if _, err := os.Stat(to); !os.IsNotExist(err) {
		t.Fatalf("%s exists after the refused move: %v", to, err)
	}
}

// A directory moved away under the session, and a new file made at the old
// name: the session's observation is of the moved file, so a change at the
// old name is refused (changed), and the undo of a change made before is
// refused too. Both files keep their bytes.
func attackDirMove(t *testing.T, actor string) {
	user := "the user's new hello\n"
	swap := func(t *testing.T, root string) {
		t.Helper()
		if err := os.Rename(filepath.Join(root, "d"), filepath.Join(root, "e")); err != nil {
			t.Fatal(err)
		}
		os.Mkdir(filepath.Join(root, "d"), 0o755)
		if err := os.WriteFile(filepath.Join(root, "d", "a.txt"), []byte(user), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	switch {
	case toolActor(actor):
		_, s, root := open(t, map[string]string{"d/a.txt": "hello\n"}, stet.Options{})
		readAll(t, s, "d/a.txt")
		swap(t, root)
		// No prep: a read now would observe the new file.
		var err error
		switch actor {
		case "edit":
			_, err = s.Edit(ctx, stet.EditArgs{Path: "d/a.txt", OldString: ptr("hello"), NewString: ptr("HELLO")})
		case "write":
			_, err = s.Write(ctx, stet.WriteArgs{Path: "d/a.txt", Content: "new\n", Overwrite: true})
		case "patch":
			_, err = s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: d/a.txt\n@@\n-the user's new hello\n+HELLO\n*** End Patch\n"})
		case "move":
			_, err = s.Move(ctx, stet.MoveArgs{From: "d/a.txt", To: "d/moved.txt"})
		case "delete":
			_, err = s.Delete(ctx, stet.DeleteArgs{Path: "d/a.txt"})
		}
		wantKind(t, actor+" d/a.txt after d moved away", err, stet.KindChanged)
		mustHold(t, root, "d/a.txt", user)
		mustHold(t, root, "e/a.txt", "hello\n")
	case undoActor(actor):
		ws, s, root := open(t, map[string]string{"d/a.txt": "hello\n"}, stet.Options{})
		id := editForUndo(t, s, "d/a.txt")
		swap(t, root)
		wantKind(t, actor+" of d/a.txt after d moved away", callUndo(ws, s, actor, "d/a.txt", id), stet.KindConflict+"|"+stet.KindChanged)
		mustHold(t, root, "d/a.txt", user)
		mustHold(t, root, "e/a.txt", "HELLO\n")
	default:
		t.Skip("no check written yet: a " + actor + " after a directory moved under it")
	}
}

// A second process (another Workspace over the same root and state)
// changes a file after this session read it: this session's change is
// refused (changed) and the undo of its earlier change too; the other
// process's bytes stay.
func attackSecondProcess(t *testing.T, actor string) {
	if actor == "gc" {
		gcInSecondProcess(t)
		return
	}
	if !toolActor(actor) && !undoActor(actor) {
		t.Skip("no check written yet: a " + actor + " while a second process changes files")
	}
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644)
	open2 := func() (*stet.Workspace, *stet.Session) {
		ws, err := stet.Open([]string{root}, stet.Options{State: state})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		s, err := ws.Session("agent")
		if err != nil {
			t.Fatal(err)
		}
		return ws, s
	}
	ws1, s1 := open2()
	var id string
	if undoActor(actor) {
		id = editForUndo(t, s1, "a.txt")
	} else {
		readAll(t, s1, "a.txt")
	}
	ws2, _ := open2()
	other, err := ws2.Session("other")
	if err != nil {
		t.Fatal(err)
	}
	readAll(t, other, "a.txt")
	theirs := "theirs\n"
	if _, err := other.Write(ctx, stet.WriteArgs{Path: "a.txt", Content: theirs, Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if undoActor(actor) {
		wantKind(t, actor+" after another process changed a.txt", callUndo(ws1, s1, actor, "a.txt", id), stet.KindConflict+"|"+stet.KindChanged)
	} else {
		// No prep: this session's observation is from before the other's write.
		var err error
		switch actor {
		case "edit":
			_, err = s1.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("hello"), NewString: ptr("HELLO")})
		case "write":
			_, err = s1.Write(ctx, stet.WriteArgs{Path: "a.txt", Content: "new\n", Overwrite: true})
		case "patch":
			_, err = s1.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-theirs\n+HELLO\n*** End Patch\n"})
		case "move":
			_, err = s1.Move(ctx, stet.MoveArgs{From: "a.txt", To: "moved.txt"})
		case "delete":
			_, err = s1.Delete(ctx, stet.DeleteArgs{Path: "a.txt"})
		}
		wantKind(t, actor+" after another process changed a.txt", err, stet.KindChanged)
	}
	mustHold(t, root, "a.txt", theirs)
}

// gcInSecondProcess: gc run by a second process while the first holds a
// change of a.txt keeps what that change's undo needs, so the first
// process's undo still brings the user's bytes back.
func gcInSecondProcess(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644)
	ws1, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	defer ws1.Close()
	s, _ := ws1.Session("agent")
	editForUndo(t, s, "a.txt")
	ws2, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.Close()
	if _, err := ws2.GC(24 * time.Hour); err != nil {
		t.Fatalf("gc in the second process: %v", err)
	}
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "a.txt"}); err != nil {
		t.Fatalf("undo after another process's gc: %v", err)
	}
	mustHold(t, root, "a.txt", "hello\n")
}

// A state directory in use by a workspace over other roots: a workspace
// over another root cannot open on it, so no actor runs there, and the
// first workspace's files keep their bytes.
func attackSharedState(t *testing.T, actor string) {
	a, b, state := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "a.txt"), []byte("hello\n"), 0o644)
	os.WriteFile(filepath.Join(b, "a.txt"), []byte("hello\n"), 0o644)
	wsA, err := stet.Open([]string{a}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	sA, _ := wsA.Session("agent")
	editForUndo(t, sA, "a.txt")
	wsA.Close()
	if _, err := stet.Open([]string{b}, stet.Options{State: state}); !errors.Is(err, stet.ErrStateInUse) {
		t.Fatalf("a workspace over another root opened on a's state (for a %s): %v", actor, err)
	}
	mustHold(t, a, "a.txt", "HELLO\n")
	mustHold(t, b, "a.txt", "hello\n")
}

// The state directory replaced under a running workspace (moved away and
// a new one made): every change is refused until a restart, and the file
// keeps its bytes.
func attackReplacedState(t *testing.T, actor string) {
	if !toolActor(actor) && !undoActor(actor) && actor != "gc" {
		t.Skip("no check written yet: a " + actor + " after the state directory was replaced")
	}
	root, base := t.TempDir(), t.TempDir()
	state := filepath.Join(base, "state")
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644)
	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("agent")
	want := "hello\n"
	var id string
	if undoActor(actor) {
		id, want = editForUndo(t, s, "a.txt"), "HELLO\n"
	} else {
		prep(s, "a.txt")
	}
	if err := os.Rename(state, filepath.Join(base, "moved")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(state, 0o700); err != nil {
		t.Fatal(err)
	}
	switch {
	case undoActor(actor):
		err = callUndo(ws, s, actor, "a.txt", id)
	case actor == "gc":
		_, err = ws.GC(0)
	default:
		err = callTool(s, actor, "a.txt")
	}
	if err == nil || !strings.Contains(err.Error(), "restart") {
		t.Fatalf("%s after the state directory was replaced: %v, want a refusal that says to restart", actor, err)
	}
	mustHold(t, root, "a.txt", want)
}

// A kill -9 between the steps of a commit (just before the swap, or just
// before the read-back): the next start (recovery) leaves every file with
// its old or its new bytes, and verify passes. The child is the crash
// harness's (crash_test.go).
func attackKill(t *testing.T, actor string) {
	op := map[string]string{"edit": "edit", "write": "write", "patch": "patch", "move": "move", "delete": "delete", "undo": "undo", "session undo": "undo-session", "review undo": "undo-receipt", "recovery": "edit"}[actor]
	if op == "" {
		t.Skip("no check written yet: the crash child does not run a " + actor)
	}
	if runtime.GOOS == "windows" {
		t.Skip("the crash child kills itself with SIGKILL")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no test executable to re-run:", err)
	}
	killAt := "swap"
	if actor == "recovery" {
		killAt = "readback" // swapped, not yet verified: recovery decides
	}
	child := func(root, state, killAt string) error {
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+strings.Join([]string{op, root, state, killAt, "0"}, "|"))
		return cmd.Run()
	}
	// The tree after the change, made once without a kill.
	root, state := crashSetup(t, op)
	if err := child(root, state, "none"); err != nil {
		t.Fatalf("%s without a kill: %v", op, err)
	}
	after := snapshot(root)
	root, state = crashSetup(t, op)
	before := snapshot(root)
	err = child(root, state, killAt)
	var ee *exec.ExitError
	if !errors.As(err, &ee) || !strings.Contains(ee.String(), "killed") {
		t.Fatalf("the child (%s) did not end by the kill at %s: %v", op, killAt, err)
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatalf("reopen after the kill: %v", err)
	}
	defer ws.Close()
	got := snapshot(root)
	if !equalTrees(got, before) && !equalTrees(got, after) {
		t.Fatalf("killed at %s, the tree is neither before nor after the %s:\n%s", killAt, op, treeDiff(got, before, after))
	}
	rep, err := ws.Verify("")
	if err != nil || !rep.OK() {
		t.Fatalf("verify --all after the kill: %v %+v", err, rep.Problems)
	}
}

// A process holding a.txt open for writing (a logger): a tool that would
// replace or delete it is refused, and what the writer writes afterwards
// lands in the file. (Linux: a read lease; elsewhere not detected.)
func attackOpenWriter(t *testing.T, actor string) {
	if runtime.GOOS != "linux" {
		t.Skip("an open writer is detected on Linux only")
	}
	if actor == "move" || !toolActor(actor) && !undoActor(actor) {
		t.Skip("no check written yet: a " + actor + " while another process writes the file (a move keeps the writer's inode at the new name)")
	}
	root := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("hello\n"), 0o644)
	ws, err := stet.Open([]string{root}, stet.Options{State: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("agent")
	var id string
	want := "hello\n"
	if undoActor(actor) {
		id, want = editForUndo(t, s, "a.txt"), "HELLO\n"
	}
	w, err := os.OpenFile(filepath.Join(root, "a.txt"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	if undoActor(actor) {
		err = callUndo(ws, s, actor, "a.txt", id)
	} else {
		err = callTool(s, actor, "a.txt")
	}
	var ref *stet.Refusal
	if !errors.As(err, &ref) || ref.Kind != stet.KindConflict {
		t.Fatalf("a %s while another process writes a.txt: %v, want conflict", actor, err)
	}
	w.WriteString("logged\n")
	mustHold(t, root, "a.txt", want+"logged\n")
}

// Nested roots (the inner one a directory of the outer): a file denied or
// protected by a rule with a slash, judged on the outer root's path, is
// refused through the inner root's shorter name too.
func attackNestedRoot(t *testing.T, actor string) {
	if !toolActor(actor) {
		t.Skip("no check written yet: a " + actor + " through the inner root's name")
	}
	outer := t.TempDir()
	inner := filepath.Join(outer, "svc")
	os.MkdirAll(inner, 0o755)
	os.WriteFile(filepath.Join(inner, "a.txt"), []byte("hello\n"), 0o644)
	ws, err := stet.Open([]string{outer, inner}, stet.Options{State: t.TempDir(), Protect: []string{"svc/a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("agent")
	err = callTool(s, actor, filepath.Join(inner, "a.txt"))
	var ref *stet.Refusal
	if !errors.As(err, &ref) || ref.Kind != stet.KindProtected {
		t.Fatalf("a %s of svc/a.txt through the inner root: %v, want protected", actor, err)
	}
	mustHold(t, inner, "a.txt", "hello\n")
}

// A hard link in another root to a file a deny-read rule hides there: the
// link is hidden too, so no tool reads or changes the hidden bytes.
func attackCrossRootLink(t *testing.T, actor string) {
	if !toolActor(actor) {
		t.Skip("no check written yet: a " + actor + " through a hard link in another root")
	}
	a, b := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(a, "secret.env"), []byte("hello\n"), 0o644)
	if err := os.Link(filepath.Join(a, "secret.env"), filepath.Join(b, "a.txt")); err != nil {
		t.Skip("no hard links across these directories:", err)
	}
	ws, err := stet.Open([]string{a, b}, stet.Options{State: t.TempDir(), DenyRead: []string{"*.env"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("agent")
	if _, err := s.Read(ctx, stet.ReadArgs{Path: filepath.Join(b, "a.txt")}); err == nil {
		t.Fatal("a hard link in another root read a deny-read file's bytes")
	}
	if err := callTool(s, actor, filepath.Join(b, "a.txt")); err == nil {
		t.Fatalf("a %s through a hard link in another root to a deny-read file landed", actor)
	}
	mustHold(t, a, "secret.env", "hello\n")
}
