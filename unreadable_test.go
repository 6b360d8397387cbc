package stet_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// One directory that cannot be read does not fail a whole search: grep,
// find and list --depth skip it, give every other result, and say in a
// note what they skipped, as grep -r does; the directory named as path
// is still refused.
func TestUnreadableDirectoryIsSkippedAndSaid(t *testing.T) {
	if runtime.GOOS == "windows" || os.Geteuid() == 0 {
		t.Skip("needs a directory its user cannot read (POSIX modes, not root)")
	}
	_, s, root := open(t, map[string]string{"a/one.txt": "needle\n", "locked/two.txt": "needle\n", "z/three.txt": "needle\n"}, stet.Options{})
	locked := filepath.Join(root, "locked")
	if err := os.Chmod(locked, 0); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(locked, 0o755) })
	noted := func(tool string, notes []string) {
		t.Helper()
		if len(notes) != 1 || !strings.Contains(notes[0], "locked") {
			t.Errorf("%s notes %q, want one naming locked", tool, notes)
		}
	}
	g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle"})
	if err != nil {
		t.Fatalf("grep: %v", err)
	}
	if len(g.Matches) != 2 {
		t.Errorf("grep matches %+v, want a and z", g.Matches)
	}
	noted("grep", g.Notes)
	if txt := stet.Text(g); !strings.Contains(txt, "note: skipped 1 directory that could not be read: locked") {
		t.Errorf("grep text: %q", txt)
	}
	f, err := s.Find(ctx, stet.FindArgs{Pattern: "*.txt"})
	if err != nil || len(f.Paths) != 2 {
		t.Fatalf("find: %+v %v", f, err)
	}
	noted("find", f.Notes)
	l, err := s.List(ctx, stet.ListArgs{Path: ".", Depth: 3})
	if err != nil {
		t.Fatalf("list: %v", err)
	}
	noted("list", l.Notes)
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Path: "locked"}); err == nil || errors.Is(err, nil) {
		t.Errorf("grep of the unreadable directory named as path: %v, want a refusal", err)
	}
}
