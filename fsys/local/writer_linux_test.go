package local

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/stet-dev/stet/fsys"
)

// A refused lease is trusted only on local filesystems: on NFS or SMB a
// client may refuse one with no writer anywhere, which would refuse every
// change there.
func TestOpenWriterAsksOnlyLocalFilesystems(t *testing.T) {
	for magic, want := range map[int64]bool{
		unix.NFS_SUPER_MAGIC: true, 0xFF534D42: true, 0xFE534D42: true, unix.SMB_SUPER_MAGIC: true,
		unix.EXT4_SUPER_MAGIC: false, unix.TMPFS_MAGIC: false, unix.XFS_SUPER_MAGIC: false, unix.BTRFS_SUPER_MAGIC: false,
	} {
		if got := networkFS(magic); got != want {
			t.Errorf("networkFS(%#x) = %v, want %v", magic, got, want)
		}
	}
}

// writerFile makes a file in a temp dir and returns its path and a
// read-only descriptor of it (closed at the test's end).
func writerFile(t *testing.T) (string, int) {
	t.Helper()
	name := filepath.Join(t.TempDir(), "app.log")
	if err := os.WriteFile(name, []byte("line 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	fd, err := unix.Open(name, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { unix.Close(fd) })
	return name, fd
}

// A descriptor open for writing that closes within the wait refuses
// nothing: a child forked while the file was open holds such a copy until
// its exec, a moment after the file's owner closed it.
func TestAwaitNoWriterOutlastsABriefWriter(t *testing.T) {
	name, fd := writerFile(t)
	w, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	pauses := 0
	err = awaitNoWriter(fd, writerWait, func(time.Duration) {
		if pauses++; pauses == 2 {
			w.Close() // the copy goes away during the second pause
		}
	})
	if err != nil {
		t.Fatalf("a writer gone within the wait: %v", err)
	}
	if pauses != 2 {
		t.Fatalf("%d pauses, want 2: the lease was asked again until the writer had closed the file", pauses)
	}
}

// A writer that stays is refused after the whole wait, and the error names
// it: here this very process.
func TestAwaitNoWriterRefusesAWriterThatStays(t *testing.T) {
	name, fd := writerFile(t)
	w, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	var slept time.Duration
	err = awaitNoWriter(fd, writerWait, func(d time.Duration) { slept += d })
	var we *fsys.WriterError
	if !errors.As(err, &we) {
		t.Fatalf("a writer that stays: %v, want a *fsys.WriterError", err)
	}
	if we.Waited != writerWait || slept != writerWait {
		t.Errorf("waited %v (slept %v), want %v", we.Waited, slept, writerWait)
	}
	self := fmt.Sprintf("pid %d (this process)", os.Getpid())
	if len(we.Holders) != 1 || we.Holders[0] != self {
		t.Errorf("holders %q, want [%s]", we.Holders, self)
	}
}

// The holder named is the process that has the file open for writing,
// not one that merely reads it: here a child given the descriptor, after
// this process closed its own.
func TestWritersOfNamesAnotherProcess(t *testing.T) {
	sleep, err := exec.LookPath("sleep")
	if err != nil {
		t.Skip("no sleep(1) to hold the file:", err)
	}
	name, fd := writerFile(t)
	w, err := os.OpenFile(name, os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(sleep, "60")
	cmd.ExtraFiles = []*os.File{w}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	w.Close()
	want := fmt.Sprintf("pid %d (sleep)", cmd.Process.Pid)
	if got := writersOf(fd, "/proc"); len(got) != 1 || got[0] != want {
		t.Errorf("writersOf = %q, want [%s]", got, want)
	}
}
