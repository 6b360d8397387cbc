package ignore

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stet-dev/stet/internal/fstree"
)

// A global excludes file that is a FIFO (or anything but a regular file) is
// skipped at once: a walk never blocks on it.
func TestGlobalExcludesFIFODoesNotBlock(t *testing.T) {
	xdg := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("HOME", t.TempDir())
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	if err := os.MkdirAll(filepath.Join(xdg, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := fstree.Mkfifo(filepath.Join(xdg, "git", "ignore")); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	done := make(chan *List, 1)
	go func() { done <- GlobalExcludes() }()
	select {
	case l := <-done:
		if l == nil {
			t.Fatal("no list")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("reading a FIFO as the global excludes file blocked")
	}
}
