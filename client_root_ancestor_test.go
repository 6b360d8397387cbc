package stet_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet"
)

// TestClientRootHoldingTheWorkspaceNarrowsNothing: a client root that holds the whole workspace (the
// repository the workspace is a folder of) narrows nothing, so every path
// of the workspace stays reachable; roots narrow, they never shut the
// workspace (SPEC section 9, MCP). Checked on resolved paths: the
// announced directory may be spelled through a symlink.
func TestClientRootHoldingTheWorkspaceNarrowsNothing(t *testing.T) {
	ctx := context.Background()
	_, base, root := open(t, map[string]string{"a.txt": "a\n"}, stet.Options{})
	parent := filepath.Dir(root)
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(parent, link); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	for _, dirs := range [][]string{{parent}, {link}, {filepath.Dir(parent)}, {root}} {
		s := base.Within(dirs)
		if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
			t.Errorf("within %v: read a.txt: %v", dirs, err)
		}
		if _, err := s.List(ctx, stet.ListArgs{}); err != nil {
			t.Errorf("within %v: list: %v", dirs, err)
		}
	}
}
