package textedit

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stet-dev/stet/receipt"
)

// m is a match as the tests spell it: offset, old bytes, new bytes, line.
type m struct {
	Offset, OldBytes, NewBytes, Line int
	Old, New                         string
}

func short(ms []receipt.Match) []m {
	out := []m{}
	for _, x := range ms {
		out = append(out, m{x.Offset, x.OldBytes, x.NewBytes, x.Line, string(x.Old), string(x.New)})
	}
	return out
}

// checkResult asserts what any caller may rely on: the matches are regions
// of pre in order, their bytes are pre's and the result's, and splicing
// them over pre gives Text.
func checkResult(t *testing.T, pre []byte, r Result) {
	t.Helper()
	var rebuilt []byte
	last, shift := 0, 0
	for i, x := range r.Matches {
		if x.Offset < last || (i > 0 && x.Offset == last && x.OldBytes == 0) {
			t.Fatalf("match %d at %d overlaps or is out of order (previous ends at %d)", i, x.Offset, last)
		}
		if x.Offset+x.OldBytes > len(pre) {
			t.Fatalf("match %d runs past the preimage", i)
		}
		if !bytes.Equal(x.Old, pre[x.Offset:x.Offset+x.OldBytes]) || len(x.Old) != x.OldBytes {
			t.Fatalf("match %d: Old %q, preimage holds %q", i, x.Old, pre[x.Offset:x.Offset+x.OldBytes])
		}
		if len(x.New) != x.NewBytes {
			t.Fatalf("match %d: NewBytes %d, len(New) %d", i, x.NewBytes, len(x.New))
		}
		if want := 1 + bytes.Count(pre[:x.Offset], []byte("\n")); x.Line != want {
			t.Fatalf("match %d: Line %d, want %d", i, x.Line, want)
		}
		at := x.Offset + shift
		if at+x.NewBytes > len(r.Text) || !bytes.Equal(r.Text[at:at+x.NewBytes], x.New) {
			t.Fatalf("match %d: result does not hold New %q at %d", i, x.New, at)
		}
		rebuilt = append(rebuilt, pre[last:x.Offset]...)
		rebuilt = append(rebuilt, x.New...)
		last = x.Offset + x.OldBytes
		shift += x.NewBytes - x.OldBytes
	}
	rebuilt = append(rebuilt, pre[last:]...)
	if !bytes.Equal(rebuilt, r.Text) {
		t.Fatalf("splicing the matches gives %q, Text is %q", rebuilt, r.Text)
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		edits   []Edit
		want    string
		matches []m
		eol     string
		count   int
	}{
		{
			name:    "unique",
			text:    "package main\n\nfunc main() {}\n",
			edits:   []Edit{{Old: "main()", New: "run()"}},
			want:    "package main\n\nfunc run() {}\n",
			matches: []m{{19, 6, 5, 3, "main()", "run()"}},
			eol:     EOLLF, count: 1,
		},
		{
			name:    "replace all",
			text:    "a x\nb x\nc x\n",
			edits:   []Edit{{Old: "x", New: "yy", ReplaceAll: true}},
			want:    "a yy\nb yy\nc yy\n",
			matches: []m{{2, 1, 2, 1, "x", "yy"}, {6, 1, 2, 2, "x", "yy"}, {10, 1, 2, 3, "x", "yy"}},
			eol:     EOLLF, count: 3,
		},
		{
			name:    "replace all is non-overlapping, left to right",
			text:    "aaaa",
			edits:   []Edit{{Old: "aa", New: "b", ReplaceAll: true}},
			want:    "bb",
			matches: []m{{0, 4, 2, 1, "aaaa", "bb"}},
			eol:     EOLNone, count: 2,
		},
		{
			name:    "replace all with a single occurrence",
			text:    "one\n",
			edits:   []Edit{{Old: "one", New: "two", ReplaceAll: true}},
			want:    "two\n",
			matches: []m{{0, 3, 3, 1, "one", "two"}},
			eol:     EOLLF, count: 1,
		},
		{
			name:    "edits apply in order, second reaches into the first's new text",
			text:    "hello world\n",
			edits:   []Edit{{Old: "hello", New: "hi"}, {Old: "hi world", New: "hi there"}},
			want:    "hi there\n",
			matches: []m{{0, 11, 8, 1, "hello world", "hi there"}},
			eol:     EOLLF, count: 2,
		},
		{
			name:    "second edit inside the first's new text",
			text:    "abc",
			edits:   []Edit{{Old: "b", New: "XYZ"}, {Old: "Y", New: "_"}},
			want:    "aX_Zc",
			matches: []m{{1, 1, 3, 1, "b", "X_Z"}},
			eol:     EOLNone, count: 2,
		},
		{
			name:    "second edit matches only because of the first",
			text:    "let a = 1;\nlet b = 2;\n",
			edits:   []Edit{{Old: "a = 1", New: "c = 1"}, {Old: "c = 1;\nlet b", New: "c = 1;\nconst b"}},
			want:    "let c = 1;\nconst b = 2;\n",
			matches: []m{{4, 12, 14, 1, "a = 1;\nlet b", "c = 1;\nconst b"}},
			eol:     EOLLF, count: 2,
		},
		{
			name:    "adjacent regions merge",
			text:    "abcd",
			edits:   []Edit{{Old: "b", New: "B"}, {Old: "c", New: "C"}},
			want:    "aBCd",
			matches: []m{{1, 2, 2, 1, "bc", "BC"}},
			eol:     EOLNone, count: 2,
		},
		{
			name:    "separate regions stay separate and sorted",
			text:    "one two\nthree\n",
			edits:   []Edit{{Old: "three", New: "3"}, {Old: "one", New: "1"}},
			want:    "1 two\n3\n",
			matches: []m{{0, 3, 1, 1, "one", "1"}, {8, 5, 1, 2, "three", "3"}},
			eol:     EOLLF, count: 2,
		},
		{
			name:    "an edit across a deletion",
			text:    "abcdef",
			edits:   []Edit{{Old: "cd", New: ""}, {Old: "bef", New: "X"}},
			want:    "aX",
			matches: []m{{1, 5, 1, 1, "bcdef", "X"}},
			eol:     EOLNone, count: 2,
		},
		{
			name:    "an edit spanning two earlier regions",
			text:    "a-b-c",
			edits:   []Edit{{Old: "a", New: "AA"}, {Old: "c", New: "CC"}, {Old: "A-b-C", New: "Z"}},
			want:    "AZC",
			matches: []m{{0, 5, 3, 1, "a-b-c", "AZC"}},
			eol:     EOLNone, count: 3,
		},
		{
			name:    "a later edit shifts by earlier size changes",
			text:    "x\ny\nz\n",
			edits:   []Edit{{Old: "x", New: "x1\nx2\nx3"}, {Old: "z", New: "Z"}},
			want:    "x1\nx2\nx3\ny\nZ\n",
			matches: []m{{0, 1, 8, 1, "x", "x1\nx2\nx3"}, {4, 1, 1, 3, "z", "Z"}},
			eol:     EOLLF, count: 2,
		},
		{
			name:    "crlf adaptation",
			text:    "a\r\nb\r\nc\r\n",
			edits:   []Edit{{Old: "a\nb", New: "x\ny"}},
			want:    "x\r\ny\r\nc\r\n",
			matches: []m{{0, 4, 4, 1, "a\r\nb", "x\r\ny"}},
			eol:     EOLCRLFAdapted, count: 1,
		},
		{
			name:    "crlf adaptation keeps CRLF already in new_string",
			text:    "a\r\nb\r\n",
			edits:   []Edit{{Old: "a\nb\n", New: "x\r\ny\nz\n"}},
			want:    "x\r\ny\r\nz\r\n",
			matches: []m{{0, 6, 9, 1, "a\r\nb\r\n", "x\r\ny\r\nz\r\n"}},
			eol:     EOLCRLFAdapted, count: 1,
		},
		{
			name:    "crlf adaptation with replace all",
			text:    "k\r\nv\r\nk\r\nv\r\n",
			edits:   []Edit{{Old: "k\nv", New: "kv", ReplaceAll: true}},
			want:    "kv\r\nkv\r\n",
			matches: []m{{0, 4, 2, 1, "k\r\nv", "kv"}, {6, 4, 2, 3, "k\r\nv", "kv"}},
			eol:     EOLCRLFAdapted, count: 2,
		},
		{
			name:    "a literal match wins over crlf adaptation",
			text:    "a\nb\r\na\r\nb\r\n",
			edits:   []Edit{{Old: "a\nb", New: "Q"}},
			want:    "Q\r\na\r\nb\r\n",
			matches: []m{{0, 3, 1, 1, "a\nb", "Q"}},
			eol:     EOLMixed, count: 1,
		},
		{
			name:    "crlf file with a one-line edit is not adapted",
			text:    "a\r\nb\r\n",
			edits:   []Edit{{Old: "b", New: "c"}},
			want:    "a\r\nc\r\n",
			matches: []m{{3, 1, 1, 2, "b", "c"}},
			eol:     EOLCRLF, count: 1,
		},
		{
			name:    "mixed endings are kept",
			text:    "a\r\nb\nc\r\n",
			edits:   []Edit{{Old: "b", New: "B"}},
			want:    "a\r\nB\nc\r\n",
			matches: []m{{3, 1, 1, 2, "b", "B"}},
			eol:     EOLMixed, count: 1,
		},
		{
			name:    "BOM is kept",
			text:    "\uFEFFpackage main\n",
			edits:   []Edit{{Old: "main", New: "util"}},
			want:    "\uFEFFpackage util\n",
			matches: []m{{11, 4, 4, 1, "main", "util"}},
			eol:     EOLLF, count: 1,
		},
		{
			name:    "no final newline stays absent",
			text:    "a\nb",
			edits:   []Edit{{Old: "b", New: "c"}},
			want:    "a\nc",
			matches: []m{{2, 1, 1, 2, "b", "c"}},
			eol:     EOLLF, count: 1,
		},
		{
			name:    "tabs are kept",
			text:    "func f() {\n\treturn 1\n}\n",
			edits:   []Edit{{Old: "return 1", New: "return 2"}},
			want:    "func f() {\n\treturn 2\n}\n",
			matches: []m{{12, 8, 8, 2, "return 1", "return 2"}},
			eol:     EOLLF, count: 1,
		},
		{
			name:    "invalid UTF-8 and NUL bytes are kept",
			text:    "\xff\x00abc\xfe\n\x00",
			edits:   []Edit{{Old: "abc", New: "d"}},
			want:    "\xff\x00d\xfe\n\x00",
			matches: []m{{2, 3, 1, 1, "abc", "d"}},
			eol:     EOLLF, count: 1,
		},
		{
			name:    "invalid UTF-8 in old and new",
			text:    "a\xc3(b",
			edits:   []Edit{{Old: "\xc3(", New: "\x80\x00"}},
			want:    "a\x80\x00b",
			matches: []m{{1, 2, 2, 1, "\xc3(", "\x80\x00"}},
			eol:     EOLNone, count: 1,
		},
		{
			name:    "edit empties the file",
			text:    "only\n",
			edits:   []Edit{{Old: "only\n", New: ""}},
			want:    "",
			matches: []m{{0, 5, 0, 1, "only\n", ""}},
			eol:     EOLLF, count: 1,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pre := []byte(tt.text)
			r, err := Apply(pre, tt.edits)
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if string(r.Text) != tt.want {
				t.Errorf("Text = %q, want %q", r.Text, tt.want)
			}
			if diff := cmp.Diff(tt.matches, short(r.Matches)); diff != "" {
				t.Errorf("Matches (-want +got):\n%s", diff)
			}
			if r.EOL != tt.eol {
				t.Errorf("EOL = %q, want %q", r.EOL, tt.eol)
			}
			if r.Count != tt.count {
				t.Errorf("Count = %d, want %d", r.Count, tt.count)
			}
			if string(pre) != tt.text {
				t.Errorf("Apply changed its input to %q", pre)
			}
			checkResult(t, pre, r)
		})
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		edits []Edit
		check func(t *testing.T, err error)
	}{
		{
			name:  "empty old",
			text:  "abc",
			edits: []Edit{{Old: "", New: "x"}},
			check: wantEditError(0, ErrEmptyOld, "old_string is empty"),
		},
		{
			name:  "old equals new",
			text:  "abc",
			edits: []Edit{{Old: "b", New: "b"}},
			check: wantEditError(0, ErrNoChange, "old_string and new_string are the same"),
		},
		{
			name:  "argument errors come before matching",
			text:  "abc",
			edits: []Edit{{Old: "zzz", New: "y"}, {Old: "", New: "x"}},
			check: wantEditError(1, ErrEmptyOld, "old_string is empty"),
		},
		{
			name:  "no edits",
			text:  "abc",
			edits: nil,
			check: func(t *testing.T, err error) {
				if !errors.Is(err, ErrNoEdits) {
					t.Fatalf("err = %v, want ErrNoEdits", err)
				}
			},
		},
		{
			name:  "ambiguous",
			text:  "x\ny\nx\nz\nx\n",
			edits: []Edit{{Old: "x", New: "w"}},
			check: wantAmbiguous(0, 3, []int{1, 3, 5}, "old_string matches 3 times (lines 1, 3, 5); add surrounding lines to make it unique, or pass replace_all"),
		},
		{
			name:  "ambiguous counts overlapping occurrences",
			text:  "aaa",
			edits: []Edit{{Old: "aa", New: "b"}},
			check: wantAmbiguous(0, 2, []int{1, 1}, "old_string matches 2 times (line 1); add surrounding lines to make it unique, or pass replace_all"),
		},
		{
			name:  "ambiguous in the text the edit applied to",
			text:  "a\nb\n",
			edits: []Edit{{Old: "b", New: "a"}, {Old: "a", New: "c"}},
			check: wantAmbiguous(1, 2, []int{1, 2}, "old_string matches 2 times (lines 1, 2); add surrounding lines to make it unique, or pass replace_all"),
		},
		{
			name:  "ambiguous after crlf adaptation",
			text:  "a\r\nb\r\na\r\nb",
			edits: []Edit{{Old: "a\nb", New: "c"}},
			check: wantAmbiguous(0, 2, []int{1, 3}, "old_string matches 2 times (lines 1, 3); add surrounding lines to make it unique, or pass replace_all"),
		},
		{
			name:  "ambiguous lists at most ten lines",
			text:  strings.Repeat("x\n", 12),
			edits: []Edit{{Old: "x", New: "y"}},
			check: wantAmbiguous(0, 12, []int{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12}, "old_string matches 12 times (lines 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, …); add surrounding lines to make it unique, or pass replace_all"),
		},
		{
			name:  "all or nothing: a later miss fails the whole call",
			text:  "one two",
			edits: []Edit{{Old: "one", New: "1"}, {Old: "three", New: "3"}},
			check: wantNoMatch(1, "old_string not found", nil),
		},
		{
			name:  "a later edit cannot find text an earlier edit replaced",
			text:  "one two",
			edits: []Edit{{Old: "one", New: "1"}, {Old: "one", New: "uno"}},
			check: wantNoMatch(1, "old_string not found", nil),
		},
		{
			name:  "empty file",
			text:  "",
			edits: []Edit{{Old: "a", New: "b"}},
			check: wantNoMatch(0, "old_string not found", nil),
		},
		{
			name:  "no crlf adaptation on an LF file",
			text:  "a\nb\n",
			edits: []Edit{{Old: "a\r\nb", New: "c"}},
			check: wantNoMatch(0, "old_string not found; nearest is lines 1-2, which differ in line endings",
				&Near{StartLine: 1, EndLine: 2, Text: "00001|a\n00002|b", Differences: []string{DiffLineEndings}}),
		},
		{
			name:  "replace all with no occurrence",
			text:  "abc",
			edits: []Edit{{Old: "zebra", New: "b", ReplaceAll: true}},
			check: wantNoMatch(0, "old_string not found", nil),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r, err := Apply([]byte(tt.text), tt.edits)
			if err == nil {
				t.Fatalf("Apply succeeded with %q, want an error", r.Text)
			}
			if r.Text != nil || r.Matches != nil || r.Count != 0 {
				t.Errorf("a failed Apply returned a result: %+v", r)
			}
			tt.check(t, err)
		})
	}
}

func wantEditError(index int, kind error, msg string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var ee *EditError
		if !errors.As(err, &ee) || ee.Index != index || !errors.Is(err, kind) {
			t.Fatalf("err = %#v, want *EditError{Index: %d, Err: %v}", err, index, kind)
		}
		if err.Error() != msg {
			t.Errorf("message %q, want %q", err, msg)
		}
	}
}

func wantAmbiguous(index, count int, lines []int, msg string) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var ae *AmbiguousError
		if !errors.As(err, &ae) || !errors.Is(err, ErrAmbiguous) {
			t.Fatalf("err = %v, want *AmbiguousError", err)
		}
		if ae.Index != index || ae.Count != count || !slicesEqual(ae.Lines, lines) {
			t.Errorf("got Index %d Count %d Lines %v, want %d %d %v", ae.Index, ae.Count, ae.Lines, index, count, lines)
		}
		if err.Error() != msg {
			t.Errorf("message %q\nwant    %q", err, msg)
		}
	}
}

func wantNoMatch(index int, msg string, near *Near) func(*testing.T, error) {
	return func(t *testing.T, err error) {
		t.Helper()
		var ne *NoMatchError
		if !errors.As(err, &ne) || !errors.Is(err, ErrNoMatch) {
			t.Fatalf("err = %v, want *NoMatchError", err)
		}
		if ne.Index != index {
			t.Errorf("Index = %d, want %d", ne.Index, index)
		}
		if err.Error() != msg {
			t.Errorf("message %q\nwant    %q", err, msg)
		}
		if diff := cmp.Diff(near, ne.Near); diff != "" {
			t.Errorf("Near (-want +got):\n%s", diff)
		}
	}
}

func slicesEqual(a, b []int) bool {
	return cmp.Equal(a, b)
}

func TestDetectEOL(t *testing.T) {
	for text, want := range map[string]string{
		"":                 EOLNone,
		"abc":              EOLNone,
		"a\rb\r":           EOLNone,
		"a\nb\n":           EOLLF,
		"a\r\nb\r\n":       EOLCRLF,
		"a\r\nb":           EOLCRLF,
		"a\r\nb\nc\r\n":    EOLMixed,
		"\n":               EOLLF,
		"\r\n":             EOLCRLF,
		"\r\n\n":           EOLMixed,
		"\uFEFFa\r\nb\r\n": EOLCRLF,
	} {
		if got := DetectEOL([]byte(text)); got != want {
			t.Errorf("DetectEOL(%q) = %q, want %q", text, got, want)
		}
	}
}

func TestSplice(t *testing.T) {
	text := []byte("alpha\nbeta\ngamma\n")
	r, err := Splice(text, []receipt.Match{
		{Offset: 0, OldBytes: 5, New: []byte("ALPHA")},
		{Offset: 6, OldBytes: 0, New: []byte("inserted\n")},
		{Offset: 11, OldBytes: 6, New: nil, Old: []byte("gamma\n")},
	})
	if err != nil {
		t.Fatal(err)
	}
	if want := "ALPHA\ninserted\nbeta\n"; string(r.Text) != want {
		t.Errorf("Text = %q, want %q", r.Text, want)
	}
	want := []m{{0, 5, 5, 1, "alpha", "ALPHA"}, {6, 0, 9, 2, "", "inserted\n"}, {11, 6, 0, 3, "gamma\n", ""}}
	if diff := cmp.Diff(want, short(r.Matches)); diff != "" {
		t.Errorf("Matches (-want +got):\n%s", diff)
	}
	if r.Count != 3 || r.EOL != EOLLF {
		t.Errorf("Count %d EOL %q, want 3 lf", r.Count, r.EOL)
	}
	checkResult(t, text, r)

	empty, err := Splice([]byte("crlf\r\n"), nil)
	if err != nil || string(empty.Text) != "crlf\r\n" || empty.EOL != EOLCRLF || len(empty.Matches) != 0 {
		t.Errorf("Splice with no regions = %+v, %v", empty, err)
	}

	bad := map[string][]receipt.Match{
		"negative offset":  {{Offset: -1, OldBytes: 1}},
		"past the end":     {{Offset: 17, OldBytes: 1}},
		"negative length":  {{Offset: 2, OldBytes: -1}},
		"overlapping":      {{Offset: 0, OldBytes: 4}, {Offset: 3, OldBytes: 1}},
		"out of order":     {{Offset: 6, OldBytes: 1}, {Offset: 0, OldBytes: 1}},
		"old bytes differ": {{Offset: 0, OldBytes: 5, Old: []byte("ALPHA")}},
	}
	for name, regions := range bad {
		if _, err := Splice(text, regions); !errors.Is(err, ErrBadRegion) {
			t.Errorf("%s: err = %v, want ErrBadRegion", name, err)
		}
	}
}
