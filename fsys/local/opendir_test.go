//go:build unix

package local

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/sys/unix"
)

// A directory's one-call open (opendir_linux.go) takes only paths without
// a symlink on them; a path that has one (a resolved path a symlink was
// swapped into since) is opened through os.Root as before: an in-root
// link is followed to its directory, one that leaves is refused.
func TestOpenDirFallsBackToTheRoot(t *testing.T) {
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "d", "e"), 0o755); err != nil {
		t.Fatal(err)
	}
	for link, target := range map[string]string{"in": "d", "out": t.TempDir()} {
		if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
			t.Skipf("symlink: %v", err)
		}
	}
	l, err := Open(dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	ino := func(fd int) uint64 {
		var st unix.Stat_t
		if err := unix.Fstat(fd, &st); err != nil {
			t.Fatal(err)
		}
		return st.Ino
	}
	var want unix.Stat_t
	if err := unix.Stat(filepath.Join(dir, "d", "e"), &want); err != nil {
		t.Fatal(err)
	}
	for _, rel := range []string{"d/e", "in/e"} {
		d, err := l.openDir(rel)
		if err != nil {
			t.Fatalf("openDir(%q): %v", rel, err)
		}
		if got := ino(d.fd); got != want.Ino {
			t.Errorf("openDir(%q) opened inode %d, want d/e's %d", rel, got, want.Ino)
		}
		d.close()
	}
	if d, err := l.openDir("out"); err == nil {
		d.close()
		t.Fatal("openDir through a link that leaves the root: opened")
	}
	if _, err := l.openDir("d/none"); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("openDir of a missing directory: %v, want not exist", err)
	}
}
