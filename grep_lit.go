package stet

import (
	"bytes"
	"regexp/syntax"
)

// grepLit finds one literal in a buffer: it looks for the literal's rarest
// byte (by byteRank) with bytes.IndexByte, then compares the rest. A
// pattern such as `err != nil` then skips from "!" to "!" rather than
// stopping at every "e"; when the rare byte turns out common in a buffer,
// the rest of that buffer is searched with bytes.Index.
type grepLit struct {
	lit  []byte
	rare int // the offset of lit's rarest byte
}

func newGrepLit(lit []byte) grepLit {
	l := grepLit{lit: lit}
	for i, c := range lit {
		if byteRank(c) < byteRank(lit[l.rare]) {
			l.rare = i
		}
	}
	return l
}

// index returns the offset of the first lit in hay, or -1.
func (l grepLit) index(hay []byte) int {
	n := len(l.lit)
	if n < 2 || len(hay) < n {
		return bytes.Index(hay, l.lit)
	}
	c := l.lit[l.rare]
	end := len(hay) - (n - 1 - l.rare) // the rare byte of a match lies before end
	fails := 0
	for i := l.rare; i < end; {
		j := bytes.IndexByte(hay[i:end], c)
		if j < 0 {
			return -1
		}
		p := i + j - l.rare
		if bytes.Equal(hay[p:p+n], l.lit) {
			return p
		}
		i += j + 1
		if fails++; fails > 8+i>>6 {
			// More than one false start in 64 bytes: a plain search does
			// better on the rest.
			if k := bytes.Index(hay[p+1:], l.lit); k >= 0 {
				return p + 1 + k
			}
			return -1
		}
	}
	return -1
}

// byteRank is how common a byte is in source code and text, lowest the
// rarest: a rough order, enough to pick which byte of a literal to look
// for first.
func byteRank(c byte) int {
	switch {
	case c == ' ' || c == '\t' || c == '\n':
		return 250
	case c == 'e' || c == 't' || c == 'a' || c == 'o' || c == 'i' || c == 'n' || c == 's' || c == 'r':
		return 200 + int(c)&15
	case c == 'h' || c == 'l' || c == 'd' || c == 'c' || c == 'u' || c == 'm' || c == 'f' || c == 'p':
		return 160 + int(c)&15
	case 'a' <= c && c <= 'z':
		return 120 + int(c)&15
	case c == '(' || c == ')' || c == '.' || c == ',' || c == '"' || c == '/' || c == '*' || c == '_' || c == '=' || c == ':' || c == ';':
		return 100 + int(c)&15
	case 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		return 80 + int(c)&15
	case c < 0x80:
		return 40 + int(c)&15
	}
	return 20
}

// grepLits is a set of literals one of which every match contains (one,
// for most patterns: the longest literal a match must hold; one for each
// branch of an alternation such as `foo|bar`): the prefilter.
type grepLits []grepLit

// maxGrepLits is the most literals a prefilter looks for at once.
const maxGrepLits = 8

// index returns the offset of the first of the literals in hay, or -1.
// Each literal after the first is searched only up to the best offset
// found so far, so a search that goes on from each candidate scans the
// buffer about once per literal in all.
func (ls grepLits) index(hay []byte) int {
	best := -1
	for _, l := range ls {
		h := hay
		if best >= 0 {
			h = hay[:min(len(hay), best-1+len(l.lit))]
		}
		if i := l.index(h); i >= 0 && (best < 0 || i < best) {
			best = i
		}
	}
	return best
}

// requiredSet returns literals one of which every match of re contains
// (as lit reads each literal node: nil, it does not count), or nil when
// none is known: the longest literal a concatenation must hold, or the
// union of an alternation's branches' sets, at most maxGrepLits.
func requiredSet(re *syntax.Regexp, lit func(*syntax.Regexp) []byte) [][]byte {
	switch re.Op {
	case syntax.OpLiteral:
		if l := lit(re); len(l) > 0 {
			return [][]byte{l}
		}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredSet(re.Sub[0], lit)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return requiredSet(re.Sub[0], lit)
		}
	case syntax.OpConcat:
		var best [][]byte
		for _, sub := range re.Sub {
			if s := requiredSet(sub, lit); s != nil && betterSet(s, best) {
				best = s
			}
		}
		return best
	case syntax.OpAlternate:
		var all [][]byte
		for _, sub := range re.Sub {
			s := requiredSet(sub, lit)
			if s == nil || len(all)+len(s) > maxGrepLits {
				return nil
			}
			all = append(all, s...)
		}
		return all
	}
	return nil
}

// betterSet reports whether the set a makes a better prefilter than b:
// its shortest literal is longer, or as long with fewer literals.
func betterSet(a, b [][]byte) bool {
	if b == nil {
		return true
	}
	la, lb := shortest(a), shortest(b)
	return la > lb || la == lb && len(a) < len(b)
}

func shortest(set [][]byte) int {
	n := -1
	for _, l := range set {
		if n < 0 || len(l) < n {
			n = len(l)
		}
	}
	return n
}

func newGrepLits(set [][]byte) grepLits {
	if len(set) == 0 {
		return nil
	}
	ls := make(grepLits, len(set))
	for i, l := range set {
		ls[i] = newGrepLit(l)
	}
	return ls
}
