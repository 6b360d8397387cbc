package stet

import (
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/stet-dev/stet/tools"
)

// Whole words (grep's -w, the word argument) are GNU grep's: a match
// counts when the character before it is no word character (or the line
// starts there) and the character after it is none either (or the line
// ends there), word characters being letters, digits and the underscore
// of a UTF-8 locale. In glibc's UTF-8 locales (iswalnum, plus "_") those
// are exactly Unicode's Alphabetic characters (\p{L}, \p{Nl} and
// Other_Alphabetic: the vowel signs of Indic scripts, for one), decimal
// digits of every script (\p{Nd}), and "_"; checked against GNU grep 3.8
// on every code point. So `-w caf` does not match "café" nor `-w 日本` miss
// a line "日本", and a pattern that starts or ends with punctuation is
// bounded by what stands around the match: `-w -F '(x)'` matches "(x)[y]",
// not "a(x)b".
//
// ripgrep's -w agrees but for three kinds of characters its \w counts and
// glibc does not: combining marks outside Other_Alphabetic (U+0301, the
// acute accent of a decomposed "é"), connector punctuation other than "_"
// ("‿", "＿"), and the joiners U+200C and U+200D. Stet takes grep's side:
// `-w cafe` matches "cafe\u0301" as GNU grep does (ripgrep finds none).
//
// RE2 has no lookaround and its \b is ASCII only, so the word expression
// consumes the character on each side: (?:\A|[^W])(PATTERN)(?:\z|[^W]),
// W the word characters. Whether a line matches is then exactly grep's;
// where a match lies (multiline hits) is the capture group's.

// nonWordClass is a character class of the characters that are not word
// characters (isWordRune), spelt as sorted ranges: a class the parser
// takes in one pass (\p{L} and the like, negated, cost it a sort of
// thousands of ranges on every compile).
var nonWordClass = sync.OnceValue(func() string {
	var b strings.Builder
	b.WriteByte('[')
	lo := rune(-1) // the start of the run of non-word characters, if in one
	for r := rune(0); r <= unicode.MaxRune+1; r++ {
		non := r <= unicode.MaxRune && !isWordRune(r)
		switch {
		case non && lo < 0:
			lo = r
		case !non && lo >= 0:
			fmt.Fprintf(&b, `\x{%x}-\x{%x}`, lo, r-1)
			lo = -1
		}
	}
	b.WriteByte(']')
	return b.String()
})

// grepExprs returns the expression a grep call searches with (expr), and
// for a whole-word search the pattern alone (inner) and the expression
// that goes on after a match (next), both "" without Word. inner is the
// pattern as tools.GrepRegexp makes it (quoted, its case, its lines);
// expr is, for Word, inner in group 1 between a non-word character or the
// start of the text and a non-word character or its end. next has no
// start-of-text branch: it searches the text after a match's group, whose
// first character is the one the match ended before (see wordMatches).
func grepExprs(a GrepArgs) (expr, inner, next string) {
	word := a.Word
	a.Word = false
	pat := tools.GrepRegexp(a)
	if !word {
		return pat, "", ""
	}
	non := nonWordClass()
	body := `(` + pat + `)(?:\z|` + non + `)`
	return `(?:\A|` + non + `)` + body, pat, non + body
}

// wordMatches is FindAllIndex for a whole-word query (at most n matches;
// n < 0: all): the bounds of each match's group 1, the pattern's own
// match. Each search after the first starts where the previous group
// ended, so that the non-word character one match ends before can open
// the next (with `-w foo`, "foo foo" holds two matches).
func (q *grepQuery) wordMatches(data []byte, n int) [][]int {
	var out [][]int
	re, pos := q.re, 0
	for n < 0 || len(out) < n {
		m := re.FindSubmatchIndex(data[pos:])
		if m == nil {
			break
		}
		s, e := pos+m[2], pos+m[3]
		out = append(out, []int{s, e})
		// The next match's group starts past e: its opening character
		// (the one at e, or later) is consumed by next.
		re, pos = q.wordNext, e
	}
	return out
}

// findAll is the matches of q in data (multiline), at most n (n < 0: all).
func (q *grepQuery) findAll(data []byte, n int) [][]int {
	if q.wordNext != nil {
		return q.wordMatches(data, n)
	}
	return q.re.FindAllIndex(data, n)
}

// compileWord compiles, for a whole-word query, next and inner (see
// grepExprs): the search after a match, and matchLine's fast path.
func (q *grepQuery) compileWord(inner, next string) error {
	if next == "" {
		return nil
	}
	re, err := regexp.Compile(next)
	if err != nil {
		return err
	}
	in, err := regexp.Compile(inner)
	if err != nil {
		return err
	}
	q.wordNext, q.wordInner = re, in
	return nil
}

// matchLine reports whether line (without its "\n") holds a match. For a
// whole-word query the pattern alone is tried first, as ripgrep does: no
// match of it, no whole word; a first match with no word character on
// either side is one. Only a first match inside a word needs the word
// expression, which finds any other.
func (q *grepQuery) matchLine(line []byte) bool {
	if q.wordInner == nil {
		return q.re.Match(line)
	}
	m := q.wordInner.FindIndex(line)
	if m == nil {
		return false
	}
	if !wordBefore(line, m[0]) && !wordAfter(line, m[1]) {
		return true
	}
	return q.re.Match(line)
}

// wordBefore reports whether the character ending at i is a word
// character.
func wordBefore(b []byte, i int) bool {
	if i == 0 {
		return false
	}
	r, _ := utf8.DecodeLastRune(b[:i])
	return isWordRune(r)
}

// wordAfter reports whether the character starting at i is a word
// character.
func wordAfter(b []byte, i int) bool {
	if i >= len(b) {
		return false
	}
	r, _ := utf8.DecodeRune(b[i:])
	return isWordRune(r)
}

// isWordRune reports whether r is a word character: "_", a letter, a
// letter number, a decimal digit, or another alphabetic character
// (Other_Alphabetic).
func isWordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return r == '_' || 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.Is(unicode.Nl, r) || unicode.Is(unicode.Nd, r) || unicode.Is(unicode.Other_Alphabetic, r)
}
