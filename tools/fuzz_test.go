package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

var fuzzSeeds = []struct {
	tool string
	raw  string
}{
	{"read", `{"path":"a.go","offset":3.0,"limit":null}`},
	{"read", `{"\u0070ath":"caf\u00e9 \ud83d\ude00 \ud800"}`},
	{"edit", `{"path":"a","old_string":"x\r\n","new_string":"","replace_all":true,"dry_run":false}`},
	{"edit", `{"path":"a","edits":[{"old_string":"x","new_string":"y"},{"old_string":"p","new_string":"q","replace_all":true}],"expected_version":"` + version + `"}`},
	{"edit", `{"path":"a","old_str":"x","new_str":"y"}`},
	{"write", `{"path":"a","content":"\u0000\t\"\\/\b\f\n\r","overwrite":true}`},
	{"write", "{\"path\":\"a\",\"content\":\"\xff\xed\xa0\x80\"}"},
	{"patch", `{"patch":"*** Begin Patch\n*** End Patch"}`},
	{"list", ``},
	{"list", `{"depth":1e1,"limit":-0}`},
	{"find", `{"pattern":"**/*.go","path":[1,{"a":[]}]}`},
	{"grep", `{"pattern":"a(b","context":2}`},
	{"mkdir", `["a"]`},
	{"move", `{"from":"a","to":"b","overwrite":"true"}`},
	{"delete", `{"path":"a",}`},
	{"undo", `{"path":"a"} {}`},
	{"read_text_file", `{"path":"a","head":2.0,"tail":null}`},
	{"read_text_file", `{"path":"a","head":1,"tail":1}`},
	{"read_multiple_files", `{"paths":["a","b"]}`},
	{"write_file", `{"path":"a","content":"x","overwrite":false}`},
	{"edit_file", `{"path":"a","edits":[{"oldText":"x","newText":"y"}],"dryRun":true}`},
	{"edit_file", `{"path":"a","edits":[{"old_string":"x","newText":"y"}]}`},
	{"list_directory_with_sizes", `{"path":".","sortBy":"size"}`},
	{"directory_tree", `{"path":".","excludePatterns":["*.go"]}`},
	{"move_file", `{"source":"a","destination":"b"}`},
	{"search_files", `{"path":".","pattern":"*.go","excludePatterns":"x"}`},
	{"list_allowed_directories", `[]`},
}

// fuzzTool is one tool of a profile.
type fuzzTool struct {
	p    *Profile
	name string
}

// fuzzTools is every tool of every profile, stet's first.
func fuzzTools() []fuzzTool {
	var out []fuzzTool
	for _, p := range []*Profile{Stet, Reference} {
		for _, name := range p.Names(false) {
			out = append(out, fuzzTool{p, name})
		}
	}
	return out
}

// FuzzDecode checks, for the tools of every profile, that Decode never
// panics, that every refusal is an ErrInvalid with a readable message, and
// that anything it accepts is valid JSON, passes the tool's checks, agrees
// with encoding/json, and survives a re-marshal unchanged.
func FuzzDecode(f *testing.F) {
	all := fuzzTools()
	index := func(name string) uint8 {
		for i, ft := range all {
			if ft.name == name {
				return uint8(i)
			}
		}
		panic(name)
	}
	for _, s := range fuzzSeeds {
		f.Add(index(s.tool), []byte(s.raw))
	}
	f.Fuzz(func(t *testing.T, which uint8, raw []byte) {
		ft := all[int(which)%len(all)]
		tool := ft.name
		v, err := ft.p.Decode(tool, raw)
		if err != nil {
			if !errors.Is(err, ErrInvalid) {
				t.Fatalf("Decode(%s, %q) error %v is not ErrInvalid", tool, raw, err)
			}
			msg := err.Error()
			if !utf8.ValidString(msg) || !(strings.HasSuffix(msg, ".") || strings.HasSuffix(msg, "?")) {
				t.Fatalf("Decode(%s, %q) message %q is not a readable sentence", tool, raw, msg)
			}
			return
		}
		if tl, _ := ft.p.lookup(tool); tl.check(v) != nil {
			t.Fatalf("Decode(%s, %q) accepted %+v, which its checks refuse: %v", tool, raw, v, tl.check(v))
		}
		if t := bytes.TrimSpace(raw); len(t) > 0 && string(t) != "null" && !json.Valid(raw) {
			panic("Decode accepted invalid JSON: " + string(raw))
		}

		// encoding/json, when it accepts the input, reads the same values
		// (it refuses 3.0 for an int, and matches keys without case).
		ref := reflect.New(reflect.TypeOf(v).Elem()).Interface()
		if json.Unmarshal(raw, ref) == nil {
			if diff := cmp.Diff(ref, v, cmpopts.EquateEmpty()); diff != "" {
				t.Fatalf("Decode(%s, %q) disagrees with encoding/json (-json +Decode):\n%s", tool, raw, diff)
			}
		}

		again, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		v2, err := ft.p.Decode(tool, again)
		if err != nil {
			t.Fatalf("Decode(%s, %s) after re-marshal: %v (first input %q)", tool, again, err, raw)
		}
		if diff := cmp.Diff(v, v2, cmpopts.EquateEmpty()); diff != "" {
			t.Fatalf("re-marshalled value differs (-first +second):\n%s", diff)
		}
	})
}

// FuzzUnquote checks unquote against encoding/json on every string literal.
func FuzzUnquote(f *testing.F) {
	for _, s := range []string{
		``, `plain`, `tab\there`, `\"\\\/\b\f\n\r\t`, `\u00e9\u0000`, `\ud83d\ude00`, `\ud800`, `\ud800\u0041`,
		`\ud800\ud800\udc00`, `\udc00\ud800`, "\xff", "\xed\xa0\x80", "h\u00e9llo w\u00f6rld 日本語", `\x`, `\u12`,
		"ctl\x01", "del\x7f", `trailing\`, strings.Repeat("abcdefgh", 5) + `\n` + strings.Repeat("é", 9),
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, s []byte) {
		raw := append(append([]byte{'"'}, s...), '"')
		sc := newScanner(raw)
		if _, ok := sc.Value(0); !ok || sc.Pos() != len(raw) {
			return // not one string literal
		}
		got, err := unquote(raw)
		var want string
		jerr := json.Unmarshal(raw, &want)
		if (err == nil) != (jerr == nil) {
			t.Fatalf("unquote(%q) error %v, encoding/json error %v", raw, err, jerr)
		}
		if err == nil && got != want {
			t.Fatalf("unquote(%q) = %q, encoding/json gives %q", raw, got, want)
		}
	})
}

// FuzzParseObject checks the scanner against encoding/json on valid JSON
// objects: it must accept them and find the same members.
func FuzzParseObject(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add([]byte(s.raw))
	}
	f.Add([]byte(`{"a":{"b":[1,-2.5e+3,true,false,null,"x\"]"]},"c":"}"}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		ms, err := parseObject(b)
		var ref map[string]json.RawMessage
		jerr := json.Unmarshal(b, &ref)
		if jerr != nil || ref == nil {
			if err == nil && json.Valid(b) {
				t.Fatalf("parseObject(%q) accepted a non-object", b)
			}
			return
		}
		if err != nil {
			if strings.Contains(err.Error(), "nesting too deep") {
				return
			}
			t.Fatalf("parseObject(%q): %v, but encoding/json accepts it", b, err)
		}
		last := map[string][]byte{}
		for _, m := range ms {
			last[m.key] = m.val // encoding/json keeps the last of repeated keys
		}
		if len(last) != len(ref) {
			t.Fatalf("parseObject(%q) found %d keys, encoding/json %d", b, len(last), len(ref))
		}
		for k, v := range last {
			if !bytes.Equal(v, ref[k]) {
				t.Fatalf("parseObject(%q)[%q] = %s, encoding/json %s", b, k, v, ref[k])
			}
		}
	})
}
