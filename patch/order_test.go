package patch

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

// TestOrderedPlacement: hunks whose old lines occur more than once are
// placed by the order of the patch's hunks when exactly one placement keeps
// them in order and apart, and refused with the lines still possible when
// several do.
func TestOrderedPlacement(t *testing.T) {
	const ff = "--- a/f\n+++ b/f\n"
	tests := []struct {
		name  string
		text  string
		patch string
		want  string // the text after; "" when refused
		index int    // the refused hunk, 0-based
		lines []int  // its candidate lines
		msg   string // a part of the refusal
	}{
		{
			name:  "two hunks, two copies: the first goes first",
			text:  lines(20, map[int]string{5: "dup", 15: "dup"}),
			patch: ff + "@@ @@\n-dup\n+one\n@@ @@\n-dup\n+two\n",
			want:  lines(20, map[int]string{5: "one", 15: "two"}),
		},
		{
			name:  "a later unique hunk fixes the one before",
			text:  lines(30, map[int]string{5: "dup", 25: "dup", 15: "mid"}),
			patch: ff + "@@ @@\n-dup\n+DUP\n@@ @@\n-mid\n+MID\n",
			want:  lines(30, map[int]string{5: "DUP", 25: "dup", 15: "MID"}),
		},
		{
			name:  "apart: the two-line hunk cannot share a line with the next",
			text:  lines(10, map[int]string{5: "dup", 6: "dup", 7: "dup"}),
			patch: ff + "@@ @@\n-dup\n-dup\n+pair\n@@ @@\n-dup\n+single\n",
			want:  "line 1\nline 2\nline 3\nline 4\npair\nsingle\nline 8\nline 9\nline 10\n",
		},
		{
			name:  "wrong line numbers do not stop it",
			text:  lines(20, map[int]string{5: "dup", 15: "dup"}),
			patch: ff + "@@ -40,1 +40,1 @@\n-dup\n+one\n@@ -90,1 +90,1 @@\n-dup\n+two\n",
			want:  lines(20, map[int]string{5: "one", 15: "two"}),
		},
		{
			name:  "order narrows but does not decide",
			text:  lines(40, map[int]string{10: "dup", 20: "dup", 30: "dup", 25: "mid"}),
			patch: ff + "@@ @@\n-dup\n+DUP\n@@ @@\n-mid\n+MID\n",
			index: 0, lines: []int{10, 20},
			msg: "occurs 3 times, and with the patch's hunks in file order and apart it can still go at 2 of them (at lines 10, 20)",
		},
		{
			name:  "order rules nothing out",
			text:  lines(40, map[int]string{10: "dup", 20: "dup", 30: "dup", 35: "end"}),
			patch: ff + "@@ @@\n-dup\n+DUP\n@@ @@\n-end\n+END\n",
			index: 0, lines: []int{10, 20, 30},
			msg: "occurs 3 times (at lines 10, 20, 30)",
		},
		{
			name:  "three copies for two hunks",
			text:  lines(40, map[int]string{10: "dup", 20: "dup", 30: "dup"}),
			patch: ff + "@@ @@\n-dup\n+A\n@@ @@\n-dup\n+B\n",
			index: 0, lines: []int{10, 20},
			msg: "can still go at 2 of them",
		},
		{
			name:  "the first is fixed by order, the second is not",
			text:  lines(40, map[int]string{10: "dup", 30: "dup", 20: "x", 25: "x"}),
			patch: ff + "@@ @@\n-dup\n+A\n@@ @@\n-x\n+B\n",
			index: 1, lines: []int{20, 25},
			msg: "occurs 2 times (at lines 20, 25)",
		},
		{
			name:  "a candidate reached only through an unplaceable one is no candidate",
			text:  lines(40, map[int]string{10: "a", 30: "a", 5: "b", 20: "b", 15: "c", 25: "c"}),
			patch: ff + "@@ @@\n-a\n+A\n@@ @@\n-b\n+B\n@@ @@\n-c\n+C\n",
			want:  lines(40, map[int]string{10: "A", 30: "a", 5: "b", 20: "B", 15: "c", 25: "C"}),
		},
		{
			name:  "a candidate leading only to an unplaceable one is no candidate",
			text:  lines(30, map[int]string{5: "a", 15: "a", 10: "b", 25: "b", 20: "c"}),
			patch: ff + "@@ @@\n-a\n+A\n@@ @@\n-b\n+B\n@@ @@\n-c\n+C\n",
			want:  lines(30, map[int]string{5: "A", 15: "a", 10: "B", 25: "b", 20: "C"}),
		},
		{
			name:  "no placement in order: the first refusal stands",
			text:  lines(40, map[int]string{10: "dup", 30: "dup", 5: "early"}),
			patch: ff + "@@ @@\n-dup\n+DUP\n@@ @@\n-early\n+EARLY\n",
			index: 0, lines: []int{10, 30},
			msg: "occurs 2 times (at lines 10, 30)",
		},
		{
			name:  "a hunk that only adds lines keeps the first refusal",
			text:  lines(20, map[int]string{5: "dup", 15: "dup"}),
			patch: ff + "@@ @@\n-dup\n+one\n@@ -18,0 +18,1 @@\n+added\n@@ @@\n-dup\n+two\n",
			index: 0, lines: []int{5, 15},
			msg: "occurs 2 times (at lines 5, 15)",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Apply([]byte(tc.text), hunksOf(t, tc.patch))
			if tc.want != "" {
				if err != nil {
					t.Fatalf("Apply: %v", err)
				}
				checkRegions(t, []byte(tc.text), a)
				if string(a.Text) != tc.want {
					t.Fatalf("got %q, want %q", a.Text, tc.want)
				}
				return
			}
			var he *HunkError
			if !errors.As(err, &he) || he.Kind != KindAmbiguous {
				t.Fatalf("Apply = %q, %v; want ambiguous", a.Text, err)
			}
			if he.Index != tc.index || !slices.Equal(he.Lines, tc.lines) || !strings.Contains(he.Msg, tc.msg) {
				t.Fatalf("hunk %d lines %v %q; want hunk %d lines %v containing %q", he.Index, he.Lines, he.Msg, tc.index, tc.lines, tc.msg)
			}
		})
	}
}

// TestOrderedPlacementCodex: bare @@ chunks of a Codex envelope are placed
// the same way; an @@ anchor keeps its own rule (the first run below it).
func TestOrderedPlacementCodex(t *testing.T) {
	text := lines(20, map[int]string{5: "dup", 15: "dup"})
	a, err := Apply([]byte(text), hunksOf(t, "*** Begin Patch\n*** Update File: f\n@@\n-dup\n+one\n@@\n-dup\n+two\n*** End Patch\n"))
	if err != nil || string(a.Text) != lines(20, map[int]string{5: "one", 15: "two"}) {
		t.Fatalf("bare chunks: %q, %v", a.Text, err)
	}
	a, err = Apply([]byte(text), hunksOf(t, "*** Begin Patch\n*** Update File: f\n@@ line 10\n-dup\n+one\n*** End Patch\n"))
	if err != nil || string(a.Text) != lines(20, map[int]string{5: "dup", 15: "one"}) {
		t.Fatalf("anchored chunk: %q, %v", a.Text, err)
	}
	// An anchored chunk is not placed by order: its anchor puts it at the
	// first copy, where the bare chunk before it may be, so the bare
	// chunk's own ambiguity stands.
	_, err = Apply([]byte(text), hunksOf(t, "*** Begin Patch\n*** Update File: f\n@@\n-dup\n+one\n@@ line 1\n-dup\n+two\n*** End Patch\n"))
	var he *HunkError
	if !errors.As(err, &he) || he.Kind != KindAmbiguous || he.Index != 0 || !slices.Equal(he.Lines, []int{5, 15}) {
		t.Fatalf("bare then anchored: %v, want hunk 1 ambiguous at 5, 15", err)
	}
	// A chunk anchored at the end of the file has only that place.
	text = lines(40, map[int]string{5: "dup", 30: "dup", 10: "mid", 15: "z", 40: "z"})
	a, err = Apply([]byte(text), hunksOf(t, "*** Begin Patch\n*** Update File: f\n@@\n-dup\n+DUP\n@@\n-mid\n+MID\n@@\n-z\n+Z\n*** End of File\n*** End Patch\n"))
	if err != nil || string(a.Text) != lines(40, map[int]string{5: "DUP", 30: "dup", 10: "MID", 15: "z", 40: "Z"}) {
		t.Fatalf("end-of-file chunk: %q, %v", a.Text, err)
	}
}
