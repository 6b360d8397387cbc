package patch

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// upd is the plan of an update of f at patch line 1 with the given hunks.
func upd(hunks ...Hunk) []File { return []File{{Kind: Update, Path: "f", Line: 1, Hunks: hunks}} }

// TestParseBoundaries reads patches at the edges of each parsing rule: where
// a counted hunk ends, which lines a header's counts take, where the patch
// text begins and ends, and how the names of a "diff --git" line split.
func TestParseBoundaries(t *testing.T) {
	const ff = "--- a/f\n+++ b/f\n"
	tests := []struct {
		name  string
		patch string
		want  []File
		line  int    // with msg: the refusal's patch line
		msg   string // a part of the refusal's message
		never string // a part the refusal's message must not have
	}{
		// Counts: an empty context line the counts call for is kept, even
		// past the trimmed end of the text.
		{name: "counted trailing empty context line", patch: ff + "@@ -1,2 +1,2 @@\n-a\n+b\n\n",
			want: upd(Hunk{OldStart: 1, Old: []string{"a", ""}, New: []string{"b", ""}})},
		{name: "counted leading context then empty line", patch: ff + "@@ -1,2 +1,2 @@\n x\n\n",
			want: upd(Hunk{OldStart: 1, Old: []string{"x", ""}, New: []string{"x", ""}})},
		// Counts that are met before an empty line: the empty line separates.
		{name: "old count met, empty line is not context", patch: ff + "@@ -1 +1 @@\n-a\n\n",
			want: upd(Hunk{OldStart: 1, Old: []string{"a"}})},
		{name: "new count met, empty line is not context", patch: ff + "@@ -1 +1 @@\n+b\n\n",
			want: upd(Hunk{OldStart: 1, New: []string{"b"}})},
		// One removed or added line more than counted: the hunk runs on.
		{name: "one removed line over the count", patch: ff + "@@ -1 +1 @@\n-a\n-b\n+c\n\n d\n",
			want: upd(Hunk{OldStart: 1, Old: []string{"a", "b", "", "d"}, New: []string{"c", "", "d"}})},
		{name: "one added line over the count", patch: ff + "@@ -1 +1 @@\n+a\n+b\n-c\n\n d\n",
			want: upd(Hunk{OldStart: 1, Old: []string{"c", "", "d"}, New: []string{"a", "b", "", "d"}})},
		{name: "removed line over the count looks like a file header", patch: ff + "@@ -1 +1 @@\n-a\n--- x\n+++ y\n",
			line: 5, msg: "one file on both sides"},
		{name: "hunk line as the last line after the counted ones", patch: ff + "@@ -1 +1 @@\n-a\n+b\n-c",
			want: upd(Hunk{OldStart: 1, Old: []string{"a", "c"}, New: []string{"b"}})},
		{name: "whitespace line after the counted ones ends the hunk", patch: ff + "@@ -1 +1 @@\n-a\n+b\n  \nthanks\n",
			want: upd(Hunk{OldStart: 1, Old: []string{"a"}, New: []string{"b"}})},
		{name: "context after the no-newline marker of a counted hunk", patch: ff + "@@ -1 +1 @@\n-a\n+b\n\\ No newline at end of file\n\n x\n",
			line: 8, msg: "hunk line outside any hunk"},
		{name: "mail signature after a counted hunk", patch: ff + "@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n",
			want: upd(Hunk{OldStart: 1, Old: []string{"a"}, New: []string{"b"}})},
		{name: "bare hunk ends at a removed line that looks like a header", patch: ff + "@@\n a\n--- x",
			want: upd(Hunk{Old: []string{"a", "-- x"}, New: []string{"a"}})},

		// A hunk line left over names the header that miscounted it.
		{name: "stray line after an empty line after a counted hunk", patch: ff + "@@ -1 +1 @@\n-a\n+b\n\n x\n",
			line: 7, msg: "the hunk header at patch line 3 counts fewer"},
		{name: "stray line after a second file section",
			patch: ff + "@@ -1 +1 @@\n-a\n+b\ndiff --git a/g b/h\nsimilarity index 100%\nrename from g\nrename to h\n+c\n",
			line:  10, msg: "the hunk header at patch line 3 counts fewer"},
		{name: "stray line after a section without hunks",
			patch: "diff --git a/g b/h\nsimilarity index 100%\nrename from g\nrename to h\n+c\n",
			line:  5, msg: "hunk line outside any hunk", never: "counts fewer"},

		// The last line of the patch.
		{name: "hunk header as the last line", patch: ff + "@@ -1 +1 @@\n-a\n+b\n@@", line: 6, msg: "empty hunk"},
		{name: "Index header with a hunk header as the last line", patch: "Index: f\n@@ -1 +1 @@", line: 2, msg: "empty hunk"},
		{name: "diff --git line alone", patch: "diff --git a/x b/x\n", line: 1, msg: "changes nothing"},
		{name: "--- line alone", patch: "--- a/x\n", line: 1, msg: "not a patch"},
		{name: "bare @@ as the last line after text", patch: "note\n@@", line: 2, msg: "without a file header"},
		{name: "Begin Patch as the last line after text", patch: "Here it is:\n*** Begin Patch", line: 1, msg: "found \"Here it is:\""},
		{name: "one line", patch: "hello", line: 1, msg: "not a patch"},
		{name: "a fence alone", patch: "```\n", line: 1, msg: "empty patch"},
		{name: "an empty fence", patch: "```\n```\n", line: 1, msg: "empty patch"},
		{name: "unified diff of a text naming the envelope", patch: ff + "@@\n *** Begin Patch\n-a\n+b\n",
			want: upd(Hunk{Old: []string{"*** Begin Patch", "a"}, New: []string{"*** Begin Patch", "b"}})},
		{name: "fenced envelope with blank lines inside the fence",
			patch: "```\n\n*** Begin Patch\n*** Delete File: a\n*** End Patch\n\n```\n",
			want:  []File{{Kind: Delete, Path: "a", Line: 4}}},

		{name: "fenced envelope without its end, blank line before the fence",
			patch: "```\n*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n\n```\n", line: 6, msg: "ends without"},

		// Heredoc tags.
		{name: "heredoc at the start of the line", patch: "<<EOF\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF\n",
			want: []File{{Kind: Delete, Path: "a", Line: 3}}},
		{name: "heredoc tag in double quotes", patch: "apply_patch <<\"PATCH\"\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nPATCH\n",
			want: []File{{Kind: Delete, Path: "a", Line: 3}}},
		{name: "heredoc tag of every allowed kind of character", patch: "apply_patch <<-'a_z-A.Z09'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\na_z-A.Z09\n",
			want: []File{{Kind: Delete, Path: "a", Line: 3}}},

		// The names of a "diff --git" line.
		{name: "git names with spaces and b/ inside", patch: "diff --git a/x b/y b/x b/y\n@@ @@\n-a\n+b\n",
			want: []File{{Kind: Update, Path: "x b/y", Line: 1, Hunks: []Hunk{{Heading: "", Old: []string{"a"}, New: []string{"b"}}}}}},
		{name: "git names that differ, the first with a space", patch: "diff --git a/x y b/z\n@@ @@\n-a\n+b\n",
			want: []File{{Kind: Update, Path: "x y", MoveTo: "z", Line: 1, Hunks: []Hunk{{Old: []string{"a"}, New: []string{"b"}}}}}},
		{name: "quoted git names", patch: "diff --git \"a/sp ace\" \"b/sp ace\"\n@@ @@\n-a\n+b\n",
			want: []File{{Kind: Update, Path: "sp ace", Line: 1, Hunks: []Hunk{{Old: []string{"a"}, New: []string{"b"}}}}}},
		{name: "unterminated quoted git name", patch: "diff --git \"a/x\n@@ @@\n-a\n+b\n", line: 1, msg: "bad \"diff --git\" line"},
		{name: "git line with no first name", patch: "diff --git  b/x \"c\"\n@@ @@\n-a\n+b\n", line: 1, msg: "bad \"diff --git\" line"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.patch)
			if tt.msg == "" {
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("Parse mismatch (-want +got):\n%s", diff)
				}
				return
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse = %+v, %v; want a *ParseError", got, err)
			}
			if pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) || tt.never != "" && strings.Contains(pe.Msg, tt.never) {
				t.Errorf("error = line %d %q, want line %d containing %q", pe.Line, pe.Msg, tt.line, tt.msg)
			}
		})
	}
}
