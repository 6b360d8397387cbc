package stet_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stet-dev/stet"
)

// globTree holds a file for each side of the glob cases below; every file
// holds "needle".
var globTree = map[string]string{
	"x.ts":         "needle\n",
	"src/a.ts":     "needle\n",
	"src/ui/b.tsx": "needle\n",
	"src/c.js":     "needle\n",
	"d/x.go":       "needle\n",
	"d/y.go":       "needle\n",
	"lit*.txt":     "needle\n",
	"litx.txt":     "needle\n",
}

// globCases are globs as people write them: brace alternatives, a negated
// class, an escape; want is what each matches in globTree.
var globCases = []struct {
	pattern string
	want    []string
}{
	{"**/*.{ts,tsx}", []string{"src/a.ts", "src/ui/b.tsx", "x.ts"}},
	{"*.{ts,tsx}", []string{"src/a.ts", "src/ui/b.tsx", "x.ts"}}, // no "/": any depth
	{"src/**/*.{ts,tsx}", []string{"src/a.ts", "src/ui/b.tsx"}},
	{"[!x]*.go", []string{"d/y.go"}},
	{`lit\*.txt`, []string{"lit*.txt"}},
}

func allFiles() []string {
	var all []string
	for name := range globTree {
		all = append(all, name)
	}
	slices.Sort(all)
	return all
}

func without(all, drop []string) []string {
	var out []string
	for _, n := range all {
		if !slices.Contains(drop, n) {
			out = append(out, n)
		}
	}
	return out
}

// TestGlobEverywhere: one matcher behind every glob stet takes: find's
// pattern, grep's glob, exclude, --deny-read and --protect.
func TestGlobEverywhere(t *testing.T) {
	ctx := context.Background()
	isolateGitConfig(t)
	all := allFiles()
	for _, c := range globCases {
		t.Run(c.pattern, func(t *testing.T) {
			_, s, _ := open(t, globTree, stet.Options{})
			found, err := s.Find(ctx, stet.FindArgs{Pattern: c.pattern})
			if err != nil || !slices.Equal(found.Paths, c.want) {
				t.Errorf("find %q = %v, %v; want %q", c.pattern, found, err, c.want)
			}
			g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Glob: c.pattern, OutputMode: stet.GrepFilesWithMatches})
			if err != nil || !slices.Equal(g.Paths, c.want) {
				t.Errorf("grep --glob %q = %v, %v; want %q", c.pattern, g, err, c.want)
			}
			rest := without(all, c.want)
			found, err = s.Find(ctx, stet.FindArgs{Pattern: "**", Exclude: []string{c.pattern}})
			if err != nil || !slices.Equal(found.Paths, rest) {
				t.Errorf("find ** exclude %q = %v, %v; want %q", c.pattern, found, err, rest)
			}
			l, err := s.List(ctx, stet.ListArgs{Depth: 5, Exclude: []string{c.pattern}})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range l.Entries {
				if slices.Contains(c.want, e.Name) {
					t.Errorf("list exclude %q shows %s", c.pattern, e.Name)
				}
			}

			_, denied, _ := open(t, globTree, stet.Options{DenyRead: []string{c.pattern}})
			found, err = denied.Find(ctx, stet.FindArgs{Pattern: "**"})
			if err != nil || !slices.Equal(found.Paths, rest) {
				t.Errorf("deny-read %q: find ** = %v, %v; want %q", c.pattern, found, err, rest)
			}
			if _, err := denied.Read(ctx, stet.ReadArgs{Path: c.want[0]}); kindOf(err) != stet.KindNotFound {
				t.Errorf("deny-read %q: read %s = %v, want not_found", c.pattern, c.want[0], err)
			}
			if _, err := denied.Read(ctx, stet.ReadArgs{Path: rest[0]}); err != nil {
				t.Errorf("deny-read %q: read %s = %v", c.pattern, rest[0], err)
			}

			_, guarded, _ := open(t, globTree, stet.Options{Protect: []string{c.pattern}})
			for _, name := range all {
				if _, err := guarded.Read(ctx, stet.ReadArgs{Path: name}); err != nil {
					t.Fatal(err)
				}
				_, err := guarded.Write(ctx, stet.WriteArgs{Path: name, Content: "changed\n", DryRun: true})
				if got, want := kindOf(err) == stet.KindProtected, slices.Contains(c.want, name); got != want {
					t.Errorf("protect %q: write %s = %v; protected: %v, want %v", c.pattern, name, err, got, want)
				}
			}
		})
	}
}
