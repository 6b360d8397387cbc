package jsonscan

import (
	"bytes"
	"fmt"
	"unicode/utf8"
)

// Options says how strictly a Scanner reads.
type Options struct {
	// MaxDepth bounds nesting: an object or array read at a depth greater
	// than MaxDepth is refused. The top-level value is at depth 0, the
	// values of its members or elements at depth 1, and so on.
	MaxDepth int
	// CheckStrings makes the scanner check string contents as RFC 8259
	// defines them (escapes, no control characters) and refuse invalid
	// UTF-8, in keys and values alike. Without it a string ends at its
	// first unescaped quote, found with bytes.IndexByte, and its contents
	// are left to the caller's decoder.
	CheckStrings bool
}

// SyntaxError reports malformed JSON at a byte offset.
type SyntaxError struct {
	Offset int    // the byte where the problem was found
	Msg    string // what is wrong, such as "invalid number"
}

// Error returns Msg and Offset: "invalid number at byte 12".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("%s at byte %d", e.Msg, e.Offset)
}

// Scanner reads JSON text from a byte slice, value by value. Its methods
// report false for anything they do not accept; Err then says what and
// where. A Scanner is not safe for concurrent use.
type Scanner struct {
	b   []byte
	i   int
	opt Options
	// The syntax error that stopped the scan: its offset, and its
	// message ("" for an unexpected byte, or end of input, at errOff).
	failed bool
	errOff int
	errMsg string
}

// New returns a Scanner at the start of b.
func New(b []byte, o Options) Scanner {
	return Scanner{b: b, opt: o}
}

// Pos returns the offset of the next byte to read.
func (s *Scanner) Pos() int { return s.i }

// Peek returns the next byte without reading it, or 0 at the end of the
// input.
func (s *Scanner) Peek() byte {
	if s.i >= len(s.b) {
		return 0
	}
	return s.b[s.i]
}

// Err returns the syntax error that made a method report false, as a
// *SyntaxError, or nil when there was none (a callback stopped the scan,
// or nothing failed).
func (s *Scanner) Err() error {
	if !s.failed {
		return nil
	}
	msg := s.errMsg
	if msg == "" {
		if s.errOff >= len(s.b) {
			msg = "unexpected end of input"
		} else {
			msg = fmt.Sprintf("unexpected %q", s.b[s.errOff])
		}
	}
	return &SyntaxError{Offset: s.errOff, Msg: msg}
}

// fail records a syntax error at the current offset and returns false.
func (s *Scanner) fail(msg string) bool {
	return s.failAt(s.i, msg)
}

func (s *Scanner) failAt(off int, msg string) bool {
	s.failed, s.errOff, s.errMsg = true, off, msg
	return false
}

// unexpected records that the byte at the current offset (or the end of
// the input) is not what the grammar allows there.
func (s *Scanner) unexpected() bool { return s.fail("") }

// SkipSpace skips JSON whitespace.
func (s *Scanner) SkipSpace() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// Value reads one value at depth (see Options.MaxDepth) and returns its
// bytes. It does not skip whitespace before or after it.
func (s *Scanner) Value(depth int) ([]byte, bool) {
	v0 := s.i
	if !s.value(depth) {
		return nil, false
	}
	return s.b[v0:s.i], true
}

// Object reads an object at depth and returns its bytes. For each member
// it calls member, when not nil, with the key as written (quotes and
// escapes included) and the depth of the value, with the scanner at the
// value. member may read the value (with Value, Object or Array); if it
// returns true without reading it, Object skips the value. member
// returning false stops the scan, and Object reports false with no error
// of its own. Keys are not compared: a repeated key is the caller's to
// notice.
func (s *Scanner) Object(depth int, member func(key []byte, depth int) bool) ([]byte, bool) {
	v0 := s.i
	if s.i >= len(s.b) || s.b[s.i] != '{' {
		return nil, s.unexpected()
	}
	if !s.object(depth, member) {
		return nil, false
	}
	return s.b[v0:s.i], true
}

// Array reads an array at depth and returns its bytes. For each element it
// calls elem, when not nil, with the depth of the element and the scanner
// at it; elem reads the element, or returns true without reading it to
// have Array skip it, or returns false to stop the scan.
func (s *Scanner) Array(depth int, elem func(depth int) bool) ([]byte, bool) {
	v0 := s.i
	if s.i >= len(s.b) || s.b[s.i] != '[' {
		return nil, s.unexpected()
	}
	if !s.array(depth, elem) {
		return nil, false
	}
	return s.b[v0:s.i], true
}

// object reads an object starting at s.i ('{').
func (s *Scanner) object(depth int, member func(key []byte, depth int) bool) bool {
	if depth > s.opt.MaxDepth {
		return s.fail("nesting too deep")
	}
	s.i++ // '{'
	s.SkipSpace()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return true
	}
	for {
		s.SkipSpace()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return s.unexpected()
		}
		k0 := s.i
		if !s.str() {
			return false
		}
		key := s.b[k0:s.i]
		s.SkipSpace()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return s.unexpected()
		}
		s.i++
		s.SkipSpace()
		if member != nil {
			v0 := s.i
			if !member(key, depth+1) {
				return false
			}
			if s.i == v0 && !s.value(depth+1) {
				return false
			}
		} else if !s.value(depth + 1) {
			return false
		}
		s.SkipSpace()
		if s.i >= len(s.b) {
			return s.unexpected()
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return s.unexpected()
		}
	}
}

// array reads an array starting at s.i ('[').
func (s *Scanner) array(depth int, elem func(depth int) bool) bool {
	if depth > s.opt.MaxDepth {
		return s.fail("nesting too deep")
	}
	s.i++ // '['
	s.SkipSpace()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return true
	}
	for {
		s.SkipSpace()
		if elem != nil {
			v0 := s.i
			if !elem(depth + 1) {
				return false
			}
			if s.i == v0 && !s.value(depth+1) {
				return false
			}
		} else if !s.value(depth + 1) {
			return false
		}
		s.SkipSpace()
		if s.i >= len(s.b) {
			return s.unexpected()
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return s.unexpected()
		}
	}
}

// value reads one value starting at s.i.
func (s *Scanner) value(depth int) bool {
	if s.i >= len(s.b) {
		return s.unexpected()
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == '{':
		return s.object(depth, nil)
	case c == '[':
		return s.array(depth, nil)
	case c == 't':
		return s.literal("true")
	case c == 'f':
		return s.literal("false")
	case c == 'n':
		return s.literal("null")
	case c == '-' || ('0' <= c && c <= '9'):
		return s.number()
	default:
		return s.unexpected()
	}
}

// str reads a string starting at s.i ('"'). Unless the options ask for
// its contents to be checked, it finds the closing quote with
// bytes.IndexByte, so a long string costs about a memory scan.
func (s *Scanner) str() bool {
	if s.opt.CheckStrings {
		return s.checkedStr()
	}
	j := s.i + 1
	for {
		k := bytes.IndexByte(s.b[j:], '"')
		if k < 0 {
			s.i = len(s.b)
			return s.fail("unterminated string")
		}
		q := j + k
		n := 0
		for p := q - 1; p > s.i && s.b[p] == '\\'; p-- {
			n++
		}
		if n%2 == 0 {
			s.i = q + 1
			return true
		}
		j = q + 1
	}
}

// checkedStr reads a string and checks its escapes, that it has no control
// characters, and that it is valid UTF-8.
func (s *Scanner) checkedStr() bool {
	b := s.b
	i := s.i + 1
	for {
		for i+4 <= len(b) && plainByte[b[i]] && plainByte[b[i+1]] && plainByte[b[i+2]] && plainByte[b[i+3]] {
			i += 4
		}
		for i < len(b) && plainByte[b[i]] {
			i++
		}
		if i >= len(b) {
			s.i = len(b)
			return s.fail("unterminated string")
		}
		switch c := b[i]; {
		case c == '"':
			s.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(b) {
				s.i = len(b)
				return s.fail("unterminated string")
			}
			switch b[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i += 2
			case 'u':
				if i+6 > len(b) {
					return s.failAt(i, "invalid \\u escape in string")
				}
				for _, h := range b[i+2 : i+6] {
					if !('0' <= h && h <= '9' || 'a' <= h && h <= 'f' || 'A' <= h && h <= 'F') {
						return s.failAt(i, "invalid \\u escape in string")
					}
				}
				i += 6
			default:
				return s.failAt(i, "invalid escape in string")
			}
		case c < 0x20:
			return s.failAt(i, "control character in string")
		default:
			r, size := utf8.DecodeRune(b[i:])
			if r == utf8.RuneError && size == 1 {
				return s.failAt(i, "invalid UTF-8 in string")
			}
			i += size
		}
	}
}

// plainByte marks the bytes a string carries as they are and that need no
// UTF-8 decoding: ASCII from 0x20 on, except '"' and '\\'. It is never
// written after initialization.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

func (s *Scanner) literal(lit string) bool {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return s.fail("invalid literal")
	}
	s.i += len(lit)
	return true
}

// number reads -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *Scanner) number() bool {
	b := s.b
	if s.i < len(b) && b[s.i] == '-' {
		s.i++
	}
	switch {
	case s.i < len(b) && b[s.i] == '0':
		s.i++
	case s.i < len(b) && '1' <= b[s.i] && b[s.i] <= '9':
		s.digits()
	default:
		return s.fail("invalid number")
	}
	if s.i < len(b) && b[s.i] == '.' {
		s.i++
		if s.digits() == 0 {
			return s.fail("invalid number")
		}
	}
	if s.i < len(b) && (b[s.i] == 'e' || b[s.i] == 'E') {
		s.i++
		if s.i < len(b) && (b[s.i] == '+' || b[s.i] == '-') {
			s.i++
		}
		if s.digits() == 0 {
			return s.fail("invalid number")
		}
	}
	return true
}

func (s *Scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}
