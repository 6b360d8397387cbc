package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/stet-dev/stet/internal/cfgedit"
	"github.com/stet-dev/stet/tools"
)

// This file is `stet setup CLIENT --only-stet`: the stet entry, plus the
// setting each client documents that makes stet's MCP tools its model's
// file tools (Claude Code's permissions, a Zed agent profile, a VS Code
// custom agent, Goose's developer extension off), or, where the client
// has none, the instructions-file line asking the model to use them.

// onlyStetLine is the line an instructions file (AGENTS.md, a Cursor or
// Windsurf rule) gets where nothing turns the client's own file tools off.
const onlyStetLine = "Use the stet MCP server's tools (read, edit, write, patch, list, find, grep, move, delete, undo) for every file you read or change; do not change files with built-in file tools or with shell commands."

// claudeDenied are the Claude Code tools --only-stet denies: its edit
// tools, and Read, whose place stet's read takes (text with its line
// numbers, images and audio as such).
var claudeDenied = []string{"Edit", "Write", "NotebookEdit", "Read"}

// zedFileTools are Zed's built-in tools that read or change files, off in
// the stet profile (Zed's documentation of its tools). Those not named in a
// profile are off as well; they are named so that the profile says so.
var zedFileTools = []string{"read_file", "edit_file", "copy_path", "create_directory", "delete_path", "move_path",
	"find_path", "grep", "list_directory", "save_file", "restore_file_from_disk"}

// zedOtherTools stay on in the stet profile: the terminal, and the tools
// that touch no file.
var zedOtherTools = []string{"terminal", "diagnostics", "fetch", "now", "thinking", "web_search"}

// onlyStetPart is one file --only-stet writes, or, when target is "", one
// thing it can only print (text).
type onlyStetPart struct {
	target string
	what   string // for people: what goes in the file
	mg     merger
	text   string
}

// onlyStetPlan is what --only-stet does for one client: its parts, then
// notes saying what the setting does, what it cannot turn off, and that
// the shell stays.
type onlyStetPlan struct {
	parts []onlyStetPart
	notes []string
}

// onlyStetProject reports whether --only-stet --project means something
// for client: its project files (or instructions file) stet knows.
func onlyStetProject(name string) bool {
	switch name {
	case "claude-code", "cursor", "vscode", "codex", "windsurf":
		return true
	}
	return false
}

// setupOnlyStet prints, or with write merges, the files that make stet's
// MCP tools client's file tools.
func setupOnlyStet(e *env, c *client, project, write bool, file, syncTo string) error {
	if file != "" {
		return usagef("--only-stet writes each file where %s keeps it; drop --config (or run setup %s --config FILE without --only-stet)", c.title, c.name)
	}
	if project && !onlyStetProject(c.name) {
		var have []string
		for _, o := range clients {
			if onlyStetProject(o.name) {
				have = append(have, o.name)
			}
		}
		return usagef("%s keeps this setting in the user's configuration only; drop --project (--only-stet --project works for %s)", c.title, strings.Join(have, ", "))
	}
	if _, err := e.g.options(); err != nil {
		return err
	}
	bin, d, roots, err := setupEnv(e)
	if err != nil {
		return err
	}
	p, err := planOnlyStet(c, project, d, roots, bin, syncTo)
	if err != nil {
		return err
	}
	scope := "user configuration"
	if project {
		scope = "project " + roots[0]
	}
	w := e.stdout
	if !write {
		fmt.Fprintf(w, "%s (%s, %s): stet as the only file tools.\n", c.title, runtime.GOOS, scope)
		for i, part := range p.parts {
			if part.target == "" {
				fmt.Fprintf(w, "\n%d. %s\n", i+1, part.text)
				continue
			}
			snippet, err := part.mg.merge(nil)
			if err != nil {
				return err
			}
			fmt.Fprintf(w, "\n%d. %s: %s, %s:\n\n", i+1, part.target, part.what, part.mg.where)
			w.Write(snippet)
			if len(snippet) > 0 && snippet[len(snippet)-1] != '\n' {
				fmt.Fprintln(w)
			}
		}
		fmt.Fprintln(w)
		for _, n := range p.notes {
			fmt.Fprintln(w, n)
		}
		fmt.Fprintf(w, "Or let stet merge them, keeping everything else in each file: add --write to this command.\n")
		return nil
	}
	// Every file is merged in memory first: one that cannot be read or
	// merged stops the run before anything is written.
	for _, part := range p.parts {
		if part.target == "" {
			continue
		}
		if err := checkMerge(part.target, part.mg); err != nil {
			return err
		}
	}
	fmt.Fprintf(w, "%s (%s, %s): stet as the only file tools.\n", c.title, runtime.GOOS, scope)
	for _, part := range p.parts {
		fmt.Fprintln(w)
		if part.target == "" {
			fmt.Fprintln(w, part.text)
			continue
		}
		if err := writeSetup(e, part.target, part.mg); err != nil {
			return err
		}
	}
	fmt.Fprintln(w)
	for _, n := range p.notes {
		fmt.Fprintln(w, n)
	}
	return nil
}

// checkMerge reads target and merges into it without writing, with the
// error writeSetup would give.
func checkMerge(target string, mg merger) error {
	old, err := os.ReadFile(target) // the client's configuration file: not a workspace path
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("reading %s: %w", target, err)
	}
	if _, err := mg.merge(old); err != nil {
		var se *cfgedit.SyntaxError
		if errors.As(err, &se) {
			return fmt.Errorf("%s:%d:%d: cannot merge into this file: %s; fix it (or move it aside) and run again; nothing was written", target, se.Line, se.Col, se.Msg)
		}
		return fmt.Errorf("%s: %w; nothing was written", target, err)
	}
	return nil
}

// entryPart is the stet server entry of c in target, as stet setup CLIENT
// --write merges it.
func entryPart(c *client, target, bin string, mcpArgs []string) onlyStetPart {
	entry := c.entry(bin, mcpArgs)
	return onlyStetPart{target: target, what: "the stet server", mg: merger{
		merge: func(old []byte) ([]byte, error) { return c.merge(old, entry) },
		where: c.where(), what: "this stet entry",
	}}
}

// planOnlyStet is the plan of --only-stet for c.
func planOnlyStet(c *client, project bool, d hostDirs, roots []string, bin, syncTo string) (*onlyStetPlan, error) {
	mcpArgs := serverArgs(roots, syncTo)
	userFile, err := c.userFile(d)
	if err != nil {
		return nil, fmt.Errorf("%s's configuration file: %w", c.title, err)
	}
	serverFile := userFile
	if project && c.projectFile != "" {
		serverFile = filepath.Join(roots[0], c.projectFile)
	}
	root := roots[0]
	shell := func(tool string) string {
		return fmt.Sprintf("The shell stays: %s can still write files, and shell writes bypass stet (`stet review` shows them as changed outside).", tool)
	}
	p := &onlyStetPlan{}
	switch c.name {
	case "claude-code":
		// Claude Code hands the model a tool's structured content: the
		// text form is what it should read.
		mcpArgs = append(mcpArgs, "--results", "text")
		settings := filepath.Join(d.home, ".claude", "settings.json")
		if project {
			settings = filepath.Join(root, ".claude", "settings.local.json")
			entry := append(c.entry(bin, mcpArgs), cfgedit.Member{Key: "alwaysLoad", Val: true})
			p.parts = append(p.parts, onlyStetPart{target: serverFile, what: "the stet server, its tools loaded up front (alwaysLoad)", mg: merger{
				merge: func(old []byte) ([]byte, error) { return c.merge(old, entry) },
				where: c.where(), what: "this stet entry",
			}})
		} else {
			p.parts = append(p.parts, onlyStetPart{text: fmt.Sprintf("Add stet for every project, its tools loaded up front (alwaysLoad; Claude Code keeps user servers in ~/.claude.json, which it rewrites while it runs, so stet does not write that file; run this line, after `claude mcp remove --scope user stet` where stet is there already):\n\n  %s", claudeAddJSONLine("user", bin, mcpArgs))})
		}
		where := "permissions.deny " + strings.Join(claudeDenied, ", ") + "; permissions.allow mcp__stet; "
		if project {
			where += "enabledMcpjsonServers stet; "
		}
		where += "the user's own entries kept"
		p.parts = append(p.parts, onlyStetPart{target: settings, what: "Claude Code's settings", mg: merger{
			merge: func(old []byte) ([]byte, error) { return mergeClaudeOnlyStet(old, project) },
			where: where, what: "stet's settings",
		}})
		p.notes = append(p.notes,
			"Claude Code's Edit, Write and NotebookEdit are denied, so they leave the model's tools and its edits go through stet. "+
				"Read is denied as well: stet's read takes its place (text with line numbers that edits are bound to, images and audio as such); "+
				"what only Claude Code's Read does is render PDFs and notebooks, and a deny on Read also keeps @-mentioned files out of a prompt. "+
				"To keep Read, take \"Read\" out of permissions.deny: edits still go through stet, after a read of stet's.",
			"mcp__stet is allowed, so stet's tools run without a prompt; \"alwaysLoad\": true on the stet entry hands the model stet's tools with their schemas up front instead of behind ToolSearch, and leaves Claude Code's own deferred tools deferred.",
			"ENABLE_TOOL_SEARCH is no longer needed (stet setup wrote env ENABLE_TOOL_SEARCH=false before alwaysLoad): it loads every deferred tool up front, Claude Code's own too (about 7,200 tokens in every request). stet leaves a setting it finds alone, as it cannot tell who wrote it: take it out of your settings' env if stet put it there.",
			"The server runs with --results text: Claude Code hands the model a result's structured content, so stet sends the text alone (the frame, the message with the diff); programs find the structured result in _meta stet/result.")
		if project {
			p.notes = append(p.notes,
				"enabledMcpjsonServers approves the project's stet server. These go in .claude/settings.local.json, your own file (keep it out of git): Claude Code honours an allow of mcp__stet from there or from your user settings, not from the shared .claude/settings.json under `claude -p`.")
		} else {
			p.notes = append(p.notes,
				"These are your user settings: Claude Code's edit tools are denied in every project, and stet serves "+strings.Join(roots, ", ")+" only. For one project, run this with --project instead.")
		}
		p.notes = append(p.notes,
			shell("Bash"),
			"`stet setup claude-code --hooks` guards the tools you keep (Read, if you take it out of the deny list); no hook sees what the shell writes.",
			"Start a new Claude Code session to load them (/permissions and /mcp show them).")
	case "zed":
		entry := c.entry(bin, mcpArgs)
		p.parts = append(p.parts, onlyStetPart{target: serverFile, what: "the stet server and the stet agent profile", mg: merger{
			merge: func(old []byte) ([]byte, error) { return mergeZedOnlyStet(c, old, entry) },
			where: "context_servers.stet, agent.profiles.stet and agent.default_profile, beside the settings already there",
			what:  "stet's server and profile",
		}})
		p.notes = append(p.notes,
			"The stet profile (now agent.default_profile; pick another in the Agent Panel's profile menu) turns Zed's file tools off ("+strings.Join(zedFileTools, ", ")+") and stet's on; the user's other MCP servers stay on (enable_all_context_servers).",
			shell("the terminal tool"),
			"Zed runs no hooks stet can use. Profiles are the Zed Agent's: external agents in Zed (Claude Code, Codex, ...) keep their own tools; set those up with stet setup for that client.")
	case "vscode":
		agentFile := filepath.Join(d.home, ".copilot", "agents", "stet.agent.md")
		if project {
			agentFile = filepath.Join(root, ".github", "agents", "stet.agent.md")
		}
		p.parts = append(p.parts, entryPart(c, serverFile, bin, mcpArgs), ownedFile(agentFile, "the stet custom agent", vscodeAgent()))
		p.notes = append(p.notes,
			"Pick the stet agent in the Chat view's agent dropdown: its tools are stet's (tools: ['stet/*']) and nothing else, so VS Code's own file tools are off there, and so is its terminal.",
			"The shell stays in VS Code's other agents, and shell writes bypass stet (`stet review` shows them as changed outside); if you add the terminal to the stet agent's tools, the same holds there.",
			"VS Code's other agents keep its own file tools: `stet setup vscode --hooks` guards them.")
	case "goose":
		entry := c.entry(bin, mcpArgs)
		p.parts = append(p.parts, onlyStetPart{target: serverFile, what: "the stet extension, and Goose's developer extension off", mg: merger{
			merge: func(old []byte) ([]byte, error) {
				src, err := cfgedit.SetYAML(old, "extensions", "stet", entry)
				if err != nil {
					return nil, err
				}
				return gooseDeveloperOff(src)
			},
			where: "extensions.stet, and enabled: false on extensions.developer, the other extensions kept",
			what:  "the stet extension with developer off",
		}})
		p.notes = append(p.notes,
			"Goose's developer extension is its file editor and its shell: with it off, stet's tools are Goose's file tools and Goose runs no shell commands.",
			"To keep the shell, turn developer back on with `available_tools: [shell]` under it (Goose's filter of an extension's tools; shell is the tool's name in current Goose): then the shell stays, and shell writes bypass stet (`stet review` shows them as changed outside).",
			"Goose runs no hooks stet can use.")
	case "codex":
		instr := filepath.Join(filepath.Dir(userFile), "AGENTS.md")
		if project {
			instr = filepath.Join(root, "AGENTS.md")
		}
		p.parts = append(p.parts, entryPart(c, serverFile, bin, mcpArgs), linePart(instr, "Codex's instructions"))
		p.notes = append(p.notes,
			"Codex documents no setting that turns its apply_patch tool off: the AGENTS.md line asks the model to use stet's tools, nothing enforces it.",
			"`stet setup codex --hooks` is the way to guard apply_patch itself.",
			shell("Codex's shell tool")+" Codex also reads files through its shell.")
	case "cursor":
		p.parts = append(p.parts, entryPart(c, serverFile, bin, mcpArgs))
		if project {
			p.parts = append(p.parts, ownedFile(filepath.Join(root, ".cursor", "rules", "stet.mdc"), "a rule Cursor always applies", cursorRule()))
		} else {
			p.parts = append(p.parts, onlyStetPart{text: "Cursor keeps user rules in its settings, not in a file: paste this line into Cursor Settings > Rules > User Rules (or run with --project for a rule in .cursor/rules/):\n\n  " + onlyStetLine})
		}
		p.notes = append(p.notes,
			"Cursor has no setting that turns its own edit tools off: the rule asks the model to use stet's tools, nothing enforces it.",
			"`stet setup cursor --hooks` is the way to guard Cursor's own edits (recorded after they land; reads of deny-read files refused).",
			shell("Cursor's terminal"))
	case "windsurf":
		p.parts = append(p.parts, entryPart(c, serverFile, bin, mcpArgs))
		if project {
			p.parts = append(p.parts, ownedFile(filepath.Join(root, ".windsurf", "rules", "stet.md"), "a workspace rule, always on", windsurfRule()))
		} else {
			p.parts = append(p.parts, linePart(filepath.Join(d.home, ".codeium", "windsurf", "memories", "global_rules.md"), "Windsurf's global rules"))
		}
		p.notes = append(p.notes,
			"Windsurf has no setting that turns Cascade's own file tools off, and no hooks stet can use: the rule asks the model to use stet's tools, nothing enforces it.",
			shell("Cascade's terminal"))
	case "claude-desktop":
		p.parts = append(p.parts, entryPart(c, serverFile, bin, mcpArgs))
		p.notes = append(p.notes,
			"stet setup knows no Claude Desktop setting for file tools of its own: the entry is all it writes. If you gave Claude Desktop another server or extension that changes files, remove that one.",
			"Where Claude Desktop runs commands, the shell stays, and shell writes bypass stet (`stet review` shows them as changed outside).")
	default:
		return nil, fmt.Errorf("stet setup --only-stet knows nothing of %s", c.title)
	}
	return p, nil
}

// ownedFile is a part for a file stet owns whole (a custom agent, a
// rule): written as content, replacing what is there.
func ownedFile(target, what, content string) onlyStetPart {
	return onlyStetPart{target: target, what: what, mg: merger{
		merge: func(old []byte) ([]byte, error) { return []byte(content), nil },
		where: "the whole file, stet's own", what: what,
	}}
}

// linePart is a part adding onlyStetLine to an instructions file.
func linePart(target, what string) onlyStetPart {
	return onlyStetPart{target: target, what: what, mg: merger{
		merge: func(old []byte) ([]byte, error) { return mergeLine(old, onlyStetLine), nil },
		where: "the line asking the model to use stet's tools, after what is there", what: "the stet line",
	}}
}

// mergeLine returns src with line added at its end, after a blank line,
// in src's line endings; unchanged when a line of src is line already.
func mergeLine(src []byte, line string) []byte {
	nl := "\n"
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		nl = "\r\n"
	}
	for _, l := range strings.Split(string(src), "\n") {
		if strings.TrimSpace(l) == line {
			return src
		}
	}
	out := append([]byte{}, src...)
	if len(bytes.TrimSpace(out)) > 0 {
		if !bytes.HasSuffix(out, []byte("\n")) {
			out = append(out, nl...)
		}
		out = append(out, nl...)
	}
	return append(out, line+nl...)
}

// vscodeAgent is the stet custom agent of VS Code: stet's tools only.
func vscodeAgent() string {
	return "---\nname: stet\ndescription: Reads and changes files through stet's guarded tools only\ntools: ['stet/*']\n---\n" + onlyStetLine + "\n"
}

// cursorRule is a Cursor project rule Cursor always applies.
func cursorRule() string {
	return "---\ndescription: Read and change files with stet's MCP tools\nalwaysApply: true\n---\n" + onlyStetLine + "\n"
}

// windsurfRule is a Windsurf workspace rule, always on.
func windsurfRule() string {
	return "---\ntrigger: always_on\n---\n" + onlyStetLine + "\n"
}

// claudeAddJSONLine is the `claude mcp add-json` command line for a
// scope: the stet entry with "alwaysLoad": true, which `claude mcp add`
// has no flag for.
func claudeAddJSONLine(scope, bin string, mcpArgs []string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	// Encoding strings and a bool cannot fail.
	_ = enc.Encode(struct {
		Type       string   `json:"type"`
		Command    string   `json:"command"`
		Args       []string `json:"args"`
		AlwaysLoad bool     `json:"alwaysLoad"`
	}{"stdio", bin, mcpArgs, true})
	return shellLine([]string{"claude", "mcp", "add-json", "--scope", scope, "stet", strings.TrimSuffix(b.String(), "\n")})
}

// mergeClaudeOnlyStet sets stet's part of Claude Code's settings in src:
// the denied tools and the allow of mcp__stet added to the user's lists
// (once), and the project's stet server approved (and taken off
// disabledMcpjsonServers, where an earlier "no" put it). It writes no
// ENABLE_TOOL_SEARCH (the stet entry's alwaysLoad loads stet's tools up
// front) and leaves one that is there alone.
func mergeClaudeOnlyStet(src []byte, project bool) ([]byte, error) {
	var err error
	if src, err = addJSONStrings(src, []string{"permissions"}, "deny", claudeDenied); err != nil {
		return nil, err
	}
	if src, err = addJSONStrings(src, []string{"permissions"}, "allow", []string{"mcp__stet"}); err != nil {
		return nil, err
	}
	if project {
		if src, err = addJSONStrings(src, nil, "enabledMcpjsonServers", []string{"stet"}); err != nil {
			return nil, err
		}
		if src, err = dropJSONString(src, nil, "disabledMcpjsonServers", "stet"); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// jsonArray returns the elements of the array member name of the object
// at path in src, and whether it is there.
func jsonArray(src []byte, path []string, name string) ([]json.RawMessage, bool, error) {
	var elems []json.RawMessage
	out, err := cfgedit.SetJSONArray(src, path, name, func(e json.RawMessage) bool {
		elems = append(elems, e)
		return true
	}, nil)
	if err != nil {
		return nil, false, err
	}
	// The array is there when keeping all of it changes nothing.
	return elems, bytes.Equal(out, src), nil
}

// jsonString is the string e holds, or "" with false.
func jsonString(e json.RawMessage) (string, bool) {
	var s string
	return s, json.Unmarshal(e, &s) == nil
}

// addJSONStrings returns src with the strings of add that the array member
// name (of the object at path) lacks appended to it, the array (and the
// objects on its path) created when missing; src itself when it has them
// all.
func addJSONStrings(src []byte, path []string, name string, add []string) ([]byte, error) {
	elems, exists, err := jsonArray(src, path, name)
	if err != nil {
		return nil, err
	}
	have := map[string]bool{}
	vals := make([]any, 0, len(elems)+len(add))
	for _, e := range elems {
		if s, ok := jsonString(e); ok {
			have[s] = true
		}
		vals = append(vals, e)
	}
	missing := false
	for _, s := range add {
		if !have[s] {
			have[s] = true
			vals = append(vals, s)
			missing = true
		}
	}
	if exists && !missing {
		return src, nil
	}
	return cfgedit.SetJSONMember(src, path, name, vals)
}

// dropJSONString returns src with the string s taken out of the array
// member name of the object at path; src itself when it is not there.
func dropJSONString(src []byte, path []string, name, s string) ([]byte, error) {
	elems, exists, err := jsonArray(src, path, name)
	if err != nil || !exists {
		return src, err
	}
	found := false
	for _, e := range elems {
		if v, ok := jsonString(e); ok && v == s {
			found = true
		}
	}
	if !found {
		return src, nil
	}
	return cfgedit.SetJSONArray(src, path, name, func(e json.RawMessage) bool {
		v, ok := jsonString(e)
		return !ok || v != s
	}, nil)
}

// zedProfile is the stet agent profile of Zed: Zed's file tools off,
// its other tools on, stet's tools on, the user's other MCP servers kept.
func zedProfile() cfgedit.Obj {
	var builtin, stetTools cfgedit.Obj
	for _, t := range zedFileTools {
		builtin = append(builtin, cfgedit.Member{Key: t, Val: false})
	}
	for _, t := range zedOtherTools {
		builtin = append(builtin, cfgedit.Member{Key: t, Val: true})
	}
	for _, t := range tools.Names(false) {
		stetTools = append(stetTools, cfgedit.Member{Key: t, Val: true})
	}
	return cfgedit.Obj{
		{Key: "name", Val: "Stet"},
		{Key: "tools", Val: builtin},
		{Key: "enable_all_context_servers", Val: true},
		{Key: "context_servers", Val: cfgedit.Obj{{Key: "stet", Val: cfgedit.Obj{{Key: "tools", Val: stetTools}}}}},
	}
}

// mergeZedOnlyStet sets stet's server, the stet profile and the default
// profile in Zed's settings src.
func mergeZedOnlyStet(c *client, src []byte, entry cfgedit.Obj) ([]byte, error) {
	src, err := c.merge(src, entry)
	if err != nil {
		return nil, err
	}
	if src, err = cfgedit.SetJSON(src, []string{"agent", "profiles"}, "stet", zedProfile()); err != nil {
		return nil, err
	}
	return cfgedit.SetJSONMember(src, []string{"agent"}, "default_profile", "stet")
}

// gooseDeveloper is Goose's developer extension, off, as Goose itself
// writes a platform extension's entry: for a config.yaml that has none
// (Goose turns developer on where its entry is missing).
var gooseDeveloper = cfgedit.Obj{
	{Key: "enabled", Val: false},
	{Key: "type", Val: "platform"},
	{Key: "name", Val: "developer"},
	{Key: "display_name", Val: "Developer"},
	{Key: "description", Val: "Write and edit files, and execute shell commands"},
	{Key: "bundled", Val: true},
}

// gooseLine is one line of a YAML file as gooseDeveloperOff reads it.
type gooseLine struct {
	start, end int // the line's offsets, its line break left out
	indent     int
	blank      bool   // empty, or a comment
	key        string // the key the line starts with, if any
	after      int    // where the key's value starts (after the colon)
}

// gooseLines splits src into lines and reads each one's key. src is a
// file cfgedit.SetYAML has read: block mappings only.
func gooseLines(src []byte) []gooseLine {
	var lines []gooseLine
	for off := 0; off < len(src); {
		end := bytes.IndexByte(src[off:], '\n')
		next := len(src)
		if end < 0 {
			end = len(src)
		} else {
			end += off
			next = end + 1
		}
		l := gooseLine{start: off, end: end, after: -1}
		if end > off && src[end-1] == '\r' {
			l.end--
		}
		text := string(src[off:l.end])
		for l.indent < len(text) && text[l.indent] == ' ' {
			l.indent++
		}
		rest := strings.TrimRight(text[l.indent:], " \t")
		l.blank = rest == "" || strings.HasPrefix(rest, "#")
		if !l.blank && !strings.HasPrefix(rest, "- ") && rest != "-" {
			key, n := rest, -1
			switch {
			case rest[0] == '"' || rest[0] == '\'':
				if i := strings.IndexByte(rest[1:], rest[0]); i >= 0 && strings.HasPrefix(rest[i+2:], ":") {
					key, n = rest[1:i+1], i+3
				}
			default:
				if i := strings.Index(rest, ": "); i > 0 {
					key, n = rest[:i], i+1
				} else if strings.HasSuffix(rest, ":") {
					key, n = rest[:len(rest)-1], len(rest)
				}
			}
			if n > 0 {
				l.key, l.after = strings.TrimRight(key, " "), off+l.indent+n
			}
		}
		lines = append(lines, l)
		off = next
	}
	return lines
}

// gooseDeveloperOff returns src with enabled: false on the developer entry
// under extensions: its enabled line changed in place (or added), every
// other byte kept; the whole entry written when there is none.
func gooseDeveloperOff(src []byte) ([]byte, error) {
	lines := gooseLines(src)
	nl := "\n"
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		nl = "\r\n"
	}
	whole := func() ([]byte, error) { return cfgedit.SetYAML(src, "extensions", "developer", gooseDeveloper) }
	sec := -1
	for i, l := range lines {
		if !l.blank && l.indent == 0 && l.key == "extensions" {
			sec = i
			break
		}
	}
	if sec < 0 {
		return whole()
	}
	// The entries of extensions: up to the next top-level line.
	end, child, dev := len(lines), -1, -1
	for i := sec + 1; i < len(lines); i++ {
		l := lines[i]
		if l.blank {
			continue
		}
		if l.indent == 0 {
			end = i
			break
		}
		if child < 0 {
			child = l.indent
		}
		if l.indent == child && l.key == "developer" {
			dev = i
		}
	}
	if dev < 0 {
		return whole()
	}
	d := lines[dev]
	if v := strings.TrimSpace(string(src[d.after:d.end])); v != "" && !strings.HasPrefix(v, "#") {
		return nil, &cfgedit.SyntaxError{Line: dev + 1, Col: d.indent + 1, Msg: "extensions.developer is written on one line (" + v + "); write enabled: false in it by hand"}
	}
	sub, enabled := -1, -1
	for i := dev + 1; i < end; i++ {
		l := lines[i]
		if l.blank {
			continue
		}
		if l.indent <= child {
			break
		}
		if sub < 0 {
			sub = l.indent
		}
		if l.indent == sub && l.key == "enabled" {
			enabled = i
		}
	}
	if sub < 0 {
		return whole()
	}
	var out []byte
	if enabled < 0 {
		at := d.end
		if at < len(src) {
			at = bytes.IndexByte(src[d.end:], '\n') + d.end + 1
		}
		out = append(out, src[:at]...)
		if at == len(src) && !bytes.HasSuffix(src, []byte("\n")) {
			out = append(out, nl...)
		}
		out = append(out, strings.Repeat(" ", sub)+"enabled: false"+nl...)
		return append(out, src[at:]...), nil
	}
	l := lines[enabled]
	val := string(src[l.after:l.end])
	body, comment := val, ""
	if i := strings.Index(val, " #"); i >= 0 {
		body, comment = val[:i], val[i:]
	}
	lead := len(body) - len(strings.TrimLeft(body, " "))
	token := strings.TrimRight(body[lead:], " ")
	if token == "false" {
		return src, nil
	}
	if lead == 0 {
		lead, body = 1, " "+body
	}
	out = append(out, src[:l.after]...)
	out = append(out, body[:lead]+"false"+body[lead+len(token):]+comment...)
	return append(out, src[l.end:]...), nil
}
