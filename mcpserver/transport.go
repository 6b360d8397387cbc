package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// MaxMessageBytes bounds one inbound JSON-RPC message (a stdio line or an
// HTTP body). It is above go-sdk's 16 MiB default so that a write of a file
// near stet's 16 MiB edit limit still fits once JSON-escaped; a larger
// message is answered with an error and the session goes on.
const MaxMessageBytes = 64 << 20

// headBytes is how much of an oversized line is kept to find its id.
const headBytes = 4 << 10

// lineTransport is newline-delimited JSON-RPC over a reader and a writer,
// like go-sdk's IOTransport, except that a line which is not a JSON-RPC
// message, or is over the size limit, gets an error reply instead of ending
// the session. JSON-RPC batches are answered with an error for each request
// in them.
type lineTransport struct {
	in  io.Reader
	out io.Writer
	max int // longest line accepted, in bytes

	// general turns the fast path off: every message goes through go-sdk
	// (tests compare the two paths).
	general bool
	srv     *Server   // set by Server.run: the server whose calls the fast path answers
	conn    *lineConn // set by Connect
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	max := t.max
	if max <= 0 {
		max = MaxMessageBytes
	}
	c := &lineConn{
		out:     t.out,
		msgs:    make(chan readResult),
		closed:  make(chan struct{}),
		pending: map[jsonrpc.ID]context.CancelFunc{},
		srv:     t.srv,
	}
	if t.srv != nil {
		c.bufs = &t.srv.bufs
	}
	c.idle = sync.NewCond(&c.mu)
	c.ctx, c.cancel = context.WithCancel(context.Background())
	t.conn = c
	go c.readLoop(bufio.NewReaderSize(t.in, 64<<10), max)
	return c, nil
}

type readResult struct {
	msg jsonrpc.Message
	err error
}

// lineConn is the mcp.Connection of a lineTransport.
type lineConn struct {
	out io.Writer
	wmu sync.Mutex // one message at a time on out

	msgs      chan readResult
	closed    chan struct{}
	closeOnce sync.Once

	// Calls read but not yet answered, with the cancel function of those
	// the fast path answers (nil for those go-sdk answers). At the end of
	// the input the connection waits for them, so that a client that writes
	// its requests and closes stdin still gets every answer.
	mu       sync.Mutex
	pending  map[jsonrpc.ID]context.CancelFunc
	writing  int // fast-path answers being written (their ids are out of pending)
	isClosed bool
	idle     *sync.Cond // signalled when pending shrinks or the connection closes

	// The fast path (fastpath.go): srv answers tools/call of session ss
	// once ss is bound and initialized. ctx is the parent of those calls'
	// contexts; cancel ends them when the connection closes.
	srv    *Server
	bufs   *bufPool // the server's; nil without a server
	ss     atomic.Pointer[mcp.ServerSession]
	ctx    context.Context
	cancel context.CancelFunc
	served atomic.Int64 // calls the fast path took (tests check it)

	// The per-request protocol keys of _meta (MCP 2026-07-28) go-sdk has
	// accepted on this connection, and the calls whose answer will tell;
	// under mu. See protoKnown.
	protoOK   map[string]bool
	protoWait map[jsonrpc.ID]string
}

var _ mcp.Connection = (*lineConn)(nil)

// Read returns the next message. Bad lines never reach it: the read loop
// answers them itself.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case r := <-c.msgs:
		return r.msg, r.err
	}
}

// Write writes msg as one line.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	r, ok := msg.(*jsonrpc.Response)
	if ok {
		c.learnProto(r)
		defer c.answered(r.ID)
	}
	if ok && r.Error == nil && len(r.Result) > 0 && r.ID.IsValid() {
		// A result is already compact JSON made by the SDK's encoder; writing
		// it as is saves a validating pass over every byte of a large read
		// (EncodeMessage re-compacts the RawMessage).
		id, err := json.Marshal(r.ID.Raw())
		if err == nil {
			data := make([]byte, 0, len(r.Result)+len(id)+40)
			data = append(data, `{"jsonrpc":"2.0","id":`...)
			data = append(data, id...)
			data = append(data, `,"result":`...)
			data = append(data, r.Result...)
			data = append(data, '}')
			return c.writeLine(data)
		}
	}
	if ok && r.Error != nil {
		msg = withErrorCode(r)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("mcpserver: encoding a message: %w", err)
	}
	return c.writeLine(data)
}

// withErrorCode gives a JSON-RPC error code to the one error go-sdk sends
// without one (code 0): a request other than initialize or ping before the
// session is initialized is an invalid request (-32600) in this state, as
// JSON-RPC 2.0 names a request the server will not take.
func withErrorCode(r *jsonrpc.Response) *jsonrpc.Response {
	var je *jsonrpc.Error
	if errors.As(r.Error, &je) || !strings.HasSuffix(r.Error.Error(), "is invalid during session initialization") {
		return r
	}
	c := *r
	c.Error = &jsonrpc.Error{Code: jsonrpc.CodeInvalidRequest, Message: r.Error.Error() + ": send initialize first"}
	return &c
}

// writeLine writes data and a newline in one Write call, which keeps
// lines whole even on a writer shared with someone else. data may be
// appended to.
func (c *lineConn) writeLine(data []byte) error {
	return c.writeFull(append(data, '\n'))
}

// writeFull writes line, which ends with its newline, in one Write call.
func (c *lineConn) writeFull(line []byte) error {
	select {
	case <-c.closed:
		return mcp.ErrConnectionClosed
	default:
	}
	c.wmu.Lock()
	defer c.wmu.Unlock()
	_, err := c.out.Write(line)
	return err
}

// Close stops delivering messages. The reader is the caller's: it is not
// closed, and the read loop ends at its EOF.
func (c *lineConn) Close() error {
	c.closeOnce.Do(func() {
		c.cancel()
		close(c.closed)
		c.mu.Lock()
		c.isClosed = true
		c.idle.Broadcast()
		c.mu.Unlock()
	})
	return nil
}

// answered forgets a call once its response is written.
func (c *lineConn) answered(id jsonrpc.ID) {
	c.mu.Lock()
	delete(c.pending, id)
	c.idle.Broadcast()
	c.mu.Unlock()
}

// drain waits until every call read has been answered, or the connection
// closes.
func (c *lineConn) drain() {
	c.mu.Lock()
	for (len(c.pending) > 0 || c.writing > 0) && !c.isClosed {
		c.idle.Wait()
	}
	c.mu.Unlock()
}

// SessionID implements mcp.Connection; stdio has no session id.
func (c *lineConn) SessionID() string { return "" }

// deliver hands r to Read, unless the connection closes first.
func (c *lineConn) deliver(r readResult) bool {
	select {
	case c.msgs <- r:
		return true
	case <-c.closed:
		return false
	}
}

// readLoop reads lines until the input ends. A tools/call the fast path
// takes runs on this goroutine while a new one goes on reading: the call
// starts at once on the thread that read it, with no wake-up of another
// thread between the request and its answer, and the lines after it are
// still read (a cancellation, the next call) while it runs.
func (c *lineConn) readLoop(br *bufio.Reader, max int) {
	for {
		line, head, size, err := readLine(br, max, c.bufs.get())
		free := true // nothing holds on to line once this turn ends
		var run func()
		switch {
		case size > max:
			id := findID(head)
			c.reply(id, jsonrpc.CodeInvalidRequest, fmt.Sprintf("message too large: %s bytes, over the %s-byte limit of one message; send smaller arguments (for a large file, write part of it, then add the rest with edit)", thousands(size), thousands(max)))
		case len(bytes.TrimSpace(line)) > 0:
			var open bool
			if open, free, run = c.handleLine(line); !open {
				return
			}
		}
		if free {
			c.bufs.put(line)
		}
		if run != nil {
			if err == nil {
				go c.readLoop(br, max)
				run()
				return
			}
			run() // the last line: its answer comes before the end
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			c.drain()
			c.deliver(readResult{err: err})
			return
		}
	}
}

// handleLine decodes one line and delivers its message, or answers it with
// an error (or the fast path takes it: then run, when not nil, is the call
// to run). It reports whether the connection is still open, and whether
// line's buffer is free for reuse (nothing delivered or still running
// refers to it).
func (c *lineConn) handleLine(whole []byte) (open, free bool, run func()) {
	line := bytes.TrimSpace(whole)
	if c.srv != nil && line[0] == '{' {
		if taken, free, run := c.intercept(line, whole); taken {
			return true, free, run
		}
	}
	if line[0] == '[' && json.Valid(line) {
		c.rejectBatch(line)
		return true, true, nil
	}
	m, err := jsonrpc.DecodeMessage(line)
	if err == nil {
		if r, ok := m.(*jsonrpc.Request); ok && r.IsCall() {
			c.mu.Lock()
			cancel, dup := c.pending[r.ID]
			if !dup {
				c.pending[r.ID] = nil
			}
			c.mu.Unlock()
			if cancel != nil {
				// The id of a call the fast path is answering: refused as
				// go-sdk refuses an id in use.
				c.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: request ID %s already in use", findID(line)))
				return true, true, nil
			}
		}
		return c.deliver(readResult{msg: m}), false, nil
	}
	if !json.Valid(line) {
		var v json.RawMessage
		msg := "parse error: the line is not valid JSON; send one JSON-RPC message per line"
		var se *json.SyntaxError
		if err := json.Unmarshal(line, &v); errors.As(err, &se) {
			msg = fmt.Sprintf("parse error: %s (at byte %d of the line); send one JSON-RPC message per line", se.Error(), se.Offset)
		}
		c.reply(nil, jsonrpc.CodeParseError, msg)
		return true, true, nil
	}
	if id := findID(line); id != nil || isRequest(line) {
		c.reply(id, jsonrpc.CodeInvalidRequest, "invalid request: not a JSON-RPC 2.0 message (it needs \"jsonrpc\": \"2.0\", a string \"method\" and a string or number \"id\")")
	}
	// An undecodable message that is not a request (a reply to nothing we
	// asked) has nobody waiting for an answer: drop it.
	return true, true, nil
}

// rejectBatch answers every request of a batch with an error, so that no
// caller waits for an answer that never comes.
func (c *lineConn) rejectBatch(line []byte) {
	var elems []json.RawMessage
	if err := json.Unmarshal(line, &elems); err != nil || len(elems) == 0 {
		c.reply(nil, jsonrpc.CodeInvalidRequest, "invalid request: an empty or malformed batch")
		return
	}
	for _, e := range elems {
		if id := findID(e); id != nil {
			c.reply(id, jsonrpc.CodeInvalidRequest, "invalid request: JSON-RPC batches are not supported; send one message per line")
		}
	}
}

// reply writes an error response. id is the request's id as JSON, or nil
// for null.
func (c *lineConn) reply(id json.RawMessage, code int64, msg string) {
	data, err := errorLine(id, code, msg)
	if err != nil {
		return
	}
	// A failed write is the peer gone; Read reports it at EOF.
	_ = c.writeFull(data)
}

// errorLine is the line of an error response. id is the request's id as
// JSON, or nil for null.
func errorLine(id json.RawMessage, code int64, msg string) ([]byte, error) {
	if id == nil {
		id = json.RawMessage("null")
	}
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: msg}})
	if err != nil {
		return nil, err
	}
	return append(data, '\n'), nil
}

// readLine reads one line of at most max bytes (without its newline),
// into buf's memory when it is large enough. An oversized line is consumed
// to its end but not kept: only its first headBytes come back in head, and
// size is its length so far (> max). err is io.EOF after the last line.
func readLine(br *bufio.Reader, max int, buf []byte) (line, head []byte, size int, err error) {
	line = buf[:0]
	for {
		chunk, rerr := br.ReadSlice('\n')
		size += len(chunk)
		if size <= max {
			line = append(line, chunk...)
		} else if head == nil {
			head = make([]byte, 0, headBytes)
			head = append(head, line[:min(len(line), headBytes)]...)
			head = append(head, chunk[:min(len(chunk), headBytes-len(head))]...)
			line = nil
		}
		switch {
		case rerr == nil:
			if size <= max {
				line = line[:len(line)-1]
			}
			return line, head, size, nil
		case errors.Is(rerr, bufio.ErrBufferFull):
			continue
		default:
			return line, head, size, rerr
		}
	}
}

// findID returns the "id" member of a JSON-RPC object as JSON (a string or
// a number), reading top-level members in order and stopping at the first
// one it cannot read (a truncated head). It returns nil when there is none.
func findID(data []byte) json.RawMessage {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil
		}
		key, ok := t.(string)
		if !ok {
			return nil
		}
		var v any
		if err := dec.Decode(&v); err != nil {
			return nil
		}
		if key != "id" {
			continue
		}
		switch v.(type) {
		case string, json.Number:
			b, err := json.Marshal(v)
			if err != nil {
				return nil
			}
			return b
		}
		return nil
	}
	return nil
}

// isRequest reports whether a JSON object has a "method" member.
func isRequest(data []byte) bool {
	var m map[string]json.RawMessage
	if json.Unmarshal(data, &m) != nil {
		return false
	}
	_, ok := m["method"]
	return ok
}
