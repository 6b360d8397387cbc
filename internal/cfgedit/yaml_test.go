package cfgedit

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"gopkg.in/yaml.v3"
)

var gooseEntry = Obj{{"enabled", true}, {"type", "stdio"}, {"cmd", "/opt/stet"}, {"args", []string{"mcp", "--root", "/p q"}}, {"envs", Obj{}}, {"timeout", 300}}

const gooseStet = "  stet:\n    enabled: true\n    type: stdio\n    cmd: /opt/stet\n    args:\n      - mcp\n      - \"--root\"\n      - \"/p q\"\n    envs: {}\n    timeout: 300\n"

func TestSetYAML(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", "extensions:\n" + gooseStet},
		{"no extensions", "GOOSE_MODEL: x # mine\n", "GOOSE_MODEL: x # mine\nextensions:\n" + gooseStet},
		{"null extensions", "extensions: # none yet\nGOOSE_MODE: auto\n", "extensions: # none yet\n" + gooseStet + "GOOSE_MODE: auto\n"},
		{"empty flow", "extensions: {}\n", "extensions:\n" + gooseStet},
		{"crlf", "a: 1\r\n", "a: 1\r\nextensions:\r\n" + strings.ReplaceAll(gooseStet, "\n", "\r\n")},
		{"beside another (serde style lists), comments kept",
			"# goose\nextensions:\n  developer:\n    args:\n    - x\n    enabled: true # on\n    type: builtin\n\n# the model\nGOOSE_MODEL: m\n",
			"# goose\nextensions:\n  developer:\n    args:\n    - x\n    enabled: true # on\n    type: builtin\n" + gooseStet + "\n# the model\nGOOSE_MODEL: m\n"},
		{"replaced in place",
			"extensions:\n  stet:\n    cmd: stet\n    args: [mcp]\n    description: |\n      old: text\n  \n  other:\n    type: stdio\n",
			"extensions:\n" + gooseStet + "  \n  other:\n    type: stdio\n"},
		{"four-space indentation", "extensions:\n    a:\n        type: builtin\n", "extensions:\n    a:\n        type: builtin\n    stet:\n        enabled: true\n        type: stdio\n        cmd: /opt/stet\n        args:\n            - mcp\n            - \"--root\"\n            - \"/p q\"\n        envs: {}\n        timeout: 300\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SetYAML([]byte(tc.in), "extensions", "stet", gooseEntry)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var v struct {
				Extensions map[string]struct {
					Cmd  string
					Args []string
				}
			}
			if err := yaml.Unmarshal(got, &v); err != nil {
				t.Fatalf("the result is not YAML: %v\n%s", err, got)
			}
			if s := v.Extensions["stet"]; s.Cmd != "/opt/stet" || len(s.Args) != 3 || s.Args[2] != "/p q" {
				t.Errorf("extensions.stet = %+v", s)
			}
		})
	}
}

func TestSetYAMLRefuses(t *testing.T) {
	for _, tc := range []struct {
		in   string
		line int
		msg  string
	}{
		{"extensions:\n\tstet: 1\n", 2, "tab"},
		{"a: 1\n---\nb: 2\n", 2, "several YAML documents"},
		{"extensions: {a: 1}\n", 1, "written inline"},
		{"extensions:\n- a\n", 2, "is a list"},
		{"extensions:\n  a:\n    x: 1\n b: 2\n", 4, "indented less"},
		{"extensions:\n  stet: 1\n  stet: 2\n", 3, "given twice"},
		{"a: \"open\n  more\"\n", 1, "does not close on its line"},
		{"a: [1,\n  2]\n", 1, "does not close on its line"},
		{"- a\n", 1, "top level is a list"},
		{"%YAML 1.2\n---\na: 1\n", 1, "directive"},
	} {
		_, err := SetYAML([]byte(tc.in), "extensions", "stet", gooseEntry)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != tc.line || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("SetYAML(%q) = %v, want line %d: ...%s...", tc.in, err, tc.line, tc.msg)
		}
	}
}

// FuzzSetYAML checks, for any input the merge accepts that is YAML, that
// the result is YAML, holds the entry, and keeps every other key.
func FuzzSetYAML(f *testing.F) {
	for _, s := range []string{"", "a: 1\n", "extensions:\n  x:\n    args:\n    - a\n  stet:\n    cmd: y\nb: |\n  stet:\n", "extensions: {}\n", "k: 'it''s' # c\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := SetYAML(in, "extensions", "stet", gooseEntry)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("error %v is not a SyntaxError with a position", err)
			}
			return
		}
		var before map[string]any
		if yaml.Unmarshal(in, &before) != nil {
			return // not YAML the oracle reads as a mapping: nothing to compare
		}
		var after map[string]any
		if err := yaml.Unmarshal(out, &after); err != nil {
			t.Fatalf("YAML in, not YAML out: %v\n%q\n---\n%q", err, in, out)
		}
		ext := stringKeys(after["extensions"])
		stet := stringKeys(ext["stet"])
		if stet == nil || stet["cmd"] != "/opt/stet" {
			t.Fatalf("no extensions.stet.cmd in:\n%q\n---\n%q", in, out)
		}
		for k, v := range before {
			if k != "extensions" && !cmp.Equal(v, after[k]) {
				t.Fatalf("%s changed:\n%q\n---\n%q", k, in, out)
			}
		}
		if old := stringKeys(before["extensions"]); old != nil {
			for k, v := range old {
				if k != "stet" && !cmp.Equal(v, ext[k]) {
					t.Fatalf("extensions.%s changed:\n%q\n---\n%q", k, in, out)
				}
			}
		}
	})
}

// stringKeys is a YAML mapping with its keys as strings (yaml.v3 gives a
// map[any]any when a key is not a string), nil for anything else.
func stringKeys(v any) map[string]any {
	switch m := v.(type) {
	case map[string]any:
		return m
	case map[any]any:
		out := map[string]any{}
		for k, v := range m {
			out[fmt.Sprint(k)] = v
		}
		return out
	}
	return nil
}
