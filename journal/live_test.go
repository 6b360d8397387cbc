package journal_test

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stet-dev/stet/journal"
)

// liveEnv, when set, makes TestLiveChild hold a liveness lock in the state
// directory it names, print the lock's name, and wait to be killed.
const liveEnv = "STET_JOURNAL_LIVE_CHILD"

func TestLiveChild(t *testing.T) {
	dir := os.Getenv(liveEnv)
	if dir == "" {
		t.Skip("run by TestLiveness")
	}
	j := open(t, dir)
	name, err := j.Live()
	if err != nil {
		t.Fatal(err)
	}
	os.Stdout.WriteString(name + "\n")
	// Held until killed. (Not select {}: with no timer pending, as when
	// the test binary runs without -timeout, the runtime would call that a
	// deadlock and end the process, freeing the lock.)
	for {
		time.Sleep(time.Hour)
	}
}

// A liveness lock is alive while its handle is open, in this process or
// another, and not once the handle is closed or its process killed; the
// lock file of a dead holder is removed by the handle that finds it free.
func TestLiveness(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	name, err := a.Live()
	if err != nil {
		t.Fatal(err)
	}
	if again, _ := a.Live(); again != name {
		t.Errorf("Live made a second lock %q beside %q", again, name)
	}
	if !b.Alive(name) || !a.Alive(name) {
		t.Error("an open handle's lock is not alive")
	}
	for _, bad := range []string{"", "../journal", strings.Repeat("0", 24)} {
		if b.Alive(bad) {
			t.Errorf("Alive(%q) = true", bad)
		}
	}
	a.Close()
	if b.Alive(name) {
		t.Error("a closed handle's lock is still alive")
	}

	exe, err := os.Executable()
	if err != nil {
		t.Skip(err)
	}
	cmd := exec.Command(exe, "-test.run=^TestLiveChild$", "-test.count=1")
	cmd.Env = append(os.Environ(), liveEnv+"="+dir)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	child, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		t.Fatal(err)
	}
	child = strings.TrimSpace(child)
	if !b.Alive(child) {
		t.Error("a running process's lock is not alive")
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	if b.Alive(child) {
		t.Error("a killed process's lock is still alive")
	}
	if _, err := os.Stat(filepath.Join(dir, "live", child+".lock")); !os.IsNotExist(err) {
		t.Errorf("the dead holder's lock file is still there: %v", err)
	}
}

// Compact removes the lock files of holders that are gone and keeps the
// held ones.
func TestCompactSweepsDeadLiveLocks(t *testing.T) {
	dir := t.TempDir()
	a, b := open(t, dir), open(t, dir)
	held, _ := a.Live()
	gone, _ := b.Live()
	b.Close()
	// A holder killed before Close leaves its file: made here by hand.
	dead := strings.Repeat("ab", 12)
	if err := os.WriteFile(filepath.Join(dir, "live", dead+".lock"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	// And one killed before it renamed its lock into place.
	if err := os.WriteFile(filepath.Join(dir, "live", dead+".new"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Compact(journal.CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{held + ".lock": true, gone + ".lock": false, dead + ".lock": false, dead + ".new": false} {
		_, err := os.Stat(filepath.Join(dir, "live", name))
		if (err == nil) != want {
			t.Errorf("lock %s: present %v, want %v", name, err == nil, want)
		}
	}
}
