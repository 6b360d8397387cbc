package main

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strings"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/cfgedit"
	"github.com/stet-dev/stet/internal/fleetdb"
	"github.com/stet-dev/stet/tools"
)

// setupSession is the session every `stet setup --write` writes in, so
// that `stet undo --session setup FILE` takes it back.
const setupSession = "setup"

// client is one MCP client stet setup knows: where its configuration lives
// and the shape of a stdio server entry in it.
type client struct {
	name, title string
	format      string   // json, toml or yaml
	path        []string // json: the members leading to the servers object
	// userFile is the user (global) configuration file on goos.
	userFile func(d hostDirs) (string, error)
	// projectFile is the project's configuration file, relative to the
	// project directory; "" when the client has none.
	projectFile string
	entry       func(bin string, args []string) cfgedit.Obj
	notes       []string
}

// hostDirs are the directories a client's configuration path is built
// from, taken from the environment of this process.
type hostDirs struct {
	goos   string
	home   string
	getenv func(string) string
}

// config is the per-user configuration directory as the clients of goos
// use it: %APPDATA% on Windows, ~/Library/Application Support on macOS,
// $XDG_CONFIG_HOME or ~/.config elsewhere.
func (d hostDirs) config() (string, error) {
	switch d.goos {
	case "windows":
		if v := d.getenv("APPDATA"); v != "" {
			return v, nil
		}
		return "", errors.New("APPDATA is not set")
	case "darwin":
		return filepath.Join(d.home, "Library", "Application Support"), nil
	}
	return d.xdgConfig(), nil
}

// xdgConfig is $XDG_CONFIG_HOME, else ~/.config (also on macOS, where Zed
// and Goose keep their files there).
func (d hostDirs) xdgConfig() string {
	if v := d.getenv("XDG_CONFIG_HOME"); v != "" && filepath.IsAbs(v) {
		return v
	}
	return filepath.Join(d.home, ".config")
}

func inHome(parts ...string) func(d hostDirs) (string, error) {
	return func(d hostDirs) (string, error) { return filepath.Join(append([]string{d.home}, parts...)...), nil }
}

func inConfig(parts ...string) func(d hostDirs) (string, error) {
	return func(d hostDirs) (string, error) {
		c, err := d.config()
		if err != nil {
			return "", err
		}
		return filepath.Join(append([]string{c}, parts...)...), nil
	}
}

// mcpServersEntry is the entry of the clients that take the mcpServers
// shape: command and args.
func mcpServersEntry(bin string, args []string) cfgedit.Obj {
	return cfgedit.Obj{{Key: "command", Val: bin}, {Key: "args", Val: args}}
}

func typedEntry(bin string, args []string) cfgedit.Obj {
	return cfgedit.Obj{{Key: "type", Val: "stdio"}, {Key: "command", Val: bin}, {Key: "args", Val: args}}
}

var clients = []client{
	{
		name: "claude-code", title: "Claude Code", format: "json", path: []string{"mcpServers"},
		userFile:    inHome(".claude.json"),
		projectFile: ".mcp.json",
		entry:       typedEntry,
	},
	{
		name: "claude-desktop", title: "Claude Desktop", format: "json", path: []string{"mcpServers"},
		userFile: inConfig("Claude", "claude_desktop_config.json"),
		entry:    mcpServersEntry,
		notes:    []string{"Quit and reopen Claude Desktop to load it (Settings > Developer shows the server)."},
	},
	{
		name: "cursor", title: "Cursor", format: "json", path: []string{"mcpServers"},
		userFile:    inHome(".cursor", "mcp.json"),
		projectFile: filepath.Join(".cursor", "mcp.json"),
		entry:       mcpServersEntry,
	},
	{
		name: "vscode", title: "VS Code", format: "json", path: []string{"servers"},
		userFile:    inConfig("Code", "User", "mcp.json"),
		projectFile: filepath.Join(".vscode", "mcp.json"),
		entry:       typedEntry,
		notes: []string{
			"VS Code reads top-level \"servers\" (not \"mcpServers\") with \"type\": \"stdio\"; it ignores other shapes without a word.",
			"VS Code Insiders keeps its file under Code - Insiders: give it with --config FILE.",
		},
	},
	{
		name: "windsurf", title: "Windsurf", format: "json", path: []string{"mcpServers"},
		userFile: inHome(".codeium", "windsurf", "mcp_config.json"),
		entry:    mcpServersEntry,
		notes:    []string{"Press refresh in Windsurf's MCP settings (or restart it) to load it."},
	},
	{
		name: "zed", title: "Zed", format: "json", path: []string{"context_servers"},
		userFile: func(d hostDirs) (string, error) {
			if d.goos == "windows" {
				return inConfig("Zed", "settings.json")(d)
			}
			return filepath.Join(d.xdgConfig(), "zed", "settings.json"), nil
		},
		entry: func(bin string, args []string) cfgedit.Obj {
			// "source": "custom" is what Zed's own "Add Custom Server" writes;
			// Zed versions that made it optional accept it still.
			return cfgedit.Obj{{Key: "source", Val: "custom"}, {Key: "enabled", Val: true}, {Key: "command", Val: bin}, {Key: "args", Val: args}, {Key: "env", Val: cfgedit.Obj{}}}
		},
	},
	{
		name: "goose", title: "Goose", format: "yaml",
		userFile: func(d hostDirs) (string, error) {
			if d.goos == "windows" {
				return inConfig("Block", "goose", "config", "config.yaml")(d)
			}
			return filepath.Join(d.xdgConfig(), "goose", "config.yaml"), nil
		},
		entry: func(bin string, args []string) cfgedit.Obj {
			return cfgedit.Obj{
				{Key: "enabled", Val: true},
				{Key: "type", Val: "stdio"},
				{Key: "name", Val: "stet"},
				{Key: "description", Val: "stet: guarded file tools (read, edit, write, patch, undo)"},
				{Key: "cmd", Val: bin},
				{Key: "args", Val: args},
				{Key: "envs", Val: cfgedit.Obj{}},
				{Key: "env_keys", Val: []string{}},
				{Key: "timeout", Val: 300},
			}
		},
	},
	{
		name: "codex", title: "Codex", format: "toml",
		userFile: func(d hostDirs) (string, error) {
			if v := d.getenv("CODEX_HOME"); v != "" && filepath.IsAbs(v) {
				return filepath.Join(v, "config.toml"), nil
			}
			return filepath.Join(d.home, ".codex", "config.toml"), nil
		},
		entry: mcpServersEntry,
	},
}

func clientNames() []string {
	var n []string
	for _, c := range clients {
		n = append(n, c.name)
	}
	return n
}

func findClient(name string) (*client, error) {
	for i := range clients {
		if clients[i].name == name {
			return &clients[i], nil
		}
	}
	if near := tools.Nearest(name, clientNames()); near != "" {
		return nil, usagef("unknown client %q; did you mean %q? (%s)", name, near, strings.Join(clientNames(), ", "))
	}
	return nil, usagef("unknown client %q; the clients are %s", name, strings.Join(clientNames(), ", "))
}

// merge sets stet's entry in the configuration text src.
func (c *client) merge(src []byte, entry cfgedit.Obj) ([]byte, error) {
	switch c.format {
	case "toml":
		return cfgedit.SetTOML(src, []string{"mcp_servers"}, "stet", entry)
	case "yaml":
		return cfgedit.SetYAML(src, "extensions", "stet", entry)
	}
	return cfgedit.SetJSON(src, c.path, "stet", entry)
}

// where says, for people, where in the file the entry goes.
func (c *client) where() string {
	switch c.format {
	case "toml":
		return "as its [mcp_servers.stet] table"
	case "yaml":
		return "under its top-level extensions: key"
	}
	return fmt.Sprintf("into its %q object, beside the servers already there", c.path[0])
}

func cmdSetup(e *env, args []string) error {
	var write, project, hooks, onlyStet bool
	var file, syncTo string
	fs := e.newFlags("setup", "setup CLIENT [--root DIR ...] [--project] [--config FILE] [--hooks [--protect GLOB ...] [--deny-read GLOB ...] | --only-stet] [--sync URL] [--write]")
	fs.BoolVar(&hooks, "hooks", false, "the client's hook configuration instead of its MCP entry: stet hook CLIENT guards the client's own file tools (claude-code, codex, cursor, gemini, vscode)")
	fs.BoolVar(&onlyStet, "only-stet", false, "the MCP entry and the client's setting that makes stet's tools its file tools (Claude Code's permissions, a Zed profile, a VS Code custom agent, Goose's developer extension off), or, where the client has none, its instructions-file line")
	fs.BoolVar(&write, "write", false, "merge the entry into the client's configuration file (the old file is saved beside it as FILE.bak and in the journal)")
	fs.BoolVar(&project, "project", false, "use the project's configuration file (in the first --root) instead of the user's: claude-code .mcp.json, cursor .cursor/mcp.json, vscode .vscode/mcp.json")
	fs.StringVar(&file, "config", "", "the configuration `FILE` to write (default: the client's own, for this OS)")
	fs.StringVar(&syncTo, "sync", "", "the server (or hook) also ships the journal to the PostgreSQL `URL` (stet mcp --sync, stet hook --sync); no password in it: ~/.pgpass holds that")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if err := syncForConfig(syncTo); err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("expected one CLIENT: %s", strings.Join(clientNames(), ", "))
	}
	if hooks && onlyStet {
		return usagef("give --hooks or --only-stet, not both")
	}
	if hooks {
		return setupHooks(e, pos[0], project, write, file, syncTo)
	}
	c, err := findClient(pos[0])
	if err != nil {
		return err
	}
	if onlyStet {
		return setupOnlyStet(e, c, project, write, file, syncTo)
	}
	if project && c.projectFile == "" {
		var have []string
		for _, o := range clients {
			if o.projectFile != "" {
				have = append(have, o.name)
			}
		}
		return usagef("%s has no project configuration file; --project works for %s", c.title, strings.Join(have, ", "))
	}
	if project && file != "" {
		return usagef("give --project or --config FILE, not both")
	}
	bin, d, roots, err := setupEnv(e)
	if err != nil {
		return err
	}
	mcpArgs := serverArgs(roots, syncTo)
	target, err := configTarget(file, project, roots, d, c.title, c.projectFile, c.userFile)
	if err != nil {
		return err
	}
	entry := c.entry(bin, mcpArgs)
	if c.name == "claude-code" && !project && file == "" {
		if write {
			return usagef("Claude Code keeps its user servers in %s, which it rewrites while it runs: run the `claude mcp add` line this prints without --write, or use --project to write the project's .mcp.json", target)
		}
		printClaudeCode(e, bin, mcpArgs, roots)
		return nil
	}
	if !write {
		return printSetup(e, c, target, entry, project)
	}
	return writeSetup(e, target, merger{
		merge: func(old []byte) ([]byte, error) { return c.merge(old, entry) },
		where: c.where(), what: "this stet entry", notes: c.notes,
	})
}

// serverArgs are the arguments of the stet mcp a client's entry runs.
func serverArgs(roots []string, syncTo string) []string {
	args := []string{"mcp"}
	for _, r := range roots {
		args = append(args, "--root", r)
	}
	if syncTo != "" {
		args = append(args, "--sync", syncTo)
	}
	return args
}

// syncForConfig refuses a --sync URL that holds a password: it would be
// written into a client's configuration file, and be seen on the command
// line of every process the client starts.
func syncForConfig(syncTo string) error {
	if syncTo == "" {
		return nil
	}
	if u, err := url.Parse(syncTo); err == nil && u.User != nil {
		if _, ok := u.User.Password(); ok {
			return usagef("--sync %s holds a password, which would be written into the client's configuration file: drop it from the URL and put it in ~/.pgpass (or PGPASSWORD in the client's environment)", fleetdb.Where(syncTo))
		}
	}
	if passwordWord.MatchString(syncTo) {
		return usagef("--sync holds a password= setting, which would be written into the client's configuration file: drop it and put the password in ~/.pgpass (or PGPASSWORD in the client's environment)")
	}
	return nil
}

// passwordWord is a password in a key=value connection string.
var passwordWord = regexp.MustCompile(`(^|\s)password\s*=`)

// merger is what writeSetup merges into a configuration file: merge
// returns the file with stet's part in it; where says where that goes,
// what names it, and notes follow.
type merger struct {
	merge       func(old []byte) ([]byte, error)
	where, what string
	notes       []string
}

// setupEnv is what every stet setup computes first: this binary, the
// host's directories and the roots, warnings printed.
func setupEnv(e *env) (bin string, d hostDirs, roots []string, err error) {
	if bin, err = setupBinary(); err != nil {
		return "", d, nil, err
	}
	d = hostDirs{goos: runtime.GOOS, getenv: os.Getenv}
	if d.home, err = os.UserHomeDir(); err != nil {
		return "", d, nil, fmt.Errorf("finding the home directory (set HOME): %w", err)
	}
	roots, warnings, err := setupRoots(e.g.roots, d.home)
	if err != nil {
		return "", d, nil, err
	}
	for _, w := range warnings {
		fmt.Fprintf(e.stderr, "stet setup: warning: %s\n", w)
	}
	switch sep := string(filepath.Separator); {
	case strings.HasPrefix(bin, filepath.Join(os.TempDir(), "go-build")):
		fmt.Fprintf(e.stderr, "stet setup: warning: %s is a temporary build of `go run`, gone once it exits; install stet (go install github.com/stet-dev/stet/cmd/stet@latest) and run setup with the installed binary\n", bin)
	case strings.Contains(bin, sep+"_npx"+sep):
		fmt.Fprintf(e.stderr, "stet setup: warning: %s is in npx's cache, which npm may clear; install stet (npm install -g @stet-dev/stet) and run setup with the installed binary\n", bin)
	}
	return bin, d, roots, nil
}

// configTarget is the configuration file a setup writes: --config FILE,
// the project's file (projectFile in the first root) with --project, or the
// user's.
func configTarget(file string, project bool, roots []string, d hostDirs, title, projectFile string, userFile func(hostDirs) (string, error)) (string, error) {
	switch {
	case file != "":
		return filepath.Abs(file)
	case project:
		return filepath.Join(roots[0], projectFile), nil
	}
	target, err := userFile(d)
	if err != nil {
		return "", fmt.Errorf("%s's configuration file: %w", title, err)
	}
	return target, nil
}

// setupBinary is the absolute path of the running binary, symlinks
// followed: GUI clients do not inherit the shell's PATH, so a bare "stet"
// fails to start there.
func setupBinary() (string, error) {
	bin, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding the path of this binary: %w", err)
	}
	if r, err := filepath.EvalSymlinks(bin); err == nil { // this binary's own path: not a workspace path
		bin = r
	}
	return filepath.Abs(bin)
}

// setupRoots makes the roots absolute. With none given it is the current
// directory, unless that is / or the home directory: those are served only
// when named.
func setupRoots(given []string, home string) (roots, warnings []string, err error) {
	wide := func(p string) bool {
		return p == filepath.Dir(p) || home != "" && p == filepath.Clean(home)
	}
	if len(given) == 0 {
		wd, err := os.Getwd()
		if err != nil {
			return nil, nil, err
		}
		if wide(wd) {
			return nil, nil, usagef("the current directory %s is too wide a default root; name the project with --root DIR (--root %s serves all of it)", wd, wd)
		}
		return []string{wd}, nil, nil
	}
	for _, r := range given {
		if r == "" {
			continue
		}
		a, err := filepath.Abs(r)
		if err != nil {
			return nil, nil, err
		}
		if slices.Contains(roots, a) {
			continue
		}
		if wide(a) {
			warnings = append(warnings, fmt.Sprintf("--root %s gives the agent every file under %s", a, a))
		}
		if st, err := os.Stat(a); err != nil || !st.IsDir() { // a root argument: not a workspace path
			warnings = append(warnings, fmt.Sprintf("--root %s is not a directory (yet); stet mcp skips it until it is", a))
		}
		roots = append(roots, a)
	}
	if len(roots) == 0 {
		return nil, nil, usagef("--root needs a directory")
	}
	return roots, warnings, nil
}

// shellQuote quotes s for a POSIX shell when it needs it.
func shellQuote(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:@%+,") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

func shellLine(words []string) string {
	q := make([]string, len(words))
	for i, w := range words {
		q[i] = shellQuote(w)
	}
	return strings.Join(q, " ")
}

// claudeAddLine is the `claude mcp add` command line for a scope.
func claudeAddLine(scope, bin string, mcpArgs []string) string {
	return shellLine(append([]string{"claude", "mcp", "add", "--scope", scope, "stet", "--", bin}, mcpArgs...))
}

func printClaudeCode(e *env, bin string, mcpArgs, roots []string) {
	w := e.stdout
	fmt.Fprintf(w, "Claude Code: add stet for every project (user scope, kept in ~/.claude.json):\n\n  %s\n\n", claudeAddLine("user", bin, mcpArgs))
	fmt.Fprintf(w, "or for one project, shared through its .mcp.json (run it in %s):\n\n  %s\n\n", roots[0], claudeAddLine("project", bin, mcpArgs))
	fmt.Fprintf(w, "then `claude mcp get stet` shows what was added, and /mcp in a session its status.\n")
	fmt.Fprintf(w, "stet setup claude-code --project --write merges the same entry into %s itself.\n", filepath.Join(roots[0], ".mcp.json"))
}

func printSetup(e *env, c *client, target string, entry cfgedit.Obj, project bool) error {
	snippet, err := c.merge(nil, entry)
	if err != nil {
		return err
	}
	scope := "user configuration"
	if project {
		scope = "project configuration"
	}
	w := e.stdout
	fmt.Fprintf(w, "%s (%s, %s): put this in\n  %s\n%s:\n\n", c.title, runtime.GOOS, scope, target, c.where())
	w.Write(snippet)
	fmt.Fprintln(w)
	if c.name == "claude-code" {
		bin, _ := entry[1].Val.(string)
		args, _ := entry[2].Val.([]string)
		fmt.Fprintf(w, "(the same as `%s` run in %s)\n", claudeAddLine("project", bin, args), filepath.Dir(target))
	}
	for _, n := range c.notes {
		fmt.Fprintln(w, n)
	}
	if c.name == "claude-desktop" && runtime.GOOS == "linux" {
		fmt.Fprintln(w, "Claude Desktop has no official Linux build; this is where unofficial builds read it.")
	}
	fmt.Fprintf(w, "Or let stet merge it, keeping everything else in the file: add --write to this command.\n")
	return nil
}

// writeSetup merges the entry into target through stet's own write: a
// workspace on target's directory, session "setup", the old file read
// first so that the write replaces exactly the bytes merged into (and the
// journal keeps them), a plain copy saved beside it first.
func writeSetup(e *env, target string, mg merger) error {
	home, _ := os.UserHomeDir()
	if err := foreignHome(home); err != nil {
		return err
	}
	// A configuration file kept elsewhere behind a symlink (dotfiles) is
	// written where it lives: the workspace is its real directory.
	if real, err := filepath.EvalSymlinks(target); err == nil { // the client's configuration file: not a workspace path
		target = real
	}
	dir, name := filepath.Split(target)
	dir = filepath.Clean(dir)
	old, err := os.ReadFile(target) // the client's configuration file: not a workspace path
	exists := err == nil
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", target, err)
	}
	merged, err := mg.merge(old)
	if err != nil {
		var se *cfgedit.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s:%d:%d: cannot merge into this file: %s; fix it (or move it aside) and run again; nothing was written", target, se.Line, se.Col, se.Msg)
		}
		return fmt.Errorf("%s: %w", target, err)
	}
	if exists && string(merged) == string(old) {
		fmt.Fprintf(e.stdout, "%s already holds %s; nothing written\n", target, mg.what)
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil { // the client's configuration directory: not a workspace path
		return fmt.Errorf("creating %s: %w", dir, err)
	}
	o, err := e.g.options()
	if err != nil {
		return err
	}
	o.NoSweep = true
	// The configuration directory is its own workspace, with the state
	// directory stet gives it by default: the --state or STET_STATE of a
	// project belongs to that project's workspace and would be refused.
	o.State = ""
	if o.MaxReadBytes == 0 {
		o.MaxReadBytes = stet.MaxMaxReadBytes // the whole file is read before it is replaced
	}
	o.Protect, o.DenyRead, o.NoDefaultProtect = nil, nil, false
	ws, err := stet.Open([]string{dir}, o)
	if err != nil {
		return err
	}
	defer ws.Close()
	s, err := ws.Session(setupSession)
	if err != nil {
		return err
	}
	ctx := e.ctx
	if _, err := s.List(ctx, stet.ListArgs{}); err != nil {
		return err
	}
	var backup string
	var version string
	if exists {
		r, err := s.Read(ctx, stet.ReadArgs{Path: name, Limit: 1_000_000_000})
		if err != nil {
			return err
		}
		sum := sha256.Sum256(old)
		if want := "sha256:" + hex.EncodeToString(sum[:]); r.Version != want {
			return fmt.Errorf("%s changed while stet merged into it; run again", target)
		}
		version = r.Version
		st, err := os.Stat(target) // the client's configuration file: not a workspace path
		if err != nil {
			return err
		}
		if backup, err = saveBackup(dir, name, old, st.Mode()); err != nil {
			return err
		}
	}
	res, err := s.Write(ctx, stet.WriteArgs{Path: name, Content: string(merged), Overwrite: exists, ExpectedVersion: version})
	if err != nil {
		return err
	}
	w := e.stdout
	if exists {
		fmt.Fprintf(w, "merged stet into %s (%s); receipt %s\n", target, mg.where, res.Receipt.ID)
	} else {
		fmt.Fprintf(w, "created %s with %s; receipt %s\n", target, mg.what, res.Receipt.ID)
	}
	if backup != "" {
		fmt.Fprintf(w, "the old file is saved as %s (and in stet's journal)\n", filepath.Join(dir, backup))
	}
	undo := []string{"stet", "undo", "--root", dir, "--session", setupSession}
	fmt.Fprintf(w, "undo: %s\n", shellLine(append(undo, name)))
	for _, n := range mg.notes {
		fmt.Fprintln(w, n)
	}
	return nil
}

// saveBackup writes old beside name as name.bak, or name.bak.1, .bak.2,
// ... when that exists: an existing backup is never replaced (the create
// is exclusive). The copy gets the old file's permission bits, as a config
// may hold tokens, and is synced before the file is replaced.
func saveBackup(dir, name string, old []byte, mode fs.FileMode) (string, error) {
	for i := 0; i < 100; i++ {
		cand := name + ".bak"
		if i > 0 {
			cand = fmt.Sprintf("%s.bak.%d", name, i)
		}
		p := filepath.Join(dir, cand)
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode.Perm()) // a backup beside the client's configuration: not a workspace path
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("saving the old file as %s: %w", p, err)
		}
		if err := f.Chmod(mode.Perm()); err != nil { // past the umask
			f.Close()
			return "", fmt.Errorf("saving the old file as %s: %w", p, err)
		}
		_, err = f.Write(old)
		if err == nil {
			err = f.Sync()
		}
		if cerr := f.Close(); err == nil {
			err = cerr
		}
		if err != nil {
			return "", fmt.Errorf("saving the old file as %s: %w (remove it and run again)", p, err)
		}
		return cand, nil
	}
	return "", fmt.Errorf("%s.bak through %s.bak.99 all exist in %s; remove some and run again", name, name, dir)
}
