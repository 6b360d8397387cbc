package stet_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet"
)

// Delete through an in-workspace symlink removes the file it leads to and
// says undo brings it back; undo does: the file returns under its own name
// and the link leads to it again.
func TestUndoOfDeleteThroughSymlinkRestoresFileAndLink(t *testing.T) {
	_, s, root := open(t, map[string]string{"notes/today.md": "# Today\n- call Ana\n"}, stet.Options{})
	os.Chmod(filepath.Join(root, "notes/today.md"), 0o640)
	if err := os.Symlink("notes/today.md", filepath.Join(root, "today")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	readAll(t, s, "today")
	if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "today"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "notes/today.md")); !os.IsNotExist(err) {
		t.Fatalf("the file the link leads to is still there: %v", err)
	}
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "today"}); err != nil {
		t.Fatalf("undo of a delete through a symlink: %v", err)
	}
	if got := content(t, root, "today"); got != "# Today\n- call Ana\n" {
		t.Errorf("through the link after undo: %q", got)
	}
	if target, err := os.Readlink(filepath.Join(root, "today")); err != nil || target != "notes/today.md" {
		t.Errorf("the link is %q, %v; want it kept, leading to notes/today.md", target, err)
	}
	if fi, err := os.Stat(filepath.Join(root, "notes/today.md")); err != nil || fi.Mode().Perm() != 0o640 {
		t.Errorf("restored file: %v, %v; want mode 0640", fi, err)
	}
}
