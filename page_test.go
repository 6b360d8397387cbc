package stet_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// pageFiles is n files under dir with long names, each holding one
// matching line.
func pageFiles(dir string, n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		files[fmt.Sprintf("%s/a_rather_long_generated_file_name_for_paging_%04d.txt", dir, i)] = "needle in a line of ordinary length, as code has\n"
	}
	return files
}

// TestDefaultPageBytes: a default page of list, find and grep (no limit)
// ends, truncated, before its names or rows pass DefaultPageBytes, so that
// it stays within the context budget; an explicit limit is served as asked.
func TestDefaultPageBytes(t *testing.T) {
	const n = 900 // names of about 60 bytes: over the page bound, under the 1,000-entry default
	_, s, _ := open(t, pageFiles("gen", n), stet.Options{})

	ls, err := s.List(ctx, stet.ListArgs{Path: "gen"})
	if err != nil {
		t.Fatal(err)
	}
	names := 0
	for _, e := range ls.Entries {
		names += len(e.Name)
	}
	if !ls.Truncated || len(ls.Entries) == 0 || len(ls.Entries) >= n || names > stet.DefaultPageBytes {
		t.Errorf("default list: %d entries, %d bytes of names, truncated %v", len(ls.Entries), names, ls.Truncated)
	}
	if all, err := s.List(ctx, stet.ListArgs{Path: "gen", Limit: n}); err != nil || len(all.Entries) != n || all.Truncated {
		t.Errorf("list with limit %d: %v, truncated %v, err %v", n, len(all.Entries), all != nil && all.Truncated, err)
	}

	fd, err := s.Find(ctx, stet.FindArgs{Pattern: "**/*.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(strings.Join(fd.Paths, "")); !fd.Truncated || len(fd.Paths) == 0 || len(fd.Paths) >= n || got > stet.DefaultPageBytes {
		t.Errorf("default find: %d paths, %d bytes, truncated %v", len(fd.Paths), got, fd.Truncated)
	}
	if all, err := s.Find(ctx, stet.FindArgs{Pattern: "**/*.txt", Limit: n}); err != nil || len(all.Paths) != n {
		t.Errorf("find with limit %d: %v, err %v", n, all, err)
	}

	gp, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", OutputMode: "files_with_matches"})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(strings.Join(gp.Paths, "")); !gp.Truncated || len(gp.Paths) == 0 || len(gp.Paths) >= n || got > stet.DefaultPageBytes {
		t.Errorf("default grep files_with_matches: %d paths, %d bytes, truncated %v", len(gp.Paths), got, gp.Truncated)
	}
}

// TestDefaultPageBytesGrepRows: grep's default page of rows starts no new
// match once its rows hold DefaultPageBytes of text (a row shows at most
// 2,000 bytes of its line), well before 200 rows of long lines.
func TestDefaultPageBytesGrepRows(t *testing.T) {
	line := "needle " + strings.Repeat("x", 1000) + "\n"
	_, s, _ := open(t, map[string]string{"long.txt": strings.Repeat(line, 150)}, stet.Options{})
	g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle"})
	if err != nil {
		t.Fatal(err)
	}
	text := 0
	for _, m := range g.Matches {
		text += len(m.Text)
	}
	if !g.Truncated || len(g.Matches) == 0 || len(g.Matches) >= 150 || text > stet.DefaultPageBytes+len(line) {
		t.Errorf("default grep: %d rows, %d bytes of text, truncated %v", len(g.Matches), text, g.Truncated)
	}
	if all, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Limit: 150}); err != nil || len(all.Matches) != 150 {
		t.Errorf("grep with limit 150: %v rows, err %v", all, err)
	}
}

// TestDefaultPageBytesAcrossRoots: find with no path in a workspace of
// two roots holds the same bound across both.
func TestDefaultPageBytesAcrossRoots(t *testing.T) {
	base := t.TempDir()
	var roots []string
	for _, r := range []string{"one", "two"} {
		dir := filepath.Join(base, r)
		for name, data := range pageFiles("gen", 300) {
			p := filepath.Join(dir, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		roots = append(roots, dir)
	}
	ws, err := stet.Open(roots, stet.Options{State: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, err := ws.Session("test")
	if err != nil {
		t.Fatal(err)
	}
	fd, err := s.Find(ctx, stet.FindArgs{Pattern: "**/*.txt"})
	if err != nil {
		t.Fatal(err)
	}
	if got := len(strings.Join(fd.Paths, "")); !fd.Truncated || len(fd.Paths) >= 600 || got > stet.DefaultPageBytes {
		t.Errorf("default find across roots: %d paths, %d bytes, truncated %v", len(fd.Paths), got, fd.Truncated)
	}
}
