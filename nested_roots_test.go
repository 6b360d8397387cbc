package stet_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// writeTree writes files (name: content) under dir.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func openSession(t *testing.T, roots []string, opts stet.Options) *stet.Session {
	t.Helper()
	opts.State = t.TempDir()
	ws, err := stet.Open(roots, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	s, err := ws.Session("test")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestNestedRootsJudgeEveryName: when one root lies inside another, a file
// is hidden or protected under the name it has in every root that holds it:
// the inner root's shorter name does not read a file denied by its longer
// name in the outer root, nor edit one protected there, and the other way
// round. The roots are found to nest however they are given: in either
// order, through a symlink inside the outer root, as a symlink from
// elsewhere, and under another spelling.
func TestNestedRootsJudgeEveryName(t *testing.T) {
	base := t.TempDir()
	repo := filepath.Join(base, "repo")
	api := filepath.Join(repo, "services", "api")
	writeTree(t, repo, map[string]string{
		"main.go":                     "package main\n",
		"services/api/secret.txt":     "token=SEKRIT\n",
		"services/api/config.yaml":    "port: 1\n",
		"services/api/conf/db.env":    "PASS=OTHERSEKRIT\n",
		"services/api/handler.go":     "package api\n",
		"services/api/conf/public.md": "hello\n",
	})
	if err := os.Symlink(filepath.Join("services", "api"), filepath.Join(repo, "alias")); err != nil {
		t.Fatal(err)
	}
	outside := filepath.Join(base, "apilink")
	if err := os.Symlink(api, outside); err != nil {
		t.Fatal(err)
	}
	spelled := filepath.Join(t.TempDir(), "base")
	if err := os.Symlink(base, spelled); err != nil {
		t.Fatal(err)
	}
	opts := stet.Options{
		// Patterns with a slash: each names the file by its path in one of
		// the roots only.
		DenyRead: []string{"services/api/secret.txt", "conf/db.env"},
		Protect:  []string{"services/api/config.yaml"},
	}
	for name, roots := range map[string][]string{
		"outer first":          {repo, api},
		"inner first":          {api, repo},
		"inner through a link": {repo, filepath.Join(repo, "alias")},
		"inner is a symlink":   {repo, outside},
		"inner spelled through a symlinked parent": {repo, filepath.Join(spelled, "repo", "services", "api")},
		"outer spelled through a symlinked parent": {filepath.Join(spelled, "repo"), api},
	} {
		t.Run(name, func(t *testing.T) {
			s := openSession(t, roots, opts)
			inner := roots[1]
			if strings.HasPrefix(name, "inner first") {
				inner = roots[0]
			}
			// Denied by its outer name, reached by its inner one.
			assertHidden(t, s, "secret.txt", "SEKRIT")
			assertHidden(t, s, filepath.Join(inner, "secret.txt"), "SEKRIT")
			// Denied by its inner name, reached by its outer one.
			assertHidden(t, s, "services/api/conf/db.env", "OTHERSEKRIT")
			assertHidden(t, s, filepath.Join(repo, "services", "api", "conf", "db.env"), "OTHERSEKRIT")
			for _, dir := range []string{inner, filepath.Join(repo, "services", "api")} {
				l, err := s.List(ctx, stet.ListArgs{Path: dir, Depth: 3})
				if err != nil {
					t.Fatalf("list %s: %v", dir, err)
				}
				for _, e := range l.Entries {
					if strings.HasSuffix(e.Name, "secret.txt") || strings.HasSuffix(e.Name, "db.env") {
						t.Errorf("list %s shows the hidden %s", dir, e.Name)
					}
				}
				if !slices.ContainsFunc(l.Entries, func(e stet.Entry) bool { return strings.HasSuffix(e.Name, "handler.go") }) {
					t.Errorf("list %s does not show handler.go: %+v", dir, l.Entries)
				}
			}
			// Protected by its outer name, changed through its inner one.
			if _, err := s.Read(ctx, stet.ReadArgs{Path: "config.yaml"}); err != nil {
				t.Fatalf("read config.yaml: %v", err)
			}
			if _, err := s.Edit(ctx, stet.EditArgs{Path: "config.yaml", OldString: ptr("port: 1"), NewString: ptr("port: 2")}); kindOf(err) != stet.KindProtected {
				t.Errorf("edit of config.yaml through the inner root: %v, want protected", err)
			}
			if _, err := s.Write(ctx, stet.WriteArgs{Path: filepath.Join(inner, "config.yaml"), Content: "port: 3\n", Overwrite: true}); kindOf(err) != stet.KindProtected {
				t.Errorf("write of config.yaml through the inner root: %v, want protected", err)
			}
			if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "config.yaml"}); kindOf(err) != stet.KindProtected {
				t.Errorf("delete of config.yaml through the inner root: %v, want protected", err)
			}
			if got := content(t, repo, "services/api/config.yaml"); got != "port: 1\n" {
				t.Fatalf("protected file now %q", got)
			}
			// Files no rule names stay served in both roots.
			if r, err := s.Read(ctx, stet.ReadArgs{Path: "handler.go"}); err != nil || !strings.Contains(r.Frame, "package api") {
				t.Errorf("read handler.go: %v", err)
			}
		})
	}
}

// TestNestedRootInGitDirIsProtected: a root that lies inside a git
// directory of another root (a bare repository's refs) is protected as the
// outer root's path to it is, though no name in the inner root says .git.
func TestNestedRootInGitDirIsProtected(t *testing.T) {
	repo := t.TempDir()
	writeTree(t, repo, map[string]string{
		"bare/HEAD":            "ref: refs/heads/main\n",
		"bare/objects/.keep":   "",
		"bare/refs/heads/main": "0123456789abcdef0123456789abcdef01234567\n",
	})
	s := openSession(t, []string{repo, filepath.Join(repo, "bare", "refs")}, stet.Options{})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "heads/main"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "heads/main", Content: "forged\n", Overwrite: true}); kindOf(err) != stet.KindProtected {
		t.Errorf("write of a ref through a root inside a bare repository: %v, want protected", err)
	}
	if got := content(t, repo, "bare/refs/heads/main"); !strings.HasPrefix(got, "0123") {
		t.Fatalf("ref now %q", got)
	}
}

// TestDenyReadThroughHardLinkInAnotherRoot: a hard link in one root to a
// file a deny-read rule hides in another root is that hidden file: read,
// grep, find, list and edit do not serve it.
func TestDenyReadThroughHardLinkInAnotherRoot(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	writeTree(t, a, map[string]string{"secrets/db.env": "PASSWORD=hunter2\n", "a.txt": "a\n"})
	writeTree(t, b, map[string]string{"b.txt": "b\n"})
	if err := os.Link(filepath.Join(a, "secrets", "db.env"), filepath.Join(b, "copy.env")); err != nil {
		t.Skipf("hard links: %v", err)
	}
	s := openSession(t, []string{a, b}, stet.Options{DenyRead: []string{"secrets/**"}})
	// grep first: a line once shown is not shown again.
	if g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "hunter2", Path: b}); err != nil || len(g.Matches) > 0 {
		t.Errorf("grep of the root holding the link: %v %+v", err, g)
	}
	assertHidden(t, s, "copy.env", "hunter2")
	assertHidden(t, s, filepath.Join(b, "copy.env"), "hunter2")
	if f, err := s.Find(ctx, stet.FindArgs{Pattern: "**", Path: b}); err != nil || slices.Contains(f.Paths, filepath.Join(b, "copy.env")) || len(f.Paths) == 0 {
		t.Errorf("find: %v %+v; want b.txt and not the hard link to a hidden file", err, f)
	}
	if l, err := s.List(ctx, stet.ListArgs{Path: b}); err != nil || slices.ContainsFunc(l.Entries, func(e stet.Entry) bool { return strings.Contains(e.Name, "copy.env") }) {
		t.Errorf("list: %v %+v; want no copy.env", err, l)
	}
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "copy.env", OldString: ptr("hunter2"), NewString: ptr("x")}); kindOf(err) != stet.KindNotFound {
		t.Errorf("edit of a hard link to a file denied in another root: %v, want not_found", err)
	}
	if got := content(t, a, "secrets/db.env"); got != "PASSWORD=hunter2\n" {
		t.Fatalf("denied file now %q", got)
	}
}
