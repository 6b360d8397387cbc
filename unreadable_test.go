package stet_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
)

// One directory that cannot be read does not fail a whole search: grep,
// find and list --depth skip it, give every other result, and say in a
// note what they skipped, as grep -r does; the directory named as path
// is still refused.
func TestUnreadableDirectoryIsSkippedAndSaid(t *testing.T) {
	root := t.TempDir()
	for name, body := range map[string]string{"a/one.txt": "needle\n", "locked/two.txt": "needle\n", "z/three.txt": "needle\n"} {
		os.MkdirAll(filepath.Join(root, filepath.Dir(name)), 0o755)
		os.WriteFile(filepath.Join(root, name), []byte(body), 0o644)
	}
	// The directory cannot be listed: as for a user without the right
	// (mode 000), whoever runs the test, root included.
	p, err := local.Open(root, local.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: t.TempDir(), Providers: []fsys.Provider{unlistable{p, "locked"}}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("agent")
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
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Path: "locked"}); err == nil {
		t.Errorf("grep of the unreadable directory named as path: %v, want a refusal", err)
	}
}

// unlistable is a provider whose directory dir cannot be listed.
type unlistable struct {
	fsys.Provider
	dir string
}

func (u unlistable) ReadDir(name string) ([]fsys.Info, error) {
	if name == u.dir {
		return nil, fsys.E("readdir", name, fs.ErrPermission, nil)
	}
	return u.Provider.ReadDir(name)
}
