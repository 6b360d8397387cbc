package mcpserver

import (
	"context"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/tools"
)

// headerTransport adds an Authorization header to every request.
type headerTransport struct {
	auth string
	base http.RoundTripper
}

func (h headerTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	if h.auth != "" {
		r.Header.Set("Authorization", h.auth)
	}
	return h.base.RoundTrip(r)
}

const initBody = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`

func postInit(t *testing.T, url, auth string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("POST", url, strings.NewReader(initBody))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// TestHTTPToken: without the bearer token (or with a wrong one) every
// request gets 401 and a JSON-RPC error body; with it, an SDK client lists
// and calls tools.
func TestHTTPToken(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
	srv := New(f.ws, Options{Version: "test"})
	ts := httptest.NewServer(srv.Handler("s3cret-token"))
	defer ts.Close()
	if host, _, _ := net.SplitHostPort(ts.Listener.Addr().String()); host != "127.0.0.1" {
		t.Fatalf("test server on %s, want 127.0.0.1", host)
	}
	url := ts.URL + Path

	for _, auth := range []string{"", "Bearer wrong", "Basic s3cret-token", "Bearer "} {
		resp, body := postInit(t, url, auth)
		if resp.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(resp.Header.Get("WWW-Authenticate"), "Bearer") {
			t.Errorf("auth %q: status %d, WWW-Authenticate %q", auth, resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
		}
		var m message
		if err := json.Unmarshal([]byte(body), &m); err != nil || m.Error == nil || !strings.Contains(m.Error.Message, "unauthorized") {
			t.Errorf("auth %q: body %q is not a JSON-RPC error", auth, body)
		}
	}
	if resp, body := postInit(t, url, "Bearer s3cret-token"); resp.StatusCode != http.StatusOK {
		t.Fatalf("with the token: status %d: %s", resp.StatusCode, body)
	}

	ctx := context.Background()
	hc := &http.Client{Transport: headerTransport{auth: "Bearer s3cret-token", base: http.DefaultTransport}}
	client := mcp.NewClient(&mcp.Implementation{Name: "http-client", Version: "0"}, nil)
	cs, err := client.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: hc, MaxRetries: -1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	lt, err := cs.ListTools(ctx, nil)
	if err != nil || len(lt.Tools) != len(tools.Names(false)) {
		t.Fatalf("tools/list over HTTP: %v, %v", lt, err)
	}
	r := mustOK(t, "read over HTTP", call(t, cs, "read", map[string]any{"path": "a.txt"}))
	if !strings.HasPrefix(r.Text, "00001|hello") {
		t.Errorf("read over HTTP = %q", r.Text)
	}

	// Without a token the server is open.
	open := httptest.NewServer(srv.Handler(""))
	defer open.Close()
	if resp, body := postInit(t, open.URL+Path, ""); resp.StatusCode != http.StatusOK {
		t.Fatalf("no token configured: status %d: %s", resp.StatusCode, body)
	}
	if resp, _ := postInit(t, open.URL+"/elsewhere", ""); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a path other than %s: status %d, want 404", Path, resp.StatusCode)
	}
}

// TestHTTPSessionsPerConnection: two HTTP clients get two stet sessions:
// what one read does not let the other edit. (They speak 2025-11-25, whose
// MCP sessions are connections; see stateless_test.go for 2026-07-28.)
func TestHTTPSessionsPerConnection(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
	srv := New(f.ws, Options{Session: "agent"})
	ts := httptest.NewServer(srv.Handler(""))
	t.Cleanup(ts.Close) // after the clients' cleanups: their SSE streams hold connections open
	ctx := context.Background()
	dial := func() *mcp.ClientSession {
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, nil)
		cs, err := c.Connect(ctx, &mcp.StreamableClientTransport{Endpoint: ts.URL + Path, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	one, two := dial(), dial()
	mustOK(t, "read by one", call(t, one, "read", map[string]any{"path": "a.txt"}))
	mustRefuse(t, "edit by two", call(t, two, "edit", map[string]any{"path": "a.txt", "old_string": "hello", "new_string": "bye"}), stet.KindNotRead)
	mustOK(t, "edit by one", call(t, one, "edit", map[string]any{"path": "a.txt", "old_string": "hello", "new_string": "bye"}))

	// The base id goes to the first connection, so a CLI with the same
	// --session continues it.
	sess, err := f.ws.Session("agent")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := sess.Call(ctx, "edit", json.RawMessage(`{"path":"a.txt","old_string":"bye","new_string":"ciao"}`)); err != nil {
		t.Fatal(err)
	}
	if got := f.read(t, "a.txt"); got != "ciao\n" {
		t.Errorf("a.txt = %q: session %q did not carry the first connection's observations", got, "agent")
	}
}

// TestServeHTTP binds a real address and stops when its context ends.
func TestServeHTTP(t *testing.T) {
	f := newFixture(t, nil, stet.Options{})
	srv := New(f.ws, Options{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.ServeHTTP(ctx, addr, "tok") }()
	var resp *http.Response
	for i := 0; i < 100; i++ {
		resp, err = http.Post("http://"+addr+Path, "application/json", strings.NewReader(initBody))
		if err == nil {
			resp.Body.Close()
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST without token: %v %v", resp, err)
	}
	cancel()
	select {
	case err := <-done:
		if err != context.Canceled {
			t.Errorf("ServeHTTP returned %v, want context.Canceled", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("ServeHTTP did not stop")
	}
}

// TestHTTPOrigin: a request from a browser page of a foreign origin (DNS
// rebinding, a malicious page) gets 403; loopback origins, requests without
// an Origin (non-browser clients) and configured origins are served.
func TestHTTPOrigin(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
	srv := New(f.ws, Options{Version: "test", AllowOrigins: []string{"https://app.example.com"}})
	ts := httptest.NewServer(srv.Handler(""))
	defer ts.Close()
	post := func(origin string) *http.Response {
		req, err := http.NewRequest("POST", ts.URL+Path, strings.NewReader(initBody))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if origin != "" {
			req.Header.Set("Origin", origin)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp
	}
	for _, o := range []string{"http://evil.example", "https://127.0.0.1.evil.example", "null", "http://app.example.com", "https://app.example.com:444"} {
		if resp := post(o); resp.StatusCode != http.StatusForbidden {
			t.Errorf("Origin %q: status %d, want 403", o, resp.StatusCode)
		}
	}
	for _, o := range []string{"", "http://localhost:5173", "http://127.0.0.1", "http://[::1]:8080", "https://app.example.com"} {
		if resp := post(o); resp.StatusCode != http.StatusOK {
			t.Errorf("Origin %q: status %d, want 200", o, resp.StatusCode)
		}
	}
}
