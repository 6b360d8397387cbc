package stet_test

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/memfs"
)

// isolateGitConfig points git and stet at an empty home, so the user's
// global excludes file does not change what a test sees. It returns the
// XDG config directory.
func isolateGitConfig(t *testing.T) string {
	t.Helper()
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, "xdg"))
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	return filepath.Join(home, "xdg")
}

// ignoreTree is the tree of the ignore case table.
var ignoreTree = map[string]string{
	".gitignore":             "node_modules/\n*.log\n/build\n!keep.log\ndocs/**/draft.md\n",
	".ignore":                "secret.txt\n",
	".hidden.txt":            "needle hidden\n",
	"a.txt":                  "needle a\n",
	"keep.log":               "needle keep\n",
	"x.log":                  "needle x\n",
	"secret.txt":             "needle secret\n",
	"build/out.txt":          "needle build\n",
	"src/build/gen.txt":      "needle src build\n",
	"node_modules/p/i.json":  "needle nm\n",
	"src/node_modules/q.js":  "needle nm2\n",
	"src/.gitignore":         "*.tmp\n!important.tmp\n",
	"src/a.tmp":              "needle tmp\n",
	"src/important.tmp":      "needle important\n",
	"src/lib/deep.tmp":       "needle deep tmp\n",
	"docs/draft.md":          "needle draft top\n",
	"docs/x/y/draft.md":      "needle draft deep\n",
	"docs/final.md":          "needle final\n",
	"vendor/v.go":            "needle vendor\n",
	".git/config":            "needle git\n",
	".git/info/exclude":      "excluded.txt\n",
	"excluded.txt":           "needle excluded\n",
	"sub/excluded.txt":       "needle sub excluded\n",
	"global.bak":             "needle global\n",
	"src/lib/visible.go":     "needle visible\n",
	"src/lib/.gitignore":     "!deep.tmp\n",
	"src/only/.ignore":       "*.go\n",
	"src/only/skip.go":       "needle skip go\n",
	"src/only/keep.txt":      "needle only keep\n",
	"src/dironly/x/file.txt": "needle dironly\n",
	"src/x":                  "needle file named x\n",
	"src/.gitignore2":        "needle not an ignore file\n",
}

// visibleByDefault is what list, find and grep show of ignoreTree with the
// ignore rules on (global excludes: *.bak).
var visibleByDefault = []string{
	".gitignore", ".hidden.txt", ".ignore", "a.txt", "docs/final.md", "keep.log",
	"src/.gitignore", "src/.gitignore2", "src/build/gen.txt", "src/dironly/x/file.txt", "src/important.tmp",
	"src/lib/.gitignore", "src/lib/deep.tmp", "src/lib/visible.go", "src/only/.ignore",
	"src/only/keep.txt", "src/x", "vendor/v.go",
}

// ignoreBackends builds ignoreTree on the host and in memory.
func ignoreBackends(t *testing.T) map[string]*stet.Session {
	xdg := isolateGitConfig(t)
	if err := os.MkdirAll(filepath.Join(xdg, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(xdg, "git", "ignore"), []byte("*.bak\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	_, host, _ := open(t, ignoreTree, stet.Options{})
	m := memfs.New()
	for name, text := range ignoreTree {
		if err := m.MkdirAll(filepath.Dir(name)); err != nil {
			t.Fatal(err)
		}
		if err := m.WriteFile(name, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws, err := stet.Open([]string{"/memfs"}, stet.Options{State: t.TempDir(), Providers: []fsys.Provider{m}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	mem, _ := ws.Session("mem")
	return map[string]*stet.Session{"host": host, "memfs": mem}
}

// TestIgnoreCases runs one table of ignore cases through list, find and
// grep on both backends.
func TestIgnoreCases(t *testing.T) {
	all := slices.Sorted(func(yield func(string) bool) {
		for name := range ignoreTree {
			if !strings.HasPrefix(name, ".git/") && !yield(name) {
				return
			}
		}
	})
	cases := []struct {
		name    string
		path    string
		exclude []string
		noIgn   bool
		want    []string // paths relative to the root
	}{
		{name: "default", want: visibleByDefault},
		{name: "no_ignore", noIgn: true, want: all},
		{name: "exclude", exclude: []string{"src/", "*.md", ".*"}, want: []string{"a.txt", "keep.log", "vendor/v.go"}},
		{name: "exclude with no_ignore", noIgn: true, exclude: []string{"node_modules", "src", "docs", ".*"}, want: []string{
			"a.txt", "build/out.txt", "excluded.txt", "global.bak", "keep.log", "secret.txt", "sub/excluded.txt", "vendor/v.go", "x.log"}},
		{name: "named ignored dir", path: "node_modules", want: []string{"node_modules/p/i.json"}},
		{name: "subdir keeps parent rules", path: "src", want: []string{
			"src/.gitignore", "src/.gitignore2", "src/build/gen.txt", "src/dironly/x/file.txt", "src/important.tmp", "src/lib/.gitignore",
			"src/lib/deep.tmp", "src/lib/visible.go", "src/only/.ignore", "src/only/keep.txt", "src/x"}},
		{name: "exclude relative to path", path: "src", exclude: []string{"lib/", "only"}, want: []string{
			"src/.gitignore", "src/.gitignore2", "src/build/gen.txt", "src/dironly/x/file.txt", "src/important.tmp", "src/x"}},
	}
	for bname, s := range ignoreBackends(t) {
		for _, c := range cases {
			t.Run(bname+"/"+c.name, func(t *testing.T) {
				f, err := s.Find(ctx, stet.FindArgs{Pattern: "**", Path: c.path, Exclude: c.exclude, NoIgnore: c.noIgn, Limit: 1000})
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Equal(sortedCopy(f.Paths), c.want) {
					t.Errorf("find:\n got %q\nwant %q", sortedCopy(f.Paths), c.want)
				}
				g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Path: c.path, Exclude: c.exclude, NoIgnore: c.noIgn, OutputMode: stet.GrepFilesWithMatches})
				if err != nil {
					t.Fatal(err)
				}
				want := slices.DeleteFunc(slices.Clone(c.want), func(p string) bool { return !strings.Contains(ignoreTree[p], "needle") })
				if !slices.Equal(g.Paths, want) && !slices.Equal(sortedCopy(g.Paths), want) {
					t.Errorf("grep:\n got %q\nwant %q", g.Paths, want)
				}
				l, err := s.List(ctx, stet.ListArgs{Path: c.path, Depth: 100, Exclude: c.exclude, NoIgnore: c.noIgn})
				if err != nil {
					t.Fatal(err)
				}
				var files []string
				for _, e := range l.Entries {
					if e.Type == "file" {
						name := e.Name
						if c.path != "" {
							name = c.path + "/" + name
						}
						files = append(files, name)
					}
				}
				if c.noIgn && c.exclude == nil && c.path == "" {
					// .git is listed but not entered without ignore rules.
					want := c.want
					if !slices.Equal(sortedCopy(files), want) {
						t.Errorf("list:\n got %q\nwant %q", sortedCopy(files), want)
					}
				} else if !slices.Equal(sortedCopy(files), c.want) {
					t.Errorf("list:\n got %q\nwant %q", sortedCopy(files), c.want)
				}
			})
		}
		t.Run(bname+"/named ignored file", func(t *testing.T) {
			g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Path: "x.log"})
			if err != nil || len(g.Matches) != 1 {
				t.Fatalf("grep of an ignored file named as path: %+v %v", g, err)
			}
		})
	}
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}

// patternPool holds the patterns the differential test draws from:
// nested, negated, anchored, directory-only and "**" patterns, classes and
// escapes.
var patternPool = []string{
	"*.log", "!keep.log", "/top.txt", "build/", "/build", "a/**/z.txt", "**/gen", "**/gen/", "docs/**",
	"!docs/keep.md", "*.tm[pq]", "!*.tmq", "x", "x/", "/a/b", "a/b/", "**/c", "c/**", "!c/ok.txt",
	"[!a-m]*.txt", "?.go", "sub/*.go", "*.go", "!main.go", "d*/", "\\!bang", "\\#hash", "trail\\ ",
	"# a comment", "", "ok.txt", "!ok.txt", "**/*.md", "!**/README.md", "n/**/m/", "a*b", "**",
	"e/f/**/", "*~", "[[:digit:]]*", "[abc]/", "gen/*", "!gen/keep*",
}

var namePool = []string{
	"a", "b", "c", "x", "z.txt", "top.txt", "keep.log", "err.log", "build", "gen", "docs", "keep.md", "README.md",
	"f.tmp", "g.tmq", "ok.txt", "main.go", "u.go", "sub", "d1", "n", "m", "e", "f", "!bang", "#hash", "trail ",
	"1num", "zz.txt", "ab", "a-b", "keep1",
}

// TestIgnoreDifferential compares find and list with git ls-files and git
// check-ignore on random trees of random ignore files.
func TestIgnoreDifferential(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed")
	}
	xdg := isolateGitConfig(t)
	if err := os.MkdirAll(filepath.Join(xdg, "git"), 0o755); err != nil {
		t.Fatal(err)
	}
	rounds := 30
	if testing.Short() {
		rounds = 5
	}
	nIgnored, nPaths := 0, 0
	defer func() {
		t.Logf("%d rounds: %d paths, %d ignored by git", rounds, nPaths, nIgnored)
		if nIgnored == 0 || nIgnored == nPaths {
			t.Error("the generated trees do not exercise the ignore rules")
		}
	}()
	for round := range rounds {
		rng := rand.New(rand.NewPCG(uint64(round), 7))
		root := t.TempDir()
		git := func(stdin string, args ...string) string {
			cmd := exec.Command(gitBin, args...)
			cmd.Dir = root
			cmd.Stdin = strings.NewReader(stdin)
			var out, errb bytes.Buffer
			cmd.Stdout, cmd.Stderr = &out, &errb
			if err := cmd.Run(); err != nil {
				if ee, ok := err.(*exec.ExitError); !(ok && ee.ExitCode() == 1 && args[0] == "check-ignore") {
					t.Fatalf("git %v: %v\n%s", args, err, errb.String())
				}
			}
			return out.String()
		}
		git("", "init", "-q")
		var dirs = []string{""}
		var all []string
		for range 40 {
			parent := dirs[rng.IntN(len(dirs))]
			name := namePool[rng.IntN(len(namePool))]
			p := filepath.ToSlash(filepath.Join(parent, name))
			if _, err := os.Lstat(filepath.Join(root, p)); err == nil {
				continue
			}
			if rng.IntN(3) == 0 && strings.Count(p, "/") < 4 {
				if err := os.Mkdir(filepath.Join(root, p), 0o755); err != nil {
					t.Fatal(err)
				}
				dirs = append(dirs, p)
				all = append(all, p)
				// Every directory holds a file, so git lists something in it.
				f := filepath.Join(p, "ok.txt")
				os.WriteFile(filepath.Join(root, f), []byte("ok\n"), 0o644)
				all = append(all, filepath.ToSlash(f))
				continue
			}
			os.WriteFile(filepath.Join(root, p), []byte("x\n"), 0o644)
			all = append(all, p)
		}
		// patterns is the text of an ignore file of n lines, in one of the
		// encodings editors write: plain, with a UTF-8 byte-order mark
		// (which git skips), with CRLF line ends, or both.
		patterns := func(n int) string {
			var b strings.Builder
			enc := rng.IntN(4)
			if enc&1 != 0 {
				b.WriteString("\xef\xbb\xbf")
			}
			for range n {
				b.WriteString(patternPool[rng.IntN(len(patternPool))])
				if enc&2 != 0 {
					b.WriteByte('\r')
				}
				b.WriteByte('\n')
			}
			return b.String()
		}
		var ignoreFiles []string
		for _, d := range dirs {
			if rng.IntN(2) == 0 {
				f := filepath.ToSlash(filepath.Join(d, ".gitignore"))
				os.WriteFile(filepath.Join(root, f), []byte(patterns(1+rng.IntN(5))), 0o644)
				ignoreFiles = append(ignoreFiles, f)
			}
		}
		os.WriteFile(filepath.Join(root, ".git", "info", "exclude"), []byte(patterns(2)), 0o644)
		os.WriteFile(filepath.Join(xdg, "git", "ignore"), []byte(patterns(2)), 0o644)
		all = append(all, ignoreFiles...)

		gitFiles := splitZ(git("", "ls-files", "-co", "--exclude-standard", "-z"))
		sort.Strings(gitFiles)

		ws, err := stet.Open([]string{root}, stet.Options{State: t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := ws.Session("diff")
		f, err := s.Find(ctx, stet.FindArgs{Pattern: "**", Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		describe := func() string {
			var b strings.Builder
			for _, f := range append([]string{".git/info/exclude"}, ignoreFiles...) {
				data, _ := os.ReadFile(filepath.Join(root, f))
				fmt.Fprintf(&b, "%s: %q\n", f, data)
			}
			data, _ := os.ReadFile(filepath.Join(xdg, "git", "ignore"))
			fmt.Fprintf(&b, "global: %q\n", data)
			return b.String()
		}
		if got := sortedCopy(f.Paths); !slices.Equal(got, gitFiles) {
			t.Fatalf("round %d: find differs from git ls-files\n got %q\nwant %q\n%s", round, got, gitFiles, describe())
		}

		l, err := s.List(ctx, stet.ListArgs{Depth: 100, Limit: 10000})
		if err != nil {
			t.Fatal(err)
		}
		listed := map[string]bool{}
		for _, e := range l.Entries {
			listed[e.Name] = true
		}
		ignored := map[string]bool{}
		for _, p := range splitZ(git(strings.Join(all, "\x00")+"\x00", "check-ignore", "--stdin", "-z")) {
			ignored[p] = true
		}
		nIgnored += len(ignored)
		nPaths += len(all)
		for _, p := range all {
			if listed[p] == ignored[p] {
				t.Fatalf("round %d: %s: listed %v, git check-ignore says ignored %v\n%s", round, p, listed[p], ignored[p], describe())
			}
		}
		ws.Close()
	}
}

func splitZ(s string) []string {
	var out []string
	for _, p := range strings.Split(s, "\x00") {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
