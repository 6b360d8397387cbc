package local_test

import (
	"bufio"
	"bytes"
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
)

const crashDirEnv = "STET_LOCAL_CRASH_DIR"

// crashContents are the two versions the helper alternates: different
// sizes and bytes, so a mix of the two is never equal to either.
func crashContents() (a, b []byte) {
	return bytes.Repeat([]byte("a"), 48<<10), bytes.Repeat([]byte("Bb\n"), 30<<10)
}

// TestCrashHelper is not a test: run by TestCrashSafety in a child process,
// it replaces one file in a loop until it is killed.
func TestCrashHelper(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("helper process for TestCrashSafety")
	}
	l, err := local.Open(dir, local.Options{NoExchange: os.Getenv(crashDirEnv+"_FALLBACK") == "1"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	a, b := crashContents()
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
		if _, err := l.Replace("f", next, fsys.Expected{Version: fsys.VersionOf(cur), Bytes: cur}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		if i == 0 {
			fmt.Println("ready")
		}
	}
}

// TestCrashSafety kills a process looping Replace at random instants: the
// file must always hold one version or the other exactly, and a sweep at
// the next Open must leave no temp file.
func TestCrashSafety(t *testing.T) {
	if testing.Short() {
		t.Skip("spawns 200 processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	dir := t.TempDir()
	a, b := crashContents()
	must(t, os.WriteFile(filepath.Join(dir, "f"), a, 0o640))
	rng := rand.New(rand.NewPCG(1, 2))
	const kills = 200
	swept, sawA, sawB := 0, 0, 0
	for i := range kills {
		cmd := exec.Command(exe, "-test.run=^TestCrashHelper$", "-test.count=1")
		cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
		if i%4 == 3 {
			cmd.Env = append(cmd.Env, crashDirEnv+"_FALLBACK=1")
		}
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.StdoutPipe()
		must(t, err)
		must(t, cmd.Start())
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || strings.TrimSpace(line) != "ready" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("kill %d: helper did not start: %q %v; stderr: %s", i, line, err, stderr.String())
		}
		time.Sleep(time.Duration(rng.Int64N(int64(4 * time.Millisecond))))
		must(t, cmd.Process.Signal(syscall.SIGKILL))
		cmd.Wait()
		if stderr.Len() > 0 {
			t.Fatalf("kill %d: helper failed: %s", i, stderr.String())
		}

		data, err := os.ReadFile(filepath.Join(dir, "f"))
		must(t, err)
		switch {
		case bytes.Equal(data, a):
			sawA++
		case bytes.Equal(data, b):
			sawB++
		default:
			t.Fatalf("kill %d: file holds %d bytes that are neither version", i, len(data))
		}
		fi, err := os.Stat(filepath.Join(dir, "f"))
		must(t, err)
		if fi.Mode().Perm() != 0o640 {
			t.Fatalf("kill %d: mode %v, want 0640", i, fi.Mode().Perm())
		}
		ents, err := os.ReadDir(dir)
		must(t, err)
		left := len(ents) - 1
		l, err := local.Open(dir, local.Options{Sweep: true})
		must(t, err)
		l.Close()
		ents, err = os.ReadDir(dir)
		must(t, err)
		if len(ents) != 1 {
			var names []string
			for _, e := range ents {
				names = append(names, e.Name())
			}
			t.Fatalf("kill %d: after the sweep the directory holds %q", i, names)
		}
		swept += left
	}
	t.Logf("%d kills: %d left version a, %d version b; the sweeps removed %d temp files", kills, sawA, sawB, swept)
	if sawA == 0 || sawB == 0 || swept == 0 {
		t.Errorf("the kills never interrupted a Replace (a=%d b=%d swept=%d)", sawA, sawB, swept)
	}
}
