package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet/internal/jsonscan"
)

// The stdio fast path. go-sdk decodes every message into its own types and
// encodes every result twice more on the way out (the result, then the
// JSON-RPC message, each re-compacting what it is given), which for a call
// that carries or returns a file costs several times the work of the call
// itself. So once a connection's session is initialized, the line transport
// answers tools/call itself: it reads the envelope without decoding the
// arguments, runs the call through Server.callTool (the same function the
// go-sdk path runs) and writes the result's JSON, encoded once, as the
// response line. Everything else (initialize, tools/list, ping, responses
// to the server's own requests, other notifications) still goes to go-sdk,
// and so does any tools/call the fast path is not sure to read exactly as
// go-sdk would: a line with members other than jsonrpc, id, method and
// params (or params other than name, arguments and _meta), a repeated or
// escaped key, an id that is not a string or a plain integer, invalid UTF-8
// or malformed JSON anywhere, or nesting deeper than maxNesting. A call whose
// _meta carries the per-request protocol keys of MCP 2026-07-28
// ("io.modelcontextprotocol/...") goes to go-sdk until go-sdk has accepted
// the same keys once on the connection (see protoKnown); the fast path then
// adds the server's identity to the result's _meta, as go-sdk does.

// maxNesting bounds the nesting the fast path reads; deeper lines go to
// go-sdk.
const maxNesting = 200

// bind gives the connection its session: from now on, calls of the session
// may take the fast path.
func (c *lineConn) bind(ss *mcp.ServerSession) { c.ss.Store(ss) }

// intercept handles line, a JSON object, when it is a message the fast path
// answers, and reports whether it did, and if so whether whole (the buffer
// line is in) is free for reuse at once; a call recycles it when it is done.
// A tools/call is registered and returned as run, which the caller runs
// (see readLoop). A cancellation of a call the fast path answers cancels
// the call and is still delivered to go-sdk (which ignores an id it does
// not know).
func (c *lineConn) intercept(line, whole []byte) (taken, free bool, run func()) {
	ss := c.ss.Load()
	if ss == nil {
		return false, false, nil
	}
	e, ok := parseEnvelope(line)
	if !ok {
		return false, false, nil
	}
	switch string(e.method) {
	case `"tools/call"`:
		if e.id == nil || ss.InitializeParams() == nil {
			return false, false, nil
		}
		id, idJSON, ok := parseID(e.id)
		if !ok {
			return false, false, nil
		}
		p, ok := parseCallParams(e.call)
		if !ok || (p.proto != "" && !c.protoKnown(p.proto, id)) {
			return false, false, nil
		}
		run := c.startCall(ss, id, idJSON, p, whole)
		return true, run == nil, run
	case `"notifications/cancelled"`:
		if e.id == nil {
			c.cancelCall(e.params)
		}
	case `"notifications/roots/list_changed"`:
		// Answered here, not by go-sdk, so that a call read after it sees
		// the change (go-sdk would handle it on its own schedule).
		if e.id == nil {
			c.srv.connOf(ss).rootsGen.Add(1)
			return true, true, nil
		}
	}
	return false, false, nil
}

// startCall registers one tools/call and returns the function that runs it
// and writes its answer, nil when the call is answered already (an id in
// use). run takes whole, the buffer the arguments are in, and puts it back
// in the pool once nothing reads it.
func (c *lineConn) startCall(ss *mcp.ServerSession, id jsonrpc.ID, idJSON []byte, p callParams, whole []byte) (run func()) {
	ctx, cancel := context.WithCancel(c.ctx)
	c.mu.Lock()
	_, dup := c.pending[id]
	if !dup {
		c.pending[id] = cancel
	}
	c.mu.Unlock()
	if dup {
		cancel()
		c.reply(nil, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: request ID %s already in use", idJSON))
		return nil
	}
	c.served.Add(1)
	return func() {
		defer cancel()
		res, err := c.srv.callTool(ctx, ss, p.name, p.args, p.meta)
		var line []byte
		if err == nil {
			// The result's buffer is free once its line is written.
			defer res.recycle()
			if p.newProto {
				if res.Meta == nil {
					res.Meta = mcp.Meta{}
				}
				res.Meta[mcp.MetaKeyServerInfo] = c.srv.impl
			}
			// The call is over: nothing reads its arguments any more. (A
			// cancelled call may still be running in the facade.)
			c.bufs.put(whole)
			line, err = res.line(idJSON)
		}
		if err != nil {
			// As go-sdk answers a handler's error: code 0 and its text
			// ("context canceled" for a cancelled call).
			line, err = errorLine(idJSON, 0, err.Error())
			if err != nil {
				line = nil
			}
		}
		// The id is free once the answer is on its way (the client may
		// reuse it as soon as it reads the answer); the input's end waits
		// for the write.
		c.mu.Lock()
		delete(c.pending, id)
		c.writing++
		c.mu.Unlock()
		if line != nil {
			// A failed write is the peer gone; Read reports it at EOF.
			_ = c.writeFull(line)
		}
		c.mu.Lock()
		c.writing--
		c.idle.Broadcast()
		c.mu.Unlock()
	}
}

// protoKnown reports whether go-sdk has accepted key, the per-request
// protocol keys of a call's _meta, on this connection. If not, the call
// goes to go-sdk, which checks them; its answer (see learnProto) tells.
func (c *lineConn) protoKnown(key string, id jsonrpc.ID) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.protoOK[key] {
		return true
	}
	if c.protoWait == nil {
		c.protoWait = map[jsonrpc.ID]string{}
	}
	c.protoWait[id] = key
	return false
}

// maxProtoKeys bounds the protocol keys remembered per connection (a client
// normally sends the same ones on every call).
const maxProtoKeys = 8

// learnProto records the protocol keys of the call r answers as accepted
// when go-sdk answered it with a result.
func (c *lineConn) learnProto(r *jsonrpc.Response) {
	c.mu.Lock()
	defer c.mu.Unlock()
	key, ok := c.protoWait[r.ID]
	if !ok {
		return
	}
	delete(c.protoWait, r.ID)
	if r.Error == nil && len(c.protoOK) < maxProtoKeys {
		if c.protoOK == nil {
			c.protoOK = map[string]bool{}
		}
		c.protoOK[key] = true
	}
}

// cancelCall cancels the fast-path call a notifications/cancelled names.
func (c *lineConn) cancelCall(params []byte) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if len(params) == 0 || json.Unmarshal(params, &p) != nil {
		return
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	if err != nil || !id.IsValid() {
		return
	}
	c.mu.Lock()
	cancel := c.pending[id]
	c.mu.Unlock()
	if cancel != nil {
		cancel()
	}
}

// bufPool recycles the buffers of large request lines on the stdio fast
// path: a 1 MiB write costs less to read into memory already faulted in.
// (Response buffers are not kept: reusing them saved no time but raised the
// peak memory.) A nil *bufPool hands out nothing and keeps nothing.
type bufPool struct{ p sync.Pool }

// Buffers outside these bounds are not worth keeping, or cost too much
// memory to keep.
const (
	minPooled = 16 << 10
	maxPooled = 4 << 20
)

// get returns an empty buffer, nil when there is none to reuse.
func (bp *bufPool) get() []byte {
	if bp == nil {
		return nil
	}
	if b, ok := bp.p.Get().(*[]byte); ok {
		return (*b)[:0]
	}
	return nil
}

// put keeps b's memory for reuse. Nothing may use b after.
func (bp *bufPool) put(b []byte) {
	if bp == nil || cap(b) < minPooled || cap(b) > maxPooled {
		return
	}
	b = b[:0]
	bp.p.Put(&b)
}

// envelope is the members of a JSON-RPC message, as raw JSON (nil when
// absent), and, when params is an object, its members a tools/call has.
type envelope struct {
	id, method, params []byte
	call               callMembers
}

// callMembers is the members of a tools/call's params, as raw JSON (nil
// when absent).
type callMembers struct {
	name, args, meta []byte
	odd              bool // params is not an object, or has other or repeated members
}

// parseEnvelope reads line, which must be exactly one valid JSON object
// (surrounding whitespace aside) with "jsonrpc": "2.0", a string method and
// no members but jsonrpc, id, method and params, each at most once and
// spelled without escapes. It reports false for anything else. It reads
// the line once, params' members included.
func parseEnvelope(line []byte) (envelope, bool) {
	var e envelope
	var version []byte
	s := jsonscan.New(line, jsonscan.Options{MaxDepth: maxNesting, CheckStrings: true})
	// take reads a value into *dst; a value already there (a repeated key)
	// is refused.
	take := func(dst *[]byte, depth int) bool {
		if *dst != nil {
			return false
		}
		v, ok := s.Value(depth)
		*dst = v
		return ok
	}
	param := func(key []byte, depth int) bool {
		var dst *[]byte
		switch string(key) {
		case `"name"`:
			dst = &e.call.name
		case `"arguments"`:
			dst = &e.call.args
		case `"_meta"`:
			dst = &e.call.meta
		}
		if dst == nil || *dst != nil {
			e.call.odd = true
			return true // the scanner skips the value
		}
		return take(dst, depth)
	}
	s.SkipSpace()
	_, ok := s.Object(0, func(key []byte, depth int) bool {
		switch string(key) {
		case `"jsonrpc"`:
			return take(&version, depth)
		case `"id"`:
			return take(&e.id, depth)
		case `"method"`:
			return take(&e.method, depth)
		case `"params"`:
			if e.params != nil {
				return false
			}
			var ok bool
			if s.Peek() == '{' {
				e.params, ok = s.Object(depth, param)
			} else {
				e.call.odd = true
				e.params, ok = s.Value(depth)
			}
			return ok
		}
		return false
	})
	s.SkipSpace()
	if !ok || s.Pos() != len(line) || string(version) != `"2.0"` || e.method == nil || e.method[0] != '"' {
		return e, false
	}
	if e.params == nil {
		e.call.odd = true
	}
	return e, true
}

// parseID reads a request id: a string, or an integer of at most 15 digits
// (which go-sdk, decoding it as a float64, reads exactly). It returns the id
// and its JSON as the response carries it.
func parseID(raw []byte) (jsonrpc.ID, []byte, bool) {
	var v any
	switch {
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonrpc.ID{}, nil, false
		}
		v = s
	default:
		digits := strings.TrimPrefix(string(raw), "-")
		if len(digits) == 0 || len(digits) > 15 || (digits[0] == '0' && len(digits) > 1) {
			return jsonrpc.ID{}, nil, false
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			return jsonrpc.ID{}, nil, false
		}
		v = float64(n)
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil || !id.IsValid() {
		return jsonrpc.ID{}, nil, false
	}
	b, err := json.Marshal(id.Raw())
	if err != nil {
		return jsonrpc.ID{}, nil, false
	}
	return id, b, true
}

// callParams is what a tools/call names: the tool, its arguments as raw
// JSON (nil when absent), and _meta.
type callParams struct {
	name string
	args json.RawMessage
	meta map[string]any
	// proto is the per-request protocol keys of _meta, as JSON ("" when
	// there are none); newProto is whether they select MCP 2026-07-28 or
	// later, as go-sdk decides it.
	proto    string
	newProto bool
}

// protoPrefix starts the _meta keys of MCP's per-request protocol.
const protoPrefix = "io.modelcontextprotocol/"

// parseCallParams reads the params of a tools/call: an object with a
// string name and optional arguments and _meta (an object or null).
func parseCallParams(m callMembers) (callParams, bool) {
	p := callParams{args: m.args}
	name, meta := m.name, m.meta
	if m.odd || name == nil || name[0] != '"' || json.Unmarshal(name, &p.name) != nil {
		return p, false
	}
	switch {
	case meta == nil || string(meta) == "null":
	case meta[0] == '{':
		if json.Unmarshal(meta, &p.meta) != nil {
			return p, false
		}
		var proto map[string]any
		for k, v := range p.meta {
			if strings.HasPrefix(k, protoPrefix) {
				if proto == nil {
					proto = map[string]any{}
				}
				proto[k] = v
			}
		}
		if proto != nil {
			key, err := json.Marshal(proto) // sorted keys: one spelling per set
			if err != nil {
				return p, false
			}
			p.proto = string(key)
			v, ok := proto[mcp.MetaKeyProtocolVersion].(string)
			p.newProto = ok && v >= "2026-07-28"
		}
	default:
		return p, false
	}
	return p, true
}
