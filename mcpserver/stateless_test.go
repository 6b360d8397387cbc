package mcpserver

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

// statelessPost sends one MCP 2026-07-28 request over HTTP the way the
// revision does (no initialize, no Mcp-Session-Id, the protocol in a header
// and in _meta) and returns the JSON-RPC result.
func statelessPost(t *testing.T, url, method string, params map[string]any) map[string]any {
	t.Helper()
	meta, _ := params["_meta"].(map[string]any)
	if meta == nil {
		meta = map[string]any{}
	}
	meta["io.modelcontextprotocol/protocolVersion"] = "2026-07-28"
	meta["io.modelcontextprotocol/clientInfo"] = map[string]any{"name": "raw", "version": "0"}
	meta["io.modelcontextprotocol/clientCapabilities"] = map[string]any{}
	params["_meta"] = meta
	body, err := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": 1, "method": method, "params": params})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequest("POST", url, strings.NewReader(string(body)))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Authorization", "Bearer tok")
	req.Header.Set("Mcp-Protocol-Version", "2026-07-28")
	req.Header.Set("Mcp-Method", method)
	if name, ok := params["name"].(string); ok {
		req.Header.Set("Mcp-Name", name)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if sid := resp.Header.Get("Mcp-Session-Id"); sid != "" {
		t.Errorf("%s: answered with Mcp-Session-Id %q", method, sid)
	}
	raw, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("%s: status %d: %s", method, resp.StatusCode, raw)
	}
	data := string(raw)
	if strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		data = ""
		sc := bufio.NewScanner(strings.NewReader(string(raw)))
		sc.Buffer(nil, 1<<20)
		for sc.Scan() {
			if d, ok := strings.CutPrefix(sc.Text(), "data: "); ok {
				data = d
			}
		}
	}
	var m struct {
		Result map[string]any `json:"result"`
		Error  any            `json:"error"`
	}
	if err := json.Unmarshal([]byte(data), &m); err != nil || m.Result == nil {
		t.Fatalf("%s: no result in %s (%v)", method, raw, err)
	}
	return m.Result
}

// callText is the text, refusal kind and handle (_meta stet/session) of a
// tools/call result.
func callText(t *testing.T, r map[string]any) (text, refused, handle string) {
	t.Helper()
	content, _ := r["content"].([]any)
	if len(content) == 0 {
		t.Fatalf("no content: %v", r)
	}
	text, _ = content[0].(map[string]any)["text"].(string)
	sc, _ := r["structuredContent"].(map[string]any)
	refused, _ = sc["refused"].(string)
	meta, _ := r["_meta"].(map[string]any)
	handle, _ = meta[metaSession].(string)
	return text, refused, handle
}

// TestStatelessHTTP: an MCP 2026-07-28 client over HTTP sends no initialize
// and no Mcp-Session-Id. Its read mints a session handle, returned in
// _meta, structuredContent and the text; an edit passing the handle back
// (as the session argument) lands; an edit without it is a new session,
// refused not_read, and its text says how to pass the handle.
func TestStatelessHTTP(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
	srv := New(f.ws, Options{Version: "test"})
	ts := httptest.NewServer(srv.Handler("tok"))
	defer ts.Close()
	url := ts.URL + Path

	d := statelessPost(t, url, "server/discover", map[string]any{})
	if v, _ := json.Marshal(d["supportedVersions"]); !strings.Contains(string(v), `"2026-07-28"`) {
		t.Errorf("server/discover supportedVersions = %s, want 2026-07-28 among them", v)
	}
	list := statelessPost(t, url, "tools/list", map[string]any{})
	tools, _ := list["tools"].([]any)
	if len(tools) == 0 {
		t.Fatalf("no tools: %v", list)
	}
	for _, tl := range tools {
		tm := tl.(map[string]any)
		props, _ := tm["inputSchema"].(map[string]any)["properties"].(map[string]any)
		if _, ok := props[sessionArg]; !ok {
			t.Errorf("tool %v does not declare the %s argument", tm["name"], sessionArg)
		}
	}

	read := statelessPost(t, url, "tools/call", map[string]any{"name": "read", "arguments": map[string]any{"path": "a.txt"}})
	text, refused, h := callText(t, read)
	if refused != "" || !strings.HasPrefix(h, handlePrefix) || len(h) != len(handlePrefix)+24 {
		t.Fatalf("read: refused %q, handle %q: %v", refused, h, read)
	}
	if !strings.Contains(text, fmt.Sprintf("pass session: %q on every later call", h)) {
		t.Errorf("read text does not say how to pass the handle back:\n%s", text)
	}
	if sc := read["structuredContent"].(map[string]any); sc["session"] != h {
		t.Errorf("structuredContent session = %v, want %s", sc["session"], h)
	}

	// Without the handle: another session, which has read nothing.
	edit := map[string]any{"path": "a.txt", "old_string": "hello", "new_string": "bye"}
	text, refused, h2 := callText(t, statelessPost(t, url, "tools/call", map[string]any{"name": "edit", "arguments": edit}))
	if refused != "not_read" || h2 == h || !strings.HasPrefix(h2, handlePrefix) {
		t.Fatalf("edit without the handle: refused %q, handle %q (read's %q):\n%s", refused, h2, h, text)
	}
	if !strings.Contains(text, "carried no session handle") || !strings.Contains(text, "or the handle an earlier result gave you") {
		t.Errorf("the not_read refusal does not say how to pass the handle:\n%s", text)
	}
	if got := f.read(t, "a.txt"); got != "hello\n" {
		t.Fatalf("a.txt = %q after a refused edit", got)
	}

	// With it: the same session, the edit lands.
	edit[sessionArg] = h
	text, refused, h3 := callText(t, statelessPost(t, url, "tools/call", map[string]any{"name": "edit", "arguments": edit}))
	if refused != "" || h3 != h {
		t.Fatalf("edit with the handle: refused %q, handle %q, want %q:\n%s", refused, h3, h, text)
	}
	if strings.Contains(text, "pass session") {
		t.Errorf("a call that passed its handle is told about it again:\n%s", text)
	}
	if got := f.read(t, "a.txt"); got != "bye\n" {
		t.Fatalf("a.txt = %q, want the edit landed", got)
	}
}

// TestStatelessHandles: a handle never given out, or one that ended, is
// refused (with a fresh one); the handle does not reach a reserved session;
// _meta stet/session still names a host's own session; live handles are
// bounded, the longest idle ending first.
func TestStatelessHandles(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
	srv := New(f.ws, Options{Version: "test"})
	ts := httptest.NewServer(srv.Handler("tok"))
	defer ts.Close()
	url := ts.URL + Path
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	srv.handles.now = func() time.Time { return now } // set before any request
	readWith := func(args map[string]any, meta map[string]any) (string, string, string) {
		args["path"] = "a.txt"
		p := map[string]any{"name": "read", "arguments": args}
		if meta != nil {
			p["_meta"] = meta
		}
		return callText(t, statelessPost(t, url, "tools/call", p))
	}

	for _, bad := range []string{"s_000000000000000000000000", "stet:intents", "review"} {
		text, refused, h := readWith(map[string]any{sessionArg: bad}, nil)
		if refused != "invalid" || !strings.Contains(text, "not live on this server") || !strings.HasPrefix(h, handlePrefix) {
			t.Errorf("session %q: refused %q, handle %q:\n%s", bad, refused, h, text)
		}
	}
	if text, refused, _ := readWith(map[string]any{sessionArg: 7}, nil); refused != "invalid" || !strings.Contains(text, "must be the session handle") {
		t.Errorf("a numeric session: refused %q:\n%s", refused, text)
	}
	// A session the host names in _meta, as on any connection; no handle.
	if text, refused, h := readWith(map[string]any{}, map[string]any{metaSession: "ci-agent"}); refused != "" || h != "" {
		t.Errorf("_meta session ci-agent: refused %q, handle %q:\n%s", refused, h, text)
	}
	if _, refused, _ := readWith(map[string]any{}, map[string]any{metaSession: "stet:intents"}); refused != "invalid" {
		t.Errorf("_meta session stet:intents: refused %q, want invalid", refused)
	}

	// The bound: with room for two on probation, a third handle never
	// passed back ends the longest idle of those; one passed back is kept.
	srv.handles.mu.Lock()
	srv.handles.max = 2
	srv.handles.mu.Unlock()
	tick := func() {
		srv.handles.mu.Lock()
		now = now.Add(time.Minute)
		srv.handles.mu.Unlock()
	}
	_, _, h1 := readWith(map[string]any{}, nil)
	tick()
	_, _, h2 := readWith(map[string]any{}, nil)
	tick()
	if _, refused, _ := readWith(map[string]any{sessionArg: h1}, nil); refused != "" { // h1 is now the most recent
		t.Fatalf("h1 refused %q while live", refused)
	}
	tick()
	readWith(map[string]any{}, nil) // h3: h2 and h3 on probation
	tick()
	readWith(map[string]any{}, nil) // h4: h2, the longest idle on probation, ends
	if _, refused, _ := readWith(map[string]any{sessionArg: h2}, nil); refused != "invalid" {
		t.Errorf("h2 after the bound: refused %q, want invalid", refused)
	}
	// Another caller's calls without a handle never end a kept one.
	for range 10 {
		tick()
		readWith(map[string]any{}, nil)
	}
	if _, refused, _ := readWith(map[string]any{sessionArg: h1}, nil); refused != "" {
		t.Errorf("h1, kept, after ten other handles: refused %q", refused)
	}
	// Kept handles are bounded too, by ending only one idle for keptIdleMin.
	srv.handles.mu.Lock()
	srv.handles.maxKept = 1
	srv.handles.mu.Unlock()
	_, _, h5 := readWith(map[string]any{}, nil)
	if _, refused, _ := readWith(map[string]any{sessionArg: h5}, nil); refused != "invalid" {
		t.Errorf("h5 kept while h1, the one kept, is in use: refused %q, want invalid", refused)
	}
	srv.handles.mu.Lock()
	now = now.Add(keptIdleMin + time.Second)
	srv.handles.mu.Unlock()
	_, _, h6 := readWith(map[string]any{}, nil)
	if _, refused, _ := readWith(map[string]any{sessionArg: h6}, nil); refused != "" {
		t.Errorf("h6 kept once h1 was idle: refused %q", refused)
	}
	if _, refused, _ := readWith(map[string]any{sessionArg: h1}, nil); refused != "invalid" {
		t.Errorf("h1 after h6 took its room: refused %q, want invalid", refused)
	}

	// Idle expiry.
	_, _, h4 := readWith(map[string]any{}, nil)
	srv.handles.mu.Lock()
	now = now.Add(handleIdle + time.Second)
	srv.handles.mu.Unlock()
	if _, refused, _ := readWith(map[string]any{sessionArg: h4}, nil); refused != "invalid" {
		t.Errorf("a handle idle past %v: refused %q, want invalid", handleIdle, refused)
	}
}

// TestStatelessShared: with stet mcp --session NAME (SharedSession), a
// stateless call without a handle runs in that session, so a client that
// passes nothing back still reads then edits.
func TestStatelessShared(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
	srv := New(f.ws, Options{Session: "agent", SharedSession: true})
	ts := httptest.NewServer(srv.Handler("tok"))
	defer ts.Close()
	url := ts.URL + Path
	list := statelessPost(t, url, "tools/list", map[string]any{})
	for _, tl := range list["tools"].([]any) {
		props, _ := tl.(map[string]any)["inputSchema"].(map[string]any)["properties"].(map[string]any)
		if _, ok := props[sessionArg]; ok {
			t.Errorf("tool %v declares the %s argument with --session NAME", tl.(map[string]any)["name"], sessionArg)
		}
	}
	if _, refused, h := callText(t, statelessPost(t, url, "tools/call", map[string]any{"name": "read", "arguments": map[string]any{"path": "a.txt"}})); refused != "" || h != "" {
		t.Fatalf("read: refused %q, handle %q (want none minted)", refused, h)
	}
	edit := map[string]any{"path": "a.txt", "old_string": "hello", "new_string": "bye"}
	if text, refused, _ := callText(t, statelessPost(t, url, "tools/call", map[string]any{"name": "edit", "arguments": edit})); refused != "" {
		t.Fatalf("edit: refused %q:\n%s", refused, text)
	}
	if got := f.read(t, "a.txt"); got != "bye\n" {
		t.Fatalf("a.txt = %q, want the edit landed", got)
	}
}
