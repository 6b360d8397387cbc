package cfgedit

import (
	"errors"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"github.com/google/go-cmp/cmp"
)

var codexEntry = Obj{{"command", "/opt/stet"}, {"args", []string{"mcp", "--root", `C:\p "x"`}}}

const codexTable = "[mcp_servers.stet]\ncommand = \"/opt/stet\"\nargs = [\"mcp\", \"--root\", \"C:\\\\p \\\"x\\\"\"]\n"

func TestSetTOML(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"empty", "", codexTable},
		{"appended", "model = \"o3\" # mine\n\n[mcp_servers.git]\ncommand = \"git-mcp\"\n", "model = \"o3\" # mine\n\n[mcp_servers.git]\ncommand = \"git-mcp\"\n\n" + codexTable},
		{"no final newline", "model = \"o3\"", "model = \"o3\"\n\n" + codexTable},
		{"crlf", "[mcp_servers.stet]\r\ncommand = 'x'\r\n[b]\r\n", strings.ReplaceAll(codexTable, "\n", "\r\n") + "[b]\r\n"},
		{"replaced, the rest kept",
			"# top\n[mcp_servers.stet]\ncommand = \"stet\"\nargs = [\n  \"mcp\", # old\n]\n# about git\n\n[mcp_servers.stet.env]\nA = \"1\"\n[mcp_servers.git]\ncommand = 'git-mcp'\n",
			"# top\n" + codexTable + "# about git\n\n[mcp_servers.git]\ncommand = 'git-mcp'\n"},
		{"an old entry's sub-tables go with it, wherever they stand",
			"[mcp_servers.stet.env]\nSTET_EFFECTS = \"read-only\"\n[mcp_servers.stet]\ncommand = \"old\"\n[mcp_servers.stet.env.deep]\nX = 1\n[other]\ny = 2\n",
			codexTable + "[other]\ny = 2\n"},
		{"multi-line strings", "notes = \"\"\"\n[mcp_servers.stet]\n\"\"\"\nx = '''a'''\n", "notes = \"\"\"\n[mcp_servers.stet]\n\"\"\"\nx = '''a'''\n\n" + codexTable},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := SetTOML([]byte(tc.in), []string{"mcp_servers"}, "stet", codexEntry)
			if err != nil {
				t.Fatal(err)
			}
			if diff := cmp.Diff(tc.want, string(got)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
			var v struct {
				MCPServers map[string]struct {
					Command string
					Args    []string
				} `toml:"mcp_servers"`
			}
			if _, err := toml.Decode(string(got), &v); err != nil {
				t.Fatalf("the result is not TOML: %v\n%s", err, got)
			}
			if s := v.MCPServers["stet"]; s.Command != "/opt/stet" || len(s.Args) != 3 || s.Args[2] != `C:\p "x"` {
				t.Errorf("mcp_servers.stet = %+v", s)
			}
		})
	}
}

func TestSetTOMLRefuses(t *testing.T) {
	for _, tc := range []struct {
		in   string
		line int
		msg  string
	}{
		{"[mcp_servers]\nstet = { command = \"x\" }\n", 2, "not as a [mcp_servers.stet] table"},
		{"mcp_servers.stet.command = \"x\"\n", 1, "set by the key"},
		{"mcp_servers = {}\n", 1, "set by the key"},
		{"[[mcp_servers]]\n", 1, "array of tables"},
		{"[mcp_servers.stet]\n[mcp_servers.stet]\n", 2, "defined twice"},
		{"a = \"open\n", 1, "unterminated string"},
		{"a = b\n", 1, "needs quotes"},
		{"[x\n", 1, "close the table header"},
		{"a = 1 b\n", 1, "end of the line"},
		{"x = \"\"\"\nnever closed\n", 1, "unterminated multi-line string"},
	} {
		_, err := SetTOML([]byte(tc.in), []string{"mcp_servers"}, "stet", codexEntry)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Line != tc.line || !strings.Contains(se.Msg, tc.msg) {
			t.Errorf("SetTOML(%q) = %v, want line %d: ...%s...", tc.in, err, tc.line, tc.msg)
		}
	}
}

// FuzzSetTOML checks, for any input the merge accepts that is TOML, that
// the result is TOML, holds the entry, and keeps every other top-level key.
func FuzzSetTOML(f *testing.F) {
	for _, s := range []string{"", "a = 1\n", "[mcp_servers.stet]\ncommand = 'x'\n[b]\nc = [1,\n2]\n", "t = 1979-05-27 07:32:00Z\n", "s = \"\"\"\n\"\"\"\"\n"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, in []byte) {
		out, err := SetTOML(in, []string{"mcp_servers"}, "stet", codexEntry)
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) || se.Line < 1 || se.Col < 1 {
				t.Fatalf("error %v is not a SyntaxError with a position", err)
			}
			return
		}
		if _, err := parseTOML(out); err != nil {
			t.Fatalf("the result does not parse again: %v\n%s", err, out)
		}
		var before map[string]any
		if _, err := toml.Decode(string(in), &before); err != nil {
			return // not TOML the oracle reads: nothing to compare
		}
		var after map[string]any
		if _, err := toml.Decode(string(out), &after); err != nil {
			t.Fatalf("TOML in, not TOML out: %v\n%s\n---\n%s", err, in, out)
		}
		servers, _ := after["mcp_servers"].(map[string]any)
		stet, _ := servers["stet"].(map[string]any)
		if stet == nil || stet["command"] != "/opt/stet" {
			t.Fatalf("no mcp_servers.stet.command in:\n%s", out)
		}
		for k, v := range before {
			if k != "mcp_servers" && !cmp.Equal(v, after[k]) {
				t.Fatalf("%s changed", k)
			}
		}
		if old, ok := before["mcp_servers"].(map[string]any); ok {
			for k, v := range old {
				if k != "stet" && !cmp.Equal(v, servers[k]) {
					t.Fatalf("mcp_servers.%s changed", k)
				}
			}
		}
	})
}
