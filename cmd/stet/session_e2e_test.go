package main

import (
	"bufio"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// mcpProc is a running stet mcp driven over stdio.
type mcpProc struct {
	t    *testing.T
	cmd  *exec.Cmd
	in   io.WriteCloser
	out  *bufio.Reader
	next int
	// onRequest answers a request from the server (roots/list); nil, or a
	// nil answer, answers with an error.
	onRequest func(method string) any
}

// startMCP starts stet mcp in w's root with w's state, serving session.
func (w *ws) startMCP(session string) *mcpProc {
	w.t.Helper()
	cmd := exec.Command(bin, "--session", session, "mcp", "--root", w.root)
	cmd.Dir = w.root
	cmd.Env = append(os.Environ(), "STET_STATE="+w.state, "STET_SESSION=", "STET_EFFECTS=")
	in, err := cmd.StdinPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		w.t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	p := &mcpProc{t: w.t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	w.t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	p.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "e2e", "version": "0"},
	})
	p.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return p
}

func (p *mcpProc) send(msg map[string]any) {
	p.t.Helper()
	b, _ := json.Marshal(msg)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// request sends a request and returns its result, skipping notifications.
func (p *mcpProc) request(method string, params any) map[string]any {
	p.t.Helper()
	p.next++
	id := p.next
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			p.t.Fatalf("reading the server's answer to %s: %v", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result map[string]any  `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			p.t.Fatalf("bad line from the server: %v: %s", err, line)
		}
		if m.Method != "" && m.ID != nil {
			var res any
			if p.onRequest != nil {
				res = p.onRequest(m.Method)
			}
			if res == nil {
				p.send(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "error": map[string]any{"code": -32601, "message": "not supported"}})
			} else {
				p.send(map[string]any{"jsonrpc": "2.0", "id": *m.ID, "result": res})
			}
			continue
		}
		if m.ID == nil || *m.ID != id {
			continue
		}
		if m.Error != nil {
			p.t.Fatalf("%s: error %s", method, m.Error)
		}
		return m.Result
	}
}

// call is one tools/call; it returns the structured result.
func (p *mcpProc) call(tool string, args map[string]any) map[string]any {
	p.t.Helper()
	r := p.request("tools/call", map[string]any{"name": tool, "arguments": args})
	sc, _ := r["structuredContent"].(map[string]any)
	return sc
}

// TestTurnBindsRunningServer: a turn pinned by the CLI binds a running stet
// mcp serving the same session on its very next call; turn --end lifts it
// the same way.
func TestTurnBindsRunningServer(t *testing.T) {
	w := newWS(t, map[string]string{"sales.csv": "region,total\nnorth,10\nsouth,20\n"})
	srv := w.startMCP("s1")
	if r := srv.call("read", map[string]any{"path": "sales.csv"}); r["refused"] != nil {
		t.Fatalf("read: %v", r)
	}

	r := w.ok("--session", "s1", "--json", "turn", "--request", "tidy the figures", "--inputs", "sales.csv")
	if in, _ := r.json(t)["inputs"].([]any); len(in) != 1 || in[0] != "sales.csv" {
		t.Fatalf("turn reports inputs %v", r.stdout)
	}

	got := srv.call("write", map[string]any{"path": "sales.csv", "content": "x\n", "overwrite": true})
	if got["refused"] != "input" {
		t.Fatalf("the server replaced a declared input the CLI pinned: %v", got)
	}
	if msg, _ := got["message"].(string); !strings.Contains(msg, "edit it in place") {
		t.Errorf("refusal message %q", msg)
	}
	if w.get("sales.csv") != "region,total\nnorth,10\nsouth,20\n" {
		t.Fatal("sales.csv changed")
	}
	if got := srv.call("delete", map[string]any{"path": "sales.csv"}); got["refused"] != "input" {
		t.Fatalf("the server deleted a declared input: %v", got)
	}
	if got := srv.call("edit", map[string]any{"path": "sales.csv", "old_string": "north,10", "new_string": "north,11"}); got["refused"] != nil {
		t.Fatalf("edit of a declared input: %v", got)
	}

	r = w.ok("--session", "s1", "turn", "--end")
	if !strings.Contains(r.stdout, "turn ended") {
		t.Fatalf("turn --end says %q", r.stdout)
	}
	got = srv.call("write", map[string]any{"path": "sales.csv", "content": "x\n", "overwrite": true})
	if got["refused"] != nil {
		t.Fatalf("after turn --end the server still refuses: %v", got)
	}
	if w.get("sales.csv") != "x\n" {
		t.Fatal("the write did not land")
	}
}
