package stet_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet"
)

// TestClientRootThroughALinkReachesNothing: a client directory that reaches
// outside the workspace through a symlink inside a root (named in the root,
// or reached through a link into the root from elsewhere) holds no root,
// however many roots lie where that symlink leads: the session narrowed to
// it reaches nothing. A directory that holds roots without passing through
// a root still holds them.
func TestClientRootThroughALinkReachesNothing(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "b")
	writeTree(t, a, map[string]string{"a.txt": "a\n"})
	writeTree(t, b, map[string]string{"b.txt": "b\n"})
	if err := os.Symlink("..", filepath.Join(a, "up")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	into := filepath.Join(t.TempDir(), "into")
	if err := os.Symlink(a, into); err != nil {
		t.Fatal(err)
	}
	s := openSession(t, []string{a, b}, stet.Options{})
	for _, dir := range []string{filepath.Join(a, "up"), filepath.Join(into, "up")} {
		v := s.Within([]string{dir})
		for _, p := range []string{filepath.Join(b, "b.txt"), filepath.Join(a, "a.txt")} {
			if _, err := v.Read(ctx, stet.ReadArgs{Path: p}); kindOf(err) != stet.KindOutside {
				t.Errorf("within %s: read %s: %v, want outside", dir, p, err)
			}
		}
	}
	// A link from elsewhere to the directory that holds both roots.
	holder := filepath.Join(t.TempDir(), "holder")
	if err := os.Symlink(base, holder); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{base, holder, into} {
		v := s.Within([]string{dir})
		if _, err := v.Read(ctx, stet.ReadArgs{Path: filepath.Join(a, "a.txt")}); err != nil {
			t.Errorf("within %s: read a.txt: %v", dir, err)
		}
	}
}
