package tools

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// The scanner walks a JSON text once to find an object's members and the
// exact bytes of each value, without decoding string contents. Decode then
// decodes only the values of known arguments, each with one encoding/json
// call on its own bytes, so a 10 MiB content string is scanned with
// bytes.IndexByte here and decoded once there.
//
// Everything outside string contents is validated here (structure, numbers,
// literals, nesting depth); string contents are validated when decoded.
// Values of unknown keys and of wrongly typed arguments are never decoded,
// but such arguments are refused anyway, so an accepted input is valid JSON.

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 256

// member is one key of an object and the raw bytes of its value.
type member struct {
	key string
	val []byte
}

// syntaxError reports malformed JSON at a byte offset.
type syntaxError struct {
	off int
	msg string
}

func (e *syntaxError) Error() string {
	return fmt.Sprintf("%s at byte %d", e.msg, e.off)
}

type scanner struct {
	b []byte
	i int
}

func (s *scanner) fail(msg string) error {
	return &syntaxError{off: s.i, msg: msg}
}

func (s *scanner) unexpected() error {
	if s.i >= len(s.b) {
		return s.fail("unexpected end of input")
	}
	return s.fail(fmt.Sprintf("unexpected %q", s.b[s.i]))
}

func (s *scanner) skipSpace() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

// object parses an object starting at s.i ('{') and returns its members when
// collect is set.
func (s *scanner) object(depth int, collect bool) ([]member, error) {
	if depth > maxDepth {
		return nil, s.fail("nesting too deep")
	}
	s.i++ // '{'
	var ms []member
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == '}' {
		s.i++
		return ms, nil
	}
	for {
		s.skipSpace()
		if s.i >= len(s.b) || s.b[s.i] != '"' {
			return nil, s.unexpected()
		}
		kstart := s.i
		if err := s.str(); err != nil {
			return nil, err
		}
		kraw := s.b[kstart:s.i]
		s.skipSpace()
		if s.i >= len(s.b) || s.b[s.i] != ':' {
			return nil, s.unexpected()
		}
		s.i++
		s.skipSpace()
		vstart := s.i
		if err := s.value(depth + 1); err != nil {
			return nil, err
		}
		if collect {
			key, err := decodeKey(kraw)
			if err != nil {
				return nil, &syntaxError{off: kstart, msg: "invalid key string"}
			}
			ms = append(ms, member{key: key, val: s.b[vstart:s.i]})
		}
		s.skipSpace()
		if s.i >= len(s.b) {
			return nil, s.unexpected()
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case '}':
			s.i++
			return ms, nil
		default:
			return nil, s.unexpected()
		}
	}
}

// array parses an array starting at s.i ('[') and returns the raw elements
// when collect is set.
func (s *scanner) array(depth int, collect bool) ([][]byte, error) {
	if depth > maxDepth {
		return nil, s.fail("nesting too deep")
	}
	s.i++ // '['
	var elems [][]byte
	s.skipSpace()
	if s.i < len(s.b) && s.b[s.i] == ']' {
		s.i++
		return elems, nil
	}
	for {
		s.skipSpace()
		start := s.i
		if err := s.value(depth + 1); err != nil {
			return nil, err
		}
		if collect {
			elems = append(elems, s.b[start:s.i])
		}
		s.skipSpace()
		if s.i >= len(s.b) {
			return nil, s.unexpected()
		}
		switch s.b[s.i] {
		case ',':
			s.i++
		case ']':
			s.i++
			return elems, nil
		default:
			return nil, s.unexpected()
		}
	}
}

// value skips one value starting at s.i.
func (s *scanner) value(depth int) error {
	if s.i >= len(s.b) {
		return s.unexpected()
	}
	switch c := s.b[s.i]; {
	case c == '"':
		return s.str()
	case c == '{':
		_, err := s.object(depth, false)
		return err
	case c == '[':
		_, err := s.array(depth, false)
		return err
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

// str skips a string starting at s.i ('"'). It finds the closing quote with
// bytes.IndexByte, so long strings cost about a memory scan; escapes and
// control characters are checked later by the decoder of a known value.
func (s *scanner) str() error {
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
			return nil
		}
		j = q + 1
	}
}

func (s *scanner) literal(lit string) error {
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return s.fail("invalid literal")
	}
	s.i += len(lit)
	return nil
}

// number checks the JSON number grammar:
// -?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?
func (s *scanner) number() error {
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
	return nil
}

func (s *scanner) digits() int {
	start := s.i
	for s.i < len(s.b) && '0' <= s.b[s.i] && s.b[s.i] <= '9' {
		s.i++
	}
	return s.i - start
}

// decodeKey turns a raw key (with quotes) into its string. Plain ASCII keys,
// the usual case, need no decoder.
func decodeKey(raw []byte) (string, error) {
	inner := raw[1 : len(raw)-1]
	plain := true
	for _, c := range inner {
		if c == '\\' || c < 0x20 || c >= 0x80 {
			plain = false
			break
		}
	}
	if plain {
		return string(inner), nil
	}
	var k string
	err := json.Unmarshal(raw, &k)
	return k, err
}

// parseObject parses a whole JSON text that must be one object (surrounding
// whitespace allowed) and returns its members in order.
func parseObject(b []byte) ([]member, error) {
	s := &scanner{b: b}
	s.skipSpace()
	ms, err := s.object(0, true)
	if err != nil {
		return nil, err
	}
	s.skipSpace()
	if s.i != len(b) {
		return nil, s.fail("unexpected data after the object")
	}
	return ms, nil
}

// parseArray parses a value that starts with '[' and returns its elements.
func parseArray(b []byte) ([][]byte, error) {
	s := &scanner{b: b}
	elems, err := s.array(0, true)
	if err != nil {
		return nil, err
	}
	if s.i != len(b) {
		return nil, s.fail("unexpected data after the array")
	}
	return elems, nil
}

// jsonType names the JSON type of a raw value by its first byte.
func jsonType(v []byte) string {
	if len(v) == 0 {
		return "nothing"
	}
	switch v[0] {
	case '"':
		return "string"
	case '{':
		return "object"
	case '[':
		return "array"
	case 't', 'f':
		return "boolean"
	case 'n':
		return "null"
	default:
		return "number"
	}
}
