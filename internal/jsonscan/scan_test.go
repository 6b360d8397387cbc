package jsonscan

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"
	"unicode/utf8"
)

var (
	quick  = Options{MaxDepth: 8}
	strict = Options{MaxDepth: 8, CheckStrings: true}
)

// text reads b as one JSON text (whitespace around it allowed) and returns
// the value's bytes.
func text(b []byte, o Options) ([]byte, error) {
	s := New(b, o)
	s.SkipSpace()
	v, ok := s.Value(0)
	if !ok {
		return nil, s.Err()
	}
	s.SkipSpace()
	if s.Pos() != len(b) {
		return nil, &SyntaxError{Offset: s.Pos(), Msg: "unexpected data after the value"}
	}
	return v, nil
}

func TestErrors(t *testing.T) {
	for _, tc := range []struct {
		in     string
		o      Options
		want   string // "" when accepted
		offset int
	}{
		{`{"a":[1,-2.5e+3,true,false,null,"x\"]"]}`, strict, "", 0},
		{` [ ] `, strict, "", 0},
		{`"\u00e9\ud800 é"`, strict, "", 0},
		{`{"a":1,}`, quick, `unexpected '}'`, 7},
		{`{"a" 1}`, quick, `unexpected '1'`, 5},
		{`{1:2}`, quick, `unexpected '1'`, 1},
		{`[1 2]`, quick, `unexpected '2'`, 3},
		{`{`, quick, "unexpected end of input", 1},
		{`[1,`, quick, "unexpected end of input", 3},
		{``, quick, "unexpected end of input", 0},
		{`x`, quick, `unexpected 'x'`, 0},
		{`tru`, quick, "invalid literal", 0},
		{`nul`, quick, "invalid literal", 0},
		{`-`, quick, "invalid number", 1},
		{`01`, quick, "unexpected data after the value", 1},
		{`1.`, quick, "invalid number", 2},
		{`1e+`, quick, "invalid number", 3},
		{`"abc`, quick, "unterminated string", 4},
		{`"a\"`, quick, "unterminated string", 4},
		{`"a\\"`, quick, "", 0},
		{"\"\x01\\x\xff\"", quick, "", 0},
		{"\"\x01\"", strict, "control character in string", 1},
		{`"a\x"`, strict, "invalid escape in string", 2},
		{`"a\u12"`, strict, `invalid \u escape in string`, 2},
		{`"a\u12`, strict, `invalid \u escape in string`, 2},
		{`"a\`, strict, "unterminated string", 3},
		{"\"\xc3\"", strict, "invalid UTF-8 in string", 1},
		{"{\"\xff\":1}", strict, "invalid UTF-8 in string", 2},
		{strings.Repeat("[", 9) + strings.Repeat("]", 9), quick, "", 0},
		{strings.Repeat("[", 10) + strings.Repeat("]", 10), quick, "nesting too deep", 9},
		{strings.Repeat(`{"a":`, 10) + "1" + strings.Repeat("}", 10), strict, "nesting too deep", 45},
	} {
		_, err := text([]byte(tc.in), tc.o)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v, want no error", tc.in, err)
		case tc.want == "":
		case err == nil:
			t.Errorf("%q: accepted, want %s", tc.in, tc.want)
		default:
			var se *SyntaxError
			if !errors.As(err, &se) || se.Msg != tc.want || se.Offset != tc.offset {
				t.Errorf("%q: %v, want %s at byte %d", tc.in, err, tc.want, tc.offset)
			}
		}
	}
}

// TestCallbacks: a callback may read its value, leave it to the scanner,
// or stop the scan without an error.
func TestCallbacks(t *testing.T) {
	b := []byte(`{"a": [1, {"x": 2}], "b" : "c", "d":null}`)
	s := New(b, strict)
	var keys []string
	var arr []string
	raw, ok := s.Object(0, func(key []byte, depth int) bool {
		keys = append(keys, string(key))
		if string(key) == `"a"` {
			_, ok := s.Array(depth, func(depth int) bool {
				v, ok := s.Value(depth)
				arr = append(arr, string(v))
				return ok
			})
			return ok
		}
		return true // skipped
	})
	if !ok || s.Err() != nil || !bytes.Equal(raw, b) {
		t.Fatalf("Object = %s, %v, %v", raw, ok, s.Err())
	}
	if got := strings.Join(keys, " "); got != `"a" "b" "d"` {
		t.Errorf("keys %s", got)
	}
	if got := strings.Join(arr, " "); got != `1 {"x": 2}` {
		t.Errorf("elements %s", got)
	}

	s = New(b, strict)
	_, ok = s.Object(0, func(key []byte, depth int) bool { return string(key) != `"b"` })
	if ok || s.Err() != nil {
		t.Errorf("stopped scan: %v, %v", ok, s.Err())
	}

	s = New([]byte(` {}`), strict)
	if _, ok := s.Object(0, nil); ok || s.Err().Error() != "unexpected ' ' at byte 0" {
		t.Errorf("Object not at '{': %v, %v", ok, s.Err())
	}
	if s.Peek() != ' ' {
		t.Errorf("Peek = %q", s.Peek())
	}
	s.SkipSpace()
	if _, ok := s.Array(0, nil); ok || s.Err().Error() != "unexpected '{' at byte 1" {
		t.Errorf("Array not at '[': %v, %v", ok, s.Err())
	}
	if s := New(nil, strict); s.Peek() != 0 {
		t.Errorf("Peek at end = %q", s.Peek())
	}
}

// nesting returns how many objects and arrays are open at most in the
// valid JSON text b.
func nesting(b []byte) int {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	n, most := 0, 0
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return most
		}
		if err != nil {
			panic(err)
		}
		switch tok {
		case json.Delim('{'), json.Delim('['):
			n++
			most = max(most, n)
		case json.Delim('}'), json.Delim(']'):
			n--
		}
	}
}

// stringProblems are the errors CheckStrings adds.
var stringProblems = []string{"invalid escape in string", `invalid \u escape in string`, "control character in string", "invalid UTF-8 in string"}

// FuzzScan checks the scanner against encoding/json. With CheckStrings it
// accepts exactly the valid JSON texts in UTF-8 that are not nested deeper
// than MaxDepth; without it, those and also texts whose strings only are
// malformed. Members and elements are split as encoding/json splits them
// (a repeated key is left to the caller: encoding/json keeps the last).
func FuzzScan(f *testing.F) {
	for _, s := range []string{
		`{"a":{"b":[1,-2.5e+3,true,false,null,"x\"]"]},"c":"}"}`,
		`{"a":1,"a":2,"\u0061":3}`,
		`[1,"\ud800",{"é":[]},[[[[[[[[[]]]]]]]]]]`,
		"{\"\xff\":\"\x01\"}",
		`{"a":"\x"}`, ` "a\\" `, `-0.0e-0`, `{"a":tru}`, `[01]`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		valid := json.Valid(b)
		deep := valid && nesting(b) > strict.MaxDepth+1

		sv, serr := text(b, strict)
		qv, qerr := text(b, quick)
		if want := valid && !deep && utf8.Valid(b); (serr == nil) != want {
			t.Fatalf("%q with CheckStrings: %v, want accepted %v", b, serr, want)
		}
		if want := valid && !deep; want && qerr != nil {
			t.Fatalf("%q: %v, but it is valid JSON", b, qerr)
		}
		if deep && !strings.Contains(qerr.Error(), "nesting too deep") {
			t.Fatalf("%q is too deep, but: %v", b, qerr)
		}
		if deep && utf8.Valid(b) && !strings.Contains(serr.Error(), "nesting too deep") {
			t.Fatalf("%q is too deep, but with CheckStrings: %v", b, serr)
		}
		if serr == nil && (qerr != nil || !bytes.Equal(sv, qv)) {
			t.Fatalf("%q: %s with CheckStrings, %s %v without", b, sv, qv, qerr)
		}
		if qerr == nil && serr != nil {
			var se *SyntaxError
			if !errors.As(serr, &se) || !contains(stringProblems, se.Msg) {
				t.Fatalf("%q: accepted without CheckStrings, but with it %v", b, serr)
			}
		}
		if qerr != nil || serr != nil {
			return
		}
		for _, o := range []Options{quick, strict} {
			checkSplit(t, b, o)
		}
	})
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// checkSplit compares the members or elements of the valid JSON text b, if
// it is an object or an array, with what encoding/json finds.
func checkSplit(t *testing.T, b []byte, o Options) {
	s := New(b, o)
	s.SkipSpace()
	switch s.Peek() {
	case '{':
		var ref map[string]json.RawMessage
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatalf("%q: encoding/json: %v", b, err)
		}
		got := map[string][]byte{}
		_, ok := s.Object(0, func(key []byte, depth int) bool {
			v, ok := s.Value(depth)
			var k string
			if err := json.Unmarshal(key, &k); err != nil {
				t.Fatalf("%q: key %s: %v", b, key, err)
			}
			got[k] = v // encoding/json keeps the last of repeated keys
			return ok
		})
		if !ok {
			t.Fatalf("%q: Object: %v", b, s.Err())
		}
		if len(got) != len(ref) {
			t.Fatalf("%q: %d keys, encoding/json %d", b, len(got), len(ref))
		}
		for k, v := range got {
			if !bytes.Equal(v, ref[k]) {
				t.Fatalf("%q: [%q] = %s, encoding/json %s", b, k, v, ref[k])
			}
		}
	case '[':
		var ref []json.RawMessage
		if err := json.Unmarshal(b, &ref); err != nil {
			t.Fatalf("%q: encoding/json: %v", b, err)
		}
		var got [][]byte
		_, ok := s.Array(0, func(depth int) bool {
			v, ok := s.Value(depth)
			got = append(got, v)
			return ok
		})
		if !ok {
			t.Fatalf("%q: Array: %v", b, s.Err())
		}
		if len(got) != len(ref) {
			t.Fatalf("%q: %d elements, encoding/json %d", b, len(got), len(ref))
		}
		for i := range got {
			if !bytes.Equal(got[i], ref[i]) {
				t.Fatalf("%q: [%d] = %s, encoding/json %s", b, i, got[i], ref[i])
			}
		}
	}
}
