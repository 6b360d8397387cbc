package stet

import (
	"bytes"
	"context"
	"fmt"
	"regexp"
	"testing"

	"github.com/stet-dev/stet/tools"
)

// plainScan is the search the prefilter must agree with: every line of
// data (split at "\n"; the empty end after a last "\n" is no line) through
// the regexp, one at a time.
func plainScan(re *regexp.Regexp, data []byte) []hit {
	var hits []hit
	start, line := 0, 1
	for start < len(data) {
		end := len(data)
		if j := bytes.IndexByte(data[start:], '\n'); j >= 0 {
			end = start + j
		}
		if re.Match(data[start:end]) {
			hits = append(hits, hit{start: start, end: end, first: line, last: line})
		}
		start, line = end+1, line+1
	}
	return hits
}

// checkScan compares grep's scan of data for pattern (with the flags
// ignoreCase, word, fixed) with plainScan's.
func checkScan(t *testing.T, pattern string, data []byte, ignoreCase, word, fixed bool) {
	t.Helper()
	a := GrepArgs{Pattern: pattern, IgnoreCase: ignoreCase, Word: word, FixedStrings: fixed, OutputMode: tools.GrepContent}
	if !fixed {
		if _, err := regexp.Compile(pattern); err != nil {
			return
		}
	}
	q, err := compileGrep(a)
	if err != nil {
		return
	}
	q.need = 0
	var lower []byte
	got, count, err := q.scan(context.Background(), data, &lower)
	if err != nil {
		t.Fatalf("scan(%q): %v", pattern, err)
	}
	want := plainScan(q.re, data)
	if count != len(want) || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("pattern %q (i=%v w=%v F=%v) over %q:\nprefiltered %v (count %d)\nline by line %v", pattern, ignoreCase, word, fixed, data, got, count, want)
	}
}

// FuzzGrepScan: the prefiltered search (literals found over the whole
// buffer, rarest byte first, sets of literals for alternations, the
// ASCII-folded literal for -i) finds exactly the lines a plain
// line-by-line regexp search finds, in every mode of the pattern.
func FuzzGrepScan(f *testing.F) {
	seeds := []struct{ pattern, data string }{
		{"err != nil", "if err != nil {\n\treturn err\n}\nerr != nil"},
		{"needle", "hay\nneedle\nhay needle hay\n\nneedleneedle"},
		{"foo|bar", "foo\nbaz\nxbarx\nfo\nba\n"},
		{"abc|abd|x+y", "abd\nabc\nxxy\nab\n"},
		{`func \w+Handler`, "func fooHandler() {}\nfunc Handler\n"},
		{"(?i)straße", "STRASSE\nstraße\nSTRAẞE\n"},
		{"kelvin", "KELVIN\n\u212aelvin\nkelvin"},
		{"e", "\n\n\ne\n"},
		{"^a$", "a\nba\na"},
		{"!=", "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!=\n"},
		{"a b", "a\nb\na b\n"},
		{`x\s+y`, "x\ny\nx  y\n"},
		{"long|literal|set|of|many|words|here|now|and|more", "more\nnothing\nhere\n"},
		{"zz", "no match at all\n"},
		{"", "x"},
		{"caf", "café\ncaf é\nun café\n"},
		{"(x)", "a(x)b\n(x)[y]\n((x))\n"},
		{"日本", "日本語\n日本\n「日本」\n"},
		{"cafe", "cafe\u0301\nCAFÉ cafe\n"},
	}
	for _, s := range seeds {
		for flags := range 8 {
			f.Add(s.pattern, []byte(s.data), flags)
		}
	}
	f.Fuzz(func(t *testing.T, pattern string, data []byte, flags int) {
		if pattern == "" || len(pattern) > 64 {
			return
		}
		checkScan(t, pattern, data, flags&1 != 0, flags&2 != 0, flags&4 != 0)
	})
}

// TestGrepScanAgreesOnLongBuffers runs the comparison over buffers past
// the prefilter's window (grepWindow) and with many false starts of a
// literal's rare byte, where the finder changes strategy.
func TestGrepScanAgreesOnLongBuffers(t *testing.T) {
	var b bytes.Buffer
	for i := range 20000 {
		switch {
		case i%997 == 0:
			b.WriteString("if err != nil { return err }\n")
		case i%3 == 0:
			b.WriteString("!!!! != != nil err\n")
		default:
			fmt.Fprintf(&b, "line %d of filler text\n", i)
		}
	}
	data := b.Bytes()
	for _, p := range []string{"err != nil", "return err|filler text 1999", "ERR != NIL", "nil err$", "zzqq"} {
		for flags := range 4 {
			checkScan(t, p, data, flags&1 != 0, false, flags&2 != 0)
		}
	}
}

// TestGrepLiteralSets: the prefilter of an alternation is one literal per
// branch; a branch without a literal leaves the pattern without one.
func TestGrepLiteralSets(t *testing.T) {
	for _, c := range []struct {
		pattern string
		want    string
	}{
		{"err != nil", "[err != nil]"},
		{"foo|bar", "[foo bar]"},
		{"(?:foo|bar)baz", "[baz]"},
		{"x(?:foo|bar)", "[foo bar]"},
		{"foo|[a-z]+", "[]"},
		{"a+bc", "[bc]"},
	} {
		q, err := compileGrep(GrepArgs{Pattern: c.pattern})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, l := range q.lits {
			got = append(got, string(l.lit))
		}
		if s := fmt.Sprint(got); s != c.want {
			t.Errorf("%q: literals %s, want %s", c.pattern, s, c.want)
		}
	}
}
