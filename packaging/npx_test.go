package packaging

// Issue 27, item 8: a client starts a project's MCP servers in the project's
// directory, and npx started there runs the project's code instead of stet
// (its node_modules/@stet-dev/stet, its node_modules/.bin/node or sh, its
// .npmrc), whatever npx's options. So no configuration stet prints or
// documents starts stet through npx: `stet setup` writes the absolute path of
// the binary inside the installed package, which the client starts with no
// Node, npm or shell in between.
//
// TestReleaseNPXRunsProjectCode shows, against the packed release, which npx
// forms a hostile node_modules takes over (all of them);
// TestReleaseNPMEntryIgnoresProject installs the package as the docs say,
// lets `stet setup` write the entry from inside a hostile project, starts that
// entry there as a client would, and runs every npx form the docs still give;
// TestDocsGiveNoNPXEntry keeps npx forms of stet out of the docs;
// TestLauncherIgnoresProject checks that the launcher takes its platform
// package from its own install, never from the current directory.

import (
	"archive/tar"
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"crypto/sha512"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// A hostile project's parts, each one way npx can be made to run the
// project's code: its own @stet-dev/stet (linked as node_modules/.bin/stet),
// a node_modules/.bin/node, a node_modules/.bin/sh, a .npmrc naming a script
// shell, and its own copy of this platform's binary package (for the
// launcher).
const (
	hostilePackage  = "package"
	hostileNode     = "node"
	hostileSh       = "sh"
	hostileNpmrc    = "npmrc"
	hostilePlatform = "platform"
)

// hostileProject is a project directory whose node_modules and .npmrc run
// code that appends to marker and prints "hostile-KIND".
type hostileProject struct {
	dir, marker string
}

// ran is what the project's code appended to its marker: empty when none of
// it ran.
func (p hostileProject) ran(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile(p.marker)
	if errors.Is(err, os.ErrNotExist) {
		return ""
	}
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// newHostileProject makes a project in a new directory with the given parts;
// version is the version its own @stet-dev/stet and platform package claim,
// plat this machine's Node platform (linux-x64).
func newHostileProject(t *testing.T, version, plat string, kinds ...string) hostileProject {
	t.Helper()
	dir := t.TempDir()
	p := hostileProject{dir: dir, marker: filepath.Join(dir, "MARKER")}
	write := func(rel, content string, mode os.FileMode) {
		t.Helper()
		path := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	script := func(kind string) string {
		return fmt.Sprintf("#!/bin/sh\necho \"hostile %s ran: $0 $*\" >>'%s'\necho hostile-%s\n", kind, p.marker, kind)
	}
	write("package.json", `{"name": "victim", "version": "1.0.0", "private": true}`+"\n", 0o644)
	write("hello.txt", "hello from the project\n", 0o644)
	for _, kind := range kinds {
		switch kind {
		case hostilePackage:
			write("node_modules/@stet-dev/stet/package.json",
				fmt.Sprintf(`{"name": "@stet-dev/stet", "version": %q, "bin": {"stet": "bin/stet"}}`+"\n", version), 0o644)
			write("node_modules/@stet-dev/stet/bin/stet", script(kind), 0o755)
			if err := os.MkdirAll(filepath.Join(dir, "node_modules", ".bin"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.Symlink("../@stet-dev/stet/bin/stet", filepath.Join(dir, "node_modules", ".bin", "stet")); err != nil {
				t.Fatal(err)
			}
		case hostileNode, hostileSh:
			write("node_modules/.bin/"+kind, script(kind), 0o755)
		case hostileNpmrc:
			write("tools/shell", script(kind), 0o755)
			write(".npmrc", "script-shell="+filepath.Join(dir, "tools", "shell")+"\n", 0o644)
		case hostilePlatform:
			name := "@stet-dev/stet-" + plat
			write("node_modules/"+name+"/package.json", fmt.Sprintf(`{"name": %q, "version": %q}`+"\n", name, version), 0o644)
			write("node_modules/"+name+"/bin/stet", script(kind), 0o755)
		default:
			t.Fatalf("no hostile part %q", kind)
		}
	}
	return p
}

// nodePlatform is Node's name for this machine (process.platform and
// process.arch: linux-x64), the suffix of its binary package.
func nodePlatform(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("node", "-p", `process.platform + "-" + process.arch`).Output()
	if err != nil {
		t.Fatalf("node -p process.platform: %v", err)
	}
	return strings.TrimSpace(string(out))
}

// release is the npm part of a built release (STET_RELEASE_DIST), served
// by a registry of its own.
type release struct {
	version  string // the packages' version
	plat     string // this machine's Node platform
	registry string // the registry's URL
}

// npmRelease skips unless STET_RELEASE_DIST names a built release, and
// serves its launcher and this platform's package from a local registry, as
// registry.npmjs.org would serve them once published: the docs' commands then
// run as given, by package name.
func npmRelease(t *testing.T) release {
	t.Helper()
	dist := os.Getenv("STET_RELEASE_DIST")
	if dist == "" {
		t.Skip("STET_RELEASE_DIST is not set: build a release with scripts/release.sh --snapshot and set it to its dist directory")
	}
	if runtime.GOOS == "windows" {
		t.Skip("the hostile project's programs are shell scripts")
	}
	for _, tool := range []string{"node", "npm", "npx"} {
		if _, err := exec.LookPath(tool); err != nil {
			t.Fatalf("%s is not on PATH; it is needed to check the npm packages of %s", tool, dist)
		}
	}
	if !filepath.IsAbs(dist) {
		dist = filepath.Join("..", dist)
	}
	plat := nodePlatform(t)
	launcher, err := filepath.Glob(filepath.Join(dist, "stet-dev-stet-[0-9]*.tgz"))
	if err != nil || len(launcher) != 1 {
		t.Fatalf("want one launcher tarball stet-dev-stet-VERSION.tgz in %s, found %v (%v)", dist, launcher, err)
	}
	platform, err := filepath.Glob(filepath.Join(dist, "stet-dev-stet-"+plat+"-[0-9]*.tgz"))
	if err != nil || len(platform) != 1 {
		t.Fatalf("want one tarball stet-dev-stet-%s-VERSION.tgz in %s, found %v (%v); build this platform (STET_RELEASE_TARGETS)", plat, dist, platform, err)
	}
	type served struct {
		manifest map[string]any
		tarball  []byte
	}
	pkgs := map[string]served{}
	var version string
	for _, tgz := range []string{launcher[0], platform[0]} {
		b, err := os.ReadFile(tgz)
		if err != nil {
			t.Fatal(err)
		}
		var m map[string]any
		if err := json.Unmarshal(packedFile(t, tgz, "package/package.json"), &m); err != nil {
			t.Fatalf("%s: package.json: %v", tgz, err)
		}
		name, _ := m["name"].(string)
		v, _ := m["version"].(string)
		if version == "" {
			version = v
		}
		pkgs[name] = served{manifest: m, tarball: b}
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		for name, p := range pkgs {
			v := p.manifest["version"].(string)
			file := "/" + name + "/-/" + strings.TrimPrefix(name, "@stet-dev/") + "-" + v + ".tgz"
			switch r.URL.Path {
			case file:
				w.Header().Set("Content-Type", "application/octet-stream")
				w.Write(p.tarball)
				return
			case "/" + name:
				sum512 := sha512.Sum512(p.tarball)
				sum1 := sha1.Sum(p.tarball)
				m := map[string]any{}
				for k, val := range p.manifest {
					m[k] = val
				}
				m["_id"] = name + "@" + v
				m["dist"] = map[string]string{
					"tarball":   "http://" + r.Host + file,
					"integrity": "sha512-" + base64.StdEncoding.EncodeToString(sum512[:]),
					"shasum":    hex.EncodeToString(sum1[:]),
				}
				w.Header().Set("Content-Type", "application/json")
				json.NewEncoder(w).Encode(map[string]any{
					"name":      name,
					"dist-tags": map[string]string{"latest": v},
					"versions":  map[string]any{v: m},
				})
				return
			}
		}
		http.NotFound(w, r)
	}))
	t.Cleanup(srv.Close)
	return release{version: version, plat: plat, registry: srv.URL + "/"}
}

// packedFile is the file name (package/...) in an npm tarball.
func packedFile(t *testing.T, tgz, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(tgz)
	if err != nil {
		t.Fatal(err)
	}
	rd, err := tarReader(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("%s: %v", tgz, err)
	}
	for {
		h, err := rd.Next()
		if err == io.EOF {
			t.Fatalf("%s holds no %s", tgz, name)
		}
		if err != nil {
			t.Fatalf("%s: %v", tgz, err)
		}
		if h.Name == name {
			out, err := io.ReadAll(rd)
			if err != nil {
				t.Fatalf("%s: %s: %v", tgz, name, err)
			}
			return out
		}
	}
}

// tarReader reads a gzipped tar.
func tarReader(r io.Reader) (*tar.Reader, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return nil, err
	}
	return tar.NewReader(zr), nil
}

// env is this process's environment without npm's configuration and with
// home, state and npm's cache, user config and global prefix in dir, npm
// pointed at the release's registry: the user's npm setup and a global
// @stet-dev/stet take no part.
func (r release) env(t *testing.T, dir string) []string {
	t.Helper()
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch lk := strings.ToLower(k); {
		case strings.HasPrefix(lk, "npm_config_"), lk == "node_options", lk == "node_path",
			k == "HOME", k == "XDG_CONFIG_HOME", k == "XDG_STATE_HOME", k == "STET_STATE", k == "STET_SESSION":
			continue
		}
		env = append(env, kv)
	}
	home := filepath.Join(dir, "home")
	userconfig := filepath.Join(dir, "npmrc")
	for _, d := range []string{home, filepath.Join(dir, "global")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(userconfig, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	return append(env,
		"HOME="+home,
		"XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
		"npm_config_registry="+r.registry,
		"npm_config_cache="+filepath.Join(dir, "npm-cache"),
		"npm_config_userconfig="+userconfig,
		"npm_config_prefix="+filepath.Join(dir, "global"),
		"npm_config_update_notifier=false",
		"npm_config_audit=false",
		"npm_config_fund=false",
	)
}

// run runs argv in dir with env, its output combined.
func run(t *testing.T, dir string, env []string, argv ...string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdin = strings.NewReader("")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestReleaseNPXRunsProjectCode runs npx forms of stet in projects with each
// hostile part and reports which ran the project's code. No form resists a
// node_modules/.bin/node: npm starts the command with the project's
// node_modules/.bin first on PATH, and the launcher is a Node script. That is
// why docs/install.md says never to start stet through npx.
func TestReleaseNPXRunsProjectCode(t *testing.T) {
	r := npmRelease(t)
	dir := t.TempDir()
	env := r.env(t, dir)
	neutral := filepath.Join(dir, "neutral")
	if err := os.MkdirAll(neutral, 0o755); err != nil {
		t.Fatal(err)
	}
	pkg := "@stet-dev/stet"
	forms := [][]string{
		{"npx", "-y", pkg, "--version"},
		{"npx", "-y", pkg + "@" + r.version, "--version"},
		{"npx", "-y", "--package=" + pkg + "@" + r.version, "--", "stet", "--version"},
		{"npx", "-y", "-g", pkg, "--version"},
		{"npm", "exec", "--no-workspaces", "-y", pkg, "--", "--version"},
		{"npx", "-y", "--prefix", neutral, pkg, "--version"},
		{"npx", "-y", "--prefix", neutral, "--script-shell=/bin/sh", pkg, "--version"},
	}
	kinds := []string{hostilePackage, hostileNode, hostileSh, hostileNpmrc}
	want := "stet " // stet --version: "stet VERSION"
	var table strings.Builder
	for _, form := range forms {
		name := strings.Join(form, " ")
		// The form runs the real stet where nothing is hostile.
		clean := newHostileProject(t, r.version, r.plat)
		if out, err := run(t, clean.dir, env, form...); err != nil || !strings.HasPrefix(lastLine(out), want) {
			t.Fatalf("%s in a clean project: %v\n%s", name, err, out)
		}
		var shadowed []string
		for _, kind := range kinds {
			p := newHostileProject(t, r.version, r.plat, kind)
			out, err := run(t, p.dir, env, form...)
			if got := p.ran(t); got != "" {
				shadowed = append(shadowed, kind)
			} else if err != nil || !strings.HasPrefix(lastLine(out), want) {
				t.Errorf("%s with a hostile %s: neither stet nor the project's code ran: %v\n%s", name, kind, err, out)
			}
		}
		short := strings.NewReplacer(neutral, "NEUTRAL", r.version, "VERSION").Replace(name)
		fmt.Fprintf(&table, "  %-75s the project's code ran with: %s\n", short, strings.Join(shadowed, ", "))
		if !slices.Contains(shadowed, hostileNode) {
			t.Errorf("%s did not run a hostile node_modules/.bin/node: docs/install.md says no npx form resists it; if this npm (%s) changed that, recheck each form and the docs", name, npmVersion(t))
		}
	}
	t.Logf("npm %s, in a project directory:\n%s", npmVersion(t), table.String())
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndexByte(s, '\n')+1:]
}

func npmVersion(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("npm", "--version").Output()
	if err != nil {
		return "(unknown version)"
	}
	return strings.TrimSpace(string(out))
}

// TestReleaseNPMEntryIgnoresProject follows the docs in a project with every
// hostile part: install the package (npm install -g @stet-dev/stet), run the
// installed stet setup there, and start the entry it wrote as a client
// would, in the project, with the project's node_modules/.bin first on PATH
// besides. The real stet must serve the project, and none of the project's
// code run. Every npx form of stet the docs give (there should be none; see
// TestDocsGiveNoNPXEntry) is run there too, and must not run it either.
func TestReleaseNPMEntryIgnoresProject(t *testing.T) {
	r := npmRelease(t)
	dir := t.TempDir()
	env := r.env(t, dir)
	if out, err := run(t, dir, env, "npm", "install", "-g", "@stet-dev/stet"); err != nil {
		t.Fatalf("npm install -g @stet-dev/stet: %v\n%s", err, out)
	}
	global := filepath.Join(dir, "global")
	stet := filepath.Join(global, "bin", "stet")
	p := newHostileProject(t, r.version, r.plat, hostilePackage, hostileNode, hostileSh, hostileNpmrc, hostilePlatform)

	// stet setup, run in the project, as the docs say.
	config := filepath.Join(dir, "mcp.json")
	if out, err := run(t, p.dir, env, stet, "setup", "cursor", "--root", p.dir, "--config", config, "--write"); err != nil {
		t.Fatalf("stet setup cursor --write: %v\n%s", err, out)
	}
	b, err := os.ReadFile(config)
	if err != nil {
		t.Fatal(err)
	}
	var cfg struct {
		MCPServers map[string]struct {
			Command string   `json:"command"`
			Args    []string `json:"args"`
		} `json:"mcpServers"`
	}
	if err := json.Unmarshal(b, &cfg); err != nil {
		t.Fatalf("%s: %v\n%s", config, err, b)
	}
	entry, ok := cfg.MCPServers["stet"]
	if !ok {
		t.Fatalf("%s has no stet entry:\n%s", config, b)
	}
	realGlobal, err := filepath.EvalSymlinks(global)
	if err != nil {
		t.Fatal(err)
	}
	if !filepath.IsAbs(entry.Command) || !strings.HasPrefix(entry.Command, realGlobal+string(filepath.Separator)) {
		t.Fatalf("the entry's command is %q, want the binary inside the install in %s", entry.Command, realGlobal)
	}
	if p.ran(t) != "" {
		t.Fatalf("stet setup ran the project's code:\n%s", p.ran(t))
	}

	// The client starts the entry in the project.
	clientEnv := append(slices.Clone(env), "PATH="+filepath.Join(p.dir, "node_modules", ".bin")+string(os.PathListSeparator)+os.Getenv("PATH"))
	text, err := mcpRead(t, p.dir, clientEnv, entry.Command, entry.Args, "hello.txt")
	if err != nil {
		t.Fatalf("the entry %s %q in the project: %v", entry.Command, entry.Args, err)
	}
	if !strings.Contains(text, "hello from the project") {
		t.Errorf("read hello.txt through the entry returned %q", text)
	}
	if got := p.ran(t); got != "" {
		t.Errorf("the entry ran the project's code:\n%s", got)
	}

	// Every npx form the docs give, run in the project.
	forms, err := docNPXForms("..")
	if err != nil {
		t.Fatal(err)
	}
	npxEnv := r.env(t, t.TempDir()) // no global install for npx to find
	for _, f := range forms {
		argv := f.argv(p.dir)
		out, err := run(t, p.dir, npxEnv, argv...)
		if got := p.ran(t); got != "" {
			t.Errorf("%s:%d gives %q; run in a hostile project (%q) it ran the project's code:\n%s", f.file, f.line, f.text, argv, got)
			os.Remove(p.marker)
		} else if err != nil {
			t.Logf("%s:%d: %q: %v\n%s", f.file, f.line, argv, err, out)
		}
	}
}

// mcpRead starts command args in dir with env, as an MCP client: initialize,
// then a read of path; it returns the read's text.
func mcpRead(t *testing.T, dir string, env []string, command string, args []string, path string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, command, args...)
	cmd.Dir = dir
	cmd.Env = env
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	defer func() {
		in.Close()
		cmd.Wait()
	}()
	lines := bufio.NewScanner(out)
	lines.Buffer(make([]byte, 1<<20), 1<<24)
	call := func(id int, method string, params any) (json.RawMessage, error) {
		msg, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := in.Write(append(msg, '\n')); err != nil {
			return nil, err
		}
		for lines.Scan() {
			var resp struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			if err := json.Unmarshal(lines.Bytes(), &resp); err != nil {
				return nil, fmt.Errorf("not JSON-RPC on stdout: %.200s", lines.Text())
			}
			if resp.ID == nil || *resp.ID != id {
				continue
			}
			if resp.Error != nil {
				return nil, fmt.Errorf("%s: %s", method, resp.Error)
			}
			return resp.Result, nil
		}
		return nil, fmt.Errorf("%s: no answer (%v); stderr:\n%s", method, lines.Err(), stderr.String())
	}
	res, err := call(1, "initialize", map[string]any{
		"protocolVersion": "2025-06-18",
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]string{"name": "npx-test", "version": "1"},
	})
	if err != nil {
		return "", err
	}
	var init struct {
		ServerInfo struct{ Name string } `json:"serverInfo"`
	}
	if err := json.Unmarshal(res, &init); err != nil || init.ServerInfo.Name == "" {
		return "", fmt.Errorf("initialize returned %s", res)
	}
	note, _ := json.Marshal(map[string]string{"jsonrpc": "2.0", "method": "notifications/initialized"})
	if _, err := in.Write(append(note, '\n')); err != nil {
		return "", err
	}
	res, err = call(2, "tools/call", map[string]any{"name": "read", "arguments": map[string]string{"path": path}})
	if err != nil {
		return "", err
	}
	var read struct {
		Content []struct{ Text string } `json:"content"`
		IsError bool                    `json:"isError"`
	}
	if err := json.Unmarshal(res, &read); err != nil || read.IsError || len(read.Content) == 0 {
		return "", fmt.Errorf("read %s returned %s", path, res)
	}
	return read.Content[0].Text, nil
}

// docFiles are the files whose commands and client entries users copy.
func docFiles(root string) ([]string, error) {
	files := []string{"README.md", filepath.Join("npm", "stet", "README.md"), filepath.Join("npm", "platform", "README.md")}
	for _, pattern := range []string{filepath.Join("docs", "*.md"), filepath.Join("cmd", "stet", "*.go"), filepath.Join("packaging", "mcpb", "*.mjs")} {
		m, err := filepath.Glob(filepath.Join(root, pattern))
		if err != nil {
			return nil, err
		}
		for _, f := range m {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			rel, err := filepath.Rel(root, f)
			if err != nil {
				return nil, err
			}
			files = append(files, rel)
		}
	}
	return files, nil
}

// npxForm is a command or client entry in a doc file that starts stet
// through npx or npm exec.
type npxForm struct {
	file string
	line int
	text string   // as written
	args []string // npx's arguments (for npm: exec ...)
	cmd  string   // npx or npm
}

// argv is the form as a command line, with its example directories made
// project and "..." made --version.
func (f npxForm) argv(project string) []string {
	argv := []string{f.cmd}
	for _, a := range f.args {
		switch {
		case a == "...":
			a = "--version"
		case strings.HasPrefix(a, "/path/to/"), strings.HasPrefix(a, "/home/you/"), a == "DIR", a == "PROJECT":
			a = project
		}
		argv = append(argv, a)
	}
	return argv
}

var (
	// A command word npx or npm, then the rest of its code span or line.
	npxCommand = regexp.MustCompile("(?:^|[\\s`'\"(\\[])((?:[^\\s`'\"]*/)?(?:npx|npm)(?:\\.cmd)?)[ \t]+([^`\\n#]*)")
	// A client entry's command and args: JSON ("command": "npx", "args":
	// [...]) or TOML (command = "npx" then args = [...]).
	entryCommand = regexp.MustCompile(`(?:"command"\s*:|\bcommand\s*=)\s*"([^"]*)"\s*,?\s*(?:"args"\s*:|\bargs\s*=)\s*(\[[^\]]*\])`)
	// Options of npm that take a value as the next word.
	npmValueOptions = map[string]bool{"--package": true, "-p": true, "--prefix": true, "--cache": true, "--registry": true,
		"--userconfig": true, "--script-shell": true, "--call": true, "-c": true, "--workspace": true, "-w": true}
)

// npxRunsStet reports whether npx (or npm exec) with args runs stet: the
// package it would run, from --package or the first word that is not an
// option, is @stet-dev/stet (any version, any platform package) or a command
// named stet.
func npxRunsStet(cmd string, args []string) bool {
	base := cmd[strings.LastIndexAny(cmd, `/\`)+1:]
	base = strings.TrimSuffix(base, ".cmd")
	if base == "npm" {
		if len(args) == 0 || (args[0] != "exec" && args[0] != "x") {
			return false
		}
		args = args[1:]
	} else if base != "npx" {
		return false
	}
	isStet := func(s string) bool {
		return strings.HasPrefix(s, "@stet-dev/stet") || s == "stet" || strings.HasPrefix(s, "stet@")
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return i+1 < len(args) && isStet(args[i+1])
		}
		if name, value, ok := strings.Cut(a, "="); ok && strings.HasPrefix(a, "-") {
			if name == "--package" && isStet(value) {
				return true
			}
			continue
		}
		if strings.HasPrefix(a, "-") {
			if npmValueOptions[a] {
				if i+1 < len(args) && (a == "--package" || a == "-p") && isStet(args[i+1]) {
					return true
				}
				i++
			}
			continue
		}
		return isStet(a)
	}
	return false
}

// docNPXForms finds every npx (or npm exec) form of stet in the doc files
// under root: command lines and code spans, and client entries.
func docNPXForms(root string) ([]npxForm, error) {
	files, err := docFiles(root)
	if err != nil {
		return nil, err
	}
	var forms []npxForm
	for _, file := range files {
		b, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			return nil, err
		}
		forms = append(forms, npxFormsIn(file, string(b))...)
	}
	return forms, nil
}

// npxFormsIn finds the npx forms of stet in text, the contents of file.
func npxFormsIn(file, text string) []npxForm {
	var forms []npxForm
	lineOf := func(off int) int { return strings.Count(text[:off], "\n") + 1 }
	for _, m := range npxCommand.FindAllStringSubmatchIndex(text, -1) {
		cmd := text[m[2]:m[3]]
		rest := text[m[4]:m[5]]
		var args []string
		for _, w := range strings.Fields(rest) {
			args = append(args, strings.Trim(w, `"',;)`))
		}
		if npxRunsStet(cmd, args) {
			forms = append(forms, npxForm{file: file, line: lineOf(m[2]), text: strings.TrimSpace(text[m[2]:m[5]]), cmd: cmd, args: args})
		}
	}
	for _, m := range entryCommand.FindAllStringSubmatchIndex(text, -1) {
		cmd := text[m[2]:m[3]]
		var args []string
		if err := json.Unmarshal([]byte(text[m[4]:m[5]]), &args); err != nil {
			continue
		}
		if npxRunsStet(cmd, args) {
			forms = append(forms, npxForm{file: file, line: lineOf(m[0]), text: text[m[0]:m[1]], cmd: cmd, args: args})
		}
	}
	return forms
}

// TestDocsGiveNoNPXEntry checks that no doc, README or setup message gives an
// npx (or npm exec) form of stet: none is safe to start in a project
// (TestReleaseNPXRunsProjectCode), and client entries come from stet setup
// with the installed binary.
func TestDocsGiveNoNPXEntry(t *testing.T) {
	forms, err := docNPXForms("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range forms {
		t.Errorf("%s:%d: %q starts stet through %s, which runs a project's node_modules when started in it; "+
			"give npm install -g @stet-dev/stet and stet setup instead (docs/install.md, \"Not npx in a client's entry\")", f.file, f.line, f.text, f.cmd)
	}
}

// TestNPXFormsIn checks the finder on the forms the docs gave before and
// on text that names npx without starting stet through it.
func TestNPXFormsIn(t *testing.T) {
	found := []string{
		"`npm install -g @stet-dev/stet` puts `stet` on your `PATH`; `npx -y @stet-dev/stet ...`",
		`(` + "`" + `"command": "npx", "args": ["-y", "@stet-dev/stet", "mcp", "--root", "/home/you/proj"]` + "`" + `); a client`,
		"npx -y @stet-dev/stet mcp /path/to/project        # the MCP server on stdio",
		"      \"command\": \"npx\",\n      \"args\": [\"-y\", \"@stet-dev/stet\", \"mcp\", \"/path/to/project\"]",
		"$ npx -y @stet-dev/stet read README.md",
		"npx --yes --package=@stet-dev/stet@1.2.3 -- stet mcp DIR",
		"npx --offline --prefix PREFIX stet --version",
		"npm exec --no-workspaces -y @stet-dev/stet -- --version",
		"npx -y -p @stet-dev/stet stet --version",
		"command = \"/usr/bin/npx\"\nargs = [\"-y\", \"@stet-dev/stet@latest\", \"mcp\"]",
	}
	for _, s := range found {
		if forms := npxFormsIn("f", s); len(forms) == 0 {
			t.Errorf("not found in %q", s)
		}
	}
	clean := []string{
		"%s is in npx's cache, which npm may clear; install stet (npm install -g @stet-dev/stet) and run setup",
		"Do not make `npx` (or `npm exec`) the command of a client's entry",
		"npx runs the project's `node_modules/.bin` first",
		"npm install -g @stet-dev/stet                      # puts stet on your PATH",
		`(was ` + "`" + `"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/path/to/project"]` + "`" + `)`,
		"npm ci --prefix clients/claude --no-audit --no-fund",
		"`--package=...@VERSION` and `--global` still take the project's package",
	}
	for _, s := range clean {
		if forms := npxFormsIn("f", s); len(forms) != 0 {
			t.Errorf("found %+v in %q", forms, s)
		}
	}
	f := npxFormsIn("f", "npx -y @stet-dev/stet mcp /path/to/project  # serve it")
	if len(f) != 1 || !slices.Equal(f[0].argv("P"), []string{"npx", "-y", "@stet-dev/stet", "mcp", "P"}) {
		t.Errorf("argv of the form: %+v", f)
	}
}

// TestLauncherIgnoresProject runs npm/stet/bin/stet.js from an install laid
// out as npm lays it out, with the current directory a project holding its own
// copy of this platform's package: the launcher runs the install's binary,
// never the project's, refuses a platform package of another version, and
// says the package is missing rather than take the project's.
func TestLauncherIgnoresProject(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("the stand-in binaries are shell scripts")
	}
	if _, err := exec.LookPath("node"); err != nil {
		t.Skip("node is not on PATH")
	}
	plat := nodePlatform(t)
	launcher, err := os.ReadFile(filepath.Join("..", "npm", "stet", "bin", "stet.js"))
	if err != nil {
		t.Fatal(err)
	}
	const version = "1.2.3"
	platPkg := "@stet-dev/stet-" + plat
	write := func(path, content string, mode os.FileMode) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), mode); err != nil {
			t.Fatal(err)
		}
	}
	// install makes an install tree: the launcher in
	// ROOT/node_modules/@stet-dev/stet and, unless platVersion is empty, the
	// platform package at platVersion, hoisted beside it or nested in it.
	install := func(platVersion string, nested bool) string {
		root := t.TempDir()
		self := filepath.Join(root, "node_modules", "@stet-dev", "stet")
		write(filepath.Join(self, "package.json"), fmt.Sprintf(
			`{"name": "@stet-dev/stet", "version": %q, "bin": {"stet": "bin/stet.js"}, "optionalDependencies": {%q: %q}}`,
			version, platPkg, version), 0o644)
		write(filepath.Join(self, "bin", "stet.js"), string(launcher), 0o755)
		if platVersion != "" {
			dir := filepath.Join(root, "node_modules", filepath.FromSlash(platPkg))
			if nested {
				dir = filepath.Join(self, "node_modules", filepath.FromSlash(platPkg))
			}
			write(filepath.Join(dir, "package.json"), fmt.Sprintf(`{"name": %q, "version": %q}`, platPkg, platVersion), 0o644)
			write(filepath.Join(dir, "bin", "stet"), "#!/bin/sh\necho \"the installed stet: $*\"\n", 0o755)
		}
		return filepath.Join(self, "bin", "stet.js")
	}
	p := newHostileProject(t, version, plat, hostilePlatform)
	env := append(os.Environ(), "NODE_PATH=", "NODE_OPTIONS=")
	for _, c := range []struct {
		name, platVersion string
		nested            bool
		wantOut           string
		wantExit          bool
	}{
		{"hoisted", version, false, "the installed stet: --version", false},
		{"nested", version, true, "the installed stet: --version", false},
		{"missing", "", false, "is not installed", true},
		{"another version", "1.2.2", false, "runs only " + platPkg + "@" + version, true},
	} {
		out, err := run(t, p.dir, env, "node", install(c.platVersion, c.nested), "--version")
		if c.wantExit != (err != nil) || !strings.Contains(out, c.wantOut) {
			t.Errorf("%s: %v, output %q; want %q (exit status nonzero: %v)", c.name, err, out, c.wantOut, c.wantExit)
		}
		// A missing package: what is missing and the one command that adds
		// it, with no guess at how it came to be left out.
		if c.platVersion == "" && (!strings.Contains(out, "Add it with: npm install --prefix ") ||
			!strings.Contains(out, " "+platPkg+"@"+version+"\n") || strings.Contains(out, "--omit")) {
			t.Errorf("%s: output %q does not end with the npm install that adds %s@%s", c.name, out, platPkg, version)
		}
		if got := p.ran(t); got != "" {
			t.Fatalf("%s: the launcher ran the project's package:\n%s", c.name, got)
		}
	}
}
