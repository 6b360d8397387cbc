package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet/tools"
)

// newToolsModel is newFakeModel for a Claude Code whose file tools are
// stet's: any request offering tools is the agent's (newFakeModel tells
// them by Claude Code's own Read and Edit, which --only-stet takes away).
// It serves on 127.0.0.1 until the test ends.
func newToolsModel(t *testing.T, script ...step) *fakeModel {
	t.Helper()
	f := &fakeModel{t: t, script: script, ran: map[int]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		var req apiRequest
		isMessages := r.Method == http.MethodPost && r.URL.Path == "/v1/messages"
		jsonErr := json.Unmarshal(body, &req)
		rec := fakeRequest{Method: r.Method, Path: r.URL.Path, Session: r.Header.Get("X-Claude-Code-Session-Id"), Body: body,
			Agent: isMessages && jsonErr == nil && len(req.Tools) > 0}
		f.record(rec)
		switch {
		case r.Method == http.MethodHead || r.Method == http.MethodGet:
			w.WriteHeader(http.StatusOK)
			return
		case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/count_tokens"):
			writeJSON(w, map[string]any{"input_tokens": 1 + len(body)/4})
			return
		case !isMessages || jsonErr != nil:
			f.problem("unexpected request %s %s (%v)", r.Method, r.URL.Path, jsonErr)
			http.Error(w, "the fake model serves /v1/messages only", http.StatusNotFound)
			return
		case !rec.Agent:
			f.reply(w, req, say("Stet test."), "msg_side", -1)
			return
		}
		i := 0
		for _, m := range req.Messages {
			if m.Role == "assistant" {
				i++
			}
		}
		if i >= len(f.script) {
			f.problem("agent request %d, but the script has %d steps", i+1, len(f.script))
			f.reply(w, req, say("The script has ended."), "msg_end", -1)
			return
		}
		f.reply(w, req, f.script[i], fmt.Sprintf("msg_stet%02d", i), i)
	}))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Config.ReadHeaderTimeout = 10 * time.Second
	srv.Start()
	f.url = srv.URL
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, p := range f.problems {
			t.Errorf("fake model: %s", p)
		}
	})
	return f
}

// offeredTool is one tool of a request as the model gets it.
type offeredTool struct {
	Name         string          `json:"name"`
	InputSchema  json.RawMessage `json:"input_schema"`
	DeferLoading bool            `json:"defer_loading"`
	Type         string          `json:"type"`
}

// firstTools is the tools array of the first agent request f got.
func firstTools(t *testing.T, f *fakeModel) []offeredTool {
	t.Helper()
	for _, r := range f.all() {
		if !r.Agent {
			continue
		}
		var req struct {
			Tools []offeredTool `json:"tools"`
		}
		if err := json.Unmarshal(r.Body, &req); err != nil {
			t.Fatal(err)
		}
		return req.Tools
	}
	t.Fatalf("Claude Code sent the model no request with tools")
	return nil
}

// firstAgentBody is the body of the first agent request f got.
func firstAgentBody(f *fakeModel) string {
	for _, r := range f.all() {
		if r.Agent {
			return string(r.Body)
		}
	}
	return ""
}

// upFront reports whether tool is in tools with its schema, not deferred
// behind ToolSearch.
func upFront(tools []offeredTool, name string) bool {
	for _, tl := range tools {
		if tl.Name == name {
			return !tl.DeferLoading && len(tl.InputSchema) > 2
		}
	}
	return false
}

// claudeDeferred are the tools Claude Code 2.1.332 keeps behind ToolSearch
// in these tests' sessions: named in the first request's list of deferred
// tools, their schemas left out, unless ENABLE_TOOL_SEARCH=false loads
// them all up front (about 7,200 tokens; docs/benchmarks.md).
var claudeDeferred = []string{"CronCreate", "CronDelete", "CronList", "EnterWorktree", "ExitWorktree", "Monitor", "SendMessage", "TaskStop", "WebFetch", "WebSearch"}

// sameSchema reports whether the schema Claude Code offered for stet's
// tool name is the input schema stet's tools/list gives it, whole.
func sameSchema(t *testing.T, offered []offeredTool, name string) bool {
	t.Helper()
	spec, ok := tools.Lookup(name)
	if !ok {
		t.Fatalf("stet has no tool %s", name)
	}
	want, err := json.Marshal(spec.Input)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range offered {
		if tl.Name == "mcp__stet__"+name {
			var a, b any
			return json.Unmarshal(tl.InputSchema, &a) == nil && json.Unmarshal(want, &b) == nil && reflect.DeepEqual(a, b)
		}
	}
	return false
}

func toolNames(tools []offeredTool) []string {
	var n []string
	for _, tl := range tools {
		s := tl.Name
		if tl.DeferLoading {
			s += " (deferred)"
		}
		n = append(n, s)
	}
	return n
}

// TestClaudeCodeOnlyStet runs the real Claude Code CLI (pinned in
// clients/claude) against a scripted model on 127.0.0.1 in a project
// where `stet setup claude-code --only-stet --write` ran, with --project
// (.mcp.json and .claude/settings.local.json) and without (the printed
// `claude mcp add-json --scope user` line and ~/.claude/settings.json):
// the model's tools are stet's, each with its whole schema up front (the
// entry's alwaysLoad), while Claude Code's own deferred tools stay behind
// ToolSearch and its Edit, Write, NotebookEdit and Read are gone; a read
// and an edit of stet's land without a permission prompt (the file
// changes on disk). Two controls show why each setting is there: the
// allow in the shared .claude/settings.json is not honoured under claude
// -p, and with only the MCP entry Claude Code's tools are the model's and
// stet's are deferred.
//
// It needs Claude Code installed with `npm ci --prefix clients/claude`;
// without it it is skipped, unless STET_REQUIRE_CLAUDE=1.
func TestClaudeCodeOnlyStet(t *testing.T) {
	claudeBin := claudeCLI(t)
	denied := []string{"Edit", "Write", "NotebookEdit", "Read"}

	// check runs Claude Code in h's project, set up by setup, over a
	// script of a read and an edit of stet's.
	check := func(t *testing.T, h *home, setup func()) {
		t.Helper()
		notes := filepath.Join(h.proj, "notes.txt")
		h.put(notes, "alpha\nbeta\n")
		setup()
		f := newToolsModel(t,
			useTool("mcp__stet__read", map[string]any{"path": "notes.txt"}),
			useTool("mcp__stet__edit", map[string]any{"path": "notes.txt", "old_string": "beta", "new_string": "gamma"}),
			say("Done: beta is gamma now."),
		)
		// The @-mention: Claude Code reads a mentioned file with its Read,
		// which the deny keeps out (setup says so).
		run := runClaude(t, claudeBin, h, f, newUUID(t), "Change beta to gamma in @notes.txt")
		if run.IsError || run.Result != "Done: beta is gamma now." {
			t.Errorf("claude's result: is_error %v, result %q\n%s", run.IsError, run.Result, run.Output)
		}
		offered := firstTools(t, f)
		t.Logf("the model's tools: %s", strings.Join(toolNames(offered), ", "))
		if strings.Contains(firstAgentBody(f), "alpha") {
			t.Errorf("the @-mentioned file's lines reached the model although Read is denied: setup's note on @-mentions is wrong")
		}
		for _, name := range tools.Names(false) {
			switch {
			case !upFront(offered, "mcp__stet__"+name):
				t.Errorf("mcp__stet__%s is not among the model's tools with its schema up front", name)
			case !sameSchema(t, offered, name):
				t.Errorf("mcp__stet__%s is offered with a schema other than stet's own", name)
			}
		}
		// alwaysLoad loads stet's tools only: Claude Code's deferred ones
		// stay behind ToolSearch, named in the first request but not among
		// its tools (ENABLE_TOOL_SEARCH=false would load them all).
		if !slices.ContainsFunc(offered, func(tl offeredTool) bool { return tl.Name == "ToolSearch" }) {
			t.Errorf("ToolSearch is not among the model's tools: the tool search is off, and every deferred tool is loaded")
		}
		first := firstAgentBody(f)
		for _, name := range claudeDeferred {
			if slices.ContainsFunc(offered, func(tl offeredTool) bool { return tl.Name == name }) {
				t.Errorf("Claude Code's deferred %s is among the model's tools", name)
			} else if !strings.Contains(first, name) {
				t.Errorf("the first request does not name Claude Code's %s at all: update claudeDeferred to this Claude Code", name)
			}
		}
		for _, name := range denied {
			if slices.ContainsFunc(offered, func(tl offeredTool) bool { return tl.Name == name }) {
				t.Errorf("Claude Code's %s is still among the model's tools", name)
			}
		}
		// --results text: the model reads stet's text, not JSON.
		if r := f.mustResult(0); r.IsError || !strings.Contains(r.Text, "|beta") || strings.HasPrefix(r.Text, "{") {
			t.Errorf("mcp__stet__read's result: %+v, want the file's lines as stet's frame", r)
		}
		if r := f.mustResult(1); r.IsError || strings.HasPrefix(r.Text, "{") {
			t.Errorf("mcp__stet__edit's result is an error (a permission prompt?) or JSON: %q", r.Text)
		} else {
			t.Logf("what the model read of the edit: %q", r.Text)
		}
		if got := h.get(notes); got != "alpha\ngamma\n" {
			t.Errorf("notes.txt = %q after stet's edit, want %q", got, "alpha\ngamma\n")
		}
	}

	t.Run("project", func(t *testing.T) {
		h := newHome(t)
		args := []string{"setup", "claude-code", "--only-stet", "--project", "--write", "--root", h.proj}
		check(t, h, func() {
			code, out, errOut := h.run("", args...)
			if code != 0 {
				t.Fatalf("stet %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
			}
			t.Logf("setup:\n%s", out)
		})
		// Setup again: nothing changes.
		code, out, _ := h.run("", args...)
		if code != 0 || strings.Count(out, "nothing written") != 2 {
			t.Errorf("a second setup: exit %d, want both files left as they are:\n%s", code, out)
		}
	})

	// The user's scope: the printed `claude mcp add --scope user` line,
	// run as printed, and the user's ~/.claude/settings.json.
	t.Run("user", func(t *testing.T) {
		h := newHome(t)
		check(t, h, func() {
			code, out, errOut := h.run("", "setup", "claude-code", "--only-stet", "--write", "--root", h.proj)
			if code != 0 {
				t.Fatalf("stet setup claude-code --only-stet --write: exit %d\n%s%s", code, out, errOut)
			}
			var line string
			for _, l := range strings.Split(out, "\n") {
				if l = strings.TrimSpace(l); strings.HasPrefix(l, "claude mcp add-json --scope user ") {
					line = l
				}
			}
			if line == "" {
				t.Fatalf("no `claude mcp add-json --scope user` line in:\n%s", out)
			}
			cmd := exec.Command("sh", "-c", line)
			cmd.Dir = h.proj
			cmd.Env = append(append([]string(nil), h.env...), "PATH="+filepath.Dir(claudeBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
				"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1")
			if b, err := cmd.CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", line, err, b)
			}
			if _, err := os.Stat(filepath.Join(h.dir, ".claude", "settings.json")); err != nil {
				t.Fatalf("--only-stet --write wrote no ~/.claude/settings.json: %v", err)
			}
		})
	})

	// Why settings.local.json: the same allow in the shared
	// .claude/settings.json is not honoured under claude -p, and stet's
	// calls wait for a permission nobody can give.
	t.Run("allow-in-shared-settings", func(t *testing.T) {
		h := newHome(t)
		notes := filepath.Join(h.proj, "notes.txt")
		h.put(notes, "alpha\nbeta\n")
		if code, out, errOut := h.run("", "setup", "claude-code", "--only-stet", "--project", "--write", "--root", h.proj); code != 0 {
			t.Fatalf("exit %d\n%s%s", code, out, errOut)
		}
		local := filepath.Join(h.proj, ".claude", "settings.local.json")
		var settings map[string]any
		if err := json.Unmarshal([]byte(h.get(local)), &settings); err != nil {
			t.Fatal(err)
		}
		delete(settings["permissions"].(map[string]any), "allow")
		b, _ := json.Marshal(settings)
		h.put(local, string(b))
		h.put(filepath.Join(h.proj, ".claude", "settings.json"), `{"permissions": {"allow": ["mcp__stet"]}}`)
		f := newToolsModel(t,
			useTool("mcp__stet__edit", map[string]any{"path": "notes.txt", "old_string": "beta", "new_string": "gamma"}),
			say("Done."),
		)
		runClaude(t, claudeBin, h, f, newUUID(t), "Change beta to gamma in notes.txt")
		if r := f.mustResult(0); !r.IsError || !strings.Contains(r.Text, "permission") {
			t.Errorf("with the allow in the shared settings only, mcp__stet__edit's result is %+v; want a permission refusal (if Claude Code honours it now, setup may write it there)", r)
		}
		if got := h.get(notes); got != "alpha\nbeta\n" {
			t.Errorf("notes.txt = %q, want it unchanged", got)
		}
	})

	t.Run("control", func(t *testing.T) {
		h := newHome(t)
		if code, out, errOut := h.run("", "setup", "claude-code", "--project", "--write", "--root", h.proj); code != 0 {
			t.Fatalf("stet setup claude-code --project --write: exit %d\n%s%s", code, out, errOut)
		}
		// The project's server approved, as --only-stet does, so that only
		// the permissions and alwaysLoad differ.
		h.put(filepath.Join(h.proj, ".claude", "settings.local.json"), `{"enabledMcpjsonServers": ["stet"]}`+"\n")
		f := newToolsModel(t, say("Nothing to do."))
		runClaude(t, claudeBin, h, f, newUUID(t), "Say hello")
		offered := firstTools(t, f)
		t.Logf("the model's tools: %s", strings.Join(toolNames(offered), ", "))
		for _, name := range []string{"Edit", "Write", "Read"} {
			if !slices.ContainsFunc(offered, func(tl offeredTool) bool { return tl.Name == name }) {
				t.Errorf("without --only-stet, Claude Code's %s is not among the model's tools: the test shows nothing", name)
			}
		}
		if upFront(offered, "mcp__stet__edit") {
			t.Errorf("without alwaysLoad, Claude Code hands the model mcp__stet__edit up front: the setting may no longer be needed")
		}
	})
}
