package stet_test

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

// The crash harness: a child process (this test binary, re-run) makes one
// change and is killed with SIGKILL at a random instant, or at a fixed step
// of the commit. The parent then opens the workspace again (which resolves
// what the child left) and checks what a user would: every file holds its
// old or its new bytes, a multi-file patch is all old or all new, a change
// that landed has a receipt, verify --all passes, and undo of a landed
// change brings the previous bytes back exactly.

const crashEnv = "STET_CRASH_CHILD"

// crashOps are the changes the child makes, over the files of crashFiles.
var crashOps = []string{"edit", "write", "delete", "move", "move-over", "undo", "patch", "patch-move", "undo-move-over"}

// crashFiles is the tree each run starts from: three files of about 190
// KiB (readable whole in one read), so a commit takes long enough for random
// kills to land inside it.
func crashFiles() map[string]string {
	line := func(tag string) string {
		return strings.Repeat(tag+" the user's line of text"+strings.Repeat(".", 75)+"\n", 1900)
	}
	return map[string]string{"a.txt": "head A\n" + line("a"), "b.txt": "head B\n" + line("b"), "c.txt": "head C\n" + line("c")}
}

func TestMain(m *testing.M) {
	if spec := os.Getenv(crashEnv); spec != "" {
		os.Exit(crashChild(spec))
	}
	os.Exit(m.Run())
}

// crashChild runs one op: spec is "op|root|state|killAt|delayMicros".
func crashChild(spec string) int {
	f := strings.Split(spec, "|")
	op, root, state, killAt := f[0], f[1], f[2], f[3]
	delay, _ := strconv.Atoi(f[4])
	die := func(string) { // SIGKILL; TerminateProcess on Windows
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			p.Kill()
		}
	}
	var hooks stet.Hooks
	var armed atomic.Bool // the op has started (Open syncs the journal too)
	switch killAt {
	case "swap":
		hooks.BeforeSwap = die
	case "afterswap":
		// After the exchange, before the displaced file is handed to the
		// journal and the directory is fsynced.
		hooks.AfterSwap = die
	case "adopt":
		// The displaced file is in the object store under its staging
		// name; the journal has not taken it yet.
		hooks.BeforeAdopt = die
	case "readback":
		hooks.BeforeReadback = die
	case "journalsync":
		// The intent is written but not yet fsynced while the temp file is
		// written beside it: the first fsync of the journal in the change.
		hooks.JournalSync = func(string) {
			if armed.Load() {
				die("")
			}
		}
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: state, Hooks: hooks})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	s, err := ws.Session("crash")
	if err != nil {
		return 2
	}
	if killAt == "timer" {
		time.AfterFunc(time.Duration(delay)*time.Microsecond, func() { die("") })
	}
	// The undo of a whole session, and of one receipt as the review page
	// sends it (the attack matrix kills these too).
	if op == "undo-session" || op == "undo-receipt" {
		spec := stet.UndoSpec{Session: "crash"}
		if op == "undo-receipt" {
			log, err := ws.Log("crash", "a.txt")
			if err != nil || len(log) == 0 {
				fmt.Fprintln(os.Stderr, "no receipt of a.txt:", err)
				return 2
			}
			spec = stet.UndoSpec{Receipts: []string{log[len(log)-1].Receipt.ID}}
		}
		if _, err := ws.UndoChanges(ctx, spec); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		return 0
	}
	armed.Store(true)
	if err := crashOp(s, op); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	if killAt == "after" {
		// Landed and answered, but killed before the process could close
		// anything: what it appended without fsync is all the next start has.
		die("")
	}
	return 0
}

func crashOp(s *stet.Session, op string) error {
	var err error
	switch op {
	case "edit":
		_, err = s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("head A\n"), NewString: ptr("HEAD A, edited\n")})
	case "write":
		_, err = s.Write(ctx, stet.WriteArgs{Path: "a.txt", Content: "rewritten\n", Overwrite: true})
	case "delete":
		_, err = s.Delete(ctx, stet.DeleteArgs{Path: "a.txt"})
	case "move":
		_, err = s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "d.txt"})
	case "move-over":
		_, err = s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true})
	case "undo":
		_, err = s.Undo(ctx, stet.UndoArgs{Path: "a.txt"})
	case "undo-move-over":
		// The rename back and the restore of the replaced file: one intent.
		_, err = s.Undo(ctx, stet.UndoArgs{Path: "b.txt"})
	case "patch-move":
		// An update that moves its file, then an update of another file:
		// three steps of one intent, two of them on the same bytes.
		_, err = s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: a.txt\n*** Move to: d.txt\n@@\n-head A\n+HEAD A, patched and moved\n" +
			"*** Update File: b.txt\n@@\n-head B\n+HEAD B, patched\n*** End Patch\n"})
	case "patch":
		var p strings.Builder
		p.WriteString("*** Begin Patch\n")
		for _, n := range []string{"a", "b", "c"} {
			up := strings.ToUpper(n)
			fmt.Fprintf(&p, "*** Update File: %s.txt\n@@\n-head %s\n+HEAD %s, patched\n", n, up, up)
		}
		p.WriteString("*** End Patch\n")
		_, err = s.Patch(ctx, stet.PatchArgs{Patch: p.String()})
	}
	return err
}

// crashSetup makes the tree and a session that has read every file (and,
// for undo, already edited a.txt once).
func crashSetup(t *testing.T, op string) (root, state string) {
	t.Helper()
	root, state = t.TempDir(), t.TempDir()
	for name, data := range crashFiles() {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// a.txt is over one default read window: the setup reads each file
	// whole, so that a whole-file replace of it has seen every byte.
	ws, err := stet.Open([]string{root}, stet.Options{State: state, MaxReadBytes: 4 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("crash")
	if _, err := s.List(ctx, stet.ListArgs{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a.txt", "b.txt", "c.txt"} {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: n}); err != nil {
			t.Fatal(err)
		}
	}
	if op == "undo-move-over" {
		if _, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true}); err != nil {
			t.Fatal(err)
		}
	}
	if op == "undo" || op == "undo-session" || op == "undo-receipt" {
		if _, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("head A\n"), NewString: ptr("HEAD A, before the crash\n")}); err != nil {
			t.Fatal(err)
		}
	}
	return root, state
}

// snapshot reads every file of the tree (absent: "<none>").
func snapshot(root string) map[string]string {
	out := map[string]string{}
	for _, n := range []string{"a.txt", "b.txt", "c.txt", "d.txt"} {
		b, err := os.ReadFile(filepath.Join(root, n))
		if err != nil {
			out[n] = "<none>"
			continue
		}
		out[n] = string(b)
	}
	return out
}

func TestCrashHarness(t *testing.T) {
	// The test command runs a bounded crash run, 12 kills per kind of
	// change (enough for the every-op-landed check below), so the package
	// stays far under go test's 10 minutes on a busy 2-core machine under
	// -race; STET_SOAK=1 runs the long soak, STET_CRASH_RUNS any count.
	runs := 12 * len(crashOps)
	if testing.Short() {
		runs = 10 * len(crashOps)
	}
	if os.Getenv("STET_SOAK") == "1" {
		runs = 2000
	}
	if v, err := strconv.Atoi(os.Getenv("STET_CRASH_RUNS")); err == nil {
		runs = v
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no test executable to re-run:", err)
	}
	seed := uint64(time.Now().UnixNano())
	if v, err := strconv.ParseUint(os.Getenv("STET_CRASH_SEED"), 10, 64); err == nil {
		seed = v
	}
	t.Logf("seed %d (STET_CRASH_SEED reproduces it), %d runs", seed, runs)
	rng := rand.New(rand.NewPCG(seed, 1))
	// The after state of each op, computed once without a crash.
	want := map[string]map[string]string{}
	for _, op := range crashOps {
		root, state := crashSetup(t, op)
		before := snapshot(root)
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+strings.Join([]string{op, root, state, "none", "0"}, "|"))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s without a crash: %v\n%s", op, err, out)
		}
		want[op+"/old"], want[op+"/new"] = before, snapshot(root)
	}
	landed := map[string]int{}
	// Each op meets every kill point once in its first nine runs, in an
	// order of the seed's choosing, and at random after that: a run of ten
	// or more per op always reaches "after", which lands, so the check
	// below never rests on luck.
	points := []string{"timer", "timer", "timer", "swap", "afterswap", "adopt", "journalsync", "readback", "after"}
	order := map[string][]int{}
	for _, op := range crashOps {
		order[op] = rng.Perm(len(points))
	}
	for i := range runs {
		op := crashOps[i%len(crashOps)]
		killAt := points[rng.IntN(len(points))]
		if j := i / len(crashOps); j < len(points) {
			killAt = points[order[op][j]]
		}
		delay := rng.IntN(12000)
		root, state := crashSetup(t, op)
		cmd := exec.Command(exe, "-test.run=^$")
		cmd.Env = append(os.Environ(), crashEnv+"="+strings.Join([]string{op, root, state, killAt, strconv.Itoa(delay)}, "|"))
		if err := cmd.Run(); err != nil {
			// Only the kill may stop the child: a refusal or a failure to
			// open would leave the old tree and pass for nothing.
			var ee *exec.ExitError
			if !errors.As(err, &ee) || !strings.Contains(ee.String(), "killed") {
				t.Fatalf("run %d (%s, kill at %s %dµs): the child did not end by the kill: %v", i, op, killAt, delay, err)
			}
		}
		// The next start resolves what the child left.
		ws, err := stet.Open([]string{root}, stet.Options{State: state})
		if err != nil {
			t.Fatalf("run %d (%s, kill at %s %dµs): reopen: %v", i, op, killAt, delay, err)
		}
		got := snapshot(root)
		old, nw := want[op+"/old"], want[op+"/new"]
		isOld, isNew := equalTrees(got, old), equalTrees(got, nw)
		if !isOld && !isNew {
			ws.Close()
			t.Fatalf("run %d (%s, kill at %s %dµs): the tree is neither before nor after the change:\n%s", i, op, killAt, delay, treeDiff(got, old, nw))
		}
		rep, err := ws.Verify("")
		if err != nil || !rep.OK() {
			ws.Close()
			t.Fatalf("run %d (%s, kill at %s %dµs): verify --all: %v %+v", i, op, killAt, delay, err, rep.Problems)
		}
		if isNew && !isOld {
			landed[op]++
			// A landed change has a receipt, and undo takes it back exactly.
			s, _ := ws.Session("crash")
			path := map[string]string{"move": "d.txt", "move-over": "b.txt", "patch-move": "d.txt"}[op]
			if path == "" {
				path = "a.txt"
			}
			if op == "undo" || op == "undo-move-over" {
				// An undo is not itself undone; it must have its receipts.
				log, err := ws.Log("crash", "a.txt")
				if err == nil && op == "undo-move-over" {
					var restored []stet.LogEntry
					restored, err = ws.Log("crash", "b.txt")
					if err == nil && (len(restored) == 0 || restored[len(restored)-1].Undoes == "") {
						err = errors.New("the restore of b.txt has no receipt")
					}
				}
				if err != nil || len(log) == 0 || log[len(log)-1].Undoes == "" {
					ws.Close()
					t.Fatalf("run %d (undo, kill at %s %dµs): the landed undo has no receipt: %v %+v", i, killAt, delay, err, log)
				}
				ws.Close()
				continue
			}
			if _, err := s.Undo(ctx, stet.UndoArgs{Path: path}); err != nil {
				ws.Close()
				t.Fatalf("run %d (%s, kill at %s %dµs): undo of the landed change: %v", i, op, killAt, delay, err)
			}
			more := map[string][]string{"patch": {"b.txt", "c.txt"}, "patch-move": {"a.txt", "b.txt"}}[op]
			if len(more) > 0 {
				for _, p := range more {
					if _, err := s.Undo(ctx, stet.UndoArgs{Path: p}); err != nil {
						ws.Close()
						t.Fatalf("run %d (patch): undo %s: %v", i, p, err)
					}
				}
			}
			if after := snapshot(root); !equalTrees(after, old) {
				ws.Close()
				t.Fatalf("run %d (%s, kill at %s %dµs): undo did not restore the previous bytes:\n%s", i, op, killAt, delay, treeDiff(after, old, nw))
			}
		}
		ws.Close()
	}
	t.Logf("landed before the kill, per op: %v", landed)
	if runs >= 10*len(crashOps) {
		for _, op := range crashOps {
			if landed[op] == 0 {
				t.Errorf("%s never landed before its kill: the completion path went untested", op)
			}
		}
	}
}

func equalTrees(a, b map[string]string) bool {
	for k, v := range a {
		if b[k] != v {
			return false
		}
	}
	return len(a) == len(b)
}

func treeDiff(got, old, nw map[string]string) string {
	var b strings.Builder
	for _, n := range []string{"a.txt", "b.txt", "c.txt", "d.txt"} {
		state := "other"
		switch got[n] {
		case old[n]:
			state = "old"
		case nw[n]:
			state = "new"
		}
		fmt.Fprintf(&b, "  %s: %s (%d bytes)\n", n, state, len(got[n]))
	}
	return b.String()
}
