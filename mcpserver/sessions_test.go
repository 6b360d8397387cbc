package mcpserver

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

// httpSession opens an MCP session over streamable HTTP and returns its id.
func httpSession(t *testing.T, url string) string {
	t.Helper()
	res := rawPost(t, url, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`)
	id := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != 200 || id == "" {
		t.Fatalf("initialize: %d, session %q", res.StatusCode, id)
	}
	if res := rawPost(t, url, id, `{"jsonrpc":"2.0","method":"notifications/initialized"}`); res.StatusCode/100 != 2 {
		t.Fatalf("initialized: %d", res.StatusCode)
	}
	return id
}

func rawPost(t *testing.T, url, session, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, res.Body)
	res.Body.Close()
	return res
}

// live reports whether the server still serves an HTTP session.
func live(t *testing.T, url, id string) bool {
	return rawPost(t, url, id, `{"jsonrpc":"2.0","id":9,"method":"ping"}`).StatusCode == 200
}

// Clients that leave without closing do not hold the server's memory for
// good: the live sessions are bounded (opening one more closes the longest
// idle), an idle one expires, and a gone session's state is dropped.
func TestHTTPSessionsAreBoundedAndExpire(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, stet.Options{})
	s := New(f.ws, Options{MaxSessions: 2, IdleTimeout: 400 * time.Millisecond})
	srv := httptest.NewServer(s.Handler(""))
	defer srv.Close()
	url := srv.URL + Path

	first := httpSession(t, url)
	time.Sleep(20 * time.Millisecond)
	second := httpSession(t, url)
	time.Sleep(20 * time.Millisecond)
	if !live(t, url, second) {
		t.Fatal("second session not served")
	}
	third := httpSession(t, url)
	deadline := time.Now().Add(5 * time.Second)
	for live(t, url, first) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if live(t, url, first) {
		t.Fatal("the longest idle session is still served after a third one opened (bound 2)")
	}
	if !live(t, url, third) {
		t.Fatal("the newest session is not served")
	}
	// Idle past the timeout (a ping would count as use): gone, and its
	// state with it.
	time.Sleep(1200 * time.Millisecond)
	if live(t, url, second) || live(t, url, third) {
		t.Fatal("idle sessions are still served after the idle timeout")
	}
	deadline = time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		s.mu.Lock()
		n := len(s.conns)
		s.mu.Unlock()
		if n == 0 {
			return
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatalf("the server still keeps %d connections' state", len(s.conns))
}

// A server with no workspace of its own (stet mcp with no --root) ends
// sessions without touching a workspace it does not have.
func TestEndingSessionsWithoutAWorkspace(t *testing.T) {
	s := New(nil, Options{})
	defer s.Close()
	s.handleEnded("s_0123456789abcdef01234567")
	s.forgetSession("mcp-000000000000")
}

// A session still in use is not forgotten: not the one every connection
// shares (--session NAME), not a live minted handle.
func TestSessionInUseIsKept(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, stet.Options{})
	s := New(f.ws, Options{Session: "shared", SharedSession: true})
	defer s.Close()
	shared, _ := f.ws.Session("shared")
	s.forgetSession("shared")
	if again, _ := f.ws.Session("shared"); again != shared {
		t.Fatal("the shared session was forgotten while connections share it")
	}
	id, err := s.handles.mint()
	if err != nil {
		t.Fatal(err)
	}
	minted, _ := f.ws.Session(id)
	s.forgetSession(id)
	if again, _ := f.ws.Session(id); again != minted {
		t.Fatal("a live handle's session was forgotten")
	}
}
