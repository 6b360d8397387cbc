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

const keepCrashEnv = "STET_LOCAL_KEEP_CRASH"

// TestKeepCrashHelper is not a test: run by the tests below in a child
// process, it replaces root/f with ReplaceKeep in a loop, handing the old
// file to the journal in state, until it is killed (or, with the mode
// "swap", kills itself right after the first exchange, before the
// handover). Before each replace it prints, as an intent would record
// it, the temp name and the version it displaces.
func TestKeepCrashHelper(t *testing.T) {
	env := os.Getenv(keepCrashEnv)
	if env == "" {
		t.Skip("helper process for the keep crash tests")
	}
	mode, base, _ := strings.Cut(env, ":")
	hooks := fsys.Hooks{}
	if mode == "swap" {
		hooks.AfterSwap = func(string) { syscall.Kill(os.Getpid(), syscall.SIGKILL) }
	}
	l, err := local.Open(filepath.Join(base, "root"), local.Options{Hooks: hooks})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	j, err := journal.Open(filepath.Join(base, "state"), journal.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	a, b := crashContents()
	out := bufio.NewWriter(os.Stdout)
	for i := 0; ; i++ {
		cur, err := l.ReadFile("f")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		next := a
		if bytes.Equal(cur, a) {
			next = b
		}
		v := fsys.VersionOf(cur)
		tmp := l.TempName()
		fmt.Fprintf(out, "intent %s %s\n", tmp, v)
		out.Flush()
		ad, err := j.Adopt(string(v), int64(len(cur)))
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		k := fsys.Keep{Dir: ad.Dir(), Name: ad.Name(), Adopt: ad.Take, Save: func() error { _, err := j.Put(cur); return err }}
		_, kept, err := l.ReplaceKeep("f", next, fsys.Expected{Version: v, Bytes: cur, Temp: tmp}, k)
		ad.Close()
		if err != nil || !kept.Adopted {
			fmt.Fprintln(os.Stderr, err, kept)
			os.Exit(2)
		}
		if i == 0 {
			fmt.Fprintln(out, "ready")
			out.Flush()
		}
	}
}

// runKeepHelper starts the helper on base and returns it with the lines it
// printed so far, read by the caller.
func runKeepHelper(t *testing.T, mode, base string) (*exec.Cmd, *bufio.Scanner, *bytes.Buffer) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestKeepCrashHelper$", "-test.count=1")
	cmd.Env = append(os.Environ(), keepCrashEnv+"="+mode+":"+base)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.StdoutPipe()
	must(t, err)
	must(t, cmd.Start())
	return cmd, bufio.NewScanner(out), &stderr
}

// recoverKeep does what intent recovery does with the temp file an intent
// named: adopt it if it holds the displaced version, and otherwise leave
// it. The sweep meanwhile keeps it. It returns what it did.
func recoverKeep(t *testing.T, base, tmp string, v fsys.Version) string {
	root := filepath.Join(base, "root")
	l, err := local.Open(root, local.Options{})
	must(t, err)
	defer l.Close()
	if _, err := l.SweepKeeping(nil, func(name string) bool { return name == tmp }); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(filepath.Join(root, tmp)); err != nil {
		return "no temp" // the handover was done, or the swap was not
	}
	j, err := journal.Open(filepath.Join(base, "state"), journal.Options{})
	must(t, err)
	defer j.Close()
	info, err := os.Stat(filepath.Join(root, tmp))
	must(t, err)
	ad, err := j.Adopt(string(v), info.Size())
	must(t, err)
	defer ad.Close()
	save := func() error { return errors.New("recovery adopts or leaves, it does not copy here") }
	kept, err := l.AdoptTemp(tmp, fsys.Expected{Version: v}, fsys.Keep{Dir: ad.Dir(), Name: ad.Name(), Adopt: ad.Take, Save: save})
	switch {
	case errors.Is(err, fsys.ErrConflict):
		// Killed before the exchange: the temp holds the new bytes.
		must(t, l.RemoveTemp(tmp))
		return "removed"
	case err != nil:
		t.Fatal(err)
	case !kept.Adopted:
		t.Fatalf("recovery did not adopt: %+v", kept)
	}
	return "adopted"
}

// A process killed between the exchange and the handover leaves the new
// bytes in place and the old ones under the temp name the intent recorded:
// the sweep keeps that file and recovery adopts it.
func TestKeepCrashBetweenExchangeAndAdopt(t *testing.T) {
	base := t.TempDir()
	must(t, os.Mkdir(filepath.Join(base, "root"), 0o755))
	a, b := crashContents()
	must(t, os.WriteFile(filepath.Join(base, "root", "f"), a, 0o640))
	cmd, lines, stderr := runKeepHelper(t, "swap", base)
	var tmp, v string
	for lines.Scan() {
		if f := strings.Fields(lines.Text()); len(f) == 3 && f[0] == "intent" {
			tmp, v = f[1], f[2]
		}
	}
	err := cmd.Wait()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.Sys().(syscall.WaitStatus).Signal() != syscall.SIGKILL {
		t.Fatalf("the helper was not killed at the swap: %v; stderr: %s", err, stderr)
	}
	got, err := os.ReadFile(filepath.Join(base, "root", "f"))
	must(t, err)
	if !bytes.Equal(got, b) {
		t.Fatalf("f holds %d bytes, want the new version", len(got))
	}
	if string(fsys.VersionOf(a)) != v {
		t.Fatalf("the intent names %s", v)
	}
	if did := recoverKeep(t, base, tmp, fsys.Version(v)); did != "adopted" {
		t.Fatalf("recovery: %s, want the displaced file adopted", did)
	}
	s := newStore(t, filepath.Join(base, "state"))
	s.has(a)
	onlyFiles(t, filepath.Join(base, "root"), "f")
}

// Killed at random instants, every replace leaves the file old or new and,
// after recovery, the previous version in the store.
func TestKeepCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 100 processes")
	}
	base := t.TempDir()
	root := filepath.Join(base, "root")
	must(t, os.Mkdir(root, 0o755))
	a, b := crashContents()
	must(t, os.WriteFile(filepath.Join(root, "f"), a, 0o640))
	rng := rand.New(rand.NewPCG(3, 4))
	did := map[string]int{}
	for i := range 100 {
		cmd, lines, stderr := runKeepHelper(t, "loop", base)
		var tmp, v string
		for lines.Scan() {
			line := lines.Text()
			if f := strings.Fields(line); len(f) == 3 && f[0] == "intent" {
				tmp, v = f[1], f[2]
			}
			if line == "ready" {
				break
			}
		}
		// The lines the helper prints past ready are read by a goroutine
		// so that it never blocks on the pipe.
		intents := make(chan [2]string, 1)
		go func() {
			last := [2]string{tmp, v}
			for lines.Scan() {
				if f := strings.Fields(lines.Text()); len(f) == 3 && f[0] == "intent" {
					last = [2]string{f[1], f[2]}
				}
			}
			intents <- last
		}()
		time.Sleep(time.Duration(rng.Int64N(int64(6 * time.Millisecond))))
		must(t, cmd.Process.Signal(syscall.SIGKILL))
		cmd.Wait()
		last := <-intents
		if stderr.Len() > 0 {
			t.Fatalf("kill %d: helper failed: %s", i, stderr)
		}
		got, err := os.ReadFile(filepath.Join(root, "f"))
		must(t, err)
		var prev []byte
		switch {
		case bytes.Equal(got, a):
			prev = b
		case bytes.Equal(got, b):
			prev = a
		default:
			t.Fatalf("kill %d: f holds %d bytes that are neither version", i, len(got))
		}
		did[recoverKeep(t, base, last[0], fsys.Version(last[1]))]++
		s := newStore(t, filepath.Join(base, "state"))
		s.has(prev)
		s.j.Close()
		onlyFiles(t, root, "f")
	}
	t.Logf("100 kills; recovery: %v", did)
	if did["adopted"] == 0 && did["removed"] == 0 {
		t.Log("no kill fell inside a replace's temp file's life")
	}
}
