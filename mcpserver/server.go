//lint:file-ignore SA1019 client roots (deprecated by MCP 2026-07-28, kept for its deprecation window) are how clients older than that revision bound the workspace

package mcpserver

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/tools"
)

// Options configure a Server.
type Options struct {
	// Version is the server version reported in initialize.
	Version string
	// StallSteps is the review-stall threshold N of SPEC section 8: after N
	// consecutive calls of a session that change nothing, the next result
	// carries a notice; from 2N on, reads (read, list, find, grep) are
	// refused as stalled until a change lands. 0 disables it.
	StallSteps int
	// Session is the base session id. The first client connection uses it
	// as is (so a CLI with the same --session sees the same session); later
	// connections get "<base>-2", "<base>-3", ... Empty means a generated id
	// ("mcp-" and 12 hex digits) per connection.
	Session string
	// SharedSession puts every connection in the one session Session names
	// (stet mcp --session NAME), so a client that opens a connection per
	// call still builds up its observations. A _meta stet/session key still
	// names another for one call.
	SharedSession bool
	// AllowOrigins are browser origins ("https://app.example.com", scheme,
	// host and port as a browser sends them in Origin) served over HTTP
	// besides loopback ones. See Handler.
	AllowOrigins []string
	// TextResults makes every result text only, as a model reads it best:
	// no structuredContent and no outputSchema in tools/list (a client such
	// as Claude Code hands the model a result's structured content when
	// there is one, JSON-escaped). The structured result (the CLI --json
	// shape: a change's whole receipt, a read's version) still reaches a
	// program, in the result's _meta under "stet/result".
	TextResults bool
	// Profile selects the tool set: ProfileStet (the default, also for "")
	// serves stet's own tools; ProfileReference serves the reference
	// filesystem server's tool names, arguments and text results on the
	// same guarded core (stet mcp --tools reference).
	Profile string
	// Workspace are the options of the workspaces a server made with no
	// workspace (New(nil, o)) opens over each client's roots. Their
	// Effects also decide the tool list of such a server.
	Workspace stet.Options
	// Logger receives what broke (errors the model is only told about in
	// general terms). Nil discards it.
	Logger *slog.Logger
	// IdleTimeout closes an HTTP session (Mcp-Session-Id) that sent nothing
	// for this long, and drops its state; DefaultIdleTimeout when 0,
	// never when negative.
	IdleTimeout time.Duration
	// MaxSessions bounds the live HTTP sessions: opening one more closes
	// the longest idle first. DefaultMaxSessions when 0.
	MaxSessions int
}

// Bounds of the HTTP sessions a server keeps (Options.IdleTimeout,
// Options.MaxSessions).
const (
	DefaultIdleTimeout = 30 * time.Minute
	DefaultMaxSessions = 256
)

// Server is stet's MCP server: every facade tool as an MCP tool over one
// workspace. It is safe for concurrent use and may serve several
// connections at once.
type Server struct {
	ws       *stet.Workspace
	o        Options
	mcp      *mcp.Server
	impl     *mcp.Implementation // the server's name and version
	log      *slog.Logger
	listed   map[string]bool // tools in tools/list
	maxReply int             // bound on a result's JSON, in bytes

	bufs bufPool // request line buffers of the stdio fast path

	mu     sync.Mutex
	conns  map[*mcp.ServerSession]*conn
	nconns int
	stalls map[string]*stallState     // by stet session id
	opened map[string]*stet.Workspace // over client roots, by the roots; see clientWorkspace
	closed bool

	handles *handles // session handles minted for stateless requests

	mem *memory // the sessions named by a call (a handle, _meta) held in memory
}

// conn is what the server keeps per client connection.
type conn struct {
	id string // the connection's stet session id
	ss *mcp.ServerSession

	used atomic.Int64 // when it last made a call, in Unix nanoseconds

	rootsGen atomic.Int64 // bumped by notifications/roots/list_changed

	mu         sync.Mutex // held while roots are asked for
	rootsKnown bool       // roots were asked for at generation rootsAt
	rootsAt    int64
	roots      []string // announced roots as absolute directories; nil: no narrowing
	rootsWhy   string   // why roots is nil
}

// New returns a server for ws. Call ServeStdio or ServeHTTP, or mount
// Handler, to serve it. With a nil ws the server serves each client's
// roots (opened with o.Workspace), and a client without roots nothing:
// every call is refused, saying how to name a root. Close closes what it
// opened.
func New(ws *stet.Workspace, o Options) *Server {
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	version := o.Version
	if version == "" {
		version = "devel"
	}
	s := &Server{
		ws:       ws,
		o:        o,
		log:      log,
		listed:   map[string]bool{},
		maxReply: maxReplyBytes,
		conns:    map[*mcp.ServerSession]*conn{},
		stalls:   map[string]*stallState{},
		opened:   map[string]*stet.Workspace{},
	}
	s.handles = newHandles(s.handleEnded)
	s.mem = newMemory(memSessions, s.dropMemory)
	s.impl = &mcp.Implementation{Name: "stet", Title: "stet", Version: version}
	instr := instructions(ws)
	if s.reference() {
		instr = refInstructions(ws)
	}
	s.mcp = mcp.NewServer(s.impl, &mcp.ServerOptions{
		Instructions: instr,
		Logger:       o.Logger,
		// Tools only; the list changes for a session whose reads a review
		// stall withdraws (see stall.go).
		Capabilities:            &mcp.ServerCapabilities{Tools: &mcp.ToolCapabilities{ListChanged: o.StallSteps > 0}},
		RootsListChangedHandler: s.rootsChanged,
	})
	readOnly := s.effects() == policy.ReadOnly
	if s.reference() {
		for _, name := range refNames(readOnly) {
			t, _ := refToolOf(name)
			tool, err := t.mcpTool()
			if err != nil {
				panic(err) // the table in reference.go is wrong: caught by every test
			}
			s.mcp.AddTool(tool, s.toolHandler)
			s.listed[name] = true
		}
	}
	for _, spec := range tools.All() {
		if s.reference() {
			break
		}
		if readOnly && spec.Mutating {
			continue
		}
		t := toolOf(spec)
		if o.TextResults {
			t.OutputSchema = nil
		}
		s.mcp.AddTool(t, s.toolHandler)
		s.listed[spec.Name] = true
	}
	s.mcp.AddReceivingMiddleware(s.route)
	s.mcp.AddSendingMiddleware(sendListChanged)
	return s
}

// effects are the effects of what the server serves.
func (s *Server) effects() policy.Effects {
	if s.ws != nil {
		return s.ws.Effects()
	}
	if s.o.Workspace.Effects == "" {
		return policy.WorkspaceWrite
	}
	return s.o.Workspace.Effects
}

// reference reports whether the server serves the reference profile.
func (s *Server) reference() bool { return s.o.Profile == ProfileReference }

// newProtocol reports whether the client speaks MCP 2026-07-28 or later,
// whose tool results carry "resultType" (go-sdk adds it to its own result
// types only).
func newProtocol(ss *mcp.ServerSession) bool {
	if ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	return ip != nil && ip.ProtocolVersion >= "2026-07-28"
}

// rank is a tool's place in the catalog (SPEC order: read first; the
// reference profile in the reference server's order).
func rank(name string) int {
	if _, ok := refToolOf(name); ok {
		for i, n := range refNames(false) {
			if n == name {
				return i
			}
		}
	}
	for i, n := range tools.Names(false) {
		if n == name {
			return i
		}
	}
	return len(name) + 1<<10
}

// toolOf is the MCP definition of a tool.
func toolOf(spec tools.Spec) *mcp.Tool {
	f := false
	destructive := spec.Annotations.DestructiveHint
	return &mcp.Tool{
		Name:         spec.Name,
		Title:        spec.Title,
		Description:  spec.Description,
		InputSchema:  spec.Input,
		OutputSchema: spec.Output,
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    spec.Annotations.ReadOnlyHint,
			DestructiveHint: &destructive,
			IdempotentHint:  spec.Annotations.IdempotentHint,
			OpenWorldHint:   &f,
		},
	}
}

// toolHandler is the registered handler of every listed tool. Calls
// normally do not reach it (route answers them first, faster); it gives the
// same answer in go-sdk's result type.
func (s *Server) toolHandler(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
	r, err := s.callTool(ctx, req.Session, req.Params.Name, req.Params.Arguments, req.Params.Meta)
	if err != nil {
		return nil, err
	}
	return r.callToolResult()
}

// route answers every tools/call itself: listed tools with a result
// encoded once (see toolResult), and tools that are not in the tool list
// (an unknown name, or a mutating tool of a read-only workspace) with the
// facade's refusal, which the model can act on, instead of a protocol
// error. It also lists the tools in the catalog's order (go-sdk sorts them
// by name), so that read comes first, without the read tools for a
// connection whose session is stalled at 2N.
func (s *Server) route(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "initialize":
			// The connection is numbered, and counts toward MaxSessions,
			// from its handshake on, whether or not it ever calls a tool.
			// Numbered when the handshake is answered: the client waits
			// for that answer, and not for its initialized notification,
			// so two clients connecting one after the other get the first
			// and second ids in that order (over HTTP the two
			// notifications may race).
			res, err := next(ctx, method, req)
			if ss, ok := req.GetSession().(*mcp.ServerSession); ok && ss != nil && err == nil && !statelessReq(req) {
				s.connOf(ss)
			}
			return res, err
		case "tools/call":
			if r, ok := req.(*mcp.CallToolRequest); ok && r.Params != nil {
				if statelessReq(r) {
					res, err := s.statelessCall(ctx, r.Params.Name, r.Params.Arguments, r.Params.Meta)
					if err == nil {
						res.complete = true // only 2026-07-28 requests come without a session
					}
					return res, err
				}
				return s.callTool(ctx, r.Session, r.Params.Name, r.Params.Arguments, r.Params.Meta)
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			if l, ok := res.(*mcp.ListToolsResult); ok && err == nil {
				slices.SortStableFunc(l.Tools, func(a, b *mcp.Tool) int { return rank(a.Name) - rank(b.Name) })
				if r, ok := req.(*mcp.ListToolsRequest); ok {
					if statelessReq(r) {
						if !s.shared() {
							l.Tools = sessionTools(l.Tools)
						}
					} else {
						s.listTools(r.Session, l)
					}
				}
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// run serves one connection over t until it ends or ctx is done. A
// lineTransport is bound to the connection's session once it exists, so
// that it can answer tools/call itself (see fastpath.go).
func (s *Server) run(ctx context.Context, t mcp.Transport) error {
	lt, ok := t.(*lineTransport)
	if !ok || lt.general {
		return s.mcp.Run(ctx, t)
	}
	lt.srv = s
	ss, err := s.mcp.Connect(ctx, lt, nil)
	if err != nil {
		return err
	}
	lt.conn.bind(ss)
	closed := make(chan error, 1)
	go func() { closed <- ss.Wait() }()
	select {
	case <-ctx.Done():
		ss.Close()
		<-closed
		return ctx.Err()
	case err := <-closed:
		return err
	}
}

// ServeStdio serves one client over newline-delimited JSON-RPC on in and
// out until in ends or ctx is done. A line that is not a JSON-RPC message
// gets a parse error (-32700) or invalid-request error (-32600) and the
// session goes on; so does a line over MaxMessageBytes. When in or out is
// a pipe (an *os.File), its kernel buffer is raised where the system allows,
// so that large messages cross it faster.
func (s *Server) ServeStdio(ctx context.Context, in io.Reader, out io.Writer) error {
	widenPipe(in)
	widenPipe(out)
	return s.run(ctx, &lineTransport{in: in, out: out, max: MaxMessageBytes})
}

// connOf returns the state of the connection behind ss, creating it (and
// its session id) on first use.
func (s *Server) connOf(ss *mcp.ServerSession) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	if c, ok := s.conns[ss]; ok {
		return c
	}
	s.nconns++
	c := &conn{id: s.sessionID(s.nconns), ss: ss}
	c.used.Store(time.Now().UnixNano())
	s.conns[ss] = c
	if ss != nil {
		s.evictLocked()
		go func() {
			_ = ss.Wait()
			s.dropConn(ss, c)
		}()
	}
	return c
}

// evictLocked closes the longest idle connections while more than
// MaxSessions are live. s.mu is held.
func (s *Server) evictLocked() {
	limit := s.o.MaxSessions
	if limit <= 0 {
		limit = DefaultMaxSessions
	}
	for len(s.conns) > limit {
		var oldest *conn
		for ss, c := range s.conns {
			if ss != nil && (oldest == nil || c.used.Load() < oldest.used.Load()) {
				oldest = c
			}
		}
		if oldest == nil {
			return
		}
		delete(s.conns, oldest.ss)
		go oldest.ss.Close() // its Wait then drops its state
	}
}

// dropConn forgets a connection that ended (closed, expired or evicted)
// and, once nothing else uses its stet session, the session's state.
func (s *Server) dropConn(ss *mcp.ServerSession, c *conn) {
	s.mu.Lock()
	if s.conns[ss] == c {
		delete(s.conns, ss)
	}
	s.mu.Unlock()
	s.forgetSession(c.id)
}

// forgetSession drops what this process keeps in memory for stet session
// id (its stall count; the workspaces' cached session state; the journal
// keeps everything), unless something still uses it: a live connection,
// a live minted handle, or the one session every connection shares
// (--session NAME). It is the one place both HTTP connections and minted
// handles end their sessions.
func (s *Server) forgetSession(id string) {
	if s.handles != nil && s.handles.isLive(id) {
		return
	}
	s.dropMemory(id)
}

// dropMemory drops what the server and its workspaces hold in memory for
// session id, unless a connection or the shared session is it: nothing is
// ended, and the session is rebuilt from the journal when used again.
func (s *Server) dropMemory(id string) {
	if s.o.SharedSession && id == s.o.Session {
		return
	}
	s.mu.Lock()
	for _, o := range s.conns {
		if o.id == id {
			s.mu.Unlock()
			return
		}
	}
	delete(s.stalls, id)
	spaces := make([]*stet.Workspace, 0, 1+len(s.opened))
	if s.ws != nil {
		spaces = append(spaces, s.ws)
	}
	for _, w := range s.opened {
		spaces = append(spaces, w)
	}
	s.mu.Unlock()
	for _, w := range spaces {
		w.Forget(id)
	}
}

// sessionID is the stet session id of the n-th connection.
func (s *Server) sessionID(n int) string {
	if s.o.Session != "" {
		if n == 1 || s.o.SharedSession {
			return s.o.Session
		}
		return fmt.Sprintf("%s-%d", s.o.Session, n)
	}
	var b [6]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Sprintf("mcp-%d", n)
	}
	return "mcp-" + hex.EncodeToString(b[:])
}

// callTool handles one tools/call of the client connected as ss (nil for
// none): the _meta keys, the stall guard, the roots, then the facade, then
// the result's size. Both the go-sdk path (route) and the stdio fast path
// (fastpath.go) answer calls with it. The error is the context's, for a call
// cancelled before it was answered.
func (s *Server) callTool(ctx context.Context, ss *mcp.ServerSession, name string, args json.RawMessage, meta map[string]any) (*toolResult, error) {
	r, err := s.handleCall(ctx, ss, name, args, meta)
	if err != nil {
		return nil, err
	}
	r.complete = newProtocol(ss)
	return r, nil
}

// handleCall is callTool without the protocol's resultType.
func (s *Server) handleCall(ctx context.Context, ss *mcp.ServerSession, name string, args json.RawMessage, meta map[string]any) (*toolResult, error) {
	c := s.connOf(ss)
	c.used.Store(time.Now().UnixNano())
	return s.handleIn(ctx, ss, c, c.id, name, args, meta, "")
}

// handleIn is handleCall in the session base (unless _meta names another)
// of connection c (nil for none), with note, when set, added to the text
// of the result (see stateless.go).
func (s *Server) handleIn(ctx context.Context, ss *mcp.ServerSession, c *conn, base, name string, args json.RawMessage, meta map[string]any, note string) (*toolResult, error) {
	pin, ref := parseMeta(meta)
	id := base
	if ref == nil && pin.session != "" {
		id = pin.session
	}
	reply := s.reply
	if note != "" {
		reply = func(name string, out stet.Output, notice string) *toolResult {
			if notice != "" {
				notice += "\n\n"
			}
			return s.reply(name, out, notice+note)
		}
	}
	st := s.stallOf(id)
	if ref != nil {
		return reply(name, s.refusalOut(name, ref), st.step(name, true, false)), nil
	}
	ws, roots, ref, err := s.workspaceOf(ctx, ss, c)
	if err != nil {
		st.step(name, true, false)
		return s.failed(name, err), nil
	}
	if ref != nil {
		return s.reply(name, s.refusalOut(name, ref), st.step(name, true, false)), nil
	}
	sess, err := ws.Session(id)
	if ref, ok := stet.AsRefusal(err); ok {
		return reply(name, s.refusalOut(name, ref), st.step(name, true, false)), nil
	}
	if err == nil && (c == nil || c.id != id) {
		s.mem.touch(id) // a session a call names: held in memory while recently used
	}
	if err != nil {
		ref := invalid(name, "_meta %q names session %q, which cannot be used (%s); use a plain id of at most 200 characters", metaSession, id, cause(err))
		return reply(name, s.refusalOut(name, ref), st.step(name, true, false)), nil
	}
	if pin.turn {
		if ref, err := applyTurn(sess, pin); ref != nil || err != nil {
			if err != nil {
				return s.failed(name, err), nil
			}
			return reply(name, s.refusalOut(name, ref), st.step(name, true, false)), nil
		}
		req, _ := sess.Request()
		st.turn(req)
	}
	if ref := st.guard(name); ref != nil {
		return reply(name, s.refusalOut(name, ref), st.step(name, true, false)), nil
	}
	if roots != nil {
		sess = sess.Within(roots)
	}
	fit := &readFit{s: s}
	out, err := s.call(ctx, ws, sess, name, args, fit)
	if err != nil {
		if ctx.Err() != nil {
			// Cancelled: the client no longer waits for this answer.
			return nil, ctx.Err()
		}
		st.step(name, true, false)
		return s.failed(name, err), nil
	}
	notice := st.step(name, out.Refused != nil, out.Changed)
	if notice == "" && note == "" {
		if r := fit.result(out); r != nil {
			return r, nil
		}
	}
	return reply(name, out, notice), nil
}

// call runs the tool in its own goroutine, so that a cancelled call is
// answered at once even while the facade is blocked in IO (the facade
// checks the context between steps, and finishes or abandons the step it is
// in on its own).
func (s *Server) call(ctx context.Context, ws *stet.Workspace, sess *stet.Session, name string, args json.RawMessage, fit *readFit) (stet.Output, error) {
	type result struct {
		out stet.Output
		err error
	}
	done := make(chan result, 1)
	go func() {
		var r result
		defer func() {
			if p := recover(); p != nil {
				s.log.Error("mcpserver: tool panicked", "tool", name, "panic", p, "stack", string(debug.Stack()))
				r = result{err: fmt.Errorf("internal error (a panic in %s)", name)}
			}
			done <- r
		}()
		if s.reference() {
			r.out, r.err = s.callRef(ctx, ws, sess, name, args)
		} else {
			r.out, r.err = sess.CallFit(ctx, name, args, fit.fit, 0)
		}
	}()
	select {
	case r := <-done:
		return r.out, r.err
	case <-ctx.Done():
		return stet.Output{}, ctx.Err()
	}
}

// readFit keeps a read's answer under the response bound: when the frame,
// sent as text and inside the structured result, would make the JSON too
// large, it asks the facade for a smaller window (returning its byte bound),
// so the model gets the first window that fits, with the trailer naming the
// next offset, as with any windowed read. The session records as seen only
// the window finally sent. A read large enough to need measuring is
// measured by encoding its result, which the reply then sends as it is
// (result): the frame is escaped once per call, not counted and then
// escaped.
type readFit struct {
	s   *Server
	of  any    // the structured result buf encodes
	buf []byte // encodeResult's output, within the bound
}

// fit is the facade's fit function (Session.CallFit).
func (f *readFit) fit(out stet.Output) int {
	s := f.s
	f.of, f.buf = nil, nil
	rr, ok := out.Structured.(*stet.ReadResult)
	if !ok || rr.Data != nil {
		return 0
	}
	// The frame goes out twice (text and structured); its length settles
	// almost every read without encoding it.
	if 12*len(rr.Frame)+4096 <= s.maxReply { // even if every byte took six
		return 0
	}
	buf, err := encodeResult(out.Text, "", out.Structured, true, false)
	if err != nil {
		return 0
	}
	size := len((&toolResult{buf: buf}).body())
	if size <= s.maxReply {
		f.of, f.buf = out.Structured, buf
		return 0
	}
	return max(1, int(float64(len(rr.Frame))*0.9*float64(s.maxReply)/float64(size)))
}

// result is the reply to out when fit encoded it already (a large read
// with nothing added to its text), nil otherwise: the bytes reply would
// make.
func (f *readFit) result(out stet.Output) *toolResult {
	if f.buf == nil || f.of != out.Structured || out.Refused != nil || f.s.o.TextResults || f.s.reference() {
		return nil
	}
	return &toolResult{buf: f.buf}
}

// refusalOut is the Output of a refusal made by this package for the
// server's profile.
func (s *Server) refusalOut(tool string, r *stet.Refusal) stet.Output {
	if s.reference() {
		return refRefused(tool, r)
	}
	return refusalOutput(tool, r)
}

// refusalOutput is the Output of a refusal made by this package.
func refusalOutput(tool string, r *stet.Refusal) stet.Output {
	if r.Tool == "" {
		r.Tool = tool
	}
	return stet.Output{Structured: r, Text: r.Message, Refused: r}
}

// invalid is an invalid refusal about the call itself (its _meta).
func invalid(tool, format string, args ...any) *stet.Refusal {
	return &stet.Refusal{Kind: stet.KindInvalid, Tool: tool, Message: "refused: " + fmt.Sprintf(format, args...)}
}
