package stet_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// openRoots makes a workspace over two temp roots holding files (keys
// "1:name" for the first root, "2:name" for the second; a name ending in
// "/" is a directory; "link -> target" a symlink).
func openRoots(t *testing.T, files ...string) (*stet.Session, [2]string) {
	t.Helper()
	roots := [2]string{t.TempDir(), t.TempDir()}
	for _, f := range files {
		which, name, _ := strings.Cut(f, ":")
		dir := roots[0]
		if which == "2" {
			dir = roots[1]
		}
		if link, target, ok := strings.Cut(name, " -> "); ok {
			if err := os.Symlink(target, filepath.Join(dir, link)); err != nil {
				t.Fatal(err)
			}
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if strings.HasSuffix(name, "/") {
			os.MkdirAll(p, 0o755)
			continue
		}
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte("hello from "+which+":"+name+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := stet.Open(roots[:], stet.Options{State: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	s, err := ws.Session("test")
	if err != nil {
		t.Fatal(err)
	}
	return s, roots
}

// TestMultiRoot is the multi-root case table: how a relative path
// resolves, what is ambiguous, what list, find and grep cover with no path,
// and that each root confines its own symlinks.
func TestMultiRoot(t *testing.T) {
	tree := []string{
		"1:a.txt", "1:shared.txt", "1:src/main.go",
		"2:b.txt", "2:shared.txt", "2:lib/util.go", "2:only2/",
		"2:escape -> ../../../../../etc", "2:inner -> lib",
	}
	for _, tc := range []struct {
		name string
		call func(s *stet.Session, roots [2]string) (any, error)
		kind string // refusal kind, "" for success
		want string // in the result's text
	}{
		{"relative in the first root", func(s *stet.Session, _ [2]string) (any, error) {
			return s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
		}, "", "hello from 1:a.txt"},
		{"relative in the second root only", func(s *stet.Session, _ [2]string) (any, error) {
			return s.Read(ctx, stet.ReadArgs{Path: "b.txt"})
		}, "", "hello from 2:b.txt"},
		{"nested relative in the second root", func(s *stet.Session, _ [2]string) (any, error) {
			return s.Read(ctx, stet.ReadArgs{Path: "lib/util.go"})
		}, "", "hello from 2:lib/util.go"},
		{"ambiguous names each root", func(s *stet.Session, roots [2]string) (any, error) {
			_, err := s.Read(ctx, stet.ReadArgs{Path: "shared.txt"})
			if r, ok := stet.AsRefusal(err); ok {
				for _, root := range roots {
					if !strings.Contains(r.Message, filepath.Join(root, "shared.txt")) {
						return nil, errors.New("ambiguous refusal does not name " + root + ": " + r.Message)
					}
				}
			}
			return nil, err
		}, "ambiguous", ""},
		{"absolute path picks the root", func(s *stet.Session, roots [2]string) (any, error) {
			return s.Read(ctx, stet.ReadArgs{Path: filepath.Join(roots[1], "shared.txt")})
		}, "", "hello from 2:shared.txt"},
		{"missing name: the first root", func(s *stet.Session, _ [2]string) (any, error) {
			return s.Read(ctx, stet.ReadArgs{Path: "nowhere.txt"})
		}, "not_found", ""},
		{"new file goes to the first root", func(s *stet.Session, roots [2]string) (any, error) {
			s.List(ctx, stet.ListArgs{Path: roots[0]})
			r, err := s.Write(ctx, stet.WriteArgs{Path: "new.txt", Content: "x\n"})
			if err == nil {
				if _, err := os.Stat(filepath.Join(roots[0], "new.txt")); err != nil {
					return nil, err
				}
			}
			return r, err
		}, "", "new.txt"},
		{"edit in the second root by relative path", func(s *stet.Session, roots [2]string) (any, error) {
			s.Read(ctx, stet.ReadArgs{Path: "b.txt"})
			r, err := s.Edit(ctx, stet.EditArgs{Path: "b.txt", OldString: ptr("hello"), NewString: ptr("HELLO")})
			if err == nil {
				if b, _ := os.ReadFile(filepath.Join(roots[1], "b.txt")); !strings.HasPrefix(string(b), "HELLO") {
					return nil, errors.New("b.txt in the second root unchanged: " + string(b))
				}
			}
			return r, err
		}, "", "b.txt"},
		{"list with no path lists the roots", func(s *stet.Session, roots [2]string) (any, error) {
			r, err := s.List(ctx, stet.ListArgs{})
			if err == nil && (len(r.Entries) != 2 || r.Entries[0].Name != roots[0] || r.Entries[1].Name != roots[1]) {
				return nil, errors.New("entries: " + stet.Text(r))
			}
			return r, err
		}, "", "(2 entries)"},
		{"list with depth 2 shows each root's entries", func(s *stet.Session, _ [2]string) (any, error) {
			return s.List(ctx, stet.ListArgs{Depth: 2})
		}, "", "/lib/"},
		{"find with no path searches every root", func(s *stet.Session, _ [2]string) (any, error) {
			r, err := s.Find(ctx, stet.FindArgs{Pattern: "**/*.go"})
			if err == nil && len(r.Paths) != 2 {
				return nil, errors.New("paths: " + stet.Text(r))
			}
			return r, err
		}, "", "src/main.go\n"},
		{"find names the second root's files absolutely", func(s *stet.Session, roots [2]string) (any, error) {
			return s.Find(ctx, stet.FindArgs{Pattern: "**/*.go"})
		}, "", "/lib/util.go"},
		{"grep with no path searches every root", func(s *stet.Session, _ [2]string) (any, error) {
			r, err := s.Grep(ctx, stet.GrepArgs{Pattern: "hello from"})
			if err == nil && len(r.Matches) != 6 {
				return nil, errors.New("matches: " + stet.Text(r))
			}
			return r, err
		}, "", "hello from 2:lib/util.go"},
		{"grep limit spans the roots", func(s *stet.Session, _ [2]string) (any, error) {
			r, err := s.Grep(ctx, stet.GrepArgs{Pattern: "hello", Limit: 4})
			if err == nil && (len(r.Matches) != 4 || !r.Truncated) {
				return nil, errors.New("matches: " + stet.Text(r))
			}
			return r, err
		}, "", ""},
		{"a symlink out of the second root is outside", func(s *stet.Session, _ [2]string) (any, error) {
			return s.Read(ctx, stet.ReadArgs{Path: "escape/passwd"})
		}, "outside", ""},
		{"a symlink inside the second root is followed", func(s *stet.Session, _ [2]string) (any, error) {
			return s.Read(ctx, stet.ReadArgs{Path: "inner/util.go"})
		}, "", "hello from 2:lib/util.go"},
		{"dot-dot out of a root is outside", func(s *stet.Session, _ [2]string) (any, error) {
			return s.Read(ctx, stet.ReadArgs{Path: "../b.txt"})
		}, "outside", ""},
		{"an absolute path under no root is outside", func(s *stet.Session, roots [2]string) (any, error) {
			return s.Read(ctx, stet.ReadArgs{Path: filepath.Join(filepath.Dir(roots[1]), "elsewhere.txt")})
		}, "outside", ""},
		{"roots names both with effects", func(s *stet.Session, roots [2]string) (any, error) {
			r, err := s.Roots(ctx, stet.RootsArgs{})
			if err == nil && !slices.Equal([]string{r.Roots[0].Path, r.Roots[1].Path}, roots[:]) {
				return nil, errors.New("roots: " + stet.Text(r))
			}
			return r, err
		}, "", "(workspace-write)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, roots := openRoots(t, tree...)
			res, err := tc.call(s, roots)
			if got := kindOf(err); got != tc.kind {
				t.Fatalf("kind %q, want %q (%v)", got, tc.kind, err)
			}
			if tc.want != "" && !strings.Contains(stet.Text(res), tc.want) {
				t.Errorf("result %q does not contain %q", stet.Text(res), tc.want)
			}
		})
	}
}
