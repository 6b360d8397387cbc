package textedit

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/stet-dev/stet/receipt"
)

// overlapping counts occurrences of sub in s at every offset.
func overlapping(s, sub string) int {
	n := 0
	for i := 0; i+len(sub) <= len(s); i++ {
		if s[i:i+len(sub)] == sub {
			n++
		}
	}
	return n
}

func FuzzApply(f *testing.F) {
	f.Add("hello world\n", "world", "there", false, "", "")
	f.Add("a\r\nb\r\nc\r\n", "a\nb", "x\ny", false, "c", "z")
	f.Add("aaa", "a", "bb", true, "b", "c")
	f.Add("x\ny\nx\n", "x", "z", false, "", "")
	f.Add("\uFEFF\tf(“q”)  \n", "f(\"q\")", "g", false, "", "")
	f.Add("abcdef", "cd", "", false, "bef", "X")
	f.Add("a\x00\xff\nb", "\xff\nb", "\r\n", true, "\x00", "0")
	f.Add("", "a", "b", false, "", "")
	f.Add("fast \u2014 always\nprice 10\u00a0\u20ac\n", "fast - always\nprice 10 \u20ac", "x", false, "", "")
	f.Add("a \u2212 b\u202f\u2013\n", "a - b -", "y", false, "", "")
	f.Fuzz(func(t *testing.T, text, old, repl string, all bool, old2, repl2 string) {
		edits := []Edit{{Old: old, New: repl, ReplaceAll: all}}
		if old2 != "" {
			edits = append(edits, Edit{Old: old2, New: repl2})
		}
		pre := []byte(text)
		r, err := Apply(pre, edits)
		if string(pre) != text {
			t.Fatal("Apply changed its input")
		}
		if err != nil {
			checkError(t, text, edits, err)
			return
		}
		checkResult(t, pre, r)
		if len(edits) > 1 {
			return
		}
		// One edit: compare with the standard library.
		o, n := old, repl
		if r.EOL == EOLCRLFAdapted {
			if strings.Contains(text, old) || !strings.Contains(text, "\r\n") {
				t.Fatalf("adapted although old occurs literally or the text has no CRLF")
			}
			o, n = string(toCRLF([]byte(old))), string(toCRLF([]byte(repl)))
		} else if r.EOL != DetectEOL(pre) {
			t.Fatalf("EOL %q, DetectEOL %q", r.EOL, DetectEOL(pre))
		}
		var want string
		if all {
			want = strings.ReplaceAll(text, o, n)
			if r.Count != strings.Count(text, o) {
				t.Fatalf("Count %d, want %d", r.Count, strings.Count(text, o))
			}
		} else {
			if overlapping(text, o) != 1 {
				t.Fatalf("a unique edit applied where old occurs %d times", overlapping(text, o))
			}
			want = strings.Replace(text, o, n, 1)
		}
		if string(r.Text) != want {
			t.Fatalf("Text %q, want %q", r.Text, want)
		}
	})
}

// checkError checks that err is the error the first failing edit deserves.
func checkError(t *testing.T, text string, edits []Edit, err error) {
	t.Helper()
	var ee *EditError
	if errors.As(err, &ee) {
		e := edits[ee.Index]
		if !(e.Old == "" && errors.Is(err, ErrEmptyOld) || e.Old != "" && e.Old == e.New && errors.Is(err, ErrNoChange)) {
			t.Fatalf("EditError %v for edit %+v", err, e)
		}
		return
	}
	var ne *NoMatchError
	var ae *AmbiguousError
	switch {
	case errors.As(err, &ne):
		if ne.Index == 0 {
			crlf := string(toCRLF([]byte(ne.Old)))
			if strings.Contains(text, ne.Old) || strings.Contains(text, "\r\n") && strings.Contains(text, crlf) {
				t.Fatalf("NoMatch, but old %q occurs", ne.Old)
			}
		}
		if n := ne.Near; n != nil {
			lines := strings.Count(text, "\n") + 1
			if n.StartLine < 1 || n.EndLine < n.StartLine || n.EndLine > lines || len(n.Differences) == 0 || n.Text == "" {
				t.Fatalf("bad Near %+v for a text of %d lines", n, lines)
			}
		}
	case errors.As(err, &ae):
		if ae.Count < 2 || len(ae.Lines) != ae.Count {
			t.Fatalf("Ambiguous with Count %d and %d lines", ae.Count, len(ae.Lines))
		}
		if ae.Index == 0 {
			o := edits[0].Old
			if overlapping(text, o) == 0 {
				o = string(toCRLF([]byte(o)))
			}
			if got := overlapping(text, o); got != ae.Count {
				t.Fatalf("Ambiguous Count %d, old occurs %d times", ae.Count, got)
			}
		}
	default:
		t.Fatalf("unexpected error %T %v", err, err)
	}
}

func FuzzSplice(f *testing.F) {
	f.Add("alpha\nbeta\ngamma\n", []byte{0, 5, 1, 6, 0, 2}, "NEW")
	f.Add("", []byte{0, 0, 0}, "x")
	f.Add("a\r\nb", []byte{3, 1, 0, 0, 200, 1}, "")
	f.Fuzz(func(t *testing.T, text string, spec []byte, repl string) {
		// Each (gap, length, take) triple of spec makes a region: gap bytes
		// after the previous one, length old bytes, the first take bytes
		// of repl as new. Gaps are signed so some regions go backwards.
		var regions []receipt.Match
		at, valid := 0, true
		for i := 0; i+2 < len(spec); i += 3 {
			gap := int(int8(spec[i]))
			off, n := at+gap, int(spec[i+1])
			take := min(int(spec[i+2]), len(repl))
			if gap < 0 || off+n > len(text) {
				valid = false
			}
			regions = append(regions, receipt.Match{Offset: off, OldBytes: n, New: []byte(repl[:take])})
			at = off + n
		}
		r, err := Splice([]byte(text), regions)
		if err != nil {
			if valid {
				t.Fatalf("Splice refused valid regions %+v: %v", regions, err)
			}
			if !errors.Is(err, ErrBadRegion) {
				t.Fatalf("error %v does not wrap ErrBadRegion", err)
			}
			return
		}
		if !valid {
			t.Fatalf("Splice accepted invalid regions %+v", regions)
		}
		var want []byte
		last := 0
		for _, x := range regions {
			want = append(want, text[last:x.Offset]...)
			want = append(want, x.New...)
			last = x.Offset + x.OldBytes
		}
		want = append(want, text[last:]...)
		if !bytes.Equal(r.Text, want) {
			t.Fatalf("Text %q, want %q", r.Text, want)
		}
		if r.Count != len(regions) || r.EOL != DetectEOL([]byte(text)) {
			t.Fatalf("Count %d EOL %q", r.Count, r.EOL)
		}
		checkSpliceMatches(t, []byte(text), r)
	})
}

// checkSpliceMatches is checkResult for regions that may touch or be empty.
func checkSpliceMatches(t *testing.T, pre []byte, r Result) {
	t.Helper()
	for i, x := range r.Matches {
		if !bytes.Equal(x.Old, pre[x.Offset:x.Offset+x.OldBytes]) || x.NewBytes != len(x.New) {
			t.Fatalf("match %d inconsistent: %+v", i, x)
		}
		if want := 1 + bytes.Count(pre[:x.Offset], []byte("\n")); x.Line != want {
			t.Fatalf("match %d: Line %d, want %d", i, x.Line, want)
		}
	}
}

func FuzzDiff(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n")
	f.Add("a\nb", "a\nb\n")
	f.Add("", "x")
	f.Add("x\r\ny\r\n", "x\ny\n")
	f.Add("1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\n5\nX\n6\n7\n8\n9\n")
	f.Add("a\na\na\na\n", "a\na\na\n")
	f.Fuzz(func(t *testing.T, before, after string) {
		d := Diff("p", []byte(before), []byte(after))
		if (d == "") != (before == after) {
			t.Fatalf("Diff %q for before %q after %q", d, before, after)
		}
		checkDiff(t, before, after, d)
	})
}
