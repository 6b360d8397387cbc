package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

// hookEvents are the Claude Code hook events the capture records.
var hookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse",
	"PostToolUseFailure", "PostToolBatch", "Stop", "SessionEnd"}

// teeHooks writes proj/.claude/settings.json with a hook for every event
// of hookEvents that saves its stdin in dir, one file per call, named so
// that they sort in the order of the calls, then runs the shell commands
// of also with the saved file as $f (a test changes the world between
// Claude Code's PreToolUse and its tool with it).
func teeHooks(t *testing.T, h *home, dir, also string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := `f="` + dir + `/$(date +%s%N)-$$.json"; cat > "$f"`
	if also != "" {
		cmd += "; " + also
	}
	hooks := map[string]any{}
	for _, ev := range hookEvents {
		entry := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}
		switch ev {
		case "PreToolUse", "PostToolUse", "PostToolUseFailure", "PermissionRequest":
			entry["matcher"] = "*"
		}
		hooks[ev] = []any{entry}
	}
	b, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	h.put(filepath.Join(h.proj, ".claude", "settings.json"), string(b)+"\n")
}

// captured is one hook call the tee hooks saved.
type captured struct {
	Event, Tool, ToolUseID string
	Raw                    []byte
}

func readCaptured(t *testing.T, dir string) []captured {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	names := make([]string, 0, len(ents))
	for _, e := range ents {
		names = append(names, e.Name())
	}
	sort.Strings(names)
	var out []captured
	for _, n := range names {
		b, err := os.ReadFile(filepath.Join(dir, n))
		if err != nil {
			t.Fatal(err)
		}
		var p struct {
			Event     string `json:"hook_event_name"`
			Tool      string `json:"tool_name"`
			ToolUseID string `json:"tool_use_id"`
		}
		if err := json.Unmarshal(b, &p); err != nil {
			t.Errorf("hook payload %s is not JSON: %v\n%s", n, err, b)
			continue
		}
		out = append(out, captured{p.Event, p.Tool, p.ToolUseID, b})
	}
	return out
}

const fixtureSession = "5e7e7e57-0000-4000-8000-00000000c1a5"

// TestClaudeCodeHookPayloads runs Claude Code with hooks that save what
// they get, over a script of Read, Edit, Write, MultiEdit and
// NotebookEdit calls, and compares the payloads with the fixtures in
// testdata/hooks/claude-code (the shape: the keys, recursively). With
// STET_CAPTURE_HOOKS=1 it writes the fixtures instead, the machine's paths
// replaced with /PROJECT and /HOME.
func TestClaudeCodeHookPayloads(t *testing.T) {
	claudeBin := claudeCLI(t)
	h := newHome(t)
	capDir := filepath.Join(h.dir, "captured")
	// An Edit of vanish.txt and a Write under gone/ fail in the tool: the
	// PreToolUse hook changes the file, and replaces the folder by a file.
	teeHooks(t, h, capDir, `if grep -q '"hook_event_name":"PreToolUse"' "$f"; then `+
		`if grep -q '"tool_name":"Edit","tool_input":{"file_path":"[^"]*/vanish.txt"' "$f"; then echo other > vanish.txt; fi; `+
		`if grep -q 'gone/new.txt' "$f"; then rm -r gone && echo file > gone; fi; fi`)
	notes := filepath.Join(h.proj, "notes.txt")
	big := filepath.Join(h.proj, "big.txt")
	sales := filepath.Join(h.proj, "sales.csv")
	created := filepath.Join(h.proj, "new.txt")
	nb := filepath.Join(h.proj, "nb.ipynb")
	stale := filepath.Join(h.proj, "stale.txt")
	vanish := filepath.Join(h.proj, "vanish.txt")
	h.put(stale, "old\n")
	h.put(vanish, "old\n")
	h.put(filepath.Join(h.proj, "gone", "keep.txt"), "kept\n")
	h.put(notes, "alpha\nbeta\ngamma\nbeta\n")
	h.put(big, "one\ntwo\nthree\nfour\nfive\nsix\nseven\n")
	h.put(sales, "region,total\nnorth,10\nsouth,20\n")
	h.put(nb, `{"cells":[{"cell_type":"code","execution_count":null,"id":"c1","metadata":{},"outputs":[],"source":["print(1)"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}`+"\n")

	// label names the fixture of each step's tool call.
	label := map[int]string{}
	var script []step
	add := func(name string, s step) {
		if name != "" {
			label[len(script)] = name
		}
		script = append(script, s)
	}
	add("Read", useTool("Read", map[string]any{"file_path": notes}))
	add("Read-window", useTool("Read", map[string]any{"file_path": big, "offset": 2, "limit": 3}))
	add("Edit", useTool("Edit", map[string]any{"file_path": notes, "old_string": "alpha", "new_string": "ALPHA"}))
	add("Edit-replace_all", useTool("Edit", map[string]any{"file_path": notes, "old_string": "beta", "new_string": "BETA", "replace_all": true}))
	add("Edit-not-found", useTool("Edit", map[string]any{"file_path": notes, "old_string": "no such text", "new_string": "x"}))
	add("Write-create", useTool("Write", map[string]any{"file_path": created, "content": "brand new\n"}))
	add("", useTool("Read", map[string]any{"file_path": sales}))
	add("Write", useTool("Write", map[string]any{"file_path": sales, "content": "region,total\nnorth,11\nsouth,22\n"}))
	multiEdit := len(script)
	add("MultiEdit", useTool("MultiEdit", map[string]any{"file_path": notes, "edits": []any{map[string]any{"old_string": "gamma", "new_string": "GAMMA"}}}))
	add("", useTool("ToolSearch", map[string]any{"query": "select:NotebookEdit"}))
	add("", useTool("Read", map[string]any{"file_path": nb}))
	add("NotebookEdit", useTool("NotebookEdit", map[string]any{"notebook_path": nb, "cell_id": "c1", "new_source": "print(2)"}))
	add("", useTool("Read", map[string]any{"file_path": vanish}))
	add("Edit-fails", useTool("Edit", map[string]any{"file_path": vanish, "old_string": "old", "new_string": "new"}))
	add("Write-fails", useTool("Write", map[string]any{"file_path": filepath.Join(h.proj, "gone", "new.txt"), "content": "x\n"}))
	add("Read-missing", useTool("Read", map[string]any{"file_path": filepath.Join(h.proj, "missing.txt")}))
	add("Edit-outside-window", useTool("Edit", map[string]any{"file_path": big, "old_string": "seven", "new_string": "SEVEN"}))
	add("", useTool("Read", map[string]any{"file_path": stale}))
	s := useTool("Edit", map[string]any{"file_path": stale, "old_string": "old", "new_string": "mine"})
	s.before = func() { h.put(stale, "old, changed by someone else\n") }
	add("Edit-stale", s)
	add("", say("Updated the files."))
	f := newFakeModel(t, script...)

	prompt := "Update sales.csv with the new totals"
	run := runClaude(t, claudeBin, h, f, fixtureSession, prompt)
	t.Logf("claude: is_error %v, %d turns, result %q", run.IsError, run.NumTurns, run.Result)
	for i, s := range script {
		if s.tool == "" {
			continue
		}
		r, ok := f.result(i)
		t.Logf("step %d %s: sent %v; result %v: is_error %v: %.300q", i, s.tool, s.input, ok, r.IsError, r.Text)
	}
	// What Claude Code does on its own, which stet's hooks are there for.
	if r, _ := f.result(multiEdit); !strings.Contains(r.Text, "No such tool available: MultiEdit") {
		t.Errorf("Claude Code has a MultiEdit tool again (%q): record its payloads", r.Text)
	}
	if got := h.get(stale); got != "mine, changed by someone else\n" {
		t.Errorf("stale.txt = %q: Claude Code no longer applies an Edit of a file changed since its Read", got)
	}
	if got := h.get(big); !strings.Contains(got, "SEVEN") {
		t.Errorf("big.txt = %q: Claude Code no longer applies an Edit outside the window its Read showed", got)
	}

	// The fixtures: one per event and step label, the first call of each.
	fixtures := map[string][]byte{}
	byID := map[string]int{}
	for i := range script {
		byID[toolUseID(i)] = i
	}
	for _, c := range readCaptured(t, capDir) {
		name := c.Event
		if c.ToolUseID != "" {
			i, ok := byID[c.ToolUseID]
			if !ok || label[i] == "" {
				continue
			}
			name += "-" + label[i]
		} else if c.Tool != "" {
			name += "-" + c.Tool
		}
		t.Logf("hook %s (%s)", name, c.ToolUseID)
		if _, dup := fixtures[name]; !dup {
			fixtures[name] = placeholders(t, h, c.Raw)
		}
	}
	dir := filepath.Join("testdata", "hooks", "claude-code")
	if os.Getenv("STET_CAPTURE_HOOKS") == "1" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, b := range fixtures {
			if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %d fixtures in %s", len(fixtures), dir)
		return
	}
	old, err := filepath.Glob(filepath.Join(dir, "*.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range old {
		if name := strings.TrimSuffix(filepath.Base(p), ".json"); fixtures[name] == nil {
			t.Errorf("Claude Code sent no %s hook payload this time (fixture %s)", name, p)
		}
	}
	for name, got := range fixtures {
		want, err := os.ReadFile(filepath.Join(dir, name+".json"))
		if err != nil {
			t.Errorf("Claude Code sent a %s hook payload that has no fixture (%v); STET_CAPTURE_HOOKS=1 records it:\n%s", name, err, got)
			continue
		}
		if g, w := jsonShape(t, got), jsonShape(t, want); g != w {
			t.Errorf("the %s hook payload is no longer shaped as its fixture (STET_CAPTURE_HOOKS=1 records it again):\ngot  %s\nwant %s", name, g, w)
		}
	}
}

// placeholders is a hook payload with the test's paths replaced by
// /PROJECT and /HOME (also in the form Claude Code names its transcript
// folder with), indented.
func placeholders(t *testing.T, h *home, raw []byte) []byte {
	t.Helper()
	s := string(raw)
	mangle := func(p string) string {
		return strings.Map(func(r rune) rune {
			if r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
				return r
			}
			return '-'
		}, p)
	}
	s = strings.ReplaceAll(s, mangle(h.proj), "-PROJECT")
	s = strings.ReplaceAll(s, h.proj, "/PROJECT")
	s = strings.ReplaceAll(s, h.dir, "/HOME")
	var buf bytes.Buffer
	if err := json.Indent(&buf, []byte(s), "", "  "); err != nil {
		t.Fatalf("hook payload: %v\n%s", err, s)
	}
	buf.WriteByte('\n')
	return buf.Bytes()
}

// jsonShape is the sorted list of the key paths of a JSON document, with
// the type of each leaf.
func jsonShape(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var paths []string
	var walk func(p string, v any)
	walk = func(p string, v any) {
		switch v := v.(type) {
		case map[string]any:
			for k, e := range v {
				walk(p+"."+k, e)
			}
		case []any:
			for _, e := range v {
				walk(p+"[]", e)
			}
		case string:
			paths = append(paths, p+":string")
		case float64:
			paths = append(paths, p+":number")
		case bool:
			paths = append(paths, p+":bool")
		case nil:
			paths = append(paths, p+":null")
		}
	}
	walk("", v)
	sort.Strings(paths)
	return strings.Join(slices.Compact(paths), " ")
}

// hookRig is one project guarded by the hooks `stet setup claude-code
// --hooks` writes, and the Claude Code runs in it.
type hookRig struct {
	t         *testing.T
	h         *home
	claudeBin string
	sid       string // Claude Code's session id
	debug     string // Claude Code's debug log (its hook lines)
}

// newHookRig makes a home with files in its project, and writes stet's
// hooks into the project's .claude/settings.json as a user would, with
// stet setup claude-code --hooks --project --write and flags.
func newHookRig(t *testing.T, claudeBin string, files map[string]string, flags ...string) *hookRig {
	t.Helper()
	h := newHome(t)
	for name, content := range files {
		h.put(filepath.Join(h.proj, name), content)
	}
	args := append([]string{"setup", "claude-code", "--hooks", "--project", "--write", "--root", h.proj}, flags...)
	code, out, errOut := h.run("", args...)
	if code != 0 {
		t.Fatalf("stet %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	settings := filepath.Join(h.proj, ".claude", "settings.json")
	b, err := os.ReadFile(settings)
	if err != nil {
		t.Fatalf("stet setup claude-code --hooks --project --write wrote no %s: %v\n%s", settings, err, out)
	}
	if !strings.Contains(string(b), "hook claude-code") || !strings.Contains(string(b), binPath(t)) {
		t.Fatalf("%s does not run %s hook claude-code:\n%s", settings, binPath(t), b)
	}
	r := &hookRig{t: t, h: h, claudeBin: claudeBin, sid: newUUID(t), debug: filepath.Join(h.dir, "claude-debug.log")}
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		t.Logf("%s:\n%s", settings, b)
		// What the hooks said, from Claude Code's debug log.
		if d, err := os.ReadFile(r.debug); err == nil {
			var lines []string
			for _, l := range strings.Split(string(d), "\n") {
				if strings.Contains(l, "] Hook") || strings.Contains(l, "Hooks:") || strings.Contains(l, "\"Hook ") {
					lines = append(lines, l)
				}
			}
			t.Logf("Claude Code's hook log:\n%s", strings.Join(lines, "\n"))
		}
	})
	return r
}

func (r *hookRig) path(name string) string { return filepath.Join(r.h.proj, name) }

// session is the stet session of the Claude Code session.
func (r *hookRig) session() string { return "claude-code-" + r.sid }

// claude runs `claude -p prompt` against the script, and checks it
// played to its final text.
func (r *hookRig) claude(prompt string, script ...step) *fakeModel {
	r.t.Helper()
	f := newFakeModel(r.t, script...)
	run := runClaude(r.t, r.claudeBin, r.h, f, r.sid, prompt, "--debug-file", r.debug, "--debug", "hooks")
	last := script[len(script)-1]
	if run.IsError || run.Result != last.text {
		r.t.Errorf("claude -p %q ended with is_error %v, result %q; want the script's last words %q\n%s", prompt, run.IsError, run.Result, last.text, run.Output)
	}
	return f
}

// refused checks a tool result is stet's refusal holding words.
func refused(t *testing.T, what string, res toolResult, words ...string) {
	t.Helper()
	t.Logf("%s: the model saw is_error %v: %s", what, res.IsError, res.Text)
	if !res.IsError || !strings.Contains(res.Text, "refused:") {
		t.Errorf("%s: the model saw is_error %v, %q; want stet's refusal (is_error, \"refused: ...\")", what, res.IsError, res.Text)
		return
	}
	for _, w := range words {
		if !strings.Contains(res.Text, w) {
			t.Errorf("%s: stet's refusal %q does not say %q", what, res.Text, w)
		}
	}
}

// logEntry is one receipt stet log --json lists.
type logEntry struct {
	Receipt struct {
		ID, Session, Tool, Path string
		Before, After           *struct{ Version string }
		Verified                bool
		Notes                   []string
	}
	Undone bool
}

func (e logEntry) String() string {
	r := e.Receipt
	return fmt.Sprintf("%s %s %s %s verified=%v undone=%v %q", r.ID, r.Session, r.Tool, r.Path, r.Verified, e.Undone, r.Notes)
}

// receipts is what stet log --json lists (of path, when not "").
func (r *hookRig) receipts(path string) []logEntry {
	r.t.Helper()
	args := []string{"log", "--root", r.h.proj, "--json"}
	if path != "" {
		args = append(args, "--path", path)
	}
	code, out, errOut := r.h.run("", args...)
	if code != 0 {
		r.t.Fatalf("stet %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	var v struct{ Receipts []logEntry }
	if err := json.Unmarshal([]byte(out), &v); err != nil {
		r.t.Fatalf("stet log --json: %v\n%s", err, out)
	}
	return v.Receipts
}

// noReceipt checks the journal holds no receipt of name.
func (r *hookRig) noReceipt(name string) {
	r.t.Helper()
	if rs := r.receipts(name); len(rs) != 0 {
		r.t.Errorf("stet log lists %d receipts of %s, want none (the change was refused): %v", len(rs), name, rs)
	}
}

// review starts stet review on the project and returns a getter of its
// API; the server stops with the test.
func (r *hookRig) review() func(api string) []byte {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	cmd := exec.CommandContext(ctx, bin, "review", "--root", r.h.proj, "--addr", "127.0.0.1:0")
	cmd.Dir, cmd.Env = r.h.proj, r.h.env
	cmd.Cancel = func() error { return cmd.Process.Signal(os.Interrupt) }
	cmd.WaitDelay = 5 * time.Second
	var errb bytes.Buffer
	cmd.Stderr = &errb
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		r.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		r.t.Fatal(err)
	}
	r.t.Cleanup(func() {
		cancel()
		cmd.Wait()
	})
	line, err := bufio.NewReader(stdout).ReadString('\n')
	addr, ok := strings.CutPrefix(strings.TrimSpace(line), "stet review: ")
	if err != nil || !ok {
		cmd.Process.Kill()
		cmd.Wait()
		r.t.Fatalf("stet review printed %q (%v), want its address\n%s", line, err, errb.String())
	}
	u, err := url.Parse(addr)
	if err != nil {
		r.t.Fatalf("stet review's address %q: %v", addr, err)
	}
	tok := u.Query().Get("t")
	client := &http.Client{Timeout: 30 * time.Second}
	return func(api string) []byte {
		r.t.Helper()
		sep := "?"
		if strings.Contains(api, "?") {
			sep = "&"
		}
		resp, err := client.Get(u.Scheme + "://" + u.Host + api + sep + "t=" + url.QueryEscape(tok))
		if err != nil {
			r.t.Fatalf("review %s: %v", api, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != http.StatusOK {
			r.t.Fatalf("review %s: %s\n%s", api, resp.Status, b)
		}
		return b
	}
}

// refusals is what the review API lists of the session's refusals.
func (r *hookRig) refusals() []stet.RefusalEntry {
	r.t.Helper()
	b := r.review()("/api/refusals?session=" + url.QueryEscape(r.session()))
	var groups []stet.RefusalGroup
	if err := json.Unmarshal(b, &groups); err != nil {
		r.t.Fatalf("review /api/refusals: %v\n%s", err, b)
	}
	var out []stet.RefusalEntry
	for _, g := range groups {
		out = append(out, g.Refusals...)
	}
	return out
}

// journaledRefusal checks the journal holds the session's refusal of
// name, of kind (any kind when "").
func (r *hookRig) journaledRefusal(name, kind string) {
	r.t.Helper()
	refs := r.refusals()
	for _, ref := range refs {
		if filepath.Base(ref.Path) == name && (kind == "" || ref.Kind == kind) {
			return
		}
	}
	r.t.Errorf("the review API lists no %q refusal of %s in session %s (over the CLI and MCP a refused call is journaled): %+v", kind, name, r.session(), refs)
}

// TestClaudeCodeHooks runs the real Claude Code CLI, driven by a scripted
// model, in a project whose .claude/settings.json holds the hooks stet
// setup claude-code --hooks wrote: Claude Code's own Read, Edit and Write
// pass stet's rules, a refusal reaches the model as the tool's error, and
// a change that lands has its receipt, its undo and its place in review.
func TestClaudeCodeHooks(t *testing.T) {
	claudeBin := claudeCLI(t)

	t.Run("protected", func(t *testing.T) {
		const orig = "do not touch\n"
		r := newHookRig(t, claudeBin, map[string]string{"locked.txt": orig}, "--protect", "locked.txt")
		file := r.path("locked.txt")
		f := r.claude("Fix the typo in locked.txt",
			useTool("Read", map[string]any{"file_path": file}),
			useTool("Edit", map[string]any{"file_path": file, "old_string": "touch", "new_string": "change"}),
			say("I could not edit it."))
		refused(t, "an Edit of a --protect file", f.mustResult(1), "protected")
		if got := r.h.get(file); got != orig {
			t.Errorf("locked.txt = %q after a refused Edit, want %q", got, orig)
		}
		r.noReceipt("locked.txt")
		r.journaledRefusal("locked.txt", "protected")
	})

	t.Run("input-guard", func(t *testing.T) {
		const orig = "region,total\nnorth,10\nsouth,20\n"
		r := newHookRig(t, claudeBin, map[string]string{"sales.csv": orig})
		file := r.path("sales.csv")
		f := r.claude("Update sales.csv with the new totals",
			useTool("Read", map[string]any{"file_path": file}),
			useTool("Write", map[string]any{"file_path": file, "content": "total\n30\n"}),
			say("I could not write it."))
		if res := f.mustResult(0); res.IsError || !strings.Contains(res.Text, "north,10") {
			t.Errorf("the Read of sales.csv: %+v, want its lines", res)
		}
		refused(t, "a Write over the file the request names", f.mustResult(1), "input the request names")
		if got := r.h.get(file); got != orig {
			t.Errorf("sales.csv = %q after a refused Write, want %q", got, orig)
		}
		r.noReceipt("sales.csv")
		r.journaledRefusal("sales.csv", "input")
	})

	t.Run("changed-since-read", func(t *testing.T) {
		// Claude Code 2.1.332 itself lets this Edit land (it says "the file
		// had been modified on disk since you last read it — the edit
		// applied cleanly"), so only stet's refusal keeps their bytes.
		const theirs = "one\ntwo\nthree, written by someone else\n"
		r := newHookRig(t, claudeBin, map[string]string{"a.txt": "one\ntwo\n"})
		file := r.path("a.txt")
		edit := useTool("Edit", map[string]any{"file_path": file, "old_string": "two", "new_string": "TWO"})
		edit.before = func() { r.h.put(file, theirs) }
		f := r.claude("Capitalize two in a.txt",
			useTool("Read", map[string]any{"file_path": file}),
			edit,
			say("The file changed under me."))
		refused(t, "an Edit of a file changed since its Read", f.mustResult(1), "changed")
		if got := r.h.get(file); got != theirs {
			t.Errorf("a.txt = %q after the Edit, want what was written after the Read, %q", got, theirs)
		}
		r.noReceipt("a.txt")
		r.journaledRefusal("a.txt", "changed")
	})

	t.Run("sync", func(t *testing.T) {
		// Hooks set up with --sync, as a user would, inside Claude Code:
		// with the database down every edit lands all the same and the
		// failure is kept in the state directory's sync.log; with it up
		// the change is shipped.
		const orig = "alpha\nbeta\ngamma\n"
		down := newHookRig(t, claudeBin, map[string]string{"b.txt": orig}, "--sync", "postgres://nobody@127.0.0.1:1/none?connect_timeout=5")
		file := down.path("b.txt")
		f := down.claude("Capitalize beta, then gamma, in b.txt",
			useTool("Read", map[string]any{"file_path": file}),
			useTool("Edit", map[string]any{"file_path": file, "old_string": "beta", "new_string": "BETA"}),
			useTool("Edit", map[string]any{"file_path": file, "old_string": "gamma", "new_string": "GAMMA"}),
			say("Done."))
		for i := 1; i <= 2; i++ {
			if res := f.mustResult(i); res.IsError {
				t.Errorf("edit %d with the database down: the model saw an error: %q", i, res.Text)
			}
		}
		if got := down.h.get(file); got != "alpha\nBETA\nGAMMA\n" {
			t.Fatalf("b.txt = %q after two Edits with the database down", got)
		}
		if rs := down.receipts("b.txt"); len(rs) != 2 {
			t.Errorf("stet log --path b.txt: %v; want two receipts", rs)
		}
		logs := findFiles(t, down.h.dir, "sync.log")
		deadline := time.Now().Add(30 * time.Second)
		for !anyHolds(logs, "cannot reach PostgreSQL") && time.Now().Before(deadline) {
			time.Sleep(50 * time.Millisecond)
			logs = findFiles(t, down.h.dir, "sync.log")
		}
		if !anyHolds(logs, "cannot reach PostgreSQL") {
			t.Errorf("no sync.log under the home says the database could not be reached: %q", logs)
		}

		// Claude Code takes the hooks' report as a success's stderr (its
		// debug log), not as something for the model.
		if d, err := os.ReadFile(down.debug); err != nil || !strings.Contains(string(d), `success:\nstderr:\nstet hook claude-code: the last background sync failed`) {
			t.Errorf("Claude Code's debug log does not show a hook reporting the failed sync as a success's stderr (%v)", err)
		}
		db := newFleetDB(t, newWS(t, nil))
		up := newHookRig(t, claudeBin, map[string]string{"b.txt": orig}, "--sync", db.url("host_a"))
		file = up.path("b.txt")
		up.claude("Change beta to BETA in b.txt",
			useTool("Read", map[string]any{"file_path": file}),
			useTool("Edit", map[string]any{"file_path": file, "old_string": "beta", "new_string": "BETA"}),
			say("Done."))
		deadline = time.Now().Add(30 * time.Second)
		for db.count(t, "SELECT count(*) FROM stet.records WHERE type = 'receipt' AND tool = 'Edit'") != 1 {
			if time.Now().After(deadline) {
				t.Fatal("the Edit's receipt was not shipped in 30 s")
			}
			time.Sleep(50 * time.Millisecond)
		}
	})

	t.Run("edit-lands", func(t *testing.T) {
		const orig = "alpha\nbeta\ngamma\n"
		r := newHookRig(t, claudeBin, map[string]string{"b.txt": orig})
		file := r.path("b.txt")
		f := r.claude("Change beta to BETA in b.txt",
			useTool("Read", map[string]any{"file_path": file}),
			useTool("Edit", map[string]any{"file_path": file, "old_string": "beta", "new_string": "BETA"}),
			say("Done."))
		if res := f.mustResult(1); res.IsError {
			t.Errorf("the Edit: the model saw an error: %q", res.Text)
		}
		const want = "alpha\nBETA\ngamma\n"
		if got := r.h.get(file); got != want {
			t.Fatalf("b.txt = %q after the Edit, want %q", got, want)
		}
		rs := r.receipts("b.txt")
		if len(rs) != 1 || rs[0].Receipt.Tool != "Edit" || !rs[0].Receipt.Verified || rs[0].Receipt.Session != r.session() {
			t.Errorf("stet log --path b.txt: %v; want one verified receipt of tool Edit in session %s", rs, r.session())
		}

		// The review API lists the session and its change.
		get := r.review()
		var sessions []stet.SessionView
		if b := get("/api/sessions"); json.Unmarshal(b, &sessions) != nil {
			t.Fatalf("review /api/sessions: %s", b)
		}
		var found bool
		for _, s := range sessions {
			if s.ID != r.session() {
				continue
			}
			for _, fc := range s.Files {
				found = found || fc.Path == "b.txt" && fc.Added == 1 && fc.Removed == 1
			}
		}
		if !found {
			t.Errorf("review /api/sessions lists no session %s changing b.txt +1 -1: %+v", r.session(), sessions)
		}
		var page stet.DiffPage
		if b := get("/api/diff?offset=0&session=" + url.QueryEscape(r.session())); json.Unmarshal(b, &page) != nil {
			t.Fatalf("review /api/diff: %s", b)
		}
		if len(page.Files) != 1 || page.Files[0].Path != "b.txt" || !strings.Contains(page.Files[0].Diff, "-beta\n+BETA") {
			t.Errorf("review /api/diff of session %s: %+v; want b.txt's -beta +BETA", r.session(), page)
		}

		// stet undo takes it back.
		code, out, errOut := r.h.run("", "undo", "--root", r.h.proj, "--session", r.session(), "b.txt")
		if code != 0 {
			t.Fatalf("stet undo --session %s b.txt: exit %d\n%s%s", r.session(), code, out, errOut)
		}
		if got := r.h.get(file); got != orig {
			t.Errorf("b.txt = %q after stet undo, want the original %q", got, orig)
		}
	})

	t.Run("outside-read-window", func(t *testing.T) {
		// Claude Code lets this Edit land: it counts a windowed Read as a
		// read of the file. stet counts the lines the window showed.
		const orig = "one\ntwo\nthree\nfour\nfive\nsix\nseven\n"
		r := newHookRig(t, claudeBin, map[string]string{"big.txt": orig})
		file := r.path("big.txt")
		f := r.claude("Capitalize seven in big.txt",
			useTool("Read", map[string]any{"file_path": file, "offset": 2, "limit": 3}),
			useTool("Edit", map[string]any{"file_path": file, "old_string": "seven", "new_string": "SEVEN"}),
			say("I must read more first."))
		if res := f.mustResult(0); res.IsError || !strings.Contains(res.Text, "three") || strings.Contains(res.Text, "seven") {
			t.Errorf("the windowed Read: %+v, want lines 2-4 only", res)
		}
		refused(t, "an Edit of a line the Read's window did not show", f.mustResult(1), "offset")
		if got := r.h.get(file); got != orig {
			t.Errorf("big.txt = %q after the Edit, want it unchanged", got)
		}
		r.noReceipt("big.txt")
		r.journaledRefusal("big.txt", "not_seen")
	})

	t.Run("write-create", func(t *testing.T) {
		// A create needs its folder listed in the session (SPEC section 4,
		// rule 5), and nothing Claude Code does lists one for stet: the
		// first Write is refused with the listing, which counts as listed,
		// and the same Write again lands.
		r := newHookRig(t, claudeBin, map[string]string{"keep.txt": "kept\n"})
		file := r.path("new.txt")
		write := useTool("Write", map[string]any{"file_path": file, "content": "brand new\n"})
		f := r.claude("Create new.txt", write, write, say("Created."))
		refused(t, "a Write creating a file in a folder not listed", f.mustResult(0), "listed", "keep.txt")
		if res := f.mustResult(1); res.IsError {
			t.Errorf("the Write again: the model saw an error: %q", res.Text)
		}
		if got, err := os.ReadFile(file); err != nil || string(got) != "brand new\n" {
			t.Errorf("new.txt = %q (%v), want the Write's content", got, err)
		}
		rs := r.receipts("new.txt")
		if len(rs) != 1 || rs[0].Receipt.Tool != "Write" || !rs[0].Receipt.Verified || rs[0].Receipt.Before != nil {
			t.Errorf("stet log --path new.txt: %v; want one verified receipt of tool Write creating it", rs)
		}
	})

	t.Run("notebook-edit", func(t *testing.T) {
		// NotebookEdit is deferred behind ToolSearch in Claude Code 2.1.332.
		const orig = `{"cells":[{"cell_type":"code","execution_count":null,"id":"c1","metadata":{},"outputs":[],"source":["print(1)"]}],"metadata":{},"nbformat":4,"nbformat_minor":5}` + "\n"
		r := newHookRig(t, claudeBin, map[string]string{"nb.ipynb": orig})
		file := r.path("nb.ipynb")
		f := r.claude("Make the cell print 2",
			useTool("ToolSearch", map[string]any{"query": "select:NotebookEdit"}),
			useTool("Read", map[string]any{"file_path": file}),
			useTool("NotebookEdit", map[string]any{"notebook_path": file, "cell_id": "c1", "new_source": "print(2)"}),
			say("Done."))
		if res := f.mustResult(2); res.IsError {
			t.Errorf("the NotebookEdit: the model saw an error: %q", res.Text)
		}
		if got := r.h.get(file); !strings.Contains(got, "print(2)") {
			t.Fatalf("nb.ipynb = %q after the NotebookEdit, want print(2) in it", got)
		}
		// Claude Code rewrites the whole notebook (it indents the JSON):
		// stet records what the file holds, unverified (SPEC section 10).
		rs := r.receipts("nb.ipynb")
		if len(rs) != 1 || rs[0].Receipt.Tool != "NotebookEdit" || rs[0].Receipt.Session != r.session() || rs[0].Receipt.Before == nil {
			t.Fatalf("stet log --path nb.ipynb: %v; want one receipt of tool NotebookEdit in session %s", rs, r.session())
		}
	})

	t.Run("failed-edit", func(t *testing.T) {
		// Another writer changes the file after stet's PreToolUse hook let
		// the Edit through and before Claude Code runs it (the hook command
		// is wrapped to do that, once, when the test arms it): Claude Code's
		// Edit fails ("File content has changed since it was last read")
		// and says so in PostToolUseFailure. The failed call leaves no
		// receipt: the other writer's bytes are not the Edit's.
		r := newHookRig(t, claudeBin, map[string]string{"v.txt": "old\n"})
		file := r.path("v.txt")
		arm := filepath.Join(r.h.dir, "arm")
		settings := filepath.Join(r.h.proj, ".claude", "settings.json")
		var cfg map[string]any
		if err := json.Unmarshal([]byte(r.h.get(settings)), &cfg); err != nil {
			t.Fatal(err)
		}
		wrapped := 0
		pre, _ := cfg["hooks"].(map[string]any)["PreToolUse"].([]any)
		for _, m := range pre {
			hooks, _ := m.(map[string]any)["hooks"].([]any)
			for _, hk := range hooks {
				hk := hk.(map[string]any)
				if cmd, ok := hk["command"].(string); ok && strings.Contains(cmd, "hook claude-code") {
					hk["command"] = cmd + `; rc=$?; if [ -f "` + arm + `" ]; then rm "` + arm + `"; echo theirs > "` + file + `"; fi; exit $rc`
					wrapped++
				}
			}
		}
		if wrapped != 1 {
			t.Fatalf("%d PreToolUse hooks run stet hook claude-code, want 1:\n%s", wrapped, r.h.get(settings))
		}
		b, _ := json.MarshalIndent(cfg, "", "  ")
		r.h.put(settings, string(b))
		edit := useTool("Edit", map[string]any{"file_path": file, "old_string": "old", "new_string": "new"})
		edit.before = func() { r.h.put(arm, "") }
		f := r.claude("Change old to new in v.txt",
			useTool("Read", map[string]any{"file_path": file}),
			edit,
			say("It changed under me."))
		res := f.mustResult(1)
		t.Logf("the Edit: the model saw is_error %v: %s", res.IsError, res.Text)
		if !res.IsError || strings.Contains(res.Text, "refused:") {
			t.Errorf("the Edit: is_error %v, %q; want Claude Code's own failure, not stet's refusal", res.IsError, res.Text)
		}
		if got := r.h.get(file); got != "theirs\n" {
			t.Errorf("v.txt = %q, want the other writer's %q", got, "theirs\n")
		}
		if rs := r.receipts("v.txt"); len(rs) != 0 {
			t.Errorf("stet log lists %d receipts of v.txt, want none (the Edit failed; SPEC section 10: a failed tool call closes its intent): %v", len(rs), rs)
		}
	})

	t.Run("parallel-calls", func(t *testing.T) {
		// One answer with several tool calls: Claude Code runs the Reads
		// (and their hooks) at once.
		names := []string{"p1.txt", "p2.txt", "p3.txt"}
		files := map[string]string{}
		var reads, edits []step
		for _, n := range names {
			files[n] = "x in " + n + "\n"
		}
		r := newHookRig(t, claudeBin, files)
		for _, n := range names {
			reads = append(reads, useTool("Read", map[string]any{"file_path": r.path(n)}))
			edits = append(edits, useTool("Edit", map[string]any{"file_path": r.path(n), "old_string": "x in", "new_string": "y in"}))
		}
		f := r.claude("Change x to y in the p files", together(reads...), together(edits...), say("Done."))
		for k, n := range names {
			id := toolUseID(1)
			if k > 0 {
				id = toolUseIDk(1, k)
			}
			if res, ok := f.resultOf(id); !ok || res.IsError {
				t.Errorf("the Edit of %s: %v %+v", n, ok, res)
			}
			if got := r.h.get(r.path(n)); got != "y in "+n+"\n" {
				t.Errorf("%s = %q after its Edit", n, got)
			}
			if rs := r.receipts(n); len(rs) != 1 || rs[0].Receipt.Tool != "Edit" || !rs[0].Receipt.Verified {
				t.Errorf("stet log --path %s: %v; want one verified receipt of tool Edit", n, rs)
			}
		}
	})

	t.Run("deny-read", func(t *testing.T) {
		const secret = "API_TOKEN=s3cr3t-7f3a9c-never-sent\n"
		r := newHookRig(t, claudeBin, map[string]string{"secret.env": secret}, "--deny-read", "*.env")
		f := r.claude("What is in secret.env?",
			useTool("Read", map[string]any{"file_path": r.path("secret.env")}),
			say("I cannot read it."))
		refused(t, "a Read of a --deny-read file", f.mustResult(0))
		for i, req := range f.all() {
			if bytes.Contains(req.Body, []byte("s3cr3t-7f3a9c")) {
				t.Errorf("request %d (%s %s) to the model holds the secret", i, req.Method, req.Path)
			}
		}
		r.journaledRefusal("secret.env", "")
	})
}

// findFiles returns every file called name under dir.
func findFiles(t *testing.T, dir, name string) []string {
	t.Helper()
	var out []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && d.Name() == name {
			out = append(out, p)
		}
		return nil
	})
	return out
}

// anyHolds reports whether any of files holds text.
func anyHolds(files []string, text string) bool {
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), text) {
			return true
		}
	}
	return false
}
