package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// protocolVersion is the MCP version the client asks for; both servers
// speak it.
const protocolVersion = "2025-11-25"

// rpcClient is a minimal JSON-RPC 2.0 client over newline-delimited JSON,
// the MCP stdio framing. It sends one request at a time and times each
// from the write of the encoded request to the end of the response's line.
type rpcClient struct {
	w      io.Writer
	r      *bufio.Reader
	line   []byte // reused buffer for the current line
	nextID int64

	// Sizes of the last round trip's request and response lines, in bytes.
	lastReq, lastResp int

	// deadline, when set, bounds one round trip (pipes of a child process).
	deadline func(time.Time) error
	timeout  time.Duration
}

func newRPCClient(w io.Writer, r io.Reader) *rpcClient {
	return &rpcClient{w: w, r: bufio.NewReaderSize(r, 1<<20)}
}

// rpcError is a JSON-RPC error object.
type rpcError struct {
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Data    json.RawMessage `json:"data,omitempty"`
}

func (e *rpcError) Error() string { return fmt.Sprintf("JSON-RPC error %d: %s", e.Code, e.Message) }

// rpcMessage is any message a server sends: a response (id with result or
// error), a notification (method, no id) or a request (method and id).
type rpcMessage struct {
	ID     json.RawMessage `json:"id,omitempty"`
	Method string          `json:"method,omitempty"`
	Result json.RawMessage `json:"result,omitempty"`
	Error  *rpcError       `json:"error,omitempty"`
}

// toolResult is the result of tools/call.
type toolResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	Structured json.RawMessage `json:"structuredContent,omitempty"`
	IsError    bool            `json:"isError,omitempty"`
}

// text is the concatenated text content of a tool result.
func (t *toolResult) text() string {
	var b strings.Builder
	for _, c := range t.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// encodeRequest returns the line of one request (a notification when id is 0).
func encodeRequest(id int64, method string, params any) ([]byte, error) {
	msg := struct {
		JSONRPC string `json:"jsonrpc"`
		ID      int64  `json:"id,omitempty"`
		Method  string `json:"method"`
		Params  any    `json:"params,omitempty"`
	}{"2.0", id, method, params}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf) // Encode ends the line with '\n'
	enc.SetEscapeHTML(false)
	if err := enc.Encode(msg); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// parseMessage decodes one line a server sent.
func parseMessage(line []byte) (*rpcMessage, error) {
	var m rpcMessage
	if err := json.Unmarshal(line, &m); err != nil {
		return nil, fmt.Errorf("bad JSON-RPC line (%d bytes, starts %q): %w", len(line), head(line), err)
	}
	return &m, nil
}

// parseToolResult decodes the result of a tools/call response; a JSON-RPC
// error or a result with isError set is an error.
func parseToolResult(m *rpcMessage) (*toolResult, error) {
	if m.Error != nil {
		return nil, m.Error
	}
	var r toolResult
	if err := json.Unmarshal(m.Result, &r); err != nil {
		return nil, fmt.Errorf("bad tools/call result: %w", err)
	}
	if r.IsError {
		return &r, fmt.Errorf("tool error: %s", head([]byte(r.text())))
	}
	return &r, nil
}

func head(b []byte) string {
	const n = 300
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// readLine reads one line into c.line (reused between calls).
func (c *rpcClient) readLine() ([]byte, error) {
	c.line = c.line[:0]
	for {
		chunk, err := c.r.ReadSlice('\n')
		c.line = append(c.line, chunk...)
		switch {
		case err == nil:
			return c.line, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF && len(c.line) > 0:
			return nil, io.ErrUnexpectedEOF
		default:
			return nil, err
		}
	}
}

// roundTrip writes the encoded request req (id id) and reads lines until
// the response with that id. It returns the response and the time from the
// start of the write to the end of the response's line; notifications in
// between are skipped, and requests from the server are answered with
// method-not-found.
func (c *rpcClient) roundTrip(req []byte, id int64) (*rpcMessage, time.Duration, error) {
	if c.deadline != nil && c.timeout > 0 {
		c.deadline(time.Now().Add(c.timeout))
		defer c.deadline(time.Time{})
	}
	want := strconv.FormatInt(id, 10)
	start := time.Now()
	if _, err := c.w.Write(req); err != nil {
		return nil, 0, fmt.Errorf("write: %w", err)
	}
	for {
		line, err := c.readLine()
		end := time.Now()
		if err != nil {
			return nil, 0, fmt.Errorf("read: %w", err)
		}
		m, err := parseMessage(line)
		if err != nil {
			return nil, 0, err
		}
		if m.Method == "" && string(m.ID) == want {
			c.lastReq, c.lastResp = len(req), len(line)
			return m, end.Sub(start), nil
		}
		if m.Method != "" && len(m.ID) > 0 {
			reply := fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`+"\n", m.ID)
			if _, err := c.w.Write(reply); err != nil {
				return nil, 0, fmt.Errorf("write: %w", err)
			}
		}
	}
}

// request sends one request and waits for its response, untimed by the
// caller's choice (the duration is returned).
func (c *rpcClient) request(method string, params any) (*rpcMessage, time.Duration, error) {
	c.nextID++
	req, err := encodeRequest(c.nextID, method, params)
	if err != nil {
		return nil, 0, err
	}
	m, d, err := c.roundTrip(req, c.nextID)
	if err == nil && m.Error != nil {
		err = fmt.Errorf("%s: %w", method, m.Error)
	}
	return m, d, err
}

// notify sends a notification.
func (c *rpcClient) notify(method string) error {
	req, err := encodeRequest(0, method, nil)
	if err != nil {
		return err
	}
	_, err = c.w.Write(req)
	return err
}

// initialize runs the MCP handshake: initialize, then
// notifications/initialized. It returns the time of the initialize round trip.
func (c *rpcClient) initialize() (time.Duration, error) {
	params := map[string]any{
		"protocolVersion": protocolVersion,
		"capabilities":    map[string]any{},
		"clientInfo":      map[string]any{"name": "stetbench", "version": "0"},
	}
	_, d, err := c.request("initialize", params)
	if err != nil {
		return 0, err
	}
	return d, c.notify("notifications/initialized")
}

// call calls a tool: the request is encoded before the clock starts; the
// response is decoded after it stops.
func (c *rpcClient) call(tool string, args any) (*toolResult, time.Duration, error) {
	c.nextID++
	req, err := encodeRequest(c.nextID, "tools/call", map[string]any{"name": tool, "arguments": args})
	if err != nil {
		return nil, 0, err
	}
	m, d, err := c.roundTrip(req, c.nextID)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", tool, err)
	}
	r, err := parseToolResult(m)
	if err != nil {
		return r, d, fmt.Errorf("%s: %w", tool, err)
	}
	return r, d, nil
}

// process is an MCP server running as a child process, spoken to over its
// stdin and stdout.
type process struct {
	*rpcClient
	cmd    *exec.Cmd
	stdin  *os.File
	stdout *os.File
	stderr *tailBuffer
	done   chan struct{}
	err    error // of Wait, once done is closed
}

// startProcess starts argv in dir with env and connects a client to it.
// Every round trip is bounded by timeout.
func startProcess(argv []string, dir string, env []string, timeout time.Duration) (*process, error) {
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		return nil, err
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir, cmd.Env = dir, env
	cmd.Stdin, cmd.Stdout = inR, outW
	p := &process{cmd: cmd, stdin: inW, stdout: outR, stderr: &tailBuffer{max: 8 << 10}, done: make(chan struct{})}
	cmd.Stderr = p.stderr
	err = cmd.Start()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		return nil, err
	}
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	p.rpcClient = newRPCClient(inW, outR)
	p.timeout = timeout
	p.deadline = func(t time.Time) error {
		return errors.Join(inW.SetWriteDeadline(t), outR.SetReadDeadline(t))
	}
	return p, nil
}

// pid is the server's process id.
func (p *process) pid() int { return p.cmd.Process.Pid }

// close ends the server: stdin is closed (a stdio server then exits); one
// that is still running after a grace period is killed.
func (p *process) close() {
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(3 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
	}
	p.stdout.Close()
}

// describe adds the end of the server's stderr to err.
func (p *process) describe(err error) error {
	if s := strings.TrimSpace(p.stderr.String()); s != "" {
		return fmt.Errorf("%w (server stderr: %s)", err, s)
	}
	return err
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}

// peakRSS is VmHWM of process pid, in bytes, from /proc/<pid>/status.
func peakRSS(pid int) (int64, error) {
	b, err := readFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, err
	}
	return parseVmHWM(b)
}

// parseVmHWM finds the VmHWM line ("VmHWM:   12345 kB") of a
// /proc/<pid>/status text.
func parseVmHWM(status []byte) (int64, error) {
	for line := range bytes.Lines(status) {
		rest, ok := bytes.CutPrefix(line, []byte("VmHWM:"))
		if !ok {
			continue
		}
		f := strings.Fields(string(rest))
		if len(f) != 2 || f[1] != "kB" {
			return 0, fmt.Errorf("unexpected VmHWM line %q", line)
		}
		n, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil || n < 0 || n > math.MaxInt64>>10 {
			return 0, fmt.Errorf("unexpected VmHWM line %q", line)
		}
		return n << 10, nil
	}
	return 0, errors.New("no VmHWM line")
}
