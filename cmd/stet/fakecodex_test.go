package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// This file is a scripted model for the real Codex CLI: a small fake of
// the OpenAI Responses API on 127.0.0.1 that answers `codex exec` from a
// script of tool calls, streamed as server-sent events. Codex 0.171.0
// sends one POST /v1/responses per step, the whole conversation in
// "input" (store false), and offers apply_patch to a model of its list
// (gpt-5.5) as a freeform tool: the model calls it with a
// custom_tool_call whose "input" is the raw patch, and Codex answers with
// a custom_tool_call_output. Its shell is the function exec_command
// ({"cmd": ...}), answered with a function_call_output.

// codexModel is the model name the fake serves: one Codex lists, so that
// it offers apply_patch.
const codexModel = "gpt-5.5"

// codexStep is one answer of the scripted model: a call of a freeform
// tool (custom: the raw input, as apply_patch takes its patch), a
// function call (function: the JSON arguments) or, when kind is "", a
// final text. before, when set, runs once when the request this step
// answers arrives, that is after the previous step's output came back.
type codexStep struct {
	kind   string // "custom", "function" or ""
	name   string
	input  string
	text   string
	before func()
}

// applyPatch is a call of Codex's apply_patch tool with this patch.
func applyPatch(patch string) codexStep {
	return codexStep{kind: "custom", name: "apply_patch", input: patch}
}

// shellCall is a call of Codex's shell tool running cmd.
func shellCall(cmd string) codexStep {
	args, _ := json.Marshal(map[string]any{"cmd": cmd})
	return codexStep{kind: "function", name: "exec_command", input: string(args)}
}

func codexSay(text string) codexStep { return codexStep{text: text} }

// codexCallID is the call_id of the tool call the script's step i makes.
func codexCallID(i int) string { return fmt.Sprintf("call_stet%02d", i) }

// responsesRequest is the part of a Responses API request the fake
// looks at.
type responsesRequest struct {
	Model  string `json:"model"`
	Stream bool   `json:"stream"`
	Tools  []struct {
		Type string `json:"type"`
		Name string `json:"name"`
	} `json:"tools"`
	Input []responsesItem `json:"input"`
}

// responsesItem is one item of a request's input.
type responsesItem struct {
	Type   string          `json:"type"`
	Role   string          `json:"role"`
	CallID string          `json:"call_id"`
	Output json.RawMessage `json:"output"`
}

// offers reports whether the request offers the tool called name.
func (r *responsesRequest) offers(name string) bool {
	for _, t := range r.Tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

type fakeResponses struct {
	t      *testing.T
	url    string // ending in /v1, as a provider's base_url
	script []codexStep

	mu       sync.Mutex
	requests []fakeRequest
	ran      map[int]bool
	problems []string
}

// newFakeResponses serves script on 127.0.0.1 until the test ends.
func newFakeResponses(t *testing.T, script ...codexStep) *fakeResponses {
	t.Helper()
	f := &fakeResponses{t: t, script: script, ran: map[int]bool{}}
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
	f.url = srv.URL + "/v1"
	t.Cleanup(func() {
		srv.CloseClientConnections()
		srv.Close()
		f.mu.Lock()
		defer f.mu.Unlock()
		for _, p := range f.problems {
			t.Errorf("fake Responses API: %s", p)
		}
	})
	return f
}

func (f *fakeResponses) problem(format string, args ...any) {
	f.mu.Lock()
	f.problems = append(f.problems, fmt.Sprintf(format, args...))
	f.mu.Unlock()
}

func (f *fakeResponses) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, 64<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	rec := fakeRequest{Method: r.Method, Path: r.URL.Path, Session: r.Header.Get("session-id"), Body: body}
	var req responsesRequest
	isResponses := r.Method == http.MethodPost && r.URL.Path == "/v1/responses"
	jsonErr := json.Unmarshal(body, &req)
	rec.Agent = isResponses && jsonErr == nil && req.offers("apply_patch")
	f.mu.Lock()
	f.requests = append(f.requests, rec)
	f.mu.Unlock()
	switch {
	case !isResponses:
		f.problem("unexpected request %s %s", r.Method, r.URL.Path)
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusNotFound)
		json.NewEncoder(w).Encode(map[string]any{"error": map[string]any{"type": "not_found", "message": "the fake serves POST /v1/responses only"}})
		return
	case jsonErr != nil:
		f.problem("a /v1/responses body that is not JSON: %v", jsonErr)
		http.Error(w, jsonErr.Error(), http.StatusBadRequest)
		return
	case !rec.Agent:
		f.problem("a /v1/responses request that offers no apply_patch (model %q): Codex no longer offers it to this model", req.Model)
		f.reply(w, codexSay("apply_patch is not offered."), -1)
		return
	}
	// The step to answer is the number of answers the conversation holds
	// already (one item each): a retried request gets the same answer.
	i := 0
	for _, it := range req.Input {
		if it.Type == "function_call" || it.Type == "custom_tool_call" || it.Type == "message" && it.Role == "assistant" {
			i++
		}
	}
	if i >= len(f.script) {
		f.problem("agent request %d, but the script has %d steps", i+1, len(f.script))
		f.reply(w, codexSay("The script has ended."), -1)
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
	f.reply(w, s, i)
}

// reply streams step s (step i of the script) as the Responses API does:
// the item added with its input empty, its input in two deltas, the item
// done, the response completed.
func (f *fakeResponses) reply(w http.ResponseWriter, s codexStep, i int) {
	respID := fmt.Sprintf("resp_stet%02d", i)
	itemID := fmt.Sprintf("item_stet%02d", i)
	var start, whole map[string]any
	var deltaEvent string
	var deltaOf map[string]any
	text := s.input
	switch s.kind {
	case "custom":
		start = map[string]any{"type": "custom_tool_call", "id": itemID, "call_id": codexCallID(i), "name": s.name, "input": "", "status": "in_progress"}
		whole = map[string]any{"type": "custom_tool_call", "id": itemID, "call_id": codexCallID(i), "name": s.name, "input": s.input, "status": "completed"}
		deltaEvent, deltaOf = "response.custom_tool_call_input.delta", map[string]any{"item_id": itemID, "output_index": 0}
	case "function":
		start = map[string]any{"type": "function_call", "id": itemID, "call_id": codexCallID(i), "name": s.name, "arguments": "", "status": "in_progress"}
		whole = map[string]any{"type": "function_call", "id": itemID, "call_id": codexCallID(i), "name": s.name, "arguments": s.input, "status": "completed"}
		deltaEvent, deltaOf = "response.function_call_arguments.delta", map[string]any{"item_id": itemID, "output_index": 0}
	default:
		text = s.text
		start = map[string]any{"type": "message", "id": itemID, "role": "assistant", "status": "in_progress", "content": []any{}}
		whole = map[string]any{"type": "message", "id": itemID, "role": "assistant", "status": "completed",
			"content": []any{map[string]any{"type": "output_text", "text": s.text, "annotations": []any{}}}}
		deltaEvent, deltaOf = "response.output_text.delta", map[string]any{"item_id": itemID, "output_index": 0, "content_index": 0}
	}
	var buf bytes.Buffer
	seq := 0
	event := func(name string, data map[string]any) {
		data["type"], data["sequence_number"] = name, seq
		seq++
		b, _ := json.Marshal(data)
		fmt.Fprintf(&buf, "event: %s\ndata: %s\n\n", name, b)
	}
	response := func(status string) map[string]any {
		return map[string]any{"id": respID, "object": "response", "model": codexModel, "status": status}
	}
	event("response.created", map[string]any{"response": response("in_progress")})
	event("response.output_item.added", map[string]any{"output_index": 0, "item": start})
	// In two pieces, as a model streams it (not inside a character).
	half := len(text) / 2
	for half > 0 && !utf8.RuneStart(text[half]) {
		half--
	}
	for _, piece := range []string{text[:half], text[half:]} {
		d := map[string]any{"delta": piece}
		for k, v := range deltaOf {
			d[k] = v
		}
		event(deltaEvent, d)
	}
	event("response.output_item.done", map[string]any{"output_index": 0, "item": whole})
	done := response("completed")
	done["output"] = []any{whole}
	done["usage"] = map[string]any{"input_tokens": 10, "input_tokens_details": map[string]any{"cached_tokens": 0},
		"output_tokens": 5, "output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 15}
	event("response.completed", map[string]any{"response": done})
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.Write(buf.Bytes())
}

// all is every request the fake got, in order.
func (f *fakeResponses) all() []fakeRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]fakeRequest(nil), f.requests...)
}

// agentRequests is how many requests the script answered (retries
// included).
func (f *fakeResponses) agentRequests() int {
	n := 0
	for _, r := range f.all() {
		if r.Agent {
			n++
		}
	}
	return n
}

// result is what the model saw of step i's tool call: the output Codex
// sent back for it (a custom_tool_call_output or a
// function_call_output), from the latest request holding it.
func (f *fakeResponses) result(i int) (string, bool) {
	reqs := f.all()
	for k := len(reqs) - 1; k >= 0; k-- {
		if !reqs[k].Agent {
			continue
		}
		var req responsesRequest
		if json.Unmarshal(reqs[k].Body, &req) != nil {
			continue
		}
		for _, it := range req.Input {
			if (it.Type == "custom_tool_call_output" || it.Type == "function_call_output") && it.CallID == codexCallID(i) {
				return outputText(it.Output), true
			}
		}
	}
	return "", false
}

// mustResult is result, failing the test when Codex sent none.
func (f *fakeResponses) mustResult(i int) string {
	f.t.Helper()
	r, ok := f.result(i)
	if !ok {
		s := f.script[i]
		f.t.Fatalf("Codex sent the model no output for step %d (%s %q)", i, s.name, s.input)
	}
	return r
}

// outputText is the text of a tool call's output: a string or a list of
// content items.
func outputText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var items []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	json.Unmarshal(raw, &items)
	var b strings.Builder
	for _, it := range items {
		if it.Text != "" {
			b.WriteString(it.Text)
		} else {
			fmt.Fprintf(&b, "[%s]", it.Type)
		}
	}
	return b.String()
}

// codexCLI is the pinned Codex CLI in clients/codex. Without it the test
// is skipped, unless STET_REQUIRE_CODEX=1, which makes it fail.
func codexCLI(t *testing.T) string {
	t.Helper()
	return pinnedCLI(t, "Codex", "codex", "@openai/codex", "codex", "STET_REQUIRE_CODEX")
}

// codexHome is CODEX_HOME in h's made-up home.
func codexHome(h *home) string { return filepath.Join(h.dir, ".codex") }

// writeCodexConfig writes CODEX_HOME/config.toml: the fake as the model
// provider (the Responses API: Codex 0.171.0 refuses wire_api "chat"),
// nothing that reaches another host (no plugin sync from GitHub, no
// apps, no analytics, no update check; with these settings Codex 0.171.0
// connects to nothing but 127.0.0.1), no retries, and h's project
// trusted, as `codex exec --trust` records it: Codex loads a project's
// .codex/ (its hooks.json) only in a trusted project.
func writeCodexConfig(t *testing.T, h *home, f *fakeResponses) {
	t.Helper()
	q := func(s string) string {
		b, _ := json.Marshal(s) // a TOML basic string
		return string(b)
	}
	cfg := `model = ` + q(codexModel) + `
model_provider = "stet-fake"
check_for_update_on_startup = false

[analytics]
enabled = false

[features]
plugins = false
remote_plugin = false
plugin_sharing = false
apps = false
tool_suggest = false

[model_providers.stet-fake]
name = "stet fake Responses API"
base_url = ` + q(f.url) + `
wire_api = "responses"
env_key = "STET_FAKE_OPENAI_KEY"
request_max_retries = 0
stream_max_retries = 0
stream_idle_timeout_ms = 30000

[projects.` + q(h.proj) + `]
trust_level = "trusted"
`
	h.put(filepath.Join(codexHome(h), "config.toml"), cfg)
}

// codexRun is what `codex exec --json` printed.
type codexRun struct {
	ThreadID string // Codex's session id, as its hooks name it
	Last     string // the last agent message
	Failed   string // a turn.failed or error event's message
	Output   string // all of stdout and stderr
}

// runCodex runs `codex exec prompt` in h's project against the fake, with
// CODEX_HOME in h's home, and returns what it printed.
func runCodex(t *testing.T, codexBin string, h *home, f *fakeResponses, prompt string, extra ...string) codexRun {
	t.Helper()
	writeCodexConfig(t, h, f)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	args := []string{"exec", "--json", "--strict-config", "--skip-git-repo-check",
		// Hooks run only once trusted (persisted through /hooks in the
		// TUI): this one-off run trusts them for itself.
		"--dangerously-bypass-hook-trust",
		// apply_patch and the shell write in the project without asking
		// (as root too: the sandbox runs here).
		"--sandbox", "workspace-write", "-c", `approval_policy="never"`,
		"-C", h.proj}
	args = append(append(args, extra...), prompt)
	cmd := exec.CommandContext(ctx, codexBin, args...)
	cmd.Dir = h.proj
	for _, kv := range h.env {
		// Nothing of a Codex or OpenAI setup this test runs under.
		if k, _, _ := strings.Cut(kv, "="); strings.HasPrefix(k, "CODEX_") || strings.HasPrefix(k, "OPENAI_") {
			continue
		}
		cmd.Env = append(cmd.Env, kv)
	}
	cmd.Env = append(cmd.Env, "CODEX_HOME="+codexHome(h), "STET_FAKE_OPENAI_KEY=stet-test-key", "NO_COLOR=1")
	cmd.WaitDelay = 5 * time.Second
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	run := codexRun{Output: out.String() + errb.String()}
	if ctx.Err() != nil {
		t.Fatalf("codex exec %q did not end in time (%d agent requests)\n%s", prompt, f.agentRequests(), run.Output)
	}
	sc := bufio.NewScanner(bytes.NewReader(out.Bytes()))
	sc.Buffer(nil, 16<<20)
	for sc.Scan() {
		var ev struct {
			Type     string `json:"type"`
			ThreadID string `json:"thread_id"`
			Message  string `json:"message"`
			Error    *struct {
				Message string `json:"message"`
			} `json:"error"`
			Item struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"item"`
		}
		if json.Unmarshal(sc.Bytes(), &ev) != nil {
			continue
		}
		switch {
		case ev.Type == "thread.started":
			run.ThreadID = ev.ThreadID
		case ev.Type == "item.completed" && ev.Item.Type == "agent_message":
			run.Last = ev.Item.Text
		case ev.Type == "turn.failed" && ev.Error != nil:
			run.Failed = ev.Error.Message
		case ev.Type == "error":
			run.Failed = ev.Message
		}
	}
	if err != nil {
		t.Logf("codex exec %q: %v", prompt, err)
	}
	if run.ThreadID == "" {
		t.Fatalf("codex exec %q named no thread: %v\n%s", prompt, err, run.Output)
	}
	return run
}

// TestFakeResponses checks the scripted model's answers without Codex: a
// request gets the step its conversation is at, streamed, a retry the
// same step (its before runs once), and the output of a call reads back.
func TestFakeResponses(t *testing.T) {
	var befores int
	first := applyPatch("*** Begin Patch\n*** Add File: a.txt\n+é\n*** End Patch\n")
	first.before = func() { befores++ }
	f := newFakeResponses(t, first, shellCall("cat a.txt"), codexSay("bye"))
	post := func(body string) string {
		t.Helper()
		resp, err := http.Post(f.url+"/responses", "application/json", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	const tools = `"tools":[{"type":"function","name":"exec_command"},{"type":"custom","name":"apply_patch"}]`
	user := `{"type":"message","role":"user","content":[{"type":"input_text","text":"go"}]}`
	for range 2 {
		got := post(`{"model":"gpt-5.5","stream":true,` + tools + `,"input":[` + user + `]}`)
		for _, want := range []string{"event: response.created", `"type":"custom_tool_call"`, `"call_id":"call_stet00"`,
			"event: response.custom_tool_call_input.delta", `"input":"*** Begin Patch\n*** Add File: a.txt\n+é\n*** End Patch\n"`, "event: response.completed"} {
			if !strings.Contains(got, want) {
				t.Errorf("the first request's answer has no %s:\n%s", want, got)
			}
		}
	}
	got := post(`{"stream":true,` + tools + `,"input":[` + user + `,{"type":"custom_tool_call","call_id":"call_stet00","name":"apply_patch","input":"x"},` +
		`{"type":"custom_tool_call_output","call_id":"call_stet00","output":"Success."}]}`)
	if !strings.Contains(got, `"name":"exec_command"`) || !strings.Contains(got, `"arguments":"{\"cmd\":\"cat a.txt\"}"`) {
		t.Errorf("the second request got:\n%s", got)
	}
	got = post(`{"stream":true,` + tools + `,"input":[` + user + `,{"type":"custom_tool_call","call_id":"call_stet00"},{"type":"custom_tool_call_output","call_id":"call_stet00","output":"Success."},` +
		`{"type":"function_call","call_id":"call_stet01"},{"type":"function_call_output","call_id":"call_stet01","output":[{"type":"input_text","text":"é\n"}]}]}`)
	if !strings.Contains(got, `"text":"bye"`) {
		t.Errorf("the third request got:\n%s", got)
	}
	if befores != 1 {
		t.Errorf("the first step's before ran %d times, want once", befores)
	}
	if r := f.mustResult(0); r != "Success." {
		t.Errorf("result(0) = %q", r)
	}
	if r := f.mustResult(1); r != "é\n" {
		t.Errorf("result(1) = %q", r)
	}
	if n := f.agentRequests(); n != 4 {
		t.Errorf("%d agent requests, want 4", n)
	}
}
