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
	// Ages are taken on the journal's clock (testTime), not the wall's.
	old := testTime.Add(-2 * time.Minute)
	if err := os.Chtimes(filepath.Join(dir, "live", dead+".new"), old, old); err != nil {
		t.Fatal(err)
	}
	// A young one may be a live holder between making and locking it.
	young := strings.Repeat("cd", 12)
	if err := os.WriteFile(filepath.Join(dir, "live", young+".new"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := a.Compact(journal.CompactOptions{}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{held + ".lock": true, gone + ".lock": false, dead + ".lock": false, dead + ".new": false, young + ".new": true} {
		_, err := os.Stat(filepath.Join(dir, "live", name))
		if (err == nil) != want {
			t.Errorf("lock %s: present %v, want %v", name, err == nil, want)
		}
	}
}

// Compact leaves Exclusive's lock files alone: a process holding one keeps
// holding the lock on the file others will open.
func TestCompactKeepsExclusiveLocks(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	mustAppend(t, j, journal.Record{Type: "a", Session: "s"})
	var during []string
	err := j.Exclusive("intents", func() error {
		if _, err := j.Compact(journal.CompactOptions{}); err != nil {
			return err
		}
		ents, _ := os.ReadDir(filepath.Join(dir, "cursors"))
		for _, e := range ents {
			during = append(during, e.Name())
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(during) != 1 || !strings.HasSuffix(during[0], ".lock") {
		t.Errorf("cursors/ after a compaction under Exclusive: %v, want its lock file", during)
	}
}

// Putting bytes already stored makes the blob young again, so a compaction
// running beside the change that needs it keeps it.
func TestPutOfStoredBytesRefreshesTheBlob(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	v, err := j.Put([]byte("old content\n"))
	if err != nil {
		t.Fatal(err)
	}
	h := strings.TrimPrefix(v, "sha256:")
	var blob string
	filepath.WalkDir(filepath.Join(dir, "objects"), func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.Contains(p, h[2:]) {
			blob = p
		}
		return nil
	})
	if blob == "" {
		t.Fatal("blob file not found")
	}
	long := testTime.Add(-48 * time.Hour)
	os.Chtimes(blob, long, long)
	if _, err := j.Put([]byte("old content\n")); err != nil {
		t.Fatal(err)
	}
	// Touched to the journal's clock (Options.Now), not the wall clock.
	if info, err := os.Stat(blob); err != nil || !info.ModTime().Equal(testTime) {
		t.Errorf("blob mtime after a second Put: %v %v, want the journal's clock %v", info.ModTime(), err, testTime)
	}
}

// zeros is a random source that only gives zero bytes, so the next random
// name is known.
type zeros struct{}

func (zeros) Read(p []byte) (int, error) { clear(p); return len(p), nil }

// A liveness lock that could not be put in place is no lock: Live reports
// the failure instead of naming a file that nothing holds, which another
// handle would take for a writer that died and take its intents over.
func TestLiveFailsWhenItsLockCannotBePlaced(t *testing.T) {
	dir := t.TempDir()
	j, err := journal.Open(dir, journal.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	journal.SetRand(j, zeros{})
	name := strings.Repeat("0", 24)
	// The lock's final name is taken by a non-empty directory, so the
	// rename that puts the lock in place fails.
	blocker := filepath.Join(dir, "live", name+".lock")
	if err := os.MkdirAll(filepath.Join(blocker, "x"), 0o700); err != nil {
		t.Fatal(err)
	}
	got, err := j.Live()
	if err == nil {
		t.Fatalf("Live() = %q, nil; want an error (its lock file could not be placed)", got)
	}
}
