package patch

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// numbered is a file of n lines "line 1" .. "line n".
func numbered(n int) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// removal is a unified diff that removes lines from..to of numbered(n),
// with line at written as text instead.
func removal(from, to, at int, text string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "--- a/f\n+++ b/f\n@@ -%d,%d +%d,0 @@\n", from, to-from+1, from)
	for i := from; i <= to; i++ {
		if i == at {
			b.WriteString("-" + text + "\n")
			continue
		}
		fmt.Fprintf(&b, "-line %d\n", i)
	}
	return b.String()
}

// TestNearMiss pins what a miss names: which region is nearest (by the
// hint, by the previous hunk), its lines, what differs, and how the region
// is shown.
func TestNearMiss(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		patch   string
		index   int
		lines   []int
		msg     []string // parts of the message
		near    []string // parts of Near
		nearNot []string // what Near must not show
	}{
		{
			name:  "the nearer of two copies above the previous hunk",
			text:  "a\nq\na\nq\nz\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-z\n+Z\n@@\n-a\n+A\n*** End Patch",
			index: 1, lines: []int{3},
			msg:  []string{"at line 3, above the end of the previous hunk (line 5)"},
			near: []string{"00003|a\n"},
		},
		{
			name:  "out of place only with the file's CRLF set aside",
			text:  "a\r\nb\r\nc\r\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-c\n+C\n@@\n-a\n+A\n*** End Patch",
			index: 1, lines: []int{1},
			msg: []string{"at line 1, above the end of the previous hunk"},
		},
		{
			name:  "above its context line names that line",
			text:  "x = 1\ndef f():\n    pass\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@ def f():\n-x = 1\n+x = 2\n*** End Patch",
			lines: []int{1},
			msg:   []string{`above its @@ line "def f():" (line 2)`},
		},
		{
			name:  "nested context lines show the outer one",
			text:  "class A:\n    def run(self):\n        pass\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@ def run(self):\n@@ class A:\n-        pass\n+        return\n*** End Patch",
			lines: []int{1},
			near:  []string{"00001|class A:\n"},
		},
		{
			name:  "a region that runs past the end of the file",
			text:  "x\ny\nz\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-y\n-z\n-w\n*** End Patch",
			lines: []int{2, 3},
			msg:   []string{"nearest: lines 2-3 (2 of 3 equal)", "1 of its lines would lie outside the file"},
			near:  []string{"00002|y\n00003|z\n"},
		},
		{
			name:  "more than three differing lines are counted",
			text:  "a1\na2\na3\na4\na5\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n- a1\n- a2\n- a3\n- a4\n- a5\n+x\n*** End Patch",
			lines: []int{1, 2, 3, 4, 5},
			msg:   []string{"line 3 (a removed line) differs in indentation (file none, patch 1 space); 2 more lines differ"},
		},
		{
			name:  "old lines that are all empty",
			text:  "a\n\n\nb\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-\n-\n-\n+x\n*** End Patch",
			msg:   []string{"nearest: lines", "of 3 equal"},
		},
		{
			name:  "the hint picks among equal regions",
			text:  "foo \nbar\nbaz\nfoo \nqux\n",
			patch: "--- a/f\n+++ b/f\n@@ -3 +3 @@\n-foo\n+F\n",
			lines: []int{4},
			msg:   []string{"nearest: line 4 (0 of 1 equal); line 4 (a removed line) differs in trailing space"},
		},
		{
			name:  "equally near regions: the first",
			text:  "foo \nbar\nbaz\nqux\nfoo \n",
			patch: "--- a/f\n+++ b/f\n@@ -3 +3 @@\n-foo\n+F\n",
			lines: []int{1},
			msg:   []string{"nearest: line 1 "},
		},
		{
			name:  "equally near regions around a later hint: the first",
			text:  "a\nfoo \nb\nc\nd\nfoo \ne\n",
			patch: "--- a/f\n+++ b/f\n@@ -4 +4 @@\n-foo\n+F\n",
			lines: []int{2},
			msg:   []string{"nearest: line 2 "},
		},
		{
			name:  "the hint at line 1 counts after an earlier hunk",
			text:  "foo \nbar\nbaz\nqux\nfoo \n",
			patch: "--- a/f\n+++ b/f\n@@ -3 +3 @@\n-baz\n+BAZ\n@@ -1 +1 @@\n-foo\n+F\n",
			index: 1, lines: []int{1},
			msg: []string{"nearest: line 1 "},
		},
		{
			name:    "a region of 15 lines is shown whole",
			text:    numbered(30),
			patch:   removal(11, 25, 18, "line eighteen"),
			msg:     []string{"nearest: lines 11-25 (14 of 15 equal)"},
			near:    []string{"00011|line 11\n", "00022|line 22\n00023|line 23\n", "00025|line 25\n"},
			nearNot: []string{"..."},
		},
		{
			name:    "a region of 24 lines is shown whole",
			text:    numbered(40),
			patch:   removal(5, 28, 10, "line ten"),
			msg:     []string{"nearest: lines 5-28 (23 of 24 equal)"},
			near:    []string{"00005|line 5\n", "00016|line 16\n00017|line 17\n", "00028|line 28\n"},
			nearNot: []string{"..."},
		},
		{
			name:    "a region of 25 lines shows its first 12 and last 8",
			text:    numbered(40),
			patch:   removal(5, 29, 10, "line ten"),
			msg:     []string{"nearest: lines 5-29 (24 of 25 equal)"},
			near:    []string{"00005|line 5\n", "00016|line 16\n... (5 lines)\n00022|line 22\n", "00029|line 29\n"},
			nearNot: []string{"00017|", "00021|"},
		},
		{
			name:  "lines found around the hint outvote the hint",
			text:  numbered(20),
			patch: "--- a/f\n+++ b/f\n@@ -8,3 +8,3 @@\n line 4\n-line 5x\n+five\n line 6\n",
			lines: []int{4, 5, 6},
			msg:   []string{"nearest: lines 4-6 (2 of 3 equal); line 5 (a removed line) differs in text"},
		},
		{
			name:  "a differing first context line is no removed line",
			text:  "  a\nb\n",
			patch: "--- a/f\n+++ b/f\n@@ @@\n a\n-b\n+B\n",
			lines: []int{1, 2},
			msg:   []string{"; line 1 differs in indentation (file 2 spaces, patch none)"},
		},
		{
			name:    "a region of 30 lines shows its first 12 and last 8",
			text:    numbered(40),
			patch:   removal(6, 35, 20, "line twenty"),
			msg:     []string{"nearest: lines 6-35 (29 of 30 equal)", "line 20 (a removed line) differs in text"},
			near:    []string{"00006|line 6\n", "00017|line 17\n... (10 lines)\n00028|line 28\n", "00035|line 35\n"},
			nearNot: []string{"00018|", "00027|"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Apply([]byte(tt.text), hunksOf(t, tt.patch))
			var he *HunkError
			if !errors.As(err, &he) {
				t.Fatalf("Apply = %q, %v; want a *HunkError", a.Text, err)
			}
			// The nearest region is chosen among candidates kept in a map:
			// every run must name the same one, whatever the map's order.
			for range 20 {
				_, again := Apply([]byte(tt.text), hunksOf(t, tt.patch))
				var he2 *HunkError
				if !errors.As(again, &he2) || he2.Msg != he.Msg || !cmp.Equal(he2.Lines, he.Lines) || he2.Near != he.Near {
					t.Fatalf("runs disagree: %v, then %v", err, again)
				}
			}
			if he.Kind != KindNoMatch || he.Index != tt.index {
				t.Errorf("error = kind %q index %d (%v), want no_match index %d", he.Kind, he.Index, err, tt.index)
			}
			if tt.lines != nil && !cmp.Equal(he.Lines, tt.lines) {
				t.Errorf("Lines = %v, want %v", he.Lines, tt.lines)
			}
			for _, m := range tt.msg {
				if !strings.Contains(he.Msg, m) {
					t.Errorf("Msg = %q, want it to contain %q", he.Msg, m)
				}
			}
			for _, m := range tt.near {
				if !strings.Contains(he.Near, m) {
					t.Errorf("Near = %q, want it to contain %q", he.Near, m)
				}
			}
			for _, m := range tt.nearNot {
				if strings.Contains(he.Near, m) {
					t.Errorf("Near = %q, want it not to contain %q", he.Near, m)
				}
			}
		})
	}
}
