package stet

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"testing"
)

// foldedLiteral's literal is in every line the pattern matches, once the
// line's ASCII letters are lower-cased; letters that fold outside ASCII (k
// to the Kelvin sign, s to the long s) give no literal.
func TestFoldedLiteral(t *testing.T) {
	for _, c := range []struct {
		expr string
		want string
	}{
		{"(?i)needle", "needle"},
		{"(?i)NEEDLE in", "needle in"},
		{"(?i)key", "ey"}, // k folds to U+212A: the run after it
		{"(?i)has", "ha"}, // s folds to U+017F
		{"(?i)ks", ""},
		{"(?i)abc[0-9]+def", "abc"}, // the longest of the two is the first found
		{"needle", ""},              // not folded: requiredLiteral's
		{"(?i)héllo", "llo"},        // é is not ASCII
	} {
		re, err := syntax.Parse(c.expr, syntax.Perl)
		if err != nil {
			t.Fatal(err)
		}
		if got := string(foldedLiteral(re.Simplify())); got != c.want {
			t.Errorf("foldedLiteral(%s) = %q, want %q", c.expr, got, c.want)
		}
	}
	lines := []string{"NeEdLe", "a \u212Aey", "ha\u017F", "ABC123DEF", "xx needle IN yy"}
	for _, expr := range []string{"(?i)needle", "(?i)needle in", "(?i)abc[0-9]+def", "(?i)key", "(?i)has"} {
		re := regexp.MustCompile(expr)
		p, _ := syntax.Parse(expr, syntax.Perl)
		lit := foldedLiteral(p.Simplify())
		for _, l := range lines {
			if re.MatchString(l) && lit != nil && !bytes.Contains(asciiLower(nil, []byte(l)), lit) {
				t.Errorf("%s matches %q but its literal %q is not in it", expr, l, lit)
			}
		}
	}
}

// indexFold finds the first case-insensitive copy wherever it lies, across
// the steps it lowers the text in.
func TestIndexFold(t *testing.T) {
	for _, at := range []int{0, 1, 250, 255, 256, 300, 511, 512, 5000, 70000} {
		text := bytes.Repeat([]byte("x"), at+20)
		copy(text[at:], "NeEdLe")
		if got, _ := indexFold(text, []byte("needle"), nil); got != at {
			t.Errorf("needle at %d: found at %d", at, got)
		}
	}
	if got, _ := indexFold(bytes.Repeat([]byte("x"), 1000), []byte("needle"), nil); got != -1 {
		t.Errorf("no needle: found at %d", got)
	}
}
