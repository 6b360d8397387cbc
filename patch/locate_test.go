package patch

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// TestHintDrift: the offset at which a numbered hunk was found moves the
// hints of the numbered hunks after it, by the same amount in either
// direction; a hunk without numbers neither sets nor takes an offset. The
// second hunk's lines occur twice below the first, so only a hint carried
// right places it.
func TestHintDrift(t *testing.T) {
	text := lines(20, map[int]string{10: "dup", 15: "dup"})
	tests := []struct {
		name, patch string
		want        map[int]string // the changed lines of the result
	}{
		{"hints 3 lines early", "@@ -2 +2 @@\n-line 5\n+five\n@@ -7 +7 @@\n-dup\n+DUP\n",
			map[int]string{5: "five", 10: "DUP", 15: "dup"}},
		{"hints 3 lines late", "@@ -8 +8 @@\n-line 5\n+five\n@@ -13 +13 @@\n-dup\n+DUP\n",
			map[int]string{5: "five", 10: "DUP", 15: "dup"}},
		{"the carried hint names the second copy", "@@ -3 +3 @@\n-line 5\n+five\n@@ -13 +13 @@\n-dup\n+DUP\n",
			map[int]string{5: "five", 10: "dup", 15: "DUP"}},
		{"a bare hunk before a right hint", "@@\n-line 5\n+five\n@@ -10 +10 @@\n-dup\n+DUP\n",
			map[int]string{5: "five", 10: "DUP", 15: "dup"}},
		{"a bare hunk between", "@@ -1 +1 @@\n-line 2\n+two\n@@ @@\n-line 5\n+five\n@@ -14 +14 @@\n-dup\n+DUP\n",
			map[int]string{2: "two", 5: "five", 10: "dup", 15: "DUP"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Apply([]byte(text), hunksOf(t, "--- a/f\n+++ b/f\n"+tc.patch))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			want := map[int]string{10: "dup", 15: "dup"}
			for l, s := range tc.want {
				want[l] = s
			}
			if got := string(a.Text); got != lines(20, want) {
				t.Fatalf("got %q, want %q", got, lines(20, want))
			}
		})
	}

	// Without the offset carried, the second hunk's hint names no copy:
	// refused with both.
	_, err := Apply([]byte(text), hunksOf(t, "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-line 5\n+five\n@@ -10 +10 @@\n-dup\n+DUP\n"))
	var he *HunkError
	if !errors.As(err, &he) || he.Kind != KindAmbiguous || he.Index != 1 || !slices.Equal(he.Lines, []int{10, 15}) {
		t.Fatalf("err = %v, want hunk 2 ambiguous at 10, 15", err)
	}
}

// TestInsertionNeedsAPlace: a hunk that only adds lines goes where its
// header, its @@ line or *** End of File says; an offset carried from a
// numbered hunk before it is no place.
func TestInsertionNeedsAPlace(t *testing.T) {
	text := lines(10, map[int]string{3: "a"})
	for _, p := range []string{
		"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n@@\n+new\n",
		"--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n@@ @@\n+new\n",
	} {
		a, err := Apply([]byte(text), hunksOf(t, p))
		var he *HunkError
		if !errors.As(err, &he) || he.Kind != KindAmbiguous || he.Index != 1 || !strings.Contains(he.Msg, "only adds lines") {
			t.Fatalf("%q: Apply = %q, %v; want hunk 2 refused as only adding lines", p, a.Text, err)
		}
	}
}

// TestInsertionEdges: lines added at the top, at the end, after the last
// line of a file without a final newline, and into empty or CRLF files.
func TestInsertionEdges(t *testing.T) {
	tests := []applyCase{
		{"unified at the top", "a\nb\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+top\n", "top\na\nb\n", false},
		{"unified at the end", "a\nb\n", "--- a/f\n+++ b/f\n@@ -2,0 +3 @@\n+end\n", "a\nb\nend\n", false},
		{"unified past the end", "a\nb\n", "--- a/f\n+++ b/f\n@@ -40,0 +41 @@\n+end\n", "a\nb\nend\n", false},
		{"after a last line without a newline", "a\nb", "--- a/f\n+++ b/f\n@@ -2,0 +3 @@\n+end\n", "a\nb\nend", false},
		{"codex at the end, below its @@ line", "x\ny", "*** Begin Patch\n*** Update File: f\n@@ y\n+z\n*** End Patch", "x\ny\nz", false},
		{"codex End of File in a CRLF file", "a\r\nb\r\n", "*** Begin Patch\n*** Update File: f\n@@\n+c\n*** End of File\n*** End Patch", "a\r\nb\r\nc\r\n", true},
		{"at the top of a CRLF file", "a\r\nb\r\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+top\n", "top\r\na\r\nb\r\n", true},
		{"carrying their own CR", "a\r\nb\r\n", "--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+mid\r\n", "a\r\nmid\r\nb\r\n", false},
		// The one added line ends the file without a newline: no line got
		// the file's "\r\n", so nothing was adapted.
		{"CRLF file, last line added without a newline", "a\r\nb\r\n", "--- a/f\n+++ b/f\n@@ -2,0 +3 @@\n+c\n\\ No newline at end of file\n", "a\r\nb\r\nc", false},
		{"into an empty file, marked without a newline", "", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+x\n\\ No newline at end of file\n", "x", false},
	}
	runApplyCases(t, tests)
}

// TestDeletionEdges: lines removed at the top, at the end and in the middle
// of LF, CRLF and unterminated files; a CRLF match of an LF patch is
// adapted even when no line is written.
func TestDeletionEdges(t *testing.T) {
	tests := []applyCase{
		{"first line", "a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,2 +1 @@\n-a\n b\n", "b\nc\n", false},
		{"last line", "a\nb\nc\n", "--- a/f\n+++ b/f\n@@ -2,2 +2 @@\n b\n-c\n", "a\nb\n", false},
		{"last line, unterminated", "a\nb\nc", "--- a/f\n+++ b/f\n@@ -2,2 +2 @@\n b\n-c\n\\ No newline at end of file\n", "a\nb\n", false},
		{"CRLF middle line by an LF patch", "a\r\nb\r\nc\r\n", "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n c\n*** End Patch", "a\r\nc\r\n", true},
		{"CRLF lone line by an LF patch", "a\r\nb\r\nc\r\n", "--- a/f\n+++ b/f\n@@ -2 +1,0 @@\n-b\n", "a\r\nc\r\n", true},
		{"CRLF line by a CRLF patch", "a\r\nb\r\nc\r\n", "--- a/f\n+++ b/f\n@@ -2 +1,0 @@\n-b\r\n", "a\r\nc\r\n", false},
		{"End of File takes the last copy", "x\ny\nx\n", "*** Begin Patch\n*** Update File: f\n@@\n-x\n*** End of File\n*** End Patch", "x\ny\n", false},
	}
	runApplyCases(t, tests)
}

// TestCodexContextLines: where @@ lines may be found, relative to each
// other and to the hunk before.
func TestCodexContextLines(t *testing.T) {
	const begin = "*** Begin Patch\n*** Update File: f\n"
	tests := []struct {
		name, text, patch, want string
		lines                   []int  // with msg: the refusal's lines
		msg                     string // a part of the refusal's message
	}{
		{name: "a second hunk under the same @@ line, ending the file",
			text:  "def f():\n    a = 1\n    b = 1\n",
			patch: begin + "@@ def f():\n-    a = 1\n+    a = 2\n@@ def f():\n-    b = 1\n+    b = 2\n*** End Patch",
			want:  "def f():\n    a = 2\n    b = 2\n"},
		{name: "the first @@ line may lie above the previous hunk",
			text:  "f\nx\nf\nx\ny\nx\n",
			patch: begin + "@@\n-y\n+Y\n@@ f\n-x\n+X\n*** End Patch",
			want:  "f\nx\nf\nx\nY\nX\n"},
		{name: "a second @@ line is searched only below the first",
			text:  "func main() {\n\tx := 1\n\ty := 2\n}\n",
			patch: begin + "@@\n-\tx := 1\n+\tx := 10\n@@ func\n@@ main\n-\ty := 2\n+\ty := 20\n*** End Patch",
			lines: []int{1}, msg: `@@ line "main" is at line 1, above the @@ line before it`},
		{name: "an @@ line in no line of the file, after a hunk",
			text:  "a\nb\nc\n",
			patch: begin + "@@\n-a\n+A\n@@ zzz\n-c\n+C\n*** End Patch",
			msg:   `@@ line "zzz" is not in the file`},
		{name: "an @@ line only above the previous hunk, which ends the file",
			text:  "a\nb\n",
			patch: begin + "@@\n-b\n+B\n@@ zzz\n+c\n*** End Patch",
			msg:   `@@ line "zzz" is not in the file`},
		{name: "the first line below the @@ line is taken, the second copy is not",
			text:  "g\nx\nf\nx\nx\n",
			patch: begin + "@@ f\n-x\n+X\n*** End Patch",
			want:  "g\nx\nf\nX\nx\n"},
		{name: "the hunk may start at its @@ line, at the top",
			text:  "f\nx\nf\nx\n",
			patch: begin + "@@ f\n f\n-x\n+X\n*** End Patch",
			want:  "f\nX\nf\nx\n"},
		{name: "the last copy ends the file",
			text:  "f\nx\nx\n",
			patch: begin + "@@ f\n-x\n+X\n*** End of File\n*** End Patch",
			want:  "f\nx\nX\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Apply([]byte(tc.text), hunksOf(t, tc.patch))
			if tc.msg == "" {
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
			if !errors.As(err, &he) || he.Kind != KindNoMatch || !strings.Contains(he.Msg, tc.msg) {
				t.Fatalf("Apply = %q, %v; want no_match saying %q", a.Text, err, tc.msg)
			}
			if tc.lines != nil && !slices.Equal(he.Lines, tc.lines) {
				t.Errorf("Lines = %v, want %v", he.Lines, tc.lines)
			}
		})
	}
}

// TestAmbiguousList: the message names the first ten candidates and counts
// the rest; Lines has them all.
func TestAmbiguousList(t *testing.T) {
	for _, n := range []int{2, 10, 11, 12} {
		t.Run(fmt.Sprint(n), func(t *testing.T) {
			at := map[int]string{}
			var want []int
			for i := range n {
				at[3*i+2] = "dup"
				want = append(want, 3*i+2)
			}
			_, err := Apply([]byte(lines(3*n+2, at)), hunksOf(t, "--- a/f\n+++ b/f\n@@ @@\n-dup\n+DUP\n"))
			var he *HunkError
			if !errors.As(err, &he) || he.Kind != KindAmbiguous || !slices.Equal(he.Lines, want) {
				t.Fatalf("err = %v, want ambiguous at %v", err, want)
			}
			shown := want[:min(n, 10)]
			list := strings.Trim(strings.ReplaceAll(fmt.Sprint(shown), " ", ", "), "[]")
			if more := n - len(shown); more > 0 {
				list += fmt.Sprintf(" and %d more)", more)
			} else {
				list += ")"
			}
			if !strings.Contains(he.Msg, fmt.Sprintf("occurs %d times (at lines %s", n, list)) {
				t.Fatalf("Msg = %q, want the lines %q", he.Msg, list)
			}
		})
	}
}

// TestContextAlignment: a hunk's context lines, which may differ from the
// file's in trailing space, are all the lines Old and New share; removed
// lines around them, before and after, stay strict.
func TestContextAlignment(t *testing.T) {
	tests := []struct {
		name, text, patch, want string
	}{
		{"a line added before the context", "a \nb\n", "@@ @@\n+x\n a\n b\n", "x\na \nb\n"},
		{"a line removed before the context", "r\na \nb\n", "@@ @@\n-r\n a\n b\n", "a \nb\n"},
		{"a line removed after the context", "a \nb\n", "@@ @@\n a\n-b\n", "a \n"},
		{"lines removed and added around repeated context", "a \nr\na \ns\n", "@@ @@\n a\n-r\n+R\n a\n-s\n", "a \nR\na \n"},
		{"context shared with an added line of the same text", "k\t\nr\nk\n", "@@ @@\n k\n-r\n+k\n k\n", "k\t\nk\nk\n"},
		// Old a b, New b a: either line could be the one kept; the patch's
		// own context line is.
		{"a line moved below the context", "a\nb \n", "@@ @@\n-a\n b\n+a\n", "b \na\n"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Apply([]byte(tc.text), hunksOf(t, "--- a/f\n+++ b/f\n"+tc.patch))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			checkRegions(t, []byte(tc.text), a)
			if string(a.Text) != tc.want || !slices.Equal(a.SpaceContext, []int{1}) {
				t.Fatalf("got %q %v, want %q [1]", a.Text, a.SpaceContext, tc.want)
			}
		})
	}
}

// TestRemovedLinesStayStrict: a removed line that differs from the file's
// in trailing space refuses the hunk, even when a line added elsewhere in
// the hunk has its text.
func TestRemovedLinesStayStrict(t *testing.T) {
	for _, tc := range []struct{ text, patch string }{
		{"a \nb\n", "@@ @@\n-a\n b\n+a\n"},
		{"a\nb\nc \n", "@@ @@\n a\n b\n-c\n"},
	} {
		a, err := Apply([]byte(tc.text), hunksOf(t, "--- a/f\n+++ b/f\n"+tc.patch))
		var he *HunkError
		if !errors.As(err, &he) || he.Kind != KindNoMatch || !strings.Contains(he.Msg, "(a removed line) differs in trailing space") {
			t.Errorf("%q on %q: Apply = %q, %v; want no_match naming the removed line", tc.patch, tc.text, a.Text, err)
		}
	}
}

// TestKeptLines: the alignment of Old and New keeps as many lines as a
// longest common subsequence has, each kept line equal on both sides and in
// order on both.
func TestKeptLines(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	pick := func(n int) []string {
		s := make([]string, n)
		for i := range s {
			s[i] = string(rune('a' + r.IntN(3)))
		}
		return s
	}
	for range 2000 {
		h := Hunk{Old: pick(r.IntN(7)), New: pick(r.IntN(7))}
		kept := keptLines(h)
		if len(kept) != len(h.Old) {
			t.Fatalf("%q -> %q: kept %v has %d entries", h.Old, h.New, kept, len(kept))
		}
		count, prev := 0, -1
		for i, j := range kept {
			if j < 0 {
				continue
			}
			if j <= prev || j >= len(h.New) || h.Old[i] != h.New[j] {
				t.Fatalf("%q -> %q: kept %v is no alignment", h.Old, h.New, kept)
			}
			count, prev = count+1, j
		}
		if want := lcsLen(h.Old, h.New); count != want {
			t.Fatalf("%q -> %q: kept %v keeps %d lines, want %d", h.Old, h.New, kept, count, want)
		}
	}
}

// lcsLen is the length of a longest common subsequence of a and b, by
// recursion over prefixes.
func lcsLen(a, b []string) int {
	memo := map[[2]int]int{}
	var f func(i, j int) int
	f = func(i, j int) int {
		if i == 0 || j == 0 {
			return 0
		}
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		v := max(f(i-1, j), f(i, j-1))
		if a[i-1] == b[j-1] {
			v = f(i-1, j-1) + 1
		}
		memo[[2]int{i, j}] = v
		return v
	}
	return f(len(a), len(b))
}

// TestKeptLinesLimit: a hunk of up to maxKept old-by-new lines is aligned,
// so its context may differ in trailing space; a larger one only matches
// exactly.
func TestKeptLinesLimit(t *testing.T) {
	const side = 2048 // side*side == maxKept
	if side*side != maxKept {
		t.Fatalf("maxKept is %d, not %d", maxKept, side*side)
	}
	for _, newLines := range []int{side, side + 1} {
		t.Run(fmt.Sprint(newLines), func(t *testing.T) {
			// Old: context "c" (the file's "c "), then side-1 removed lines;
			// New: the context, then newLines-1 added lines.
			var text, p, want strings.Builder
			text.WriteString("c \n")
			want.WriteString("c \n")
			p.WriteString("--- a/f\n+++ b/f\n@@ @@\n c\n")
			for i := 1; i < side; i++ {
				fmt.Fprintf(&text, "o%d\n", i)
				fmt.Fprintf(&p, "-o%d\n", i)
			}
			for i := 1; i < newLines; i++ {
				fmt.Fprintf(&p, "+n%d\n", i)
				fmt.Fprintf(&want, "n%d\n", i)
			}
			a, err := Apply([]byte(text.String()), hunksOf(t, p.String()))
			if newLines*side > maxKept {
				if !isKind(err, KindNoMatch) {
					t.Fatalf("err = %v, want no_match", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if string(a.Text) != want.String() || !slices.Equal(a.SpaceContext, []int{1}) {
				t.Fatalf("wrong result (SpaceContext %v)", a.SpaceContext)
			}
		})
	}
}

// TestInsertionLineEnding: in a file of mixed line endings, added lines take
// the ending of the terminated line nearest above them; at the top, of the
// first line.
func TestInsertionLineEnding(t *testing.T) {
	tests := []applyCase{
		{"below an LF line, above CRLF lines", "a\nb\r\nc\r\n", "--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+X\n", "a\nX\nb\r\nc\r\n", false},
		{"below a CRLF line, above LF lines", "a\r\nb\nc\n", "--- a/f\n+++ b/f\n@@ -1,0 +2 @@\n+X\n", "a\r\nX\r\nb\nc\n", true},
		{"at the top, first line LF", "a\nb\nc\r\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+X\n", "X\na\nb\nc\r\n", false},
		{"at the top, first line CRLF", "a\r\nb\nc\n", "--- a/f\n+++ b/f\n@@ -0,0 +1 @@\n+X\n", "X\r\na\r\nb\nc\n", true},
		{"after an unterminated last line below a CRLF line", "a\nb\r\nc", "*** Begin Patch\n*** Update File: f\n@@\n+X\n*** End of File\n*** End Patch", "a\nb\r\nc\r\nX", true},
		{"after an unterminated last line below an LF line", "a\r\nb\nc", "*** Begin Patch\n*** Update File: f\n@@\n+X\n*** End of File\n*** End Patch", "a\r\nb\nc\nX", false},
		{"after the one unterminated line", "a", "*** Begin Patch\n*** Update File: f\n@@\n+X\n*** End of File\n*** End Patch", "a\nX", false},
	}
	runApplyCases(t, tests)
}

// TestMissNearest: of several copies of a hunk's lines, none where the hunk
// may go, a miss names the one nearest where the search began, the earlier
// on a tie; a copy equal as written is named before one equal only with
// "\r\n" set aside.
func TestMissNearest(t *testing.T) {
	const begin = "*** Begin Patch\n*** Update File: f\n"
	tests := []struct {
		name, text, patch string
		index             int
		lines             []int
		msg               string
	}{
		{"the first copy, at the top, is nearest", "x\ny\nx\ny\nz\n",
			begin + "@@\n-x\n+X\n*** End of File\n*** End Patch",
			0, []int{1}, "at line 1, but the hunk must end at the end of the file"},
		{"two copies as near: the earlier", "x\np\nq\nr\nx\ns\nt\n",
			begin + "@@\n-p\n+P\n@@\n-x\n+X\n*** End of File\n*** End Patch",
			1, []int{1}, "at line 1, above the end of the previous hunk (line 2)"},
		{"the copy just above the @@ line", "a\nb\nx\nc\nd\nx\ne\n",
			begin + "@@ c\n-x\n+X\n*** End of File\n*** End Patch",
			0, []int{3}, `at line 3, above its @@ line "c" (line 4)`},
		{"a copy as written before a nearer CRLF copy", "x\na\nb\nc\nx\r\nd\r\n",
			begin + "@@\n-c\n+C\n@@\n-x\n+X\n*** End of File\n*** End Patch",
			1, []int{1}, "at line 1, above the end of the previous hunk (line 4)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Apply([]byte(tc.text), hunksOf(t, tc.patch))
			var he *HunkError
			if !errors.As(err, &he) || he.Kind != KindNoMatch || he.Index != tc.index {
				t.Fatalf("err = %v, want hunk %d no_match", err, tc.index+1)
			}
			if !slices.Equal(he.Lines, tc.lines) || !strings.Contains(he.Msg, tc.msg) {
				t.Fatalf("Lines %v, Msg %q; want %v and %q", he.Lines, he.Msg, tc.lines, tc.msg)
			}
		})
	}
}

// applyCase is a patch applied to a text: the bytes it must give, and
// whether the file's CRLF endings were adapted.
type applyCase struct {
	name, text, patch, want string
	adapted                 bool
}

// runApplyCases applies each case and checks its bytes, its adaptation and
// its regions.
func runApplyCases(t *testing.T, tests []applyCase) {
	t.Helper()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Apply([]byte(tc.text), hunksOf(t, tc.patch))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			checkRegions(t, []byte(tc.text), a)
			if string(a.Text) != tc.want || a.CRLFAdapted != tc.adapted {
				t.Fatalf("got %q adapted %v, want %q adapted %v", a.Text, a.CRLFAdapted, tc.want, tc.adapted)
			}
		})
	}
}
