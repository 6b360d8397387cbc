package ignore

import (
	"bytes"
	"strings"
)

// pattern is one line of an ignore file.
type pattern struct {
	glob     string // without "!", the anchoring "/" and the trailing "/"
	negate   bool
	dirOnly  bool
	baseName bool // no "/" inside: matches the base name at any depth
}

// List is the patterns of one ignore file. They apply to paths under Dir.
type List struct {
	// Dir is the directory the file's patterns are relative to,
	// slash-separated and relative to the walk's root; "" for the root.
	Dir  string
	pats []pattern
}

// utf8BOM is the UTF-8 byte-order mark some editors put at the start of
// a text file.
const utf8BOM = "\xef\xbb\xbf"

// Parse reads the patterns of an ignore file found in dir ("" for the
// root). Lines that hold no pattern are dropped; a malformed pattern (an
// unterminated class) is kept and matches nothing, as in git. A UTF-8
// byte-order mark at the very start of the file is no part of its first
// line, as git skips it for every ignore file (dir.c, skip_utf8_bom): one
// mark, there only; a second one, or one further on, is kept as bytes of a
// pattern, as git keeps them.
func Parse(dir string, data []byte) *List {
	l := &List{Dir: strings.Trim(dir, "/")}
	if l.Dir == "." {
		l.Dir = ""
	}
	data = bytes.TrimPrefix(data, []byte(utf8BOM))
	for len(data) > 0 {
		line := data
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			line, data = data[:i], data[i+1:]
		} else {
			data = nil
		}
		if p, ok := parseLine(string(bytes.TrimSuffix(line, []byte("\r")))); ok {
			l.pats = append(l.pats, p)
		}
	}
	return l
}

// Len is the number of patterns in the list.
func (l *List) Len() int { return len(l.pats) }

func parseLine(s string) (pattern, bool) {
	var p pattern
	if s == "" || s[0] == '#' {
		return p, false
	}
	s = trimTrailingSpaces(s)
	if s == "" {
		return p, false
	}
	if s[0] == '!' {
		p.negate = true
		s = s[1:]
	} else if s[0] == '\\' && len(s) > 1 && (s[1] == '!' || s[1] == '#') {
		s = s[1:]
	}
	if strings.HasSuffix(s, "/") {
		p.dirOnly = true
		s = strings.TrimRight(s, "/")
	}
	if s == "" {
		return p, false
	}
	p.baseName = !strings.Contains(s, "/")
	s = strings.TrimPrefix(s, "/")
	if s == "" {
		return p, false
	}
	p.glob = s
	return p, true
}

// trimTrailingSpaces drops trailing spaces, except one escaped with a
// backslash (which stays, backslash included, and matches a space).
func trimTrailingSpaces(s string) string {
	end := len(s)
	for end > 0 && s[end-1] == ' ' {
		if end >= 2 && s[end-2] == '\\' {
			// An escaped space ends the pattern, unless the backslash
			// is itself escaped.
			n := 0
			for i := end - 2; i >= 0 && s[i] == '\\'; i-- {
				n++
			}
			if n%2 == 1 {
				break
			}
		}
		end--
	}
	return s[:end]
}

// match reports whether the list has a pattern matching rel (relative to
// the root, under l.Dir) and, if so, whether the last one ignores it.
func (l *List) match(rel string, isDir bool) (ignored, matched bool) {
	sub := rel
	if l.Dir != "" {
		if !strings.HasPrefix(rel, l.Dir+"/") {
			return false, false
		}
		sub = rel[len(l.Dir)+1:]
	}
	base := sub
	if i := strings.LastIndexByte(sub, '/'); i >= 0 {
		base = sub[i+1:]
	}
	for i := len(l.pats) - 1; i >= 0; i-- {
		p := &l.pats[i]
		if p.dirOnly && !isDir {
			continue
		}
		name := sub
		if p.baseName {
			name = base
		}
		if Wildmatch(p.glob, name) {
			return !p.negate, true
		}
	}
	return false, false
}

// Stack is the lists that apply to a directory, from the least to the most
// specific. It is never changed in place: Push returns a new Stack.
type Stack []*List

// Push returns s with l added as its most specific list. An empty list
// adds nothing.
func (s Stack) Push(l *List) Stack {
	if l == nil || len(l.pats) == 0 {
		return s
	}
	out := make(Stack, len(s), len(s)+1)
	copy(out, s)
	return append(out, l)
}

// Ignored reports whether the patterns of s ignore rel, a slash-separated
// path relative to the root; isDir says whether it is a directory. It
// judges rel alone: a walk does not enter an ignored directory, so what
// lies under one never reaches it.
func (s Stack) Ignored(rel string, isDir bool) bool {
	for i := len(s) - 1; i >= 0; i-- {
		if ignored, ok := s[i].match(rel, isDir); ok {
			return ignored
		}
	}
	return false
}
