package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
	"gopkg.in/yaml.v3"
)

// home is a made-up home directory for one test: HOME, the XDG
// directories and APPDATA point into it, so no test reads or writes the
// real configuration of this machine.
type home struct {
	t    *testing.T
	dir  string
	proj string
	env  []string
}

func newHome(t *testing.T) *home {
	t.Helper()
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	h := &home{t: t, dir: dir, proj: filepath.Join(dir, "proj")}
	if err := os.MkdirAll(h.proj, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "USERPROFILE", "APPDATA", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "CODEX_HOME", "STET_STATE", "STET_SESSION":
			continue
		}
		h.env = append(h.env, kv)
	}
	h.env = append(h.env, "HOME="+dir, "USERPROFILE="+dir, "APPDATA="+filepath.Join(dir, "AppData", "Roaming"),
		"XDG_CONFIG_HOME="+filepath.Join(dir, ".config"), "XDG_STATE_HOME="+filepath.Join(dir, ".local", "state"))
	return h
}

// run runs the stet binary in dir (the project when "") and returns its
// exit code and outputs.
func (h *home) run(dir string, args ...string) (int, string, string) {
	h.t.Helper()
	if dir == "" {
		dir = h.proj
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	cmd.Env = h.env
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		h.t.Fatal(err)
	}
	return code, out.String(), errb.String()
}

func (h *home) put(path, content string) {
	h.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		h.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		h.t.Fatal(err)
	}
}

func (h *home) get(path string) string {
	h.t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		h.t.Fatal(err)
	}
	return string(b)
}

// vscodeUser is VS Code's user mcp.json under the made-up home.
func (h *home) vscodeUser() string {
	switch runtime.GOOS {
	case "darwin":
		return filepath.Join(h.dir, "Library", "Application Support", "Code", "User", "mcp.json")
	case "windows":
		return filepath.Join(h.dir, "AppData", "Roaming", "Code", "User", "mcp.json")
	}
	return filepath.Join(h.dir, ".config", "Code", "User", "mcp.json")
}

func binPath(t *testing.T) string {
	t.Helper()
	p, err := filepath.EvalSymlinks(bin)
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// TestSetupVSCodeWrite merges stet into a VS Code mcp.json holding other
// servers and comments, as VS Code writes it (tabs): they are kept byte for
// byte, the old file is saved beside it, the undo line printed brings it
// back, and a second run keeps the first backup.
func TestSetupVSCodeWrite(t *testing.T) {
	h := newHome(t)
	cfg := h.vscodeUser()
	old := "{\n\t// my servers\n\t\"servers\": {\n\t\t\"github\": {\n\t\t\t\"type\": \"http\",\n\t\t\t\"url\": \"https://api.githubcopilot.com/mcp/\"\n\t\t} // the remote one\n\t},\n\t/* inputs come later */\n\t\"inputs\": []\n}\n"
	h.put(cfg, old)
	if err := os.Chmod(cfg, 0o600); err != nil { // a config may hold tokens
		t.Fatal(err)
	}
	code, out, errOut := h.run("", "setup", "vscode", "--write")
	if code != 0 {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	stetPath, _ := json.Marshal(binPath(t))
	projPath, _ := json.Marshal(h.proj)
	want := "{\n\t// my servers\n\t\"servers\": {\n\t\t\"github\": {\n\t\t\t\"type\": \"http\",\n\t\t\t\"url\": \"https://api.githubcopilot.com/mcp/\"\n\t\t}, // the remote one\n" +
		"\t\t\"stet\": {\n\t\t\t\"type\": \"stdio\",\n\t\t\t\"command\": " + string(stetPath) + ",\n\t\t\t\"args\": [\"mcp\", \"--root\", " + string(projPath) + "]\n\t\t}\n" +
		"\t},\n\t/* inputs come later */\n\t\"inputs\": []\n}\n"
	if got := h.get(cfg); got != want {
		t.Errorf("mcp.json after setup --write:\n%s\nwant:\n%s", got, want)
	}
	if got := h.get(cfg + ".bak"); got != old {
		t.Errorf("mcp.json.bak = %q, want the old file %q", got, old)
	}
	for _, p := range []string{cfg, cfg + ".bak"} {
		if st, err := os.Stat(p); err != nil || st.Mode().Perm() != 0o600 {
			t.Errorf("%s: mode %v (%v), want the old file's 0600", p, st.Mode(), err)
		}
	}
	if !strings.Contains(out, cfg+".bak") {
		t.Errorf("the output does not name the backup %s:\n%s", cfg+".bak", out)
	}

	// The undo line it printed brings the old bytes back.
	var undo string
	for _, l := range strings.Split(out, "\n") {
		if u, ok := strings.CutPrefix(l, "undo: stet "); ok {
			undo = u
		}
	}
	if undo == "" {
		t.Fatalf("no undo line in:\n%s", out)
	}
	if code, o, e := h.run("", strings.Fields(undo)...); code != 0 {
		t.Fatalf("stet %s: exit %d\n%s%s", undo, code, o, e)
	}
	if got := h.get(cfg); got != old {
		t.Errorf("after the undo, mcp.json = %q, want %q", got, old)
	}

	// Again: the first backup stays, the new one is .bak.1.
	if code, o, e := h.run("", "setup", "vscode", "--write"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	if got := h.get(cfg + ".bak"); got != old {
		t.Errorf("mcp.json.bak was replaced: %q", got)
	}
	if got := h.get(cfg + ".bak.1"); got != old {
		t.Errorf("mcp.json.bak.1 = %q, want the file before the second run", got)
	}
	// And once more: nothing to change, nothing written.
	code, out, _ = h.run("", "setup", "vscode", "--write")
	if code != 0 || !strings.Contains(out, "nothing written") {
		t.Errorf("a third run: exit %d, %q; want it to say nothing was written", code, out)
	}
	if _, err := os.Stat(cfg + ".bak.2"); err == nil {
		t.Errorf("a run that changed nothing saved a backup")
	}
}

// TestSetupRefusesUnparsable: a config stet cannot read is refused with its
// line and column named, and left as it was, without a backup.
func TestSetupRefusesUnparsable(t *testing.T) {
	for _, tc := range []struct {
		client, file, content, want string
	}{
		{"vscode", "", "{\n\t\"servers\": {\n\t\t\"a\": {}\n\t\t\"b\": {}\n\t}\n}\n", ":4:3: cannot merge into this file: unexpected '\"', want ',' or '}' after the value of \"a\""},
		{"codex", filepath.Join(".codex", "config.toml"), "model = o3\n", ":1:9: cannot merge into this file: unexpected 'o': want a value (a string needs quotes)"},
		{"goose", filepath.Join(".config", "goose", "config.yaml"), "extensions:\n  a:\n\tb: 1\n", ":3:1: cannot merge into this file: a tab in the indentation"},
	} {
		t.Run(tc.client, func(t *testing.T) {
			h := newHome(t)
			cfg := h.vscodeUser()
			if tc.file != "" {
				cfg = filepath.Join(h.dir, tc.file)
			}
			h.put(cfg, tc.content)
			code, out, errOut := h.run("", "setup", tc.client, "--write")
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s%s", code, out, errOut)
			}
			if !strings.Contains(errOut, cfg+tc.want) || !strings.Contains(errOut, "nothing was written") {
				t.Errorf("stderr = %q, want %q and that nothing was written", errOut, cfg+tc.want)
			}
			if got := h.get(cfg); got != tc.content {
				t.Errorf("the refused file changed: %q", got)
			}
			if _, err := os.Stat(cfg + ".bak"); err == nil {
				t.Errorf("a refused merge saved a backup")
			}
		})
	}
}

// TestSetupEachClient prints and then writes each client's entry into a
// fresh home, and reads the written file back with a parser of its format:
// the command is this binary's absolute path, the args serve the root.
func TestSetupEachClient(t *testing.T) {
	for _, c := range clients {
		if c.name == "claude-code" {
			continue // TestClaudeCodeSetup
		}
		t.Run(c.name, func(t *testing.T) {
			h := newHome(t)
			code, out, errOut := h.run("", "setup", c.name, "--root", h.proj)
			if code != 0 {
				t.Fatalf("exit %d\n%s%s", code, out, errOut)
			}
			d := hostDirs{goos: runtime.GOOS, home: h.dir, getenv: func(k string) string {
				for _, kv := range h.env {
					if v, ok := strings.CutPrefix(kv, k+"="); ok {
						return v
					}
				}
				return ""
			}}
			cfg, err := c.userFile(d)
			if err != nil {
				t.Fatal(err)
			}
			for _, want := range []string{cfg, binPath(t), h.proj} {
				if !strings.Contains(out, want) {
					t.Errorf("the printed configuration does not name %s:\n%s", want, out)
				}
			}
			if code, o, e := h.run("", "setup", c.name, "--root", h.proj, "--write"); code != 0 {
				t.Fatalf("--write: exit %d\n%s%s", code, o, e)
			}
			b, err := os.ReadFile(cfg)
			if err != nil {
				t.Fatal(err)
			}
			var command string
			var args []string
			switch c.format {
			case "json":
				var v map[string]map[string]struct {
					Type, Command string
					Args          []string
				}
				if err := json.Unmarshal(b, &v); err != nil {
					t.Fatalf("%s: %v\n%s", cfg, err, b)
				}
				s := v[c.path[0]]["stet"]
				command, args = s.Command, s.Args
				if c.name == "vscode" && s.Type != "stdio" {
					t.Errorf("VS Code's entry has type %q, want stdio", s.Type)
				}
			case "toml":
				var v struct {
					MCPServers map[string]struct {
						Command string
						Args    []string
					} `toml:"mcp_servers"`
				}
				if _, err := toml.Decode(string(b), &v); err != nil {
					t.Fatalf("%s: %v\n%s", cfg, err, b)
				}
				command, args = v.MCPServers["stet"].Command, v.MCPServers["stet"].Args
			case "yaml":
				var v struct {
					Extensions map[string]struct {
						Enabled bool
						Type    string
						Cmd     string
						Args    []string
					}
				}
				if err := yaml.Unmarshal(b, &v); err != nil {
					t.Fatalf("%s: %v\n%s", cfg, err, b)
				}
				e := v.Extensions["stet"]
				if !e.Enabled || e.Type != "stdio" {
					t.Errorf("goose entry enabled=%v type=%q, want true, stdio", e.Enabled, e.Type)
				}
				command, args = e.Cmd, e.Args
			}
			if command != binPath(t) || strings.Join(args, " ") != "mcp --root "+h.proj {
				t.Errorf("%s holds command %q args %q, want %q [mcp --root %s]\n%s", cfg, command, args, binPath(t), h.proj, b)
			}
		})
	}
}

// TestSetupRoots: with no --root the root is the current directory, but
// never the home directory or /; naming them works, with a warning.
func TestSetupRoots(t *testing.T) {
	h := newHome(t)
	code, out, errOut := h.run(h.dir, "setup", "cursor")
	if code != 2 || !strings.Contains(errOut, "too wide a default root") || out != "" {
		t.Errorf("setup in the home directory: exit %d, %q %q; want exit 2 naming the home directory as too wide", code, out, errOut)
	}
	code, out, errOut = h.run(h.dir, "setup", "cursor", "--root", h.dir)
	if code != 0 || !strings.Contains(errOut, "warning: --root "+h.dir+" gives the agent every file under") || !strings.Contains(out, h.dir) {
		t.Errorf("setup --root HOME: exit %d, %q %q; want the config and a warning", code, out, errOut)
	}
	code, out, _ = h.run("", "setup", "cursor")
	if q, _ := json.Marshal(h.proj); code != 0 || !strings.Contains(out, `"--root", `+string(q)) {
		t.Errorf("setup in the project: exit %d\n%s\nwant --root %s", code, out, h.proj)
	}
	code, _, errOut = h.run("", "setup", "vscod")
	if code != 2 || !strings.Contains(errOut, `did you mean "vscode"`) {
		t.Errorf("setup vscod: exit %d, %q", code, errOut)
	}
	code, _, errOut = h.run("", "setup", "windsurf", "--project")
	if code != 2 || !strings.Contains(errOut, "Windsurf has no project configuration file") {
		t.Errorf("setup windsurf --project: exit %d, %q", code, errOut)
	}
	code, _, errOut = h.run("", "setup", "claude-code", "--write")
	if code != 2 || !strings.Contains(errOut, "claude mcp add") {
		t.Errorf("setup claude-code --write: exit %d, %q; want it refused, pointing to claude mcp add", code, errOut)
	}
}

// TestSetupProject writes the project's own file.
func TestSetupProject(t *testing.T) {
	h := newHome(t)
	if code, o, e := h.run("", "setup", "claude-code", "--project", "--write"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	var v struct {
		MCPServers map[string]struct {
			Type, Command string
			Args          []string
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(h.get(filepath.Join(h.proj, ".mcp.json"))), &v); err != nil {
		t.Fatal(err)
	}
	if s := v.MCPServers["stet"]; s.Type != "stdio" || s.Command != binPath(t) || strings.Join(s.Args, " ") != "mcp --root "+h.proj {
		t.Errorf(".mcp.json holds %+v", s)
	}
}

// TestSetupConfigFlag writes the file --config names, relative to the
// current directory, in the client's format.
func TestSetupConfigFlag(t *testing.T) {
	h := newHome(t)
	h.put(filepath.Join(h.proj, "zed.json"), "// project settings\n{\n  \"tab_size\": 2\n}\n")
	if code, o, e := h.run("", "setup", "zed", "--config", "zed.json", "--write"); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	got := h.get(filepath.Join(h.proj, "zed.json"))
	if !strings.HasPrefix(got, "// project settings\n{\n  \"tab_size\": 2,\n  \"context_servers\": {\n    \"stet\": {\n      \"source\": \"custom\",") {
		t.Errorf("zed.json after setup --config zed.json --write:\n%s", got)
	}
	if code, _, e := h.run("", "setup", "cursor", "--config", "x.json", "--project"); code != 2 || !strings.Contains(e, "not both") {
		t.Errorf("--config with --project: exit %d, %q", code, e)
	}
}

// TestSetupPaths pins each client's user file on each OS, as
// docs/clients.md lists them (from the clients' own documentation).
func TestSetupPaths(t *testing.T) {
	env := map[string]string{"APPDATA": `C:\Users\you\AppData\Roaming`}
	want := map[string]map[string]string{
		"linux": {
			"claude-code": "/home/you/.claude.json", "claude-desktop": "/home/you/.config/Claude/claude_desktop_config.json",
			"cursor": "/home/you/.cursor/mcp.json", "vscode": "/home/you/.config/Code/User/mcp.json",
			"windsurf": "/home/you/.codeium/windsurf/mcp_config.json", "zed": "/home/you/.config/zed/settings.json",
			"goose": "/home/you/.config/goose/config.yaml", "codex": "/home/you/.codex/config.toml",
		},
		"darwin": {
			"claude-desktop": "/home/you/Library/Application Support/Claude/claude_desktop_config.json",
			"vscode":         "/home/you/Library/Application Support/Code/User/mcp.json",
			"zed":            "/home/you/.config/zed/settings.json", "goose": "/home/you/.config/goose/config.yaml",
		},
		"windows": {
			"claude-desktop": `C:\Users\you\AppData\Roaming/Claude/claude_desktop_config.json`,
			"vscode":         `C:\Users\you\AppData\Roaming/Code/User/mcp.json`,
			"zed":            `C:\Users\you\AppData\Roaming/Zed/settings.json`,
			"goose":          `C:\Users\you\AppData\Roaming/Block/goose/config/config.yaml`,
			"cursor":         "/home/you/.cursor/mcp.json",
		},
	}
	for goos, files := range want {
		d := hostDirs{goos: goos, home: "/home/you", getenv: func(k string) string { return env[k] }}
		for name, w := range files {
			c, err := findClient(name)
			if err != nil {
				t.Fatal(err)
			}
			got, err := c.userFile(d)
			if err != nil || filepath.ToSlash(got) != filepath.ToSlash(w) {
				t.Errorf("%s on %s: %q (%v), want %q", name, goos, got, err, w)
			}
		}
	}
	d := hostDirs{goos: "linux", home: "/home/you", getenv: func(k string) string {
		return map[string]string{"XDG_CONFIG_HOME": "/cfg", "CODEX_HOME": "/codex"}[k]
	}}
	for name, w := range map[string]string{"vscode": "/cfg/Code/User/mcp.json", "zed": "/cfg/zed/settings.json", "goose": "/cfg/goose/config.yaml", "codex": "/codex/config.toml"} {
		c, _ := findClient(name)
		if got, _ := c.userFile(d); got != w {
			t.Errorf("%s with XDG_CONFIG_HOME and CODEX_HOME set: %q, want %q", name, got, w)
		}
	}
}

// --write works whatever state directory the user's project uses (the
// configuration directory is a workspace of its own), and writes a
// configuration kept behind a symlink (dotfiles) where it lives.
func TestSetupWriteWithProjectStateAndSymlinkedConfig(t *testing.T) {
	h := newHome(t)
	projState := filepath.Join(h.dir, "projstate")
	if code, _, stderr := h.run("", "--state", projState, "list", "."); code != 0 {
		t.Fatalf("list in the project: %d %s", code, stderr)
	}
	real := filepath.Join(h.dir, "dotfiles", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(real), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(real, []byte("{\n  \"servers\": {}\n}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(h.dir, ".config", "Code", "User", "mcp.json")
	if err := os.MkdirAll(filepath.Dir(link), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(real, link); err != nil {
		t.Skip("no symlinks here:", err)
	}
	h.env = append(h.env, "STET_STATE="+projState)
	code, stdout, stderr := h.run("", "setup", "vscode", "--root", h.proj, "--write")
	if code != 0 {
		t.Fatalf("setup vscode --write with STET_STATE set and a symlinked config: %d\n%s%s", code, stdout, stderr)
	}
	b, _ := os.ReadFile(real)
	if !strings.Contains(string(b), `"stet"`) {
		t.Fatalf("the real config file: %s", b)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the symlink was replaced: %v %v", fi, err)
	}
}

// TestSetupSync: --sync URL goes into the server's arguments and into the
// hook command (stet mcp --sync, stet hook --sync), and a URL holding a
// password is refused, naming ~/.pgpass, with no file written.
func TestSetupSync(t *testing.T) {
	h := newHome(t)
	const dbURL = "postgres://ann@db.example.com/stet?sslmode=verify-full"
	if code, o, e := h.run("", "setup", "claude-code", "--project", "--write", "--sync", dbURL); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	var v struct {
		MCPServers map[string]struct{ Args []string } `json:"mcpServers"`
	}
	if err := json.Unmarshal([]byte(h.get(filepath.Join(h.proj, ".mcp.json"))), &v); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(v.MCPServers["stet"].Args, " "); got != "mcp --root "+h.proj+" --sync "+dbURL {
		t.Errorf(".mcp.json runs stet %s", got)
	}
	if code, o, e := h.run("", "setup", "claude-code", "--hooks", "--project", "--write", "--sync", dbURL); code != 0 {
		t.Fatalf("exit %d\n%s%s", code, o, e)
	}
	if got := h.get(filepath.Join(h.proj, ".claude", "settings.json")); !strings.Contains(got, "hook claude-code --root "+h.proj+" --sync '"+dbURL+"'") {
		t.Errorf("the hook command does not ship: %s", got)
	}
	for _, bad := range []string{"postgres://ann:secret@db.example.com/stet", "host=db.example.com user=ann password=secret"} {
		code, _, e := h.run("", "setup", "cursor", "--project", "--write", "--sync", bad)
		if code != 2 || !strings.Contains(e, "~/.pgpass") || strings.Contains(e, "secret") {
			t.Errorf("--sync %q: exit %d, %q", bad, code, e)
		}
		if _, err := os.Stat(filepath.Join(h.proj, ".cursor", "mcp.json")); err == nil {
			t.Fatalf("--sync %q wrote .cursor/mcp.json", bad)
		}
	}
}
