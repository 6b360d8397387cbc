package tools

import (
	"encoding/json"

	"github.com/stet-dev/stet/internal/jsonscan"
)

// Decode reads its input with the scanner of internal/jsonscan, which walks
// the JSON text once to find an object's members and the exact bytes of
// each value, without decoding or checking string contents. Decode then
// decodes only the values of known arguments, each with one call on its own
// bytes, so a 10 MiB content string is scanned with bytes.IndexByte and
// decoded once.
//
// Everything outside string contents is validated by the scanner
// (structure, numbers, literals, nesting depth); string contents are
// validated when decoded. Values of unknown keys and of wrongly typed
// arguments are never decoded, but such arguments are refused anyway, so an
// accepted input is valid JSON.

// maxDepth bounds nesting so hostile input cannot exhaust the stack.
const maxDepth = 256

// member is one key of an object and the raw bytes of its value.
type member struct {
	key string
	val []byte
}

// newScanner returns a scanner over b that leaves string contents to the
// decoder.
func newScanner(b []byte) jsonscan.Scanner {
	return jsonscan.New(b, jsonscan.Options{MaxDepth: maxDepth})
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
// whitespace allowed) and returns its members in order. A malformed text is
// a *jsonscan.SyntaxError.
func parseObject(b []byte) ([]member, error) {
	s := newScanner(b)
	s.SkipSpace()
	// Calls have a few arguments: one allocation holds them.
	ms := make([]member, 0, 4)
	var keyErr error
	_, ok := s.Object(0, func(kraw []byte, depth int) bool {
		v, ok := s.Value(depth)
		if !ok {
			return false
		}
		key, err := decodeKey(kraw)
		if err != nil {
			// kraw is a slice of b: its capacity tells where it starts.
			keyErr = &jsonscan.SyntaxError{Offset: cap(b) - cap(kraw), Msg: "invalid key string"}
			return false
		}
		ms = append(ms, member{key: key, val: v})
		return true
	})
	if !ok {
		if keyErr != nil {
			return nil, keyErr
		}
		return nil, s.Err()
	}
	s.SkipSpace()
	if s.Pos() != len(b) {
		return nil, &jsonscan.SyntaxError{Offset: s.Pos(), Msg: "unexpected data after the object"}
	}
	return ms, nil
}

// parseArray parses a value that starts with '[' and returns its elements.
func parseArray(b []byte) ([][]byte, error) {
	s := newScanner(b)
	var elems [][]byte
	_, ok := s.Array(0, func(depth int) bool {
		v, ok := s.Value(depth)
		elems = append(elems, v)
		return ok
	})
	if !ok {
		return nil, s.Err()
	}
	if s.Pos() != len(b) {
		return nil, &jsonscan.SyntaxError{Offset: s.Pos(), Msg: "unexpected data after the array"}
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
