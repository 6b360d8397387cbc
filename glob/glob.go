package glob

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/bmatcuk/doublestar/v4"
)

// ErrBadPattern is wrapped by every error Valid returns.
var ErrBadPattern = errors.New("bad glob pattern")

// Pattern is a compiled glob: Compile checks it once, and its methods
// match names without checking it again. A Pattern is immutable and safe
// for concurrent use.
type Pattern struct {
	// alts are the brace-free alternatives in the matcher's form: no
	// leading "/", a trailing "/" turned into "/**", classes that cannot
	// match "/".
	alts []string
	// covers are alts each followed by "/**" (unless it ends so already):
	// they match a name and everything under it, except that the
	// matcher's "b*/**" misses "b" itself (a star matching nothing before
	// "/**"): selves are the alts that end in a star, matched apart.
	covers, selves []string
	// anchored is false for a pattern without any "/", which matches base
	// names at any depth.
	anchored bool
	// folded, for CompileFold, is the pattern's folded text compiled: it
	// matches names by their key (Fold). Nil for Compile, and when the
	// folded text is no valid pattern (a range "[Z-a]" runs backwards
	// once folded): the pattern then matches as written only. p itself
	// when folding leaves the text as it is (then only a name that folding
	// changes is matched again).
	folded *Pattern
}

// Compile checks pattern (see the package documentation for the syntax)
// and returns it compiled, or an error wrapping ErrBadPattern that says
// what is wrong with it.
func Compile(pattern string) (*Pattern, error) { return compile(pattern, false) }

// CompileFold is Compile for names a filesystem may take for one another
// (letter case, Unicode normalization; see Fold). A name matches when it
// matches the pattern as written, or when its key (Fold) matches the
// pattern's text folded the same way (trailing dots kept): so it matches
// every name Compile matches, and the other spellings of those names. "?"
// and a class match one character of the folded text, so a letter whose
// folding is longer ("ß": "ss") is matched under them only as written; a
// class whose range crosses letters of both cases ("[Z-a]") matches as
// written, its folded form too where that is a valid pattern.
func CompileFold(pattern string) (*Pattern, error) { return compile(pattern, true) }

// Valid returns nil when pattern is a well-formed glob, or an error
// wrapping ErrBadPattern that says what is wrong with it.
func Valid(pattern string) error {
	_, err := Compile(pattern)
	return err
}

// Match reports whether name, a slash-separated relative name, matches p.
func (p *Pattern) Match(name string) bool {
	if !p.anchored {
		if i := strings.LastIndexByte(name, '/'); i >= 0 {
			name = name[i+1:]
		}
	}
	if matchAny(p.alts, name) {
		return true
	}
	if p.folded == nil {
		return false
	}
	k := Fold(name)
	return (p.folded != p || k != name) && matchAny(p.folded.alts, k)
}

func matchAny(alts []string, name string) bool {
	for _, a := range alts {
		if doublestar.MatchUnvalidated(a, name) {
			return true
		}
	}
	return false
}

// MaxAlternatives bounds the alternatives a pattern's braces spell out
// ("{a,b}/{c,d,e}" has 6): each is matched in turn.
const MaxAlternatives = 256

// compile checks pattern: the matcher's syntax, plus stet's own rules on
// where a "/" may stand (not in a class, not escaped, not doubled) and no
// "." or ".." segment, since names never have them. Braces are expanded
// here, so that the matcher sees none.
func compile(pattern string, fold bool) (*Pattern, error) {
	bad := func(why string) error {
		return fmt.Errorf("glob %q: %s: %w", pattern, why, ErrBadPattern)
	}
	switch {
	case pattern == "":
		return nil, bad("empty pattern")
	case strings.IndexByte(pattern, 0) >= 0:
		return nil, bad("NUL byte")
	}
	if why := checkSlashes(pattern); why != "" {
		return nil, bad(why)
	}
	if !doublestar.ValidatePattern(pattern) {
		return nil, bad(syntaxError(pattern))
	}
	p := &Pattern{anchored: strings.Contains(pattern, "/")}
	if fold {
		if ft := foldText(pattern); ft != pattern {
			p.folded, _ = compile(ft, false)
		} else {
			p.folded = p
		}
	}
	expr := pattern
	if p.anchored {
		expr = strings.TrimPrefix(expr, "/")
		if expr == "" {
			return nil, bad("matches only the root")
		}
		if strings.HasSuffix(expr, "/") {
			expr += "**"
		}
	}
	alts, ok := expand(expr, MaxAlternatives)
	if !ok {
		return nil, bad(fmt.Sprintf("its braces spell out more than %d alternatives; use fewer braces, or several patterns", MaxAlternatives))
	}
	for _, a := range alts {
		if p.anchored {
			for _, s := range strings.Split(a, "/") {
				switch s {
				case "":
					if a == pattern || a == expr {
						return nil, bad("empty segment")
					}
					return nil, bad(fmt.Sprintf("empty segment in its alternative %q", a))
				case ".", "..":
					return nil, bad(fmt.Sprintf("%q segment", s))
				}
			}
		}
		r, why := rewrite(a)
		if why != "" {
			return nil, bad(why)
		}
		p.alts = append(p.alts, r)
		if r != "**" && !strings.HasSuffix(r, "/**") {
			if strings.HasSuffix(r, "*") {
				p.selves = append(p.selves, r)
			}
			r += "/**"
		}
		p.covers = append(p.covers, r)
	}
	return p, nil
}

// expand returns the brace-free alternatives of a valid pattern, as a
// shell spells them out ("a.{ts,tsx}": "a.ts", "a.tsx"), or false when
// there are more than max.
func expand(pattern string, max int) ([]string, bool) {
	open := -1
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(pattern, i)
		case '{':
			open = i
		}
		if open >= 0 {
			break
		}
	}
	if open < 0 {
		return []string{pattern}, true
	}
	// The parts of the first brace group, split at its own commas.
	var parts []string
	depth, from, end := 0, open+1, -1
	for i := open; i < len(pattern) && end < 0; i++ {
		switch pattern[i] {
		case '\\':
			i++
		case '[':
			i = classEnd(pattern, i)
		case '{':
			depth++
		case ',':
			if depth == 1 {
				parts = append(parts, pattern[from:i])
				from = i + 1
			}
		case '}':
			depth--
			if depth == 0 {
				parts = append(parts, pattern[from:i])
				end = i
			}
		}
	}
	head, tail := pattern[:open], pattern[end+1:]
	var out []string
	for _, part := range parts {
		alts, ok := expand(head+part+tail, max-len(out))
		if !ok {
			return nil, false
		}
		out = append(out, alts...)
		if len(out) > max {
			return nil, false
		}
	}
	return out, true
}

// classEnd returns the index of the "]" that closes the class opening at
// pattern[i] (a valid pattern has one).
func classEnd(pattern string, i int) int {
	i++
	if i < len(pattern) && (pattern[i] == '!' || pattern[i] == '^') {
		i++
	}
	for ; i < len(pattern) && pattern[i] != ']'; i++ {
		if pattern[i] == '\\' {
			i++
		}
	}
	return i
}

// checkSlashes returns why pattern has a "/" where a name cannot have one
// (inside a character class or after a backslash), or "".
func checkSlashes(pattern string) string {
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			if i+1 < len(pattern) && pattern[i+1] == '/' {
				return `"/" after a backslash (a "/" always separates names)`
			}
			i++
		case '[':
			j := i + 1
			if j < len(pattern) && (pattern[j] == '!' || pattern[j] == '^') {
				j++
			}
			for ; j < len(pattern) && pattern[j] != ']'; j++ {
				switch pattern[j] {
				case '\\':
					j++
					if j < len(pattern) && pattern[j] == '/' {
						return `"/" inside a character class (a class matches one character of a name)`
					}
				case '/':
					return `"/" inside a character class (a class matches one character of a name)`
				}
			}
			i = j
		}
	}
	return ""
}

// syntaxError says what is wrong with a pattern the matcher rejects: an
// unclosed class or brace, a stray "}", or a trailing backslash.
func syntaxError(pattern string) string {
	depth := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			if i+1 == len(pattern) {
				return `trailing backslash (escape a character, or write \\ for a backslash)`
			}
			i++
		case '[':
			j := i + 1
			if j < len(pattern) && (pattern[j] == '!' || pattern[j] == '^') {
				j++
			}
			start := j
			for ; j < len(pattern) && pattern[j] != ']'; j++ {
				if pattern[j] == '\\' {
					j++
				}
			}
			switch {
			case j >= len(pattern):
				return `unclosed "[" (write \[ for a literal bracket)`
			case j == start:
				return `empty character class "[]"`
			}
			i = j
		case '{':
			depth++
		case '}':
			if depth == 0 {
				return `"}" without "{" (write \} for a literal brace)`
			}
			depth--
		}
	}
	if depth > 0 {
		return `unclosed "{" (write \{ for a literal brace)`
	}
	return "malformed pattern"
}

// rewrite puts a valid brace-free alternative in the form the matcher
// takes, and returns why it is malformed instead when a character range
// runs backwards ("[z-a]"). A run of three or more stars becomes one star
// (the matcher would match it against nothing; within a segment it is a
// star). Character classes are rewritten so that none matches a "/": the
// matcher lets a negated class ("[!a]") or a range around "/" ("[+-0]")
// match one, but a class stands for one character of a name here. A
// negated class gets "/" added to what it excludes; a range across "/" is
// split into the ranges on either side.
func rewrite(pattern string) (string, string) {
	if !strings.Contains(pattern, "[") && !strings.Contains(pattern, "***") {
		return pattern, ""
	}
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '\\':
			b.WriteString(pattern[i : i+2])
			i++
			continue
		case '*':
			j := i
			for j < len(pattern) && pattern[j] == '*' {
				j++
			}
			if j-i >= 3 {
				b.WriteByte('*')
			} else {
				b.WriteString(pattern[i:j])
			}
			i = j - 1
			continue
		case '[':
		default:
			b.WriteByte(pattern[i])
			continue
		}
		b.WriteByte('[')
		i++
		if pattern[i] == '!' || pattern[i] == '^' {
			b.WriteString("!/")
			i++
		}
		// Items as the matcher reads them: a rune (or an escaped one),
		// optionally followed by "-" and the range's end when that "-"
		// is not the last thing in the class.
		const none = -1
		last := rune(none)
		for pattern[i] != ']' {
			r, n := utf8.DecodeRuneInString(pattern[i:])
			i += n
			if r == '-' && last != none && pattern[i] != ']' {
				if pattern[i] == '\\' {
					i++
				}
				hi, n := utf8.DecodeRuneInString(pattern[i:])
				i += n
				if hi < last {
					return "", fmt.Sprintf("character range %q-%q runs backwards", last, hi)
				}
				writeRange(&b, last, hi)
				last = none
				continue
			}
			if r == '\\' {
				r, n = utf8.DecodeRuneInString(pattern[i:])
				i += n
			}
			if last != none {
				writeRange(&b, last, last)
			}
			last = r
		}
		if last != none {
			writeRange(&b, last, last)
		}
		b.WriteByte(']')
	}
	return b.String(), ""
}

// writeRange writes the class items for lo-hi less "/", each rune escaped.
func writeRange(b *strings.Builder, lo, hi rune) {
	item := func(lo, hi rune) {
		b.WriteByte('\\')
		b.WriteRune(lo)
		if hi != lo {
			b.WriteString(`-\`)
			b.WriteRune(hi)
		}
	}
	if lo < '/' && '/' < hi {
		item(lo, '/'-1)
		item('/'+1, hi)
		return
	}
	item(lo, hi)
}
