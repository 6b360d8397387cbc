package mcpserver

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// TestRefSearchFilesGlobs: search_files takes globs as people write them
// (brace alternatives, a negated class, an escape), and its
// excludePatterns the same, through stet's one matcher.
func TestRefSearchFilesGlobs(t *testing.T) {
	f := newFixture(t, map[string]string{
		"x.ts": "", "src/a.ts": "", "src/ui/b.tsx": "", "src/c.js": "",
		"d/x.go": "", "d/y.go": "", "lit*.txt": "", "litx.txt": "",
	}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{Version: "test", Profile: ProfileReference}), nil, nil)
	abs := func(names ...string) string {
		for i, n := range names {
			names[i] = filepath.Join(f.ws.Roots()[0], filepath.FromSlash(n))
		}
		return strings.Join(names, "\n")
	}
	for _, c := range []struct {
		args map[string]any
		want string
	}{
		{map[string]any{"path": ".", "pattern": "**/*.{ts,tsx}"}, abs("src/a.ts", "src/ui/b.tsx", "x.ts")},
		{map[string]any{"path": ".", "pattern": "*.{ts,tsx}"}, abs("src/a.ts", "src/ui/b.tsx", "x.ts")},
		{map[string]any{"path": ".", "pattern": "[!x]*.go"}, abs("d/y.go")},
		{map[string]any{"path": ".", "pattern": `lit\*.txt`}, abs("lit*.txt")},
		{map[string]any{"path": ".", "pattern": "**/*.{ts,tsx}", "excludePatterns": []string{"[!x]*.ts"}}, abs("src/ui/b.tsx", "x.ts")},
	} {
		r := mustOK(t, "search_files", call(t, cs, "search_files", c.args))
		if r.Text != c.want {
			t.Errorf("search_files %v:\n got %q\nwant %q", c.args, r.Text, c.want)
		}
	}
}
