package stet

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// TestGrepWordClass: the class the word expression is built from holds
// exactly the word characters, for every code point.
func TestGrepWordClass(t *testing.T) {
	non := regexp.MustCompile(`^` + nonWordClass() + `$`)
	bad := 0
	for r := rune(0); r <= unicode.MaxRune && bad < 10; r++ {
		if r >= 0xD800 && r <= 0xDFFF {
			continue
		}
		if got := !non.MatchString(string(r)); got != isWordRune(r) {
			t.Errorf("U+%04X %q: out of the non-word class %v, a word character %v", r, r, got, isWordRune(r))
			bad++
		}
	}
}

// TestGrepWordAsGNU: -w (word) bounds a match as GNU grep does: letters of
// any script, decimal digits of any script and "_" are word characters,
// everything else (punctuation, spaces, combining marks outside
// Other_Alphabetic, connector punctuation other than "_", the joiners) is
// not; a pattern that starts or ends with punctuation is bounded by the
// characters around the match. The expectations are GNU grep 3.8's
// (LC_ALL=C.UTF-8); those where ripgrep differs say so. Before: RE2's
// ASCII \b made é, ï or 語 a word break, and "(x)" needed a word character
// outside its parentheses.
func TestGrepWordAsGNU(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		pattern     string
		fixed, fold bool
		line        string
		want        bool
	}{
		{"caf", false, false, "café", false},
		{"caf", false, false, "caf é", true},
		{"caf", false, false, "un café noir", false},
		{"na", false, false, "naïve", false},
		{"na", false, false, "ïna", false},
		{"日本", false, false, "日本", true},
		{"日本", false, false, "日本語", false},
		{"日本", false, false, "「日本」", true},
		{"b", false, false, "b١٢", false},          // Arabic-Indic digits are digits
		{"क", false, false, "का", false},           // U+093E, a vowel sign: Other_Alphabetic
		{"cafe", false, false, "cafe\u0301", true}, // U+0301 is no word character (ripgrep: false)
		{"x", false, false, "x\u203fy", true},      // "‿" (ripgrep: false)
		{"z", false, false, "z\u200dw", true},      // the zero-width joiner (ripgrep: false)
		{"foo", false, false, "foo_bar", false},
		{"foo", false, false, "foo-bar", true},
		{"foo", false, false, "foox foo", true},
		{"foo", false, false, "xfoo foox", false},
		{"(x)", true, false, "a(x)b", false},
		{"(x)", true, false, "(x)[y]", true},
		{"(x)", true, false, "(x)", true},
		{"(x)", true, false, "((x))", true},
		{"(x)", true, false, "a (x)b", false},
		{"(x)", true, false, "a(x) b", false},
		{"-v", true, false, "run -v now", true},
		{"-v", true, false, "run x-v now", false},
		{"a.b", true, false, "xa.b", false},
		{"a.b", true, false, "(a.b)", true},
		{"CAF", false, true, "caf", true},
		{"CAF", false, true, "CAFÉ", false},
		{"ÉTÉ", false, true, "un été", true},
		{"ÉTÉ", false, true, "étés", false},
		{"(?:caf|café)", false, false, "café", true},   // the longer alternative fits
		{"caf|café", false, false, "cafés café", true}, // the second occurrence
		{"\\bfoo", false, false, "foo", true},
		{"^foo", false, false, "x foo", false},
		{"foo$", false, false, "foo.", false},
		{"o+", false, false, "foo oo", true},
		{"o+", false, false, "foo", false},
	} {
		a := GrepArgs{Pattern: c.pattern, FixedStrings: c.fixed, IgnoreCase: c.fold, Word: true}
		res, err := GrepText(ctx, a, "t", []byte(c.line+"\n"))
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		if got := len(res.Matches) > 0; got != c.want {
			t.Errorf("-w %q (fixed %v, fold %v) on %q: match %v, want %v", c.pattern, c.fixed, c.fold, c.line, got, c.want)
		}
	}
}

// TestGrepWordMultiline: a whole-word match across lines (-U -w) shows the
// lines of the pattern's own match, not of the characters around it, and
// the character one match ends before may open the next one.
func TestGrepWordMultiline(t *testing.T) {
	ctx := context.Background()
	for _, c := range []struct {
		pattern, text string
		want          []int // the lines shown
	}{
		{"foo", "a\nfoo\nb\n", []int{2}},
		{"foo\\nbar", "x foo\nbar y\nz\n", []int{1, 2}},
		{"a|b\\nc", "a b\nc\n", []int{1, 2}}, // b\nc opens at the space a ended before
		{"foo", "foo foo\nfoox\n", []int{1}},
		{"日本", "日本語\n日本\n", []int{2}},
		{"foo\\n", "foo\n\nbar\n", []int{1}},
		{"foo\\n", "foo\nbar\n", nil}, // the "b" after the match is a word character
	} {
		res, err := GrepText(ctx, GrepArgs{Pattern: c.pattern, Word: true, Multiline: true}, "t", []byte(c.text))
		if err != nil {
			t.Fatalf("%q: %v", c.pattern, err)
		}
		var got []int
		for _, m := range res.Matches {
			got = append(got, m.Line)
		}
		if !equalInts(got, c.want) {
			t.Errorf("-U -w %q on %q: lines %v, want %v", c.pattern, c.text, got, c.want)
		}
	}
}

func equalInts(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// TestGrepWordLarge: a file over the edit limit, searched line by line as
// it streams, bounds words as a small one does.
func TestGrepWordLarge(t *testing.T) {
	root := t.TempDir()
	text := "café\n" + strings.Repeat("x\n", 100) + "caf.\n語caf\n"
	if err := os.WriteFile(filepath.Join(root, "big.txt"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, max := range []int64{0, 64} {
		ws, err := Open([]string{root}, Options{State: t.TempDir(), MaxFileBytes: max})
		if err != nil {
			t.Fatal(err)
		}
		s, _ := ws.Session("w")
		res, err := s.Grep(context.Background(), GrepArgs{Pattern: "caf", Word: true})
		ws.e.Close()
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Matches) != 1 || res.Matches[0].Line != 102 {
			t.Errorf("edit limit %d: %+v, want line 102 alone", max, res.Matches)
		}
	}
}

// wordAt is GNU grep's whole-word test of a fixed string: pat occurs in
// line at some offset with no word character just before or just after.
func wordAt(line, pat string) bool {
	for i := 0; i+len(pat) <= len(line); i++ {
		if !strings.HasPrefix(line[i:], pat) || !utf8.RuneStart(line[i]) {
			continue
		}
		before, _ := utf8.DecodeLastRuneInString(line[:i])
		after, _ := utf8.DecodeRuneInString(line[i+len(pat):])
		if (i == 0 || !isWordRune(before)) && (i+len(pat) == len(line) || !isWordRune(after)) {
			return true
		}
	}
	return false
}

// FuzzGrepWordFixed: a whole-word search for a fixed string finds exactly
// the lines wordAt finds, GNU grep's definition spelt out.
func FuzzGrepWordFixed(f *testing.F) {
	for _, s := range []struct{ pat, text string }{
		{"caf", "café\ncaf é\nun café\ncaf"},
		{"(x)", "a(x)b\n(x)[y]\n((x))\n"},
		{"日本", "日本語\n日本\n「日本」\n"},
		{"cafe", "cafe\u0301\nCAFÉ cafe\n"},
		{"a", "aa a\nba\n_a\n١a\nकa\n"},
		{"-", "a-b\n- x\n--\n"},
		{"x y", "x y\nxx y\nx yy\n"},
	} {
		f.Add(s.pat, s.text)
	}
	f.Fuzz(func(t *testing.T, pat, text string) {
		if pat == "" || strings.Contains(pat, "\n") || !utf8.ValidString(pat) || !utf8.ValidString(text) || strings.IndexByte(text, 0) >= 0 {
			return
		}
		res, err := GrepText(context.Background(), GrepArgs{Pattern: pat, FixedStrings: true, Word: true, Limit: 10000}, "t", []byte(text))
		if err != nil {
			return
		}
		got := map[int]bool{}
		for _, m := range res.Matches {
			got[m.Line] = true
		}
		for i, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			if want := wordAt(line, pat); got[i+1] != want {
				t.Fatalf("-w -F %q, line %d %q: match %v, want %v", pat, i+1, line, got[i+1], want)
			}
		}
		// Across lines (-U), the lines shown are the same: a "\n" bounds
		// a word as the end of a line does, and every match is found
		// (wordMatches), the one after a match's closing character too.
		res, err = GrepText(context.Background(), GrepArgs{Pattern: pat, FixedStrings: true, Word: true, Multiline: true, Limit: 10000}, "t", []byte(text))
		if err != nil {
			t.Fatal(err)
		}
		multi := map[int]bool{}
		for _, m := range res.Matches {
			multi[m.Line] = true
		}
		if fmt.Sprint(multi) != fmt.Sprint(got) {
			t.Fatalf("-w -F %q over %q: lines %v across lines, %v line by line", pat, text, multi, got)
		}
	})
}
