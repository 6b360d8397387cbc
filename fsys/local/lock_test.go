//go:build unix

package local_test

import (
	"bufio"
	"errors"
	"io"
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

// holdFlock makes another process hold flock(2) on dir (exclusive, or
// shared with shared) until the test ends. Without the flock(1) program it
// takes the lock on a descriptor of its own, which the kernel treats the
// same way: flock locks belong to open files, not to processes.
func holdFlock(t *testing.T, dir string, shared bool) {
	t.Helper()
	mode := "-x"
	if shared {
		mode = "-s"
	}
	if bin, err := exec.LookPath("flock"); err == nil {
		cmd := exec.Command(bin, mode, dir, "-c", "echo locked; exec sleep 60")
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		line, err := bufio.NewReader(out).ReadString('\n')
		if err != nil || strings.TrimSpace(line) != "locked" {
			t.Fatalf("flock(1): %q, %v", line, err)
		}
		return
	}
	f, err := os.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	how := syscall.LOCK_EX
	if shared {
		how = syscall.LOCK_SH
	}
	if err := syscall.Flock(int(f.Fd()), how); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
}

// within runs f and fails the test if it has not returned after d.
func within(t *testing.T, d time.Duration, what string, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(d):
		t.Fatalf("%s: still waiting after %v", what, d)
	}
}

func wantBusy(t *testing.T, what string, err error, dir string) {
	t.Helper()
	var be *fsys.BusyError
	if !errors.Is(err, fsys.ErrBusy) || !errors.As(err, &be) || be.Dir != dir {
		t.Fatalf("%s under a foreign lock: %v; want fsys.ErrBusy naming %s", what, err, dir)
	}
	if !strings.Contains(err.Error(), "another process holds a lock on "+dir) {
		t.Fatalf("%s: message %q does not say what holds it", what, err)
	}
}

func TestForeignLockWaitIsBounded(t *testing.T) {
	dir := t.TempDir()
	must(t, os.Mkdir(filepath.Join(dir, "sub"), 0o755))
	must(t, os.WriteFile(filepath.Join(dir, "sub", "f"), []byte("old"), 0o644))
	l := openRoot(t, dir, local.Options{LockWait: 300 * time.Millisecond})
	holdFlock(t, filepath.Join(dir, "sub"), false)

	var err error
	within(t, 10*time.Second, "read", func() { _, err = l.ReadFile("sub/f") })
	wantBusy(t, "read", err, "sub")
	within(t, 10*time.Second, "replace", func() {
		_, err = l.Replace("sub/f", []byte("new"), fsys.Expected{Version: fsys.VersionOf([]byte("old"))})
	})
	wantBusy(t, "replace", err, "sub")
	within(t, 10*time.Second, "create", func() { _, err = l.Create("sub/g", []byte("new"), 0) })
	wantBusy(t, "create", err, "sub")
	within(t, 10*time.Second, "remove", func() {
		_, err = l.Remove("sub/f", fsys.Expected{Version: fsys.VersionOf([]byte("old"))})
	})
	wantBusy(t, "remove", err, "sub")
	// Opens through an open directory wait for the lock too, each file
	// of a batch refused with it (nothing opened).
	d, err := l.OpenDir("sub")
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	within(t, 10*time.Second, "open in dir", func() { _, _, err = d.Open("f") })
	wantBusy(t, "open in dir", err, "sub")
	var errs []error
	within(t, 10*time.Second, "open each", func() {
		fsys.OpenEach(d, []string{"f", "f"}, func(_ int, r io.Reader, _ fsys.Info, err error) error {
			if r != nil {
				t.Errorf("open each under a foreign lock gave a reader")
			}
			errs = append(errs, err)
			return nil
		})
	})
	if len(errs) != 2 {
		t.Fatalf("open each: %d calls", len(errs))
	}
	for _, err := range errs {
		wantBusy(t, "open each", err, "sub")
	}
	ents, _ := os.ReadDir(filepath.Join(dir, "sub"))
	if len(ents) != 1 || ents[0].Name() != "f" {
		t.Fatalf("after refused commits the directory holds %v", ents)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "sub", "f")); string(b) != "old" {
		t.Fatalf("bytes %q", b)
	}
	// Elsewhere nothing waits.
	must(t, os.WriteFile(filepath.Join(dir, "g"), []byte("g"), 0o644))
	if b, err := l.ReadFile("g"); err != nil || string(b) != "g" {
		t.Fatalf("read beside the lock: %q, %v", b, err)
	}
}

func TestForeignSharedLockLetsReadsThrough(t *testing.T) {
	dir := t.TempDir()
	must(t, os.WriteFile(filepath.Join(dir, "f"), []byte("old"), 0o644))
	l := openRoot(t, dir, local.Options{LockWait: 300 * time.Millisecond})
	holdFlock(t, dir, true)
	var b []byte
	var err error
	within(t, 10*time.Second, "read", func() { b, err = l.ReadFile("f") })
	if err != nil || string(b) != "old" {
		t.Fatalf("read under a shared lock: %q, %v", b, err)
	}
	within(t, 10*time.Second, "replace", func() {
		_, err = l.Replace("f", []byte("new"), fsys.Expected{Version: fsys.VersionOf([]byte("old"))})
	})
	wantBusy(t, "replace", err, ".")
}
