package patch

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
)

// A file where every line is unique except the repeated block "x", "y".
const modelText = "package p\n\nfunc Foo() {\n\ta := 1\n\tb := 2\n\treturn\n}\n\nfunc Bar() {\n\tc := 3\n}\n"

// TestHeaderForms applies one change under every hunk header models write.
// The text after the second "@@" is a section heading: it never has to be in
// the file.
func TestHeaderForms(t *testing.T) {
	body := " \ta := 1\n-\tb := 2\n+\tb := 20\n \treturn\n"
	want := strings.Replace(modelText, "b := 2\n", "b := 20\n", 1)
	for _, hdr := range []string{
		"@@ -4,3 +4,3 @@",
		"@@ -4,3 +4,3 @@ func Foo() {",
		"@@ -4,3 +4,3 @@ not a line of the file",
		"@@",
		"@@ @@",
		"@@ @@ func Foo() {",
		"@@ @@ nowhere in the file",
		"@@ func Foo() {",
		"@@ -4 +4 @@",
		"@@ -4 +4 @@ func Foo() {",
		"@@ -40 +40 @@",
		"@@ -1,1 +1,1 @@",
		"@@ -4,9 +4,9 @@",
		"@@ -4,3 +4,3",
		"@@ -4 +4",
		"@@  @@",
	} {
		t.Run(hdr, func(t *testing.T) {
			p := "--- a/p.go\n+++ b/p.go\n" + hdr + "\n" + body
			a, err := Apply([]byte(modelText), hunksOf(t, p))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			checkRegions(t, []byte(modelText), a)
			if string(a.Text) != want {
				t.Fatalf("got %q, want %q", a.Text, want)
			}
		})
	}
}

// TestHeaderFormsCodex: inside a Codex envelope, "@@ @@" and a unified
// header's section heading are hints too; only "@@ <line>" is an anchor.
func TestHeaderFormsCodex(t *testing.T) {
	want := strings.Replace(modelText, "b := 2\n", "b := 20\n", 1)
	for _, hdr := range []string{"@@ @@", "@@ @@ nowhere in the file", "@@ -90,3 +90,3 @@ nowhere", "@@ func Foo() {"} {
		t.Run(hdr, func(t *testing.T) {
			p := "*** Begin Patch\n*** Update File: p.go\n" + hdr + "\n \ta := 1\n-\tb := 2\n+\tb := 20\n*** End Patch\n"
			a, err := Apply([]byte(modelText), hunksOf(t, p))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if string(a.Text) != want {
				t.Fatalf("got %q, want %q", a.Text, want)
			}
		})
	}
}

// TestHeadingIsKept: a unified hunk's section heading is kept as Heading,
// never as the Codex anchor Context.
func TestHeadingIsKept(t *testing.T) {
	for hdr, want := range map[string]string{
		"@@ -4,1 +4,1 @@ func Foo() {": "func Foo() {",
		"@@ @@ func Foo() {":           "func Foo() {",
		"@@ func Foo() {":              "func Foo() {",
		"@@ @@":                        "",
		"@@":                           "",
	} {
		h := hunksOf(t, "--- a/p.go\n+++ b/p.go\n"+hdr+"\n-\ta := 1\n+\ta := 10\n")
		if h[0].Heading != want || h[0].Context != "" {
			t.Errorf("%s: Heading %q Context %q, want Heading %q and no Context", hdr, h[0].Heading, h[0].Context, want)
		}
	}
}

// lines makes a text of n numbered lines, with the lines given in at set to
// the given text (1-based).
func lines(n int, at map[int]string) string {
	var b strings.Builder
	for i := 1; i <= n; i++ {
		if s, ok := at[i]; ok {
			b.WriteString(s + "\n")
			continue
		}
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.String()
}

// TestWrongLineNumbers: numbers off by any amount still place a hunk whose
// context is unique; the offset found carries to the next hunk.
func TestWrongLineNumbers(t *testing.T) {
	text := lines(500, nil)
	for _, off := range []int{-499, -200, -7, -1, 0, 1, 7, 200, 499, 5000} {
		t.Run(fmt.Sprint(off), func(t *testing.T) {
			at := func(l int) int { return max(1, l+off) }
			p := fmt.Sprintf("--- a/f\n+++ b/f\n@@ -%d,3 +%d,3 @@\n line 100\n-line 101\n+LINE 101\n line 102\n@@ -%d,3 +%d,3 @@\n line 300\n-line 301\n+LINE 301\n line 302\n",
				at(100), at(100), at(300), at(300))
			a, err := Apply([]byte(text), hunksOf(t, p))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			want := lines(500, map[int]string{101: "LINE 101", 301: "LINE 301"})
			if string(a.Text) != want {
				t.Fatalf("wrong result")
			}
		})
	}
}

// TestAmbiguousCandidates: a hunk that matches several places away from its
// hint, or anywhere without one, is refused with every candidate line.
func TestAmbiguousCandidates(t *testing.T) {
	text := lines(60, map[int]string{10: "dup", 20: "dup", 30: "dup", 55: "dup"})
	for _, tc := range []struct {
		hdr   string
		lines []int
	}{
		{"@@ @@", []int{10, 20, 30, 55}},
		{"@@", []int{10, 20, 30, 55}},
		{"@@ @@ func Foo() {", []int{10, 20, 30, 55}},
		{"@@ -25 +25 @@", []int{10, 20, 30, 55}}, // equally near 20 and 30: nothing nearer counts
		{"@@ -21 +21 @@", []int{10, 20, 30, 55}}, // nearest is 20, but the hint is wrong: not a guess
		{"@@ -1000 +1000 @@", []int{10, 20, 30, 55}},
	} {
		t.Run(tc.hdr, func(t *testing.T) {
			_, err := Apply([]byte(text), hunksOf(t, "--- a/f\n+++ b/f\n"+tc.hdr+"\n-dup\n+DUP\n"))
			var he *HunkError
			if !errors.As(err, &he) || he.Kind != KindAmbiguous || !errors.Is(err, ErrAmbiguous) {
				t.Fatalf("err = %v, want ambiguous", err)
			}
			if !slices.Equal(he.Lines, tc.lines) {
				t.Fatalf("Lines = %v, want %v", he.Lines, tc.lines)
			}
			for _, l := range tc.lines {
				if !strings.Contains(he.Msg, fmt.Sprint(l)) {
					t.Errorf("message %q does not name line %d", he.Msg, l)
				}
			}
		})
	}
	// A right line number places the hunk: that is what the header says.
	a, err := Apply([]byte(text), hunksOf(t, "--- a/f\n+++ b/f\n@@ -30 +30 @@\n-dup\n+DUP\n"))
	if err != nil || string(a.Text) != lines(60, map[int]string{10: "dup", 20: "dup", 30: "DUP", 55: "dup"}) {
		t.Fatalf("exact line number: %v %q", err, a.Text)
	}
	// Candidates are only below the previous hunk.
	_, err = Apply([]byte(text), hunksOf(t, "--- a/f\n+++ b/f\n@@ @@\n-line 25\n+x\n@@ @@\n-dup\n+DUP\n"))
	var he *HunkError
	if !errors.As(err, &he) || he.Index != 1 || !slices.Equal(he.Lines, []int{30, 55}) {
		t.Fatalf("err = %v, want hunk 2 ambiguous at 30, 55", err)
	}
}

// TestOverlappingHunks: hunks apply in order and must not overlap.
func TestOverlappingHunks(t *testing.T) {
	text := lines(20, nil)
	for _, p := range []string{
		"--- a/f\n+++ b/f\n@@ @@\n line 4\n-line 5\n+five\n line 6\n@@ @@\n line 5\n-line 6\n+six\n",
		"--- a/f\n+++ b/f\n@@ -4,3 +4,3 @@\n line 4\n-line 5\n+five\n line 6\n@@ -6,2 +6,2 @@\n line 6\n-line 7\n+seven\n",
		"--- a/f\n+++ b/f\n@@ -10 +10 @@\n-line 10\n+ten\n@@ -3 +3 @@\n-line 3\n+three\n",
	} {
		_, err := Apply([]byte(text), hunksOf(t, p))
		var he *HunkError
		if !errors.As(err, &he) || he.Kind != KindNoMatch || he.Index != 1 {
			t.Fatalf("%s: err = %v, want hunk 2 no_match", p, err)
		}
		if !strings.Contains(he.Msg, "previous hunk") {
			t.Errorf("message %q does not say the hunk lies above the previous one", he.Msg)
		}
	}
}

// TestTrailingSpaceContext: context lines that lost their trailing spaces
// or tabs still locate the hunk, and keep the file's bytes; removed lines
// must match exactly.
func TestTrailingSpaceContext(t *testing.T) {
	text := "a  \nb\t\nc \nd\n"
	tests := []struct {
		name, patch, want string
		spaced            []int
	}{
		{"context lost its spaces", "--- a/f\n+++ b/f\n@@ -1,3 +1,3 @@\n a\n-b\t\n+B\n c\n", "a  \nB\nc \nd\n", []int{1}},
		{"context gained spaces", "--- a/f\n+++ b/f\n@@ @@\n a  \n b\t \n-c \n+C\n", "a  \nb\t\nC\nd\n", []int{1}},
		{"context between changes keeps its bytes", "--- a/f\n+++ b/f\n@@ @@\n-a  \n+A\n b\n-c \n+C\n", "A\nb\t\nC\nd\n", []int{1}},
		{"exact context is no note", "--- a/f\n+++ b/f\n@@ @@\n c \n-d\n+D\n", "a  \nb\t\nc \nD\n", nil},
		{"codex envelope", "*** Begin Patch\n*** Update File: f\n@@\n a\n b\n-c \n+C\n*** End Patch", "a  \nb\t\nC\nd\n", []int{1}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, err := Apply([]byte(text), hunksOf(t, tc.patch))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			checkRegions(t, []byte(text), a)
			if string(a.Text) != tc.want {
				t.Fatalf("got %q, want %q", a.Text, tc.want)
			}
			if !slices.Equal(a.SpaceContext, tc.spaced) {
				t.Fatalf("SpaceContext = %v, want %v", a.SpaceContext, tc.spaced)
			}
		})
	}
	// CRLF file: context without trailing space and removed lines adapted.
	a, err := Apply([]byte("a \r\nb\r\n"), hunksOf(t, "--- a/f\n+++ b/f\n@@ @@\n a\n-b\n+B\n"))
	if err != nil || string(a.Text) != "a \r\nB\r\n" || !a.CRLFAdapted {
		t.Fatalf("CRLF: %v %q %v", err, a.Text, a.CRLFAdapted)
	}

	// A removed line that differs only in trailing space is not applied.
	for _, p := range []string{
		"--- a/f\n+++ b/f\n@@ @@\n a\n-b\n+B\n",
		"--- a/f\n+++ b/f\n@@ @@\n-a\n+A\n",
	} {
		_, err := Apply([]byte(text), hunksOf(t, p))
		var he *HunkError
		if !errors.As(err, &he) || he.Kind != KindNoMatch {
			t.Fatalf("%q: err = %v, want no_match", p, err)
		}
		if !strings.Contains(he.Msg, "trailing space") || !strings.Contains(he.Msg, "removed") {
			t.Errorf("message %q does not say a removed line differs in trailing space", he.Msg)
		}
	}
	// Two places equal once trailing space is set aside: ambiguous.
	_, err = Apply([]byte("k \nv\nk\t\nv\n"), hunksOf(t, "--- a/f\n+++ b/f\n@@ @@\n k\n-v\n+V\n"))
	if !isKind(err, KindAmbiguous) {
		t.Fatalf("err = %v, want ambiguous", err)
	}
}

// TestNoFileHeader: hunks without "---"/"+++" lines are refused with what
// to add; a "diff --git" line names the file well enough.
func TestNoFileHeader(t *testing.T) {
	for _, p := range []string{
		"@@ @@\n-a\n+b\n",
		"@@ -1 +1 @@\n-a\n+b\n",
		"@@\n a\n-b\n+c\n",
	} {
		_, err := Parse(p)
		var pe *ParseError
		if !errors.As(err, &pe) {
			t.Fatalf("%q: err = %v, want a ParseError", p, err)
		}
		for _, s := range []string{"--- a/PATH", "+++ b/PATH", "*** Update File: PATH"} {
			if !strings.Contains(pe.Msg, s) {
				t.Errorf("%q: message %q does not name %q", p, pe.Msg, s)
			}
		}
	}
	files, err := Parse("diff --git a/x.go b/x.go\n@@ @@\n-a\n+b\n")
	if err != nil || len(files) != 1 || files[0].Path != "x.go" {
		t.Fatalf("diff --git without ---/+++: %v %+v", err, files)
	}
	files, err = Parse("Index: x.go\n===================================================================\n@@ @@\n-a\n+b\n")
	if err != nil || len(files) != 1 || files[0].Path != "x.go" {
		t.Fatalf("Index: without ---/+++: %v %+v", err, files)
	}
}

// TestWrongCounts: a header whose counts disagree with its hunk is read as
// a hunk whose lines run to the next header.
func TestWrongCounts(t *testing.T) {
	text := lines(10, nil)
	for _, p := range []string{
		"--- a/f\n+++ b/f\n@@ -3,2 +3,2 @@\n line 3\n-line 4\n+four\n line 5\n line 6\n@@ -8,1 +8,1 @@\n-line 8\n+eight\n",
		"--- a/f\n+++ b/f\n@@ -3,7 +3,9 @@\n line 3\n-line 4\n+four\n line 5\n@@ -8,1 +8,1 @@\n-line 8\n+eight\n",
		"--- a/f\n+++ b/f\n@@ -3 +3 @@\n line 3\n-line 4\n+four\n line 5\n\n@@ -8 +8 @@\n-line 8\n+eight\n",
	} {
		a, err := Apply([]byte(text), hunksOf(t, p))
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		if want := lines(10, map[int]string{4: "four", 8: "eight"}); string(a.Text) != want {
			t.Fatalf("%s: got %q", p, a.Text)
		}
	}
}

// TestHeaderNumbers: the line number of each header form is kept as the
// hint, at the limits of what is read.
func TestHeaderNumbers(t *testing.T) {
	for hdr, want := range map[string]int{
		"@@ -4 +4 @@":            4,
		"@@ -4,3 +4,3":           4,
		"@@ -4 +4":               4,
		"@@ -9,0 +10,1 @@":       10,
		"@@ -1073741824 +1 @@":   maxLine,
		"@@ -1073741825 +1 @@x":  -1,
		"@@ -4,1073741825 +4 @@": -1,
		"@@ -4,1073741824 +4 @@": 4,
		"@@ -4 +4,1073741824 @@": 4,
		"@@ @@":                  0,
		"@@ -":                   -1,
		"@@ -4 +":                -1,
		"@@ -4 +4 +5 @@":         -1,
	} {
		h := parseUnifiedHeader(hdr)
		if want < 0 {
			if h.form != headerBad {
				t.Errorf("%q: form %d, want bad", hdr, h.form)
			}
			continue
		}
		if h.form == headerBad || h.oldStart() != want {
			t.Errorf("%q: form %d, old start %d, want %d", hdr, h.form, h.oldStart(), want)
		}
	}
	if got := clip("abc", 3); got != "abc" {
		t.Errorf("clip of a short string: %q", got)
	}
	if got := clip("héllo", 2); got != "h…" {
		t.Errorf("clip inside a rune: %q", got)
	}
	if got := clip("\x80\x80\x80", 2); got != "…" {
		t.Errorf("clip of bytes that start no rune: %q", got)
	}
}
