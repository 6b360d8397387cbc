package stet_test

import (
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/memfs"
)

// TestInMemoryWorkspace runs the facade over the in-memory backend: the same
// rules hold without touching the host filesystem.
func TestInMemoryWorkspace(t *testing.T) {
	m := memfs.New()
	if err := m.WriteFile("a.txt", []byte("one\ntwo\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := m.Symlink("/elsewhere/secret", "leak"); err != nil {
		t.Fatal(err)
	}
	ws, err := stet.Open([]string{"/memfs"}, stet.Options{State: t.TempDir(), Providers: []fsys.Provider{m}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("mem")
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("1")}); kindOf(err) != stet.KindNotRead {
		t.Fatalf("edit before read: %v", err)
	}
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	res, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("1")})
	if err != nil || !res.Receipt.Verified {
		t.Fatalf("edit: %+v %v", res, err)
	}
	b, _ := m.ReadFile("a.txt")
	if string(b) != "1\ntwo\n" {
		t.Fatalf("memfs holds %q", b)
	}
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "leak"}); kindOf(err) != stet.KindOutside {
		t.Fatalf("a link leaving the tree: %v", err)
	}
	r, err := s.Read(ctx, stet.ReadArgs{Path: "/memfs/a.txt"})
	if err != nil || !strings.HasPrefix(r.Frame, "00001|1\n") {
		t.Fatalf("absolute path inside the root: %+v %v", r, err)
	}
}
