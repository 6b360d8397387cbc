package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// This file is a scripted model for the real Claude Code CLI: a small
// fake of the Anthropic Messages API on 127.0.0.1 that answers Claude
// Code's agent requests (those offering its file tools) from a script of
// tool calls, and any side request (a title, a token count, ...) with a
// short text. Claude Code 2.1.332 in -p mode with
// CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1 sends no side request: one
// streamed POST /v1/messages per step, with X-Claude-Code-Session-Id.

// step is one answer of the scripted model: a tool call (tool and input)
// or, when tool is "", a final text. more are further tool calls in the
// same answer, which Claude Code may run at once. before, when set, runs
// once when the request this step answers arrives, that is after the
// previous step's tool results came back: a test changes the world
// between two tool calls with it.
type step struct {
	tool   string
	input  map[string]any
	text   string
	more   []step
	before func()
}

func useTool(tool string, input map[string]any) step { return step{tool: tool, input: input} }
func say(text string) step                           { return step{text: text} }

// together is one answer making all these tool calls.
func together(calls ...step) step {
	s := calls[0]
	s.more = calls[1:]
	return s
}

// toolUseID is the id of the tool call the script's step i makes (its
// k-th one in toolUseIDk). Claude Code 2.1.332 loses the result of a call
// whose id holds a second "_" when it has several calls in one answer
// ("[Tool result missing due to internal error]"), so none has.
func toolUseID(i int) string     { return fmt.Sprintf("toolu_stet%02d", i) }
func toolUseIDk(i, k int) string { return fmt.Sprintf("toolu_stet%02dk%d", i, k) }

// fakeRequest is one request the fake model got.
type fakeRequest struct {
	Method, Path string
	Session      string // X-Claude-Code-Session-Id
	Body         []byte
	Agent        bool // answered from the script
}

// toolResult is what the model saw of one tool call.
type toolResult struct {
	IsError bool
	Text    string
}

type fakeModel struct {
	t      *testing.T
	url    string
	script []step

	mu       sync.Mutex
	requests []fakeRequest
	ran      map[int]bool // steps whose before ran
	problems []string
}

// newFakeModel serves script on 127.0.0.1 until the test ends.
func newFakeModel(t *testing.T, script ...step) *fakeModel {
	t.Helper()
	f := &fakeModel{t: t, script: script, ran: map[int]bool{}}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewUnstartedServer(http.HandlerFunc(f.serve))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Config.ReadHeaderTimeout = 10 * time.Second
	srv.Config.ReadTimeout = 30 * time.Second
	srv.Config.WriteTimeout = 30 * time.Second
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

func (f *fakeModel) problem(format string, args ...any) {
	f.mu.Lock()
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

// apiRequest is the part of a Messages API request the fake looks at.
type apiRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Name string `json:"name"`
	} `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

// agentRequest tells the agent loop's requests, which offer the file
// tools, from side requests, which offer none.
func (r *apiRequest) agentRequest() bool {
	for _, t := range r.Tools {
		if t.Name == "Read" || t.Name == "Edit" {
			return true
		}
	}
	return false
}

func (f *fakeModel) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := fakeRequest{Method: r.Method, Path: r.URL.Path, Session: r.Header.Get("X-Claude-Code-Session-Id"), Body: body}
	var req apiRequest
	isMessages := r.Method == http.MethodPost && r.URL.Path == "/v1/messages"
	jsonErr := json.Unmarshal(body, &req)
	rec.Agent = isMessages && jsonErr == nil && req.agentRequest()
	f.record(rec)
	switch {
	case r.Method == http.MethodHead || r.Method == http.MethodGet:
		w.WriteHeader(http.StatusOK)
		return
	case r.Method == http.MethodPost && strings.HasSuffix(r.URL.Path, "/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 1 + len(body)/4})
		return
	case !isMessages:
		f.problem("unexpected request %s %s", r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]any{"type": "error", "error": map[string]any{"type": "not_found_error", "message": "the fake model serves /v1/messages only"}})
		return
	case jsonErr != nil:
		f.problem("a /v1/messages body that is not JSON: %v", jsonErr)
		http.Error(w, jsonErr.Error(), http.StatusBadRequest)
		return
	case !rec.Agent:
		f.reply(w, req, say("Stet test."), "msg_side", -1)
		return
	}
	// The step to answer is the number of answers the conversation holds
	// already: a retried request gets the same answer again.
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
	s := f.script[i]
	f.mu.Lock()
	first := !f.ran[i]
	f.ran[i] = true
	f.mu.Unlock()
	if first && s.before != nil {
		s.before()
	}
	f.reply(w, req, s, fmt.Sprintf("msg_stet%02d", i), i)
}

func (f *fakeModel) record(r fakeRequest) {
	f.mu.Lock()
	f.requests = append(f.requests, r)
	f.mu.Unlock()
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(v)
}

// reply answers one request with step s (step i of the script), streamed
// when asked to be.
func (f *fakeModel) reply(w http.ResponseWriter, req apiRequest, s step, msgID string, i int) {
	model := req.Model
	if model == "" {
		model = "claude-fake"
	}
	type block struct {
		start map[string]any // the block with its text or input empty
		delta []map[string]any
		whole map[string]any
	}
	var blocks []block
	stop := "end_turn"
	if s.tool == "" {
		blocks = append(blocks, block{
			start: map[string]any{"type": "text", "text": ""},
			delta: []map[string]any{{"type": "text_delta", "text": s.text}},
			whole: map[string]any{"type": "text", "text": s.text},
		})
	} else {
		stop = "tool_use"
		for k, c := range append([]step{s}, s.more...) {
			id := toolUseID(i)
			if k > 0 {
				id = toolUseIDk(i, k)
			}
			input, err := json.Marshal(c.input)
			if err != nil {
				f.problem("tool input of %s: %v", c.tool, err)
				input = []byte("{}")
			}
			// In two pieces, as a model streams it (not inside a character).
			half := len(input) / 2
			for half > 0 && !utf8.RuneStart(input[half]) {
				half--
			}
			blocks = append(blocks, block{
				start: map[string]any{"type": "tool_use", "id": id, "name": c.tool, "input": map[string]any{}},
				delta: []map[string]any{{"type": "input_json_delta", "partial_json": string(input[:half])},
					{"type": "input_json_delta", "partial_json": string(input[half:])}},
				whole: map[string]any{"type": "tool_use", "id": id, "name": c.tool, "input": json.RawMessage(input)},
			})
		}
	}
	usage := map[string]any{"input_tokens": 10, "output_tokens": 5}
	if !req.Stream {
		var content []any
		for _, b := range blocks {
			content = append(content, b.whole)
		}
		writeJSON(w, map[string]any{"id": msgID, "type": "message", "role": "assistant", "model": model,
			"content": content, "stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	var buf bytes.Buffer
	event := func(name string, data map[string]any) {
		data["type"] = name
		b, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	}
	event("message_start", map[string]any{"message": map[string]any{"id": msgID, "type": "message", "role": "assistant",
		"model": model, "content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": usage}})
	for n, b := range blocks {
		event("content_block_start", map[string]any{"index": n, "content_block": b.start})
		for _, d := range b.delta {
			event("content_block_delta", map[string]any{"index": n, "delta": d})
		}
		event("content_block_stop", map[string]any{"index": n})
	}
	event("message_delta", map[string]any{"delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 5}})
	event("message_stop", map[string]any{})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(buf.Bytes())
}

// all is every request the fake model got, in order.
func (f *fakeModel) all() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

// agentRequests is how many requests the script answered (retries
// included).
func (f *fakeModel) agentRequests() int {
	n := 0
	for _, r := range f.all() {
		if r.Agent {
			n++
		}
	}
	return n
}

// result is what the model saw of step i's tool call: the tool_result
// Claude Code sent back for it, from the latest request holding it.
func (f *fakeModel) result(i int) (toolResult, bool) { return f.resultOf(toolUseID(i)) }

// resultOf is what the model saw of the tool call with this id.
func (f *fakeModel) resultOf(id string) (toolResult, bool) {
	reqs := f.all()
	for k := len(reqs) - 1; k >= 0; k-- {
		if !reqs[k].Agent {
			continue
		}
		var req apiRequest
		if json.Unmarshal(reqs[k].Body, &req) != nil {
			continue
		}
		for _, m := range req.Messages {
			var blocks []struct {
				Type      string          `json:"type"`
				ToolUseID string          `json:"tool_use_id"`
				IsError   bool            `json:"is_error"`
				Content   json.RawMessage `json:"content"`
			}
			if m.Role != "user" || json.Unmarshal(m.Content, &blocks) != nil {
				continue
			}
			for _, b := range blocks {
				if b.Type == "tool_result" && b.ToolUseID == id {
					return toolResult{IsError: b.IsError, Text: contentText(b.Content)}, true
				}
			}
		}
	}
	return toolResult{}, false
}

// mustResult is result, failing the test when Claude Code sent none.
func (f *fakeModel) mustResult(i int) toolResult {
	f.t.Helper()
	r, ok := f.result(i)
	if !ok {
		f.t.Fatalf("Claude Code sent the model no tool_result for step %d (%s %v)", i, f.script[i].tool, f.script[i].input)
	}
	return r
}

// contentText is the text of a tool_result's content: a string or a list
// of blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		if bl.Type == "text" {
			b.WriteString(bl.Text)
		} else {
			fmt.Fprintf(&b, "[%s]", bl.Type)
		}
	}
	return b.String()
}

// claudeCLI is the pinned Claude Code CLI in clients/claude. Without it
// the test is skipped, unless STET_REQUIRE_CLAUDE=1, which makes it fail.
func claudeCLI(t *testing.T) string {
	t.Helper()
	return pinnedCLI(t, "Claude Code", "claude", "@anthropic-ai/claude-code", "claude", "STET_REQUIRE_CLAUDE")
}

// pinnedCLI is the binary bin of the npm package pkg pinned in
// clients/dir, installed there by `npm ci --prefix clients/DIR`. Without it
// (or without node, or on Windows, where the hooks cannot run with sh)
// the test is skipped, unless the environment variable require is 1,
// which makes it fail; a version other than the pin fails it.
func pinnedCLI(t *testing.T, name, dir, pkg, bin, require string) string {
	t.Helper()
	install := fmt.Sprintf("install Node.js 18 or later, then run `npm ci --prefix clients/%s --no-audit --no-fund` from the repository root", dir)
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv(require) == "1" {
			t.Fatalf("%s CLI test cannot run: "+format+" (%s=1 makes this a failure)", append(append([]any{name}, args...), require)...)
		}
		t.Skipf("%s CLI test skipped: "+format, append([]any{name}, args...)...)
	}
	if runtime.GOOS == "windows" {
		missing("the hooks run with sh")
	}
	abs, err := filepath.Abs(filepath.Join("..", "..", "clients", dir))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(abs, "node_modules", ".bin", bin)
	if _, err := os.Stat(path); err != nil {
		missing("clients/%s has no %s (%v); %s", dir, name, err, install)
	}
	want := pinnedDep(t, filepath.Join(abs, "package.json"), pkg)
	got, err := sdkVersion(filepath.Join(append([]string{abs, "node_modules"}, strings.Split(pkg, "/")...)...) + string(filepath.Separator) + "package.json")
	if err != nil || got != want {
		t.Fatalf("clients/%s/node_modules has %s %q (%v), package.json pins %s; run `npm ci --prefix clients/%s`", dir, pkg, got, err, want, dir)
	}
	if _, err := exec.LookPath("node"); err != nil {
		missing("no node on PATH (%v); %s", err, install)
	}
	return path
}

// newUUID is a random version 4 UUID, for claude --session-id.
func newUUID(t *testing.T) string {
	t.Helper()
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		t.Fatal(err)
	}
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// claudeRun is the JSON result `claude -p --output-format json` prints.
type claudeRun struct {
	SessionID string `json:"session_id"`
	Result    string `json:"result"`
	IsError   bool   `json:"is_error"`
	NumTurns  int    `json:"num_turns"`
	Subtype   string `json:"subtype"`
	Output    string `json:"-"` // all of stdout and stderr
}

// runClaude runs `claude -p prompt` in h's project against the fake
// model, as session sid, and returns its result.
func runClaude(t *testing.T, claudeBin string, h *home, f *fakeModel, sid, prompt string, extra ...string) claudeRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := append([]string{"-p", prompt, "--permission-mode", "acceptEdits", "--output-format", "json", "--session-id", sid}, extra...)
	cmd := exec.CommandContext(ctx, claudeBin, args...)
	cmd.Dir = h.proj
	cmd.Env = append(append([]string(nil), h.env...), "ANTHROPIC_BASE_URL="+f.url, "ANTHROPIC_API_KEY=stet-test-key",
		"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_AUTOUPDATER=1", "DISABLE_TELEMETRY=1", "DISABLE_ERROR_REPORTING=1")
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	run := claudeRun{Output: out.String() + errb.String()}
	if ctx.Err() != nil {
		t.Fatalf("claude -p %q did not end in time (%d agent requests)\n%s", prompt, f.agentRequests(), run.Output)
	}
	if jerr := json.Unmarshal(bytes.TrimSpace(out.Bytes()), &run); jerr != nil {
		t.Fatalf("claude -p %q: %v; its output is not its JSON result (%v):\n%s", prompt, err, jerr, run.Output)
	}
	if err != nil {
		t.Logf("claude -p %q: %v", prompt, err)
	}
	return run
}

// TestFakeModel checks the scripted model's answers without Claude Code:
// a side request gets a text and leaves the script alone, an agent
// request gets the step its conversation is at, a retry the same step
// (its before runs once), streamed or not.
func TestFakeModel(t *testing.T) {
	var befores int
	first := useTool("Read", map[string]any{"file_path": "/x"})
	first.before = func() { befores++ }
	f := newFakeModel(t, first, say("bye"))
	post := func(path, body string) string {
		t.Helper()
		resp, err := http.Post(f.url+path, "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	const tools = `"tools":[{"name":"Read"},{"name":"Edit"}]`
	if got := post("/v1/messages?beta=true", `{"model":"m","stream":true,"messages":[{"role":"user","content":"title?"}]}`); !strings.Contains(got, `"text":"Stet test."`) || !strings.Contains(got, "event: message_stop") {
		t.Errorf("a side request got:\n%s", got)
	}
	if got := post("/v1/messages/count_tokens", `{}`); !strings.Contains(got, "input_tokens") {
		t.Errorf("count_tokens got %s", got)
	}
	for range 2 {
		got := post("/v1/messages", `{"stream":true,`+tools+`,"messages":[{"role":"user","content":"go"}]}`)
		if !strings.Contains(got, `"id":"toolu_stet00","input":{},"name":"Read"`) || !strings.Contains(got, `"partial_json":"{\"file_`) || !strings.Contains(got, `"stop_reason":"tool_use"`) {
			t.Errorf("the first agent request got:\n%s", got)
		}
	}
	got := post("/v1/messages", `{`+tools+`,"messages":[{"role":"user","content":"go"},{"role":"assistant","content":[]},`+
		`{"role":"user","content":[{"type":"tool_result","tool_use_id":"toolu_stet00","is_error":true,"content":[{"type":"text","text":"no such file"}]}]}]}`)
	if !strings.Contains(got, `"text":"bye"`) || !strings.Contains(got, `"stop_reason":"end_turn"`) {
		t.Errorf("the second agent request, not streamed, got:\n%s", got)
	}
	if befores != 1 {
		t.Errorf("the first step's before ran %d times, want once", befores)
	}
	if r := f.mustResult(0); !r.IsError || r.Text != "no such file" {
		t.Errorf("result(0) = %+v", r)
	}
	if n := f.agentRequests(); n != 3 {
		t.Errorf("%d agent requests, want 3", n)
	}
}

// TestClaudeCodeFakeModel checks the scripted model with Claude Code and
// no hooks: a Read then an Edit land, and their results come back.
func TestClaudeCodeFakeModel(t *testing.T) {
	claudeBin := claudeCLI(t)
	h := newHome(t)
	file := filepath.Join(h.proj, "notes.txt")
	h.put(file, "alpha\nbeta\n")
	f := newFakeModel(t,
		useTool("Read", map[string]any{"file_path": file}),
		useTool("Edit", map[string]any{"file_path": file, "old_string": "beta", "new_string": "gamma"}),
		say("Done: beta is gamma now."),
	)
	sid := newUUID(t)
	run := runClaude(t, claudeBin, h, f, sid, "Change beta to gamma in notes.txt")
	if run.IsError || run.Result != "Done: beta is gamma now." || run.SessionID != sid {
		t.Errorf("claude's result: is_error %v, result %q, session %q (want %q)\n%s", run.IsError, run.Result, run.SessionID, sid, run.Output)
	}
	if got := h.get(file); got != "alpha\ngamma\n" {
		t.Errorf("notes.txt = %q after the Edit, want %q", got, "alpha\ngamma\n")
	}
	if r := f.mustResult(0); r.IsError || !strings.Contains(r.Text, "alpha") || !strings.Contains(r.Text, "beta") {
		t.Errorf("the Read's result: %+v, want the file's lines", r)
	}
	if r := f.mustResult(1); r.IsError || !strings.Contains(r.Text, "notes.txt") {
		t.Errorf("the Edit's result: %+v, want a success naming the file", r)
	}
	if n := f.agentRequests(); n != 3 {
		t.Errorf("%d agent requests, want 3 (one per step)", n)
	}
	for _, r := range f.all() {
		t.Logf("request %s %s (agent %v, %d bytes)", r.Method, r.Path, r.Agent, len(r.Body))
		if r.Agent && r.Session != sid {
			t.Errorf("an agent request of session %q, want %q", r.Session, sid)
		}
	}
}
