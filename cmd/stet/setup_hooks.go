package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/stet-dev/stet/hook"
	"github.com/stet-dev/stet/internal/cfgedit"
)

// hookSetup is where and how one client's hook configuration runs stet
// hook: a row per client of package hook.
type hookSetup struct {
	client, title string
	// userFile is the user's configuration file; projectFile the
	// project's, relative to the project directory ("" when none).
	userFile    func(d hostDirs) (string, error)
	projectFile string
	// events lists the hook events with the tools each one matches ("":
	// every call of the event).
	events []hookEvent
	// merge sets stet's hooks in the file: entries that run stet hook for
	// this client are replaced, everything else is kept.
	merge func(src []byte, command string, events []hookEvent) ([]byte, error)
	notes []string
}

// hookEvent is one event a client's configuration hooks stet into.
type hookEvent struct{ name, matcher string }

// claudeTools are Claude Code's built-in file tools stet's hooks watch.
const (
	claudeReadEdit = "Read|Edit|MultiEdit|Write|NotebookEdit"
	claudeEdits    = "Edit|MultiEdit|Write|NotebookEdit"
)

var hookSetups = []hookSetup{
	{
		client: "claude-code", title: "Claude Code",
		userFile:    inHome(".claude", "settings.json"),
		projectFile: filepath.Join(".claude", "settings.json"),
		events: []hookEvent{
			{"UserPromptSubmit", ""},
			{"PreToolUse", claudeReadEdit},
			{"PostToolUse", claudeReadEdit},
			{"PostToolUseFailure", claudeEdits},
		},
		merge: mergeMatcherHooks,
		notes: []string{
			"Claude Code reads the hooks at the start of a session: start a new one (or review them with /hooks).",
			shellNote,
		},
	},
	{
		client: "codex", title: "Codex",
		userFile: func(d hostDirs) (string, error) {
			if v := d.getenv("CODEX_HOME"); v != "" && filepath.IsAbs(v) {
				return filepath.Join(v, "hooks.json"), nil
			}
			return filepath.Join(d.home, ".codex", "hooks.json"), nil
		},
		projectFile: filepath.Join(".codex", "hooks.json"),
		events: []hookEvent{
			{"UserPromptSubmit", ""},
			{"PreToolUse", "^apply_patch$"},
			{"PostToolUse", "^apply_patch$"},
		},
		merge: mergeMatcherHooks,
		notes: []string{
			"Codex runs a hook only once you trust it: start codex, type /hooks and trust stet's three hooks (a one-off `codex exec` can pass --dangerously-bypass-hook-trust instead). A project's .codex/ hooks load only in a trusted project (`codex exec --trust`, or trust it when codex asks).",
			"Codex reads files through its shell, whose output no hook can take as a read: a patch's updated files count as read at the bytes its context lines match.",
			shellNote,
		},
	},
	{
		client: "gemini", title: "Gemini CLI",
		userFile:    inHome(".gemini", "settings.json"),
		projectFile: filepath.Join(".gemini", "settings.json"),
		events: []hookEvent{
			{"BeforeAgent", ""},
			{"BeforeTool", "read_file|write_file|replace"},
			{"AfterTool", "read_file|write_file|replace"},
		},
		merge: mergeMatcherHooks,
		notes: []string{
			"Gemini CLI runs a project's hooks only in a trusted folder (~/.gemini/trustedFolders.json).",
			shellNote,
		},
	},
	{
		client: "cursor", title: "Cursor",
		userFile:    inHome(".cursor", "hooks.json"),
		projectFile: filepath.Join(".cursor", "hooks.json"),
		events: []hookEvent{
			{"beforeSubmitPrompt", ""},
			{"beforeReadFile", ""},
			{"afterFileEdit", ""},
		},
		merge: mergeFlatHooks(cfgedit.Member{Key: "version", Val: 1}),
		notes: []string{
			"Cursor tells a hook of an edit only after it landed (afterFileEdit): stet records it, with the bytes before worked out from the edit, but cannot refuse it. Reads of deny-read files are refused.",
			shellNote,
		},
	},
	{
		client: "vscode", title: "VS Code",
		userFile:    inHome(".copilot", "hooks", "stet.json"),
		projectFile: filepath.Join(".github", "hooks", "stet.json"),
		events: []hookEvent{
			{"UserPromptSubmit", ""},
			{"PreToolUse", ""},
			{"PostToolUse", ""},
		},
		merge: mergeFlatHooks(),
		notes: []string{
			"VS Code runs the hooks of .github/hooks/ in a trusted workspace (setting chat.useHooks, on by default), every hook for every tool.",
			shellNote,
		},
	},
}

// shellNote says what no file hook sees.
const shellNote = "The shell is out of reach of any file hook: its writes show in `stet review` as changed outside."

// mergeFlatHooks merges hooks in the shape Cursor and VS Code share:
// {"hooks": {EVENT: [{"command": C}]}}, with top's members set at the top
// level first when they are missing (Cursor's "version": 1).
func mergeFlatHooks(top ...cfgedit.Member) func(src []byte, command string, events []hookEvent) ([]byte, error) {
	return func(src []byte, command string, events []hookEvent) ([]byte, error) {
		var err error
		for _, m := range top {
			var doc map[string]json.RawMessage
			if json.Unmarshal(src, &doc) == nil && doc[m.Key] != nil {
				continue
			}
			if src, err = cfgedit.SetJSONMember(src, nil, m.Key, m.Val); err != nil {
				return nil, err
			}
		}
		for _, ev := range events {
			entry := cfgedit.Obj{{Key: "type", Val: "command"}, {Key: "command", Val: command}, {Key: "timeout", Val: 15}}
			if src, err = cfgedit.SetJSONArray(src, []string{"hooks"}, ev.name, notStetHook, []cfgedit.Obj{entry}); err != nil {
				return nil, err
			}
		}
		return src, nil
	}
}

// findHookSetup returns the hook setup of the client called name.
func findHookSetup(name string) (*hookSetup, error) {
	for i := range hookSetups {
		if hookSetups[i].client == name {
			return &hookSetups[i], nil
		}
	}
	var names []string
	for _, h := range hookSetups {
		names = append(names, h.client)
	}
	return nil, usagef("stet setup --hooks knows %s, not %q", strings.Join(names, ", "), name)
}

// mergeMatcherHooks merges hooks in the shape Claude Code and Gemini CLI
// share: {"hooks": {EVENT: [{"matcher": M, "hooks": [{"type": "command",
// "command": C}]}]}}.
func mergeMatcherHooks(src []byte, command string, events []hookEvent) ([]byte, error) {
	var err error
	for _, ev := range events {
		entry := cfgedit.Obj{}
		if ev.matcher != "" {
			entry = append(entry, cfgedit.Member{Key: "matcher", Val: ev.matcher})
		}
		entry = append(entry, cfgedit.Member{Key: "hooks", Val: []any{cfgedit.Obj{{Key: "type", Val: "command"}, {Key: "command", Val: command}}}})
		if src, err = cfgedit.SetJSONArray(src, []string{"hooks"}, ev.name, notStetHook, []cfgedit.Obj{entry}); err != nil {
			return nil, err
		}
	}
	return src, nil
}

// notStetHook reports whether a hook entry of a configuration runs
// something other than stet hook: those are kept by a merge.
func notStetHook(elem json.RawMessage) bool {
	var e struct {
		Command string `json:"command"`
		Hooks   []struct {
			Command string `json:"command"`
		} `json:"hooks"`
	}
	if json.Unmarshal(elem, &e) != nil {
		return true
	}
	cmds := []string{e.Command}
	for _, h := range e.Hooks {
		cmds = append(cmds, h.Command)
	}
	for _, c := range cmds {
		if isStetHook(c) {
			return false
		}
	}
	return true
}

// isStetHook reports whether a hook command runs stet hook.
func isStetHook(command string) bool {
	f := strings.Fields(command)
	if len(f) < 3 {
		return false
	}
	bin := strings.ToLower(strings.Trim(f[0], `'"`))
	base := filepath.Base(strings.ReplaceAll(bin, `\`, "/"))
	return (base == "stet" || base == "stet.exe") && f[1] == "hook"
}

// hookCommand is the command a client runs for stet hook: this binary's
// absolute path (clients do not all inherit the shell's PATH), the client,
// the roots, the rules of this invocation's flags, and where it ships the
// journal (--sync).
func hookCommand(bin, client string, roots []string, g *globals, syncTo string) string {
	words := []string{bin, "hook", client}
	for _, r := range roots {
		words = append(words, "--root", r)
	}
	for _, p := range g.protect {
		words = append(words, "--protect", p)
	}
	for _, p := range g.denyRead {
		words = append(words, "--deny-read", p)
	}
	if g.noDefaultProtect {
		words = append(words, "--no-default-protect")
	}
	if g.effects != "" {
		words = append(words, "--effects", g.effects)
	}
	if g.binding != "" {
		words = append(words, "--binding", g.binding)
	}
	if g.state != "" {
		if abs, err := filepath.Abs(g.state); err == nil {
			words = append(words, "--state", abs)
		}
	}
	if syncTo != "" {
		words = append(words, "--sync", syncTo)
	}
	return shellLine(words)
}

// setupHooks prints, or with write merges, the hook configuration of a
// client.
func setupHooks(e *env, name string, project, write bool, file, syncTo string) error {
	h, err := findHookSetup(name)
	if err != nil {
		return err
	}
	if _, err := hook.Find(h.client); err != nil {
		return err
	}
	if project && h.projectFile == "" {
		return usagef("%s has no project hook file; drop --project", h.title)
	}
	if project && file != "" {
		return usagef("give --project or --config FILE, not both")
	}
	if _, err := e.g.options(); err != nil {
		return err
	}
	bin, d, roots, err := setupEnv(e)
	if err != nil {
		return err
	}
	target, err := configTarget(file, project, roots, d, h.title, h.projectFile, h.userFile)
	if err != nil {
		return err
	}
	command := hookCommand(bin, h.client, roots, e.g, syncTo)
	merge := func(old []byte) ([]byte, error) { return h.merge(old, command, h.events) }
	var evs []string
	for _, ev := range h.events {
		evs = append(evs, ev.name)
	}
	where := fmt.Sprintf("stet's hooks on %s, beside the hooks already there", strings.Join(evs, ", "))
	if write {
		return writeSetup(e, target, merger{merge: merge, where: where, what: "stet's hooks", notes: h.notes})
	}
	snippet, err := merge(nil)
	if err != nil {
		return err
	}
	w := e.stdout
	fmt.Fprintf(w, "%s hooks (%s): put this in\n  %s\n(%s):\n\n", h.title, runtime.GOOS, target, where)
	w.Write(snippet)
	fmt.Fprintln(w)
	for _, n := range h.notes {
		fmt.Fprintln(w, n)
	}
	fmt.Fprintf(w, "Or let stet merge it, keeping everything else in the file: add --write to this command.\n")
	return nil
}
