//go:build unix

package local_test

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/journal"
)

const keepMoveCrashEnv = "STET_LOCAL_KEEP_MOVE_CRASH"

// TestKeepMoveCrashHelper is not a test: run by the tests below in a child
// process, it moves a new file g over root/f with RenameKeep in a loop,
// handing the file it replaces to the journal in state, until it is
// killed. The mode "swap" kills it right after the first exchange (before
// the handover), "stage" once the replaced file is in the store under its
// staging name (before the journal takes it). Before each move it prints,
// as an intent would record it, the version the move replaces.
func TestKeepMoveCrashHelper(t *testing.T) {
	env := os.Getenv(keepMoveCrashEnv)
	if env == "" {
		t.Skip("helper process for the keep move crash tests")
	}
	mode, base, _ := strings.Cut(env, ":")
	die := func() { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	hooks := fsys.Hooks{}
	if mode == "swap" {
		hooks.AfterSwap = func(name string) {
			if name == "f" { // the move's, not the create's of g
				die()
			}
		}
	}
	fail := func(err ...any) {
		fmt.Fprintln(os.Stderr, err...)
		os.Exit(2)
	}
	l, err := local.Open(filepath.Join(base, "root"), local.Options{Hooks: hooks})
	if err != nil {
		fail(err)
	}
	j, err := journal.Open(filepath.Join(base, "state"), journal.Options{})
	if err != nil {
		fail(err)
	}
	a, b := crashContents()
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		cur, err := l.ReadFile("f")
		if err != nil {
			fail(err)
		}
		next := a
		if bytes.Equal(cur, a) {
			next = b
		}
		v := fsys.VersionOf(cur)
		fmt.Fprintf(out, "intent %s\n", v)
		out.Flush()
		if _, err := l.Create("g", next, 0o644); err != nil {
			fail(err)
		}
		ad, err := j.Adopt(string(v), int64(len(cur)))
		if err != nil {
			fail(err)
		}
		take := ad.Take
		if mode == "stage" {
			take = func(os.FileInfo) error { die(); return nil }
		}
		k := fsys.Keep{Dir: ad.Dir(), Name: ad.Name(), Adopt: take, Save: func() error { _, err := j.Put(cur); return err }}
		_, kept, err := l.RenameKeep("g", "f", fsys.Expected{Version: fsys.VersionOf(next), Bytes: next}, fsys.Expected{Version: v, Bytes: cur}, k)
		ad.Close()
		if err != nil || !kept.Adopted {
			fail(err, kept)
		}
		if i == 0 {
			fmt.Fprintln(out, "ready")
			out.Flush()
		}
	}
}

// runKeepMoveHelper starts the helper on base.
func runKeepMoveHelper(t *testing.T, mode, base string) (*exec.Cmd, *bufio.Scanner, *bytes.Buffer) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestKeepMoveCrashHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), keepMoveCrashEnv+"="+mode+":"+base)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	return cmd, bufio.NewScanner(out), &stderr
}

// recoverMove does what intent recovery does after a move over f that
// replaced version v was killed: the sweep removes the dead process's temp
// files; a g holding v is the replaced file left under the move's old name
// after the exchange, and is adopted (AdoptMoved); a g holding anything
// else is the moved file before the move, and goes. It returns what it did.
func recoverMove(t *testing.T, base string, v fsys.Version) string {
	root := filepath.Join(base, "root")
	l, err := local.Open(root, local.Options{})
	must(t, err)
	defer l.Close()
	if _, err := l.SweepKeeping(nil, func(string) bool { return false }); err != nil {
		t.Fatal(err)
	}
	g := filepath.Join(root, "g")
	info, err := os.Lstat(g)
	if err != nil {
		return "no g" // the handover was done, or g was never made
	}
	j, err := journal.Open(filepath.Join(base, "state"), journal.Options{})
	must(t, err)
	defer j.Close()
	ad, err := j.Adopt(string(v), info.Size())
	must(t, err)
	defer ad.Close()
	save := func() error { return errors.New("recovery adopts or leaves, it does not copy here") }
	kept, err := l.AdoptMoved("g", fsys.Expected{Version: v}, fsys.Keep{Dir: ad.Dir(), Name: ad.Name(), Adopt: ad.Take, Save: save})
	switch {
	case errors.Is(err, fsys.ErrConflict):
		// Killed before the exchange: g holds the bytes to be moved.
		must(t, os.Remove(g))
		return "removed"
	case err != nil:
		t.Fatal(err)
	case !kept.Adopted:
		t.Fatalf("recovery did not adopt: %+v", kept)
	}
	return "adopted"
}

// checkMoveCrash checks root after a killed move over f that replaced v,
// once recovered: f holds one version whole, only f is left, and when the
// move landed the store holds the replaced bytes (the journal's Open
// completes one the kill left staged).
func checkMoveCrash(t *testing.T, base string, v fsys.Version) (landed bool) {
	t.Helper()
	a, b := crashContents()
	root := filepath.Join(base, "root")
	got, err := os.ReadFile(filepath.Join(root, "f"))
	must(t, err)
	if !bytes.Equal(got, a) && !bytes.Equal(got, b) {
		t.Fatalf("f holds %d bytes that are neither version", len(got))
	}
	onlyFiles(t, root, "f")
	if fsys.VersionOf(got) == v {
		return false
	}
	prev := a
	if bytes.Equal(got, a) {
		prev = b
	}
	s := newStore(t, filepath.Join(base, "state"))
	s.has(prev)
	s.j.Close()
	return true
}

func moveCrashBase(t *testing.T) string {
	base := t.TempDir()
	must(t, os.Mkdir(filepath.Join(base, "root"), 0o755))
	a, _ := crashContents()
	must(t, os.WriteFile(filepath.Join(base, "root", "f"), a, 0o640))
	return base
}

// A move killed between its exchange and the handover leaves the moved
// bytes at the new name and the replaced ones under the old name: recovery
// adopts them from there. Killed once they are staged in the store, the
// journal's next Open makes them the blob.
func TestKeepMoveCrashAtTheHandover(t *testing.T) {
	for _, c := range []struct{ mode, did string }{{"swap", "adopted"}, {"stage", "no g"}} {
		t.Run(c.mode, func(t *testing.T) {
			base := moveCrashBase(t)
			cmd, lines, stderr := runKeepMoveHelper(t, c.mode, base)
			var v string
			for lines.Scan() {
				if f := strings.Fields(lines.Text()); len(f) == 2 && f[0] == "intent" {
					v = f[1]
				}
			}
			err := cmd.Wait()
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
				t.Fatalf("the helper was not killed at the %s: %v; stderr: %s", c.mode, err, stderr)
			}
			if did := recoverMove(t, base, fsys.Version(v)); did != c.did {
				t.Fatalf("recovery: %s, want %s", did, c.did)
			}
			if !checkMoveCrash(t, base, fsys.Version(v)) {
				t.Fatal("the move did not land before its kill")
			}
		})
	}
}

// Killed at random instants, every move over f leaves f old or new and
// only f; after recovery, a move that landed has the replaced bytes in the
// store.
func TestKeepMoveCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 100 processes")
	}
	base := moveCrashBase(t)
	rng := rand.New(rand.NewPCG(5, 6))
	did := map[string]int{}
	for i := range 100 {
		cmd, lines, stderr := runKeepMoveHelper(t, "loop", base)
		var v string
		for lines.Scan() {
			line := lines.Text()
			if f := strings.Fields(line); len(f) == 2 && f[0] == "intent" {
				v = f[1]
			}
			if line == "ready" {
				break
			}
		}
		intents := make(chan string, 1)
		go func() {
			last := v
			for lines.Scan() {
				if f := strings.Fields(lines.Text()); len(f) == 2 && f[0] == "intent" {
					last = f[1]
				}
			}
			intents <- last
		}()
		time.Sleep(time.Duration(rng.Int64N(int64(6 * time.Millisecond))))
		must(t, cmd.Process.Signal(syscall.SIGKILL))
		cmd.Wait()
		last := fsys.Version(<-intents)
		if stderr.Len() > 0 {
			t.Fatalf("kill %d: helper failed: %s", i, stderr)
		}
		did[recoverMove(t, base, last)]++
		if checkMoveCrash(t, base, last) {
			did["landed"]++
		}
	}
	t.Logf("100 kills; recovery: %v", did)
	if did["adopted"] == 0 {
		t.Log("no kill fell between an exchange and its handover")
	}
}
