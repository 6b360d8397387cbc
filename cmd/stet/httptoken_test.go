package main

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"
)

// freeAddr returns a loopback address nothing listens on.
func freeAddr(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// initialize is the first request of an MCP session over HTTP.
const initialize = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`

func post(t *testing.T, url, token string) int {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(initialize))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	return res.StatusCode
}

// stet mcp --http needs a bearer token on loopback too (any local user can
// reach loopback): with none given it makes one and prints it, and a
// request without it is refused; only --no-token serves loopback open,
// and says so; --no-token on another address is bad usage.
func TestHTTPNeedsATokenOnLoopback(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "a\n"})
	start := func(args ...string) (*exec.Cmd, *bufio.Scanner) {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		t.Cleanup(cancel)
		cmd := exec.CommandContext(ctx, bin, append([]string{"mcp", "--root", w.root, "--state", w.state}, args...)...)
		stderr, _ := cmd.StderrPipe()
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		return cmd, bufio.NewScanner(stderr)
	}
	addr := freeAddr(t)
	_, sc := start("--http", addr)
	var lines []string
	token := ""
	tokenRE := regexp.MustCompile(`bearer token for this run: ([0-9a-f]{32})`)
	for token == "" && sc.Scan() {
		lines = append(lines, sc.Text())
		if m := tokenRE.FindStringSubmatch(sc.Text()); m != nil {
			token = m[1]
		}
	}
	if token == "" || !strings.Contains(strings.Join(lines, "\n"), "clients must send the bearer token") {
		t.Fatalf("no generated token announced:\n%s", strings.Join(lines, "\n"))
	}
	url := fmt.Sprintf("http://%s/mcp", addr)
	waitListening(t, addr)
	if code := post(t, url, ""); code != http.StatusUnauthorized {
		t.Errorf("no token: %d, want 401", code)
	}
	if code := post(t, url, token); code != http.StatusOK {
		t.Errorf("the printed token: %d, want 200", code)
	}

	open := freeAddr(t)
	_, sc = start("--http", open, "--no-token")
	if !sc.Scan() || !strings.Contains(sc.Text(), "any user of this machine can connect") {
		t.Fatalf("--no-token startup line: %q", sc.Text())
	}
	waitListening(t, open)
	if code := post(t, "http://"+open+"/mcp", ""); code != http.StatusOK {
		t.Errorf("--no-token without a token: %d, want 200", code)
	}

	r := w.run("", "mcp", "--root", w.root, "--http", "0.0.0.0:0", "--no-token")
	if r.code != 2 || !strings.Contains(r.stderr, "not a loopback address") {
		t.Errorf("--no-token on 0.0.0.0: exit %d %q", r.code, r.stderr)
	}
}

func waitListening(t *testing.T, addr string) {
	t.Helper()
	for range 200 {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return
		}
		time.Sleep(25 * time.Millisecond)
	}
	t.Fatalf("nothing listens on %s", addr)
}

// stet mcp --http 127.0.0.1:0 names the port it got, and serves there; a
// port already taken fails before the startup line claims it.
func TestHTTPNamesThePortItGot(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "a\n"})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, bin, "mcp", "--root", w.root, "--state", w.state, "--http", "127.0.0.1:0", "--no-token")
	stderr, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	sc := bufio.NewScanner(stderr)
	if !sc.Scan() {
		t.Fatal("no startup line")
	}
	m := regexp.MustCompile(`http://(127\.0\.0\.1:[0-9]+)/mcp`).FindStringSubmatch(sc.Text())
	if m == nil || strings.HasSuffix(m[1], ":0") {
		t.Fatalf("the startup line does not name the port it got: %q", sc.Text())
	}
	waitListening(t, m[1])
	if code := post(t, "http://"+m[1]+"/mcp", ""); code != http.StatusOK {
		t.Errorf("the named port: %d, want 200", code)
	}

	r := w.run("", "mcp", "--root", w.root, "--state", t.TempDir(), "--http", m[1], "--no-token")
	if r.code == 0 || strings.Contains(r.stderr, "running on") || !strings.Contains(r.stderr, "choose a free port") {
		t.Errorf("a taken port: exit %d, stderr %q", r.code, r.stderr)
	}
}
