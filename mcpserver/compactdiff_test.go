package mcpserver

import (
	"bytes"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"

	"github.com/stet-dev/stet/textedit"
)

// TestCompactDiff: a diff without its outer context still applies, with
// git's strict applier, to exactly the new text, and keeps every line that
// went and came.
func TestCompactDiff(t *testing.T) {
	many := func(n int, f func(i int) string) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(f(i) + "\n")
		}
		return b.String()
	}
	base := many(40, func(i int) string { return "line " + string(rune('a'+i%26)) + strings.Repeat("x", i) })
	for _, c := range []struct{ name, old, new string }{
		{"one line", base, strings.Replace(base, "line c", "LINE C", 1)},
		{"two changes, one hunk", base, strings.Replace(strings.Replace(base, "line c", "LINE C", 1), "line e", "LINE E", 1)},
		{"two hunks", base, strings.Replace(strings.Replace(base, "line c", "LINE C", 1), "line w", "LINE W", 1)},
		{"insertion", base, strings.Replace(base, "line f", "new\nline f", 1)},
		{"deletion", base, strings.Replace(base, "line fxxxxx\n", "", 1)},
		{"at the start", base, "first\n" + base},
		{"at the end", base, base + "last\n"},
		{"no newline at the end", "a\nb\nc", "a\nb\nC"},
		{"create", "", "a\nb\n"},
		{"whole", "a\n", "b\n"},
	} {
		t.Run(c.name, func(t *testing.T) {
			diff := textedit.Diff("f.txt", []byte(c.old), []byte(c.new))
			compact := compactDiff(diff)
			if len(compact) > len(diff) {
				t.Errorf("longer: %d > %d", len(compact), len(diff))
			}
			for _, l := range strings.Split(diff, "\n") {
				if (strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+")) && !strings.Contains(compact, l) {
					t.Errorf("lost %q", l)
				}
			}
			files, _, err := gitdiff.Parse(strings.NewReader(compact))
			if err != nil || len(files) != 1 {
				t.Fatalf("git cannot read the compact diff: %v\n%s", err, compact)
			}
			var out bytes.Buffer
			if err := gitdiff.Apply(&out, strings.NewReader(c.old), files[0]); err != nil {
				t.Fatalf("git cannot apply it: %v\n%s", err, compact)
			}
			if out.String() != c.new {
				t.Errorf("applied: %q, want %q\n%s", out.String(), c.new, compact)
			}
		})
	}
	if got := compactDiff("(the whole file was replaced: 1 line → 2 lines)\n"); got != "(the whole file was replaced: 1 line → 2 lines)\n" {
		t.Errorf("a note: %q", got)
	}
}

// TestCompactDiffOfSeveralFiles: a patch's diff holds one file after
// another; each file's hunks end where their headers' counts say, not at
// the next file's "--- a/" line.
func TestCompactDiffOfSeveralFiles(t *testing.T) {
	a := strings.Repeat("a line\n", 5) + "change me\n" + strings.Repeat("a line\n", 5)
	b := strings.Repeat("b line\n", 5) + "me too\n" + strings.Repeat("b line\n", 5)
	a2 := strings.Replace(a, "change me", "changed", 1)
	b2 := strings.Replace(b, "me too", "done", 1)
	diff := textedit.Diff("a.txt", []byte(a), []byte(a2)) + textedit.Diff("b.txt", []byte(b), []byte(b2))
	compact := compactDiff(diff)
	files, _, err := gitdiff.Parse(strings.NewReader(compact))
	if err != nil || len(files) != 2 {
		t.Fatalf("%d files (%v) in:\n%s", len(files), err, compact)
	}
	for i, c := range [][2]string{{a, a2}, {b, b2}} {
		var out bytes.Buffer
		if err := gitdiff.Apply(&out, strings.NewReader(c[0]), files[i]); err != nil || out.String() != c[1] {
			t.Errorf("file %d: %v, %q\n%s", i, err, out.String(), compact)
		}
	}
	if strings.Count(compact, " a line\n") != 2 || strings.Count(compact, " b line\n") != 2 {
		t.Errorf("each hunk keeps one line of context on each side:\n%s", compact)
	}
}
