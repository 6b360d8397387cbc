package cfgedit

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var entry = Obj{{"type", "stdio"}, {"command", "/opt/stet"}, {"args", []string{"mcp", "--root", "/p"}}}

func TestSetJSON(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"empty file", "", "{\n  \"servers\": {\n    \"stet\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/stet\",\n      \"args\": [\"mcp\", \"--root\", \"/p\"]\n    }\n  }\n}\n"},
		{"no servers", "{\n\t\"inputs\": []\n}\n", "{\n\t\"inputs\": [],\n\t\"servers\": {\n\t\t\"stet\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": \"/opt/stet\",\n\t\t\t\"args\": [\"mcp\", \"--root\", \"/p\"]\n\t\t}\n\t}\n}\n"},
		{"empty servers", "{\"servers\": {}}", "{\"servers\": {\n  \"stet\": {\n    \"type\": \"stdio\",\n    \"command\": \"/opt/stet\",\n    \"args\": [\"mcp\", \"--root\", \"/p\"]\n  }\n}}"},
		{"beside another, comments kept",
			"// my servers\n{\n  \"servers\": {\n    \"git\": {\"command\": \"git-mcp\"} // the git one\n  }\n}\n",
			"// my servers\n{\n  \"servers\": {\n    \"git\": {\"command\": \"git-mcp\"}, // the git one\n    \"stet\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/stet\",\n      \"args\": [\"mcp\", \"--root\", \"/p\"]\n    }\n  }\n}\n"},
		{"trailing comma kept",
			"{\n  \"servers\": {\n    \"git\": {},\n  },\n}\n",
			"{\n  \"servers\": {\n    \"git\": {},\n    \"stet\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/stet\",\n      \"args\": [\"mcp\", \"--root\", \"/p\"]\n    },\n  },\n}\n"},
		{"replaced in place",
			"{\n  \"servers\": {\n    \"stet\": {\"command\": \"stet\"}, /* old */\n    \"git\": {}\n  }\n}\n",
			"{\n  \"servers\": {\n    \"stet\": {\n      \"type\": \"stdio\",\n      \"command\": \"/opt/stet\",\n      \"args\": [\"mcp\", \"--root\", \"/p\"]\n    }, /* old */\n    \"git\": {}\n  }\n}\n"},
		{"crlf", "{\r\n  \"a\": 1\r\n}\r\n", "{\r\n  \"a\": 1,\r\n  \"servers\": {\r\n    \"stet\": {\r\n      \"type\": \"stdio\",\r\n      \"command\": \"/opt/stet\",\r\n      \"args\": [\"mcp\", \"--root\", \"/p\"]\r\n    }\r\n  }\r\n}\r\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SetJSON([]byte(tc.in), []string{"servers"}, "stet", entry)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("SetJSON(%q) (-want +got):\n%s", tc.in, diff)
			}
			if _, err := parseJSONC(got); err != nil {
				t.Errorf("the result does not parse: %v\n%s", err, got)
			}
		})
	}
}

func TestSetJSONRefuses(t *testing.T) {
	for _, tc := range []struct {
		in        string
		line, col int
		msg       string
	}{
		{"{\n  \"servers\": {\n    \"a\": 1\n    \"b\": 2\n  }\n}", 4, 5, "want ',' or '}'"},
		{"{\n  \"servers\": [],\n}", 2, 14, "not an object"},
		{"[1]", 1, 1, "the top level is an array"},
		{"{\"servers\": {\"stet\": 1, \"stet\": 2}}", 1, 25, "given twice"},
		{"{\n /* open\n", 2, 2, "unterminated /* comment"},
		{"{\"a\": \"x\ny\"}", 1, 9, "control character"},
		{"{\"a\": 1} x", 1, 10, "after the top-level value"},
		{"{\"a\": tru}", 1, 7, "want a value"},
	} {
		_, err := SetJSON([]byte(tc.in), []string{"servers"}, "stet", entry)
		var se *SyntaxError
		if !errors.As(err, &se) {
			t.Errorf("SetJSON(%q) = %v, want a SyntaxError", tc.in, err)
			continue
		}
		if se.Line != tc.line || se.Col != tc.col || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("SetJSON(%q) = %v, want line %d, column %d: ...%s...", tc.in, se, tc.line, tc.col, tc.msg)
		}
	}
}

// FuzzSetJSON checks, for any input the merge accepts, that the result
// parses, holds the entry, and (for strict JSON input) keeps every other
// member's value.
func FuzzSetJSON(f *testing.F) {
	for _, s := range []string{"", "{}", "{\"servers\":{\"a\":1}}", "// c\n{\"servers\":{\"stet\":[],},}", "{\"x\":[1,{\"y\":null}]}", "[]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := SetJSON(in, []string{"servers"}, "stet", entry)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("error %v is not a SyntaxError with a position", err)
			}
			return
		}
		root, err := parseJSONC(out)
		if err != nil || root == nil {
			t.Fatalf("result does not parse (%v):\n%s", err, out)
		}
		if !json.Valid(in) {
			return
		}
		if !json.Valid(out) {
			t.Fatalf("strict JSON in, not strict JSON out:\n%s\n---\n%s", in, out)
		}
		var before, after map[string]any
		if json.Unmarshal(in, &before) != nil {
			return
		}
		if err := json.Unmarshal(out, &after); err != nil {
			t.Fatal(err)
		}
		servers, _ := after["servers"].(map[string]any)
		if servers == nil || servers["stet"] == nil {
			t.Fatalf("no servers.stet in:\n%s", out)
		}
		if old, ok := before["servers"].(map[string]any); ok {
			for k, v := range old {
				if k != "stet" && !cmp.Equal(v, servers[k]) {
					t.Fatalf("servers.%s changed", k)
				}
			}
		}
		for k, v := range before {
			if k != "servers" && !cmp.Equal(v, after[k]) {
				t.Fatalf("%s changed", k)
			}
		}
	})
}
