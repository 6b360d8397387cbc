package patch

import (
	"errors"
	"strings"
	"testing"
)

// TestTypographicMiss: a hunk whose lines differ from the file's only in
// typographic dashes, quotes or no-break spaces is never applied; the miss
// shows the file's region and says which characters differ, on which line,
// with the no-break spaces made visible.
func TestTypographicMiss(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		patch string
		lines []int
		msg   []string
		near  string
	}{
		{
			name:  "an em dash written as a hyphen",
			text:  "# Notes\nfast — always\nend\n",
			patch: "--- a/f\n+++ b/f\n@@ @@\n # Notes\n-fast - always\n+fast, always\n",
			lines: []int{1, 2},
			msg:   []string{"nearest: lines 1-2 (1 of 2 equal)", `line 2 (a removed line) differs in dashes (file "fast — always", patch "fast - always")`},
			near:  "00002|fast — always\n",
		},
		{
			name:  "an en dash in a kept line",
			text:  "pages 10–12\nsee\n",
			patch: "--- a/f\n+++ b/f\n@@ @@\n pages 10-12\n-see\n+see also\n",
			lines: []int{1, 2},
			msg:   []string{"line 1 differs in dashes", "(1 of 2 equal)"},
			near:  "00001|pages 10–12\n",
		},
		{
			name:  "a no-break space",
			text:  "price: 10\u00a0€\n",
			patch: "--- a/f\n+++ b/f\n@@ @@\n-price: 10 €\n+price: 12 €\n",
			lines: []int{1},
			msg:   []string{`differs in no-break spaces (file "price: 10\u00a0€", patch "price: 10 €")`},
		},
		{
			name:  "quotes and dashes in one line",
			text:  "say “hi” — now\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-say \"hi\" - now\n+say bye\n*** End Patch",
			lines: []int{1},
			msg:   []string{"differs in quotes and dashes", "copy the file's characters"},
		},
		{
			name:  "the file has ASCII, the patch a minus sign",
			text:  "x = a - b\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-x = a − b\n+x = a + b\n*** End Patch",
			lines: []int{1},
			msg:   []string{`differs in dashes (file "x = a - b", patch "x = a − b")`},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Apply([]byte(tc.text), hunksOf(t, tc.patch))
			var he *HunkError
			if !errors.As(err, &he) || he.Kind != KindNoMatch {
				t.Fatalf("Apply = %q, %v; want no_match", a.Text, err)
			}
			if len(he.Lines) != len(tc.lines) || he.Lines[0] != tc.lines[0] {
				t.Errorf("Lines = %v, want %v", he.Lines, tc.lines)
			}
			for _, m := range tc.msg {
				if !strings.Contains(he.Msg, m) {
					t.Errorf("Msg = %q, want it to contain %q", he.Msg, m)
				}
			}
			if !strings.Contains(he.Near, tc.near) || he.Near == "" {
				t.Errorf("Near = %q, want it to show %q", he.Near, tc.near)
			}
		})
	}
}

// TestTypographicDiff pins the classes lineDiff names, and that text that
// differs beyond them is named as text.
func TestTypographicDiff(t *testing.T) {
	for _, tc := range []struct{ file, patch, want string }{
		{"a – b", "a - b", "dashes"},
		{"a ‐ b", "a - b", "dashes"},
		{"a ‑ b", "a - b", "dashes"},
		{"a ‒ b", "a - b", "dashes"},
		{"a ― b", "a - b", "dashes"},
		{"‘x’", "'x'", "quotes"},
		{"1\u202f000", "1 000", "no-break spaces"},
		{"1\u2007000", "1 000", "no-break spaces"},
		{"“x” — y", "\"x\" - y", "quotes and dashes"},
		{"a — b", "a -- b", "text"},
		{"a — c", "a - b", "text"},
	} {
		got := lineDiff([]byte(tc.file), tc.patch)
		if !strings.HasPrefix(got, tc.want+" (") {
			t.Errorf("lineDiff(%q, %q) = %q, want %s", tc.file, tc.patch, got, tc.want)
		}
	}
}
