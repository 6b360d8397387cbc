package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
)

// rawClient speaks newline-delimited JSON-RPC to a server over pipes, the
// way a stdio client does, with no SDK in between.
type rawClient struct {
	t     testing.TB
	w     *io.PipeWriter
	lines chan []byte
}

// startRaw serves srv over t's pipes (max: the line limit, 0 for the
// default, through ServeStdio) and returns a raw client for it.
func startRaw(t testing.TB, srv *Server, max int) *rawClient {
	t.Helper()
	return startServing(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
		if max == 0 {
			return srv.ServeStdio(ctx, in, out)
		}
		return srv.run(ctx, &lineTransport{in: in, out: out, max: max})
	})
}

// startTransport serves srv over lt on t's pipes and returns a raw client
// for it.
func startTransport(t testing.TB, srv *Server, lt *lineTransport) *rawClient {
	t.Helper()
	return startServing(t, func(ctx context.Context, in io.Reader, out io.Writer) error {
		lt.in, lt.out = in, out
		return srv.run(ctx, lt)
	})
}

// startServing runs serve over a pair of pipes and returns a raw client
// for it.
func startServing(t testing.TB, serve func(ctx context.Context, in io.Reader, out io.Writer) error) *rawClient {
	t.Helper()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- serve(ctx, inR, outW)
	}()
	lines := make(chan []byte, 64)
	go func() {
		defer close(lines)
		br := bufio.NewReaderSize(outR, 1<<20)
		for {
			line, err := br.ReadBytes('\n')
			if len(line) > 0 {
				lines <- line
			}
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("ServeStdio did not return after its input closed")
		}
		cancel()
		outW.Close()
		outR.Close()
	})
	return &rawClient{t: t, w: inW, lines: lines}
}

func (c *rawClient) send(line string) {
	c.t.Helper()
	if _, err := io.WriteString(c.w, line+"\n"); err != nil {
		c.t.Fatalf("send: %v", err)
	}
}

// message is a JSON-RPC message as the raw client reads it.
type message struct {
	ID     json.RawMessage `json:"id"`
	Method string          `json:"method"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// recv returns the next response (skipping server notifications).
func (c *rawClient) recv() message {
	c.t.Helper()
	for {
		select {
		case line, ok := <-c.lines:
			if !ok {
				c.t.Fatal("the server closed its output")
			}
			var m message
			if err := json.Unmarshal(line, &m); err != nil {
				c.t.Fatalf("the server wrote a line that is not JSON: %q", line)
			}
			if m.Method != "" {
				continue
			}
			return m
		case <-time.After(10 * time.Second):
			c.t.Fatal("no answer from the server within 10s")
		}
	}
}

func (c *rawClient) initialize() {
	c.t.Helper()
	c.send(`{"jsonrpc":"2.0","id":"init","method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	if m := c.recv(); m.Error != nil || string(m.ID) != `"init"` {
		c.t.Fatalf("initialize: %+v", m)
	}
	c.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
}

// wantError reads the next response and checks its id and error code.
func (c *rawClient) wantError(id string, code int, contains string) {
	c.t.Helper()
	m := c.recv()
	if m.Error == nil || string(m.ID) != id || m.Error.Code != code || !strings.Contains(m.Error.Message, contains) {
		c.t.Fatalf("got %s / %+v, want id %s error %d containing %q", m.ID, m.Error, id, code, contains)
	}
}

// wantResult reads the next response and checks it answers id.
func (c *rawClient) wantResult(id string) json.RawMessage {
	c.t.Helper()
	m := c.recv()
	if m.Error != nil || string(m.ID) != id {
		c.t.Fatalf("got id %s error %+v, want a result for id %s", m.ID, m.Error, id)
	}
	return m.Result
}

// TestStdioBadLines: each malformed line gets a JSON-RPC error and the
// session goes on answering.
func TestStdioBadLines(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, stet.Options{})
	c := startRaw(t, New(f.ws, Options{}), 0)
	c.initialize()

	c.send(`this is not json`)
	c.wantError("null", -32700, "parse error")
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
	if res := c.wantResult("2"); !bytes.Contains(res, []byte(`"name":"read"`)) {
		t.Fatalf("tools/list after a bad line = %s", res)
	}

	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":`)
	c.wantError("null", -32700, "parse error")
	c.send(``) // blank lines are ignored
	c.send(`[{"jsonrpc":"2.0","id":4,"method":"ping"},{"jsonrpc":"2.0","id":5,"method":"ping"}]`)
	c.wantError("4", -32600, "batch")
	c.wantError("5", -32600, "batch")
	c.send(`{"jsonrpc":"2.0","id":6,"method":7}`)
	c.wantError("6", -32600, "invalid request")
	c.send(`{"jsonrpc":"1.0","id":"seven","method":"ping"}`)
	c.wantError(`"seven"`, -32600, "invalid request")
	c.send(`{"jsonrpc":"2.0","id":8,"method":"no/such/method"}`)
	c.wantError("8", -32601, "")

	// Arguments of the wrong shape are a refusal the model can read.
	c.send(`{"jsonrpc":"2.0","id":9,"method":"tools/call","params":{"name":"read","arguments":"a.txt"}}`)
	var res struct {
		IsError bool `json:"isError"`
		Content []struct {
			Text string `json:"text"`
		} `json:"content"`
	}
	if err := json.Unmarshal(c.wantResult("9"), &res); err != nil || !res.IsError || len(res.Content) != 1 || !strings.HasPrefix(res.Content[0].Text, "refused: ") {
		t.Fatalf("string arguments: %+v (%v)", res, err)
	}

	c.send(`{"jsonrpc":"2.0","id":10,"method":"ping"}`)
	c.wantResult("10")
}

// TestStdioAnswersAfterEOF: a client that writes its requests and closes
// its end still gets every answer before the server stops.
func TestStdioAnswersAfterEOF(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, stet.Options{})
	c := startRaw(t, New(f.ws, Options{}), 0)
	c.initialize()
	for id := 2; id <= 6; id++ {
		c.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"name":"read","arguments":{"path":"a.txt"}}}`, id))
	}
	c.w.Close()
	got := map[string]bool{}
	for range 5 {
		m := c.recv()
		if m.Error != nil {
			t.Fatalf("id %s: %+v", m.ID, m.Error)
		}
		got[string(m.ID)] = true
	}
	if len(got) != 5 {
		t.Fatalf("answered ids %v, want 2..6", got)
	}
}

// TestStdioOversizedLine: a line over the limit is answered with an error
// naming its id when the id comes before the big part, and the session
// goes on.
func TestStdioOversizedLine(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, stet.Options{})
	c := startRaw(t, New(f.ws, Options{}), 4096)
	c.initialize()

	big := strings.Repeat("y", 100_000)
	c.send(`{"jsonrpc":"2.0","id":21,"method":"tools/call","params":{"name":"write","arguments":{"path":"b.txt","content":"` + big + `"}}}`)
	c.wantError("21", -32600, "too large")
	c.send(`{"jsonrpc":"2.0","method":"tools/call","params":{"name":"write","arguments":{"path":"b.txt","content":"` + big + `"}},"id":22}`)
	c.wantError("null", -32600, "too large")
	c.send(`{"jsonrpc":"2.0","id":23,"method":"ping"}`)
	c.wantResult("23")
}

// TestStdioLargeMessage: a message over go-sdk's 16 MiB default line
// limit is read, and refused by the facade as too large to write.
func TestStdioLargeMessage(t *testing.T) {
	if testing.Short() {
		t.Skip("moves 17 MiB through a pipe")
	}
	f := newFixture(t, nil, stet.Options{})
	c := startRaw(t, New(f.ws, Options{}), 0)
	c.initialize()
	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list","arguments":{}}}`)
	c.wantResult("1")
	big := strings.Repeat("z", 17<<20)
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{"path":"big.txt","content":"` + big + `"}}}`)
	var res struct {
		IsError           bool           `json:"isError"`
		StructuredContent map[string]any `json:"structuredContent"`
	}
	if err := json.Unmarshal(c.wantResult("2"), &res); err != nil || !res.IsError || res.StructuredContent["refused"] != stet.KindTooLarge {
		t.Fatalf("17 MiB write: %+v (%v)", res, err)
	}
}

// TestStdioCancel: a call stuck in the middle of a commit is cancelled by
// notifications/cancelled and answered at once, while calls on other files
// keep being served.
func TestStdioCancel(t *testing.T) {
	entered := make(chan string, 4)
	release := make(chan struct{})
	f := newFixture(t, map[string]string{"other.txt": "other\n"}, stet.Options{
		Hooks: stet.Hooks{BeforeReadback: func(p string) {
			if p == "slow.txt" {
				entered <- p
				<-release
			}
		}},
	})
	defer close(release)
	c := startRaw(t, New(f.ws, Options{}), 0)
	c.initialize()

	c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list","arguments":{}}}`)
	c.wantResult("1")
	c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"write","arguments":{"path":"slow.txt","content":"slow\n"}}}`)
	select {
	case <-entered:
	case <-time.After(10 * time.Second):
		t.Fatal("the write never reached the commit hook")
	}

	// While the write is stuck, another file can be read.
	c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"read","arguments":{"path":"other.txt"}}}`)
	if res := c.wantResult("3"); !bytes.Contains(res, []byte(`00001|other`)) {
		t.Fatalf("read beside a stuck write = %s", res)
	}

	// The write stays stuck in its hook until the test ends, so an answer
	// at all is the answer "at once".
	c.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":2,"reason":"test"}}`)
	m := c.recv()
	if string(m.ID) != "2" || m.Error == nil {
		t.Fatalf("cancelled call answered with %+v, want an error for id 2", m)
	}
	c.send(`{"jsonrpc":"2.0","id":4,"method":"ping"}`)
	c.wantResult("4")
}

// TestParallelCalls: calls on different files run at the same time through
// the SDK client too.
func TestParallelCalls(t *testing.T) { eachTransport(t, testParallelCalls) }

func testParallelCalls(t *testing.T, connect connectFunc) {
	entered := make(chan string, 4)
	release := make(chan struct{})
	f := newFixture(t, map[string]string{"other.txt": "other\n"}, stet.Options{
		Hooks: stet.Hooks{BeforeReadback: func(p string) {
			if p == "slow.txt" {
				entered <- p
				<-release
			}
		}},
	})
	cs, _ := connect(t, New(f.ws, Options{}), nil, nil)
	mustOK(t, "list", call(t, cs, "list", map[string]any{}))
	done := make(chan result, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "write", Arguments: map[string]any{"path": "slow.txt", "content": "slow\n"}})
		if err != nil || res.IsError {
			done <- result{IsError: true, Text: fmt.Sprint(err)}
			return
		}
		done <- result{}
	}()
	<-entered
	mustOK(t, "read beside a stuck write", call(t, cs, "read", map[string]any{"path": "other.txt"}))
	mustOK(t, "edit beside a stuck write", call(t, cs, "write", map[string]any{"path": "third.txt", "content": "3\n"}))
	close(release)
	if r := <-done; r.IsError {
		t.Fatalf("the slow write failed: %s", r.Text)
	}
	if got := f.read(t, "slow.txt"); got != "slow\n" {
		t.Fatalf("slow.txt = %q", got)
	}
}
