package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"

	"github.com/stet-dev/stet/tools"
)

// jsonOf reads a JSON file with // line comments (the fixtures' only
// comments) into a map.
func jsonOf(t *testing.T, text string) map[string]any {
	t.Helper()
	var v map[string]any
	if err := json.Unmarshal([]byte(regexp.MustCompile(`(?m)^\s*//.*$`).ReplaceAllString(text, "")), &v); err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	return v
}

// at is the value at the path of keys in v.
func at(v any, keys ...string) any {
	for _, k := range keys {
		m, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = m[k]
	}
	return v
}

func strs(v any) []string {
	var out []string
	for _, e := range v.([]any) {
		out = append(out, e.(string))
	}
	return out
}

// onlyStetFile is one file a --only-stet case starts with (old, "" when
// missing) and checks after the merge.
type onlyStetFile struct {
	path  string // under the home directory
	old   string
	keep  []string // text of old that must be there after
	check func(t *testing.T, h *home, got string)
}

// TestSetupOnlyStetWrite runs `stet setup CLIENT --only-stet --write` for
// each client on files that hold the user's own settings: stet's settings
// are merged in, everything else is kept (comments too), the old file is
// saved as FILE.bak, and a second run writes nothing.
func TestSetupOnlyStetWrite(t *testing.T) {
	cases := []struct {
		name  string
		args  []string
		files []onlyStetFile
	}{
		{
			name: "claude-code project", args: []string{"claude-code", "--project"},
			files: []onlyStetFile{
				{path: "proj/.mcp.json", old: "{\n  \"mcpServers\": {\n    \"other\": {\"command\": \"x\"}\n  }\n}\n",
					keep: []string{`"other": {"command": "x"}`},
					check: func(t *testing.T, h *home, got string) {
						s := at(jsonOf(t, got), "mcpServers", "stet")
						if c, a := at(s, "command"), strs(at(s, "args")); c != binPath(t) || strings.Join(a, " ") != "mcp --root "+h.proj+" --results text" {
							t.Errorf(".mcp.json: stet's command %v, args %q (want --results text: Claude Code hands the model structured content)", c, a)
						}
						if l := at(s, "alwaysLoad"); l != true {
							t.Errorf(".mcp.json: stet's alwaysLoad = %v, want true (stet's tools up front, not behind ToolSearch)", l)
						}
					}},
				{path: "proj/.claude/settings.local.json",
					old: "{\n  \"permissions\": {\n    \"allow\": [\"Bash(go test:*)\", \"mcp__stet\"],\n    \"deny\": [\"WebFetch\", \"Write\"]\n  },\n" +
						"  \"disabledMcpjsonServers\": [\"stet\", \"other\"],\n  \"env\": {\"FOO\": \"1\", \"ENABLE_TOOL_SEARCH\": \"false\"},\n  \"model\": \"opus\"\n}\n",
					// An ENABLE_TOOL_SEARCH there (an earlier stet's, or the
					// user's own) is left as it is.
					keep: []string{`"model": "opus"`, `"env": {"FOO": "1", "ENABLE_TOOL_SEARCH": "false"}`},
					check: func(t *testing.T, h *home, got string) {
						v := jsonOf(t, got)
						for _, c := range []struct {
							keys []string
							want []string
						}{
							{[]string{"permissions", "allow"}, []string{"Bash(go test:*)", "mcp__stet"}},
							{[]string{"permissions", "deny"}, []string{"WebFetch", "Write", "Edit", "NotebookEdit", "Read"}},
							{[]string{"enabledMcpjsonServers"}, []string{"stet"}},
							{[]string{"disabledMcpjsonServers"}, []string{"other"}},
						} {
							if got := strs(at(v, c.keys...)); !reflect.DeepEqual(got, c.want) {
								t.Errorf("%s = %q, want %q", strings.Join(c.keys, "."), got, c.want)
							}
						}
					}},
			},
		},
		{
			name: "claude-code user", args: []string{"claude-code"},
			files: []onlyStetFile{
				{path: ".claude/settings.json", old: "{\n  \"hooks\": {},\n  \"permissions\": {\"defaultMode\": \"plan\"}\n}\n",
					keep: []string{`"hooks": {}`, `"defaultMode": "plan"`},
					check: func(t *testing.T, h *home, got string) {
						v := jsonOf(t, got)
						if d := strs(at(v, "permissions", "deny")); !reflect.DeepEqual(d, claudeDenied) {
							t.Errorf("deny = %q", d)
						}
						if at(v, "enabledMcpjsonServers") != nil {
							t.Errorf("the user's settings got enabledMcpjsonServers, a project's setting")
						}
						if e := at(v, "env"); e != nil {
							t.Errorf("the user's settings got env %v: alwaysLoad on the stet entry loads stet's tools, ENABLE_TOOL_SEARCH would load Claude Code's deferred ones too", e)
						}
					}},
			},
		},
		{
			name: "zed", args: []string{"zed"},
			files: []onlyStetFile{
				{path: ".config/zed/settings.json",
					old: "// Zed settings\n{\n  \"theme\": \"One Dark\",\n  // my agent\n  \"agent\": {\n    \"default_profile\": \"write\",\n" +
						"    \"profiles\": {\n      \"mine\": {\"name\": \"Mine\", \"tools\": {\"terminal\": true}}\n    }\n  }\n}\n",
					keep: []string{"// Zed settings", "// my agent", `"theme": "One Dark"`, `"mine": {"name": "Mine", "tools": {"terminal": true}}`},
					check: func(t *testing.T, h *home, got string) {
						v := jsonOf(t, got)
						if d := at(v, "agent", "default_profile"); d != "stet" {
							t.Errorf("default_profile = %v", d)
						}
						p := at(v, "agent", "profiles", "stet")
						for _, tool := range []string{"read_file", "edit_file"} {
							if on := at(p, "tools", tool); on != false {
								t.Errorf("the stet profile's %s = %v, want false", tool, on)
							}
						}
						if on := at(p, "tools", "terminal"); on != true {
							t.Errorf("the stet profile's terminal = %v, want true (the shell stays)", on)
						}
						for _, tool := range tools.Names(false) {
							if on := at(p, "context_servers", "stet", "tools", tool); on != true {
								t.Errorf("the stet profile's stet/%s = %v", tool, on)
							}
						}
						if c := at(v, "context_servers", "stet", "command"); c != binPath(t) {
							t.Errorf("context_servers.stet.command = %v", c)
						}
					}},
			},
		},
		{
			name: "vscode project", args: []string{"vscode", "--project"},
			files: []onlyStetFile{
				{path: "proj/.vscode/mcp.json", old: "{\n\t\"servers\": {\n\t\t\"github\": {\"type\": \"http\", \"url\": \"https://example.invalid/mcp\"}\n\t}\n}\n",
					keep: []string{`"github": {"type": "http", "url": "https://example.invalid/mcp"}`}},
				{path: "proj/.github/agents/stet.agent.md", check: func(t *testing.T, h *home, got string) {
					if !strings.HasPrefix(got, "---\n") || !strings.Contains(got, "\ntools: ['stet/*']\n---\n") {
						t.Errorf("stet.agent.md:\n%s", got)
					}
				}},
			},
		},
		{
			name: "vscode user", args: []string{"vscode"},
			files: []onlyStetFile{
				{path: ".copilot/agents/stet.agent.md", old: "---\nname: stet\ntools: ['edit']\n---\nold\n"},
			},
		},
		{
			name: "goose", args: []string{"goose"},
			files: []onlyStetFile{
				{path: ".config/goose/config.yaml",
					old: "GOOSE_MODE: auto\nextensions:\n  developer:\n    bundled: true\n    enabled: true # on by default\n    name: developer\n    timeout: 300\n    type: builtin\n" +
						"  memory:\n    enabled: true\n    name: memory\n    type: builtin\n",
					keep: []string{"GOOSE_MODE: auto\n", "    bundled: true\n    enabled: false # on by default\n    name: developer\n    timeout: 300\n    type: builtin\n", "  memory:\n    enabled: true\n"},
					check: func(t *testing.T, h *home, got string) {
						var v struct {
							Extensions map[string]struct {
								Enabled bool
								Cmd     string
							}
						}
						if err := yaml.Unmarshal([]byte(got), &v); err != nil {
							t.Fatal(err)
						}
						if e := v.Extensions; e["developer"].Enabled || !e["memory"].Enabled || !e["stet"].Enabled || e["stet"].Cmd != binPath(t) {
							t.Errorf("extensions: %+v", e)
						}
					}},
			},
		},
		{
			name: "codex project", args: []string{"codex", "--project"},
			files: []onlyStetFile{
				{path: ".codex/config.toml", old: "model = \"o3\"\n",
					keep: []string{"model = \"o3\"\n"},
					check: func(t *testing.T, h *home, got string) {
						var v struct {
							MCPServers map[string]struct{ Command string } `toml:"mcp_servers"`
						}
						if _, err := toml.Decode(got, &v); err != nil || v.MCPServers["stet"].Command != binPath(t) {
							t.Errorf("config.toml: %v %+v", err, v)
						}
					}},
				{path: "proj/AGENTS.md", old: "# Agents\n\nRun go test.", keep: []string{"# Agents\n\nRun go test.\n"},
					check: func(t *testing.T, h *home, got string) {
						if want := "# Agents\n\nRun go test.\n\n" + onlyStetLine + "\n"; got != want {
							t.Errorf("AGENTS.md = %q, want %q", got, want)
						}
					}},
			},
		},
		{
			name: "codex user", args: []string{"codex"},
			files: []onlyStetFile{
				{path: ".codex/AGENTS.md", check: func(t *testing.T, h *home, got string) {
					if got != onlyStetLine+"\n" {
						t.Errorf("AGENTS.md = %q", got)
					}
				}},
			},
		},
		{
			name: "cursor project", args: []string{"cursor", "--project"},
			files: []onlyStetFile{
				{path: "proj/.cursor/mcp.json"},
				{path: "proj/.cursor/rules/stet.mdc", check: func(t *testing.T, h *home, got string) {
					if !strings.Contains(got, "\nalwaysApply: true\n---\n"+onlyStetLine+"\n") {
						t.Errorf("stet.mdc:\n%s", got)
					}
				}},
			},
		},
		{
			name: "windsurf user", args: []string{"windsurf"},
			files: []onlyStetFile{
				{path: ".codeium/windsurf/memories/global_rules.md", old: "Use tabs.\r\n", keep: []string{"Use tabs.\r\n"},
					check: func(t *testing.T, h *home, got string) {
						if want := "Use tabs.\r\n\r\n" + onlyStetLine + "\r\n"; got != want {
							t.Errorf("global_rules.md = %q, want %q (its CRLF kept)", got, want)
						}
					}},
			},
		},
		{
			name: "windsurf project", args: []string{"windsurf", "--project"},
			files: []onlyStetFile{
				{path: "proj/.windsurf/rules/stet.md", check: func(t *testing.T, h *home, got string) {
					if !strings.HasPrefix(got, "---\ntrigger: always_on\n---\n") {
						t.Errorf("stet.md:\n%s", got)
					}
				}},
			},
		},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			h := newHome(t)
			for _, f := range tc.files {
				if f.old != "" {
					h.put(filepath.Join(h.dir, f.path), f.old)
				}
			}
			args := append([]string{"setup"}, tc.args...)
			args = append(args, "--only-stet", "--write", "--root", h.proj)
			code, out, errOut := h.run("", args...)
			if code != 0 {
				t.Fatalf("stet %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
			}
			if !strings.Contains(out, "shell writes bypass stet") {
				t.Errorf("the output does not say that shell writes bypass stet:\n%s", out)
			}
			for _, f := range tc.files {
				p := filepath.Join(h.dir, f.path)
				got := h.get(p)
				for _, k := range f.keep {
					if !strings.Contains(got, k) {
						t.Errorf("%s lost %q:\n%s", f.path, k, got)
					}
				}
				if f.check != nil {
					f.check(t, h, got)
				}
				if f.old != "" {
					if b := h.get(p + ".bak"); b != f.old {
						t.Errorf("%s.bak = %q, want the old file", f.path, b)
					}
				} else if _, err := os.Stat(p + ".bak"); err == nil {
					t.Errorf("%s was created, yet has a .bak", f.path)
				}
			}
			// Again: every file already holds stet's part.
			before := map[string]string{}
			for _, f := range tc.files {
				before[f.path] = h.get(filepath.Join(h.dir, f.path))
			}
			code, out, errOut = h.run("", args...)
			if code != 0 {
				t.Fatalf("a second run: exit %d\n%s%s", code, out, errOut)
			}
			for _, f := range tc.files {
				p := filepath.Join(h.dir, f.path)
				if got := h.get(p); got != before[f.path] {
					t.Errorf("a second run changed %s:\n%s\nwas:\n%s", f.path, got, before[f.path])
				}
				if !strings.Contains(out, p+" already holds") {
					t.Errorf("a second run does not say %s is left as it is:\n%s", f.path, out)
				}
				if _, err := os.Stat(p + ".bak.1"); err == nil {
					t.Errorf("a second run saved %s.bak.1", f.path)
				}
			}
		})
	}
}

// TestSetupOnlyStetPrint prints each client's files without writing any:
// every output names the files, says that shell writes bypass stet, and
// where nothing turns the client's tools off, names the hooks or the
// line.
func TestSetupOnlyStetPrint(t *testing.T) {
	for _, c := range clients {
		for _, project := range []bool{false, true} {
			if project && !onlyStetProject(c.name) {
				continue
			}
			name := c.name
			args := []string{"setup", c.name, "--only-stet", "--root", "PROJ"}
			if project {
				name += " project"
				args = append(args, "--project")
			}
			t.Run(name, func(t *testing.T) {
				h := newHome(t)
				for i, a := range args {
					if a == "PROJ" {
						args[i] = h.proj
					}
				}
				code, out, errOut := h.run("", args...)
				if code != 0 {
					t.Fatalf("exit %d\n%s%s", code, out, errOut)
				}
				for _, want := range []string{"shell writes bypass stet", "add --write", binPath(t)} {
					if !strings.Contains(out, want) {
						t.Errorf("the output lacks %q:\n%s", want, out)
					}
				}
				switch c.name {
				case "codex", "cursor", "windsurf":
					if !strings.Contains(out, onlyStetLine) {
						t.Errorf("the output lacks the instructions line:\n%s", out)
					}
				}
				if c.name == "claude-code" {
					checkClaudeAlwaysLoad(t, out, project, h.proj)
				}
				switch c.name {
				case "codex", "cursor", "vscode", "claude-code":
					if !strings.Contains(out, "stet setup "+c.name+" --hooks") {
						t.Errorf("the output does not point to the hooks:\n%s", out)
					}
				}
				if ents, _ := os.ReadDir(h.proj); len(ents) != 0 {
					t.Errorf("printing wrote into the project: %v", ents)
				}
			})
		}
	}
}

// checkClaudeAlwaysLoad checks what --only-stet prints for Claude Code:
// the stet entry with "alwaysLoad": true (in .mcp.json with --project, in
// the `claude mcp add-json --scope user` line without), no
// ENABLE_TOOL_SEARCH in the settings, and the note that it is no longer
// needed.
func checkClaudeAlwaysLoad(t *testing.T, out string, project bool, root string) {
	t.Helper()
	if strings.Contains(out, `"ENABLE_TOOL_SEARCH"`) || !strings.Contains(out, "ENABLE_TOOL_SEARCH is no longer needed") {
		t.Errorf("the output writes ENABLE_TOOL_SEARCH, or does not say it is no longer needed:\n%s", out)
	}
	if project {
		if !strings.Contains(out, `"alwaysLoad": true`) {
			t.Errorf("the printed .mcp.json entry lacks \"alwaysLoad\": true:\n%s", out)
		}
		return
	}
	const prefix = "claude mcp add-json --scope user stet '"
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); strings.HasPrefix(l, prefix) && strings.HasSuffix(l, "'") {
			var entry struct {
				Type, Command string
				Args          []string
				AlwaysLoad    *bool `json:"alwaysLoad"`
			}
			if err := json.Unmarshal([]byte(l[len(prefix):len(l)-1]), &entry); err != nil {
				t.Fatalf("%v: %s", err, l)
			}
			if entry.Type != "stdio" || entry.Command != binPath(t) || strings.Join(entry.Args, " ") != "mcp --root "+root+" --results text" || entry.AlwaysLoad == nil || !*entry.AlwaysLoad {
				t.Errorf("the add-json line's entry is %+v: %s", entry, l)
			}
			return
		}
	}
	t.Errorf("no `%s...'` line in:\n%s", prefix, out)
}

// TestSetupOnlyStetRefuses: flags that do not go with --only-stet, and a
// file that cannot be merged, which stops the run before any file is
// written.
func TestSetupOnlyStetRefuses(t *testing.T) {
	h := newHome(t)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"claude-code", "--only-stet", "--hooks"}, "not both"},
		{[]string{"zed", "--only-stet", "--config", "x.json"}, "drop --config"},
		{[]string{"zed", "--only-stet", "--project"}, "drop --project"},
		{[]string{"goose", "--only-stet", "--project", "--write"}, "drop --project"},
	} {
		code, out, errOut := h.run("", append([]string{"setup"}, tc.args...)...)
		if code != 2 || !strings.Contains(errOut, tc.want) {
			t.Errorf("setup %s: exit %d, %q %q; want exit 2 saying %q", strings.Join(tc.args, " "), code, out, errOut, tc.want)
		}
	}
	// settings.local.json cannot be merged: .mcp.json, first in the
	// order, is not written either.
	local := filepath.Join(h.proj, ".claude", "settings.local.json")
	h.put(local, "{\"permissions\": {\"deny\": \"Edit\"}}\n")
	code, out, errOut := h.run("", "setup", "claude-code", "--only-stet", "--project", "--write")
	if code != 1 || !strings.Contains(errOut, local+":1:") || !strings.Contains(errOut, "nothing was written") {
		t.Errorf("exit %d, %q %q; want exit 1 naming %s and that nothing was written", code, out, errOut, local)
	}
	if _, err := os.Stat(filepath.Join(h.proj, ".mcp.json")); err == nil {
		t.Errorf(".mcp.json was written although settings.local.json was refused")
	}
}

// TestGooseDeveloperOff turns Goose's developer extension off in the
// shapes a config.yaml has it: every other value reads the same after.
func TestGooseDeveloperOff(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"enabled", "extensions:\n  developer:\n    enabled: true\n    name: developer\n", "extensions:\n  developer:\n    enabled: false\n    name: developer\n"},
		{"comment", "extensions:\n  developer: # the built-in\n    name: developer\n    enabled: true   # yes\n", "extensions:\n  developer: # the built-in\n    name: developer\n    enabled: false   # yes\n"},
		{"quoted key", "extensions:\n  \"developer\":\n    enabled: true\n", "extensions:\n  \"developer\":\n    enabled: false\n"},
		{"crlf", "extensions:\r\n  developer:\r\n    enabled: true\r\n  memory:\r\n    enabled: true\r\n", "extensions:\r\n  developer:\r\n    enabled: false\r\n  memory:\r\n    enabled: true\r\n"},
		{"no enabled", "extensions:\n  developer:\n    name: developer\n", "extensions:\n  developer:\n    enabled: false\n    name: developer\n"},
		{"no enabled, no final newline", "extensions:\n  developer:\n    name: developer", "extensions:\n  developer:\n    enabled: false\n    name: developer"},
		{"already off", "extensions:\n  developer:\n    enabled: false\n", "extensions:\n  developer:\n    enabled: false\n"},
		{"a block scalar", "extensions:\n  developer:\n    description: |\n      enabled: true\n    enabled: true\n", "extensions:\n  developer:\n    description: |\n      enabled: true\n    enabled: false\n"},
		{"nested enabled", "extensions:\n  developer:\n    config:\n      enabled: true\n    enabled: true\nother:\n  enabled: true\n", "extensions:\n  developer:\n    config:\n      enabled: true\n    enabled: false\nother:\n  enabled: true\n"},
		{"missing", "extensions:\n  memory:\n    enabled: true\n", "extensions:\n  memory:\n    enabled: true\n  developer:\n    enabled: false\n    type: platform\n    name: developer\n    display_name: Developer\n    description: \"Write and edit files, and execute shell commands\"\n    bundled: true\n"},
		{"no extensions", "GOOSE_MODE: auto\n", "GOOSE_MODE: auto\nextensions:\n  developer:\n    enabled: false\n    type: platform\n    name: developer\n    display_name: Developer\n    description: \"Write and edit files, and execute shell commands\"\n    bundled: true\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := gooseDeveloperOff([]byte(tc.in))
			if err != nil || string(got) != tc.want {
				t.Fatalf("gooseDeveloperOff(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			}
			var before, after map[string]any
			if err := yaml.Unmarshal([]byte(tc.in), &before); err != nil {
				t.Fatal(err)
			}
			if err := yaml.Unmarshal(got, &after); err != nil {
				t.Fatal(err)
			}
			dev, _ := at(after, "extensions", "developer").(map[string]any)
			if dev["enabled"] != false {
				t.Errorf("developer.enabled = %v", dev["enabled"])
			}
			if old, ok := at(before, "extensions", "developer").(map[string]any); ok {
				for k, v := range old {
					if k != "enabled" && !reflect.DeepEqual(dev[k], v) {
						t.Errorf("developer.%s = %v, was %v", k, dev[k], v)
					}
				}
			}
			if again, _ := gooseDeveloperOff(got); string(again) != string(got) {
				t.Errorf("a second call changed it: %q", again)
			}
		})
	}
	if _, err := gooseDeveloperOff([]byte("extensions:\n  developer: {enabled: true}\n")); err == nil || !strings.Contains(err.Error(), "by hand") {
		t.Errorf("a one-line developer entry: %v, want it refused", err)
	}
}

// TestAddJSONStrings merges strings into JSON arrays: the user's entries
// kept in their order, ours added once, a second merge a no-op.
func TestAddJSONStrings(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"", "{\n  \"a\": {\n    \"l\": [\n      \"x\",\n      \"y\"\n    ]\n  }\n}\n"},
		{"{\"a\": {\"l\": [\"y\", 3, {\"k\": 1}]}}", "{\"a\": {\"l\": [\n    \"y\",\n    3,\n    {\n      \"k\": 1\n    },\n    \"x\"\n  ]}}"},
		{"{\"a\": {\"l\": [\"x\", \"y\"]}}", "{\"a\": {\"l\": [\"x\", \"y\"]}}"},
		{"{\"a\": {\"l\": []}}", "{\"a\": {\"l\": [\n    \"x\",\n    \"y\"\n  ]}}"},
	} {
		got, err := addJSONStrings([]byte(tc.in), []string{"a"}, "l", []string{"x", "y"})
		if err != nil || string(got) != tc.want {
			t.Errorf("addJSONStrings(%q) = %q, %v; want %q", tc.in, got, err, tc.want)
			continue
		}
		if again, _ := addJSONStrings(got, []string{"a"}, "l", []string{"x", "y"}); string(again) != string(got) {
			t.Errorf("a second merge changed %q to %q", got, again)
		}
	}
	if _, err := addJSONStrings([]byte(`{"a": {"l": "x"}}`), []string{"a"}, "l", []string{"x"}); err == nil {
		t.Errorf("a string where the array goes was merged into")
	}
	got, err := dropJSONString([]byte(`{"l": ["stet", "b"], "m": 1}`), nil, "l", "stet")
	if err != nil || !strings.Contains(string(got), `"m": 1`) || strings.Contains(string(got), "stet") {
		t.Errorf("dropJSONString: %q, %v", got, err)
	}
	if got, _ := dropJSONString([]byte(`{"m": 1}`), nil, "l", "stet"); string(got) != `{"m": 1}` {
		t.Errorf("dropJSONString of a missing array changed the file: %q", got)
	}
}

// TestMergeLine adds the instructions line once, after a blank line, in
// the file's line endings.
func TestMergeLine(t *testing.T) {
	const l = "LINE"
	for _, tc := range []struct{ in, want string }{
		{"", "LINE\n"},
		{"\n", "\nLINE\n"},
		{"a", "a\n\nLINE\n"},
		{"a\n", "a\n\nLINE\n"},
		{"a\r\nb\r\n", "a\r\nb\r\n\r\nLINE\r\n"},
		{"a\nLINE\nb\n", "a\nLINE\nb\n"},
		{"a\r\n  LINE\r\n", "a\r\n  LINE\r\n"},
	} {
		if got := string(mergeLine([]byte(tc.in), l)); got != tc.want {
			t.Errorf("mergeLine(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
