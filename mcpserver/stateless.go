package mcpserver

import (
	"bytes"
	"container/list"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
)

// MCP 2026-07-28 over HTTP has no initialize and no Mcp-Session-Id: every
// request stands alone (go-sdk gives each one a fresh ServerSession), so
// nothing ties one agent's calls together. The revision's way is a handle
// the server mints and the caller passes back. Here a call that arrives
// without one runs in a new stet session whose id is a minted handle
// ("s_" and 24 hex digits from crypto/rand); its result carries the handle
// in _meta "stet/session", in structuredContent "session" (or in the
// receipt's session, where the result already names it), and in a line of
// its text that tells the model to pass it back as the `session` argument,
// which the tool list of such requests declares on every tool. A later call
// that passes the handle (as that argument or as _meta "stet/session") runs
// in the same session, so its reads count for its edits. A host may still
// name a session of its own in _meta "stet/session", as on any connection,
// and with Options.SharedSession a call without a handle runs in the one
// session Options.Session names (no handle is minted).
//
// Live handles are bounded without letting one caller end another's live
// session: one idle for handleIdle ends; a handle never passed back is on
// probation, and when maxHandles are on probation minting one more ends the
// longest idle of those; a handle passed back is kept, and only a kept one
// idle for keptIdleMin may make room for another (at most maxKept). A handle
// that ended, or was never minted, is refused; the refusal mints a fresh
// one. What a session holds in memory is bounded apart (memSessions): the
// least recently used are dropped from memory, not ended, and rebuilt from
// the journal when used again.

// handlePrefix starts every minted handle. Workspace.Session refuses the
// reserved names ("stet:...", "review"), which never start with it.
const handlePrefix = "s_"

// Bounds of the minted handles.
const (
	maxHandles  = 1024
	maxKept     = 16384
	keptIdleMin = 10 * time.Minute
	handleIdle  = 2 * time.Hour
)

// sessionArg is the tool argument that carries a handle back on stateless
// requests.
const sessionArg = "session"

// newProtocolHeader is the HTTP header that carries the request's protocol
// version; a request of MCP 2026-07-28 or later without Mcp-Session-Id is
// served statelessly.
const newProtocolHeader = "Mcp-Protocol-Version"

// statelessHTTP reports whether r is an MCP 2026-07-28 request without a
// session, to be served by the stateless handler.
func statelessHTTP(r *http.Request) bool {
	return r.Header.Get("Mcp-Session-Id") == "" && r.Header.Get(newProtocolHeader) >= "2026-07-28"
}

// statelessReq reports whether req came over HTTP without an MCP session
// (the stateless handler's ephemeral sessions have no id).
func statelessReq(req mcp.Request) bool {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil || ss.ID() != "" {
		return false
	}
	ex := req.GetExtra()
	return ex != nil && ex.Header != nil
}

// handles is the table of live minted handles, the most recently used at
// the front of order.
type handles struct {
	mu      sync.Mutex
	max     int // handles on probation (never passed back)
	maxKept int // handles passed back
	kept    int // how many are
	idle    time.Duration
	now     func() time.Time
	live    map[string]*list.Element // of *handle
	order   *list.List
	ended   func(id string) // called, without mu held, for each handle that ends
}

// handle is one live minted handle.
type handle struct {
	id   string
	used time.Time
	kept bool // passed back at least once
}

// newHandles returns an empty table.
func newHandles(ended func(string)) *handles {
	return &handles{max: maxHandles, maxKept: maxKept, idle: handleIdle, now: time.Now, live: map[string]*list.Element{}, order: list.New(), ended: ended}
}

// mint returns a new live handle, ending the longest idle ones over the
// bound.
func (h *handles) mint() (string, error) {
	var b [12]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", fmt.Errorf("mcpserver: minting a session handle: %w", err)
	}
	id := handlePrefix + hex.EncodeToString(b[:])
	h.mu.Lock()
	gone := h.expireLocked()
	for h.order.Len()-h.kept >= h.max {
		e := h.order.Back()
		for e != nil && e.Value.(*handle).kept {
			e = e.Prev()
		}
		if e == nil {
			break
		}
		gone = append(gone, h.removeLocked(e))
	}
	h.live[id] = h.order.PushFront(&handle{id: id, used: h.now()})
	h.mu.Unlock()
	h.end(gone)
	return id, nil
}

// use marks id used now and reports whether it is live.
func (h *handles) use(id string) bool {
	h.mu.Lock()
	gone := h.expireLocked()
	e, ok := h.live[id]
	if ok && !e.Value.(*handle).kept {
		// Passed back for the first time: kept from now on, making room
		// only out of a kept handle idle for keptIdleMin.
		if h.kept >= h.maxKept {
			var idle *list.Element
			cut := h.now().Add(-keptIdleMin)
			for b := h.order.Back(); b != nil; b = b.Prev() {
				if hd := b.Value.(*handle); hd.kept && hd.used.Before(cut) {
					idle = b
					break
				}
			}
			if idle == nil {
				h.mu.Unlock()
				h.end(gone)
				return false
			}
			gone = append(gone, h.removeLocked(idle))
		}
		e.Value.(*handle).kept = true
		h.kept++
	}
	if ok {
		e.Value.(*handle).used = h.now()
		h.order.MoveToFront(e)
	}
	h.mu.Unlock()
	h.end(gone)
	return ok
}

// expireLocked removes the handles idle for longer than h.idle.
func (h *handles) expireLocked() []string {
	var gone []string
	cut := h.now().Add(-h.idle)
	for e := h.order.Back(); e != nil && e.Value.(*handle).used.Before(cut); e = h.order.Back() {
		gone = append(gone, h.removeLocked(e))
	}
	return gone
}

// removeLocked removes e and returns its id.
func (h *handles) removeLocked(e *list.Element) string {
	hd := h.order.Remove(e).(*handle)
	if hd.kept {
		h.kept--
	}
	delete(h.live, hd.id)
	return hd.id
}

// end reports the handles that ended.
func (h *handles) end(ids []string) {
	if h.ended == nil {
		return
	}
	for _, id := range ids {
		h.ended(id)
	}
}

// handleEnded drops what the server and the workspace keep in memory for
// a minted session that ended (its journal stays).
func (s *Server) handleEnded(id string) { s.forgetSession(id) }

// isLive reports whether id is a live minted handle.
func (h *handles) isLive(id string) bool {
	h.mu.Lock()
	defer h.mu.Unlock()
	_, ok := h.live[id]
	return ok
}

// statelessCall handles a tools/call that came without an MCP session:
// the handle it passes back (the session argument or _meta stet/session),
// or a new one, names its stet session; the result carries the handle.
func (s *Server) statelessCall(ctx context.Context, name string, args json.RawMessage, meta map[string]any) (*toolResult, error) {
	passed, args, bad := takeSessionArg(args)
	if bad != nil {
		return s.reply(name, s.refusalOut(name, bad), ""), nil
	}
	named, _ := meta[metaSession].(string)
	if passed == "" && strings.HasPrefix(named, handlePrefix) {
		passed = named
	}
	if passed != "" && named != "" && named != passed {
		ref := invalid(name, "the %s argument (%q) and _meta %q (%q) name different sessions; pass one of them", sessionArg, passed, metaSession, named)
		return s.reply(name, s.refusalOut(name, ref), ""), nil
	}
	if named != "" && passed == "" {
		// A session the host names itself, as on any connection.
		return s.handleIn(ctx, nil, nil, "", name, args, meta, "")
	}
	if s.shared() && named == "" {
		// stet mcp --session NAME: every call is in that one session
		// (its tool list declares no session argument).
		return s.handleIn(ctx, nil, nil, s.o.Session, name, args, meta, "")
	}
	if passed != "" && !s.handles.use(passed) {
		id, err := s.handles.mint()
		if err != nil {
			return s.failed(name, err), nil
		}
		ref := invalid(name, "session %q is not live on this server (it was idle too long, more sessions were opened since, or it was never given out); this result starts session %s: pass %s: %q from now on, and read the files again before you change them", passed, id, sessionArg, id)
		return s.withHandle(s.reply(name, s.refusalOut(name, ref), ""), id), nil
	}
	id, line := passed, ""
	if id == "" {
		var err error
		if id, err = s.handles.mint(); err != nil {
			return s.failed(name, err), nil
		}
		line = fmt.Sprintf("session %s (new: this call carried no session handle): pass %s: %q on every later call, or the handle an earlier result gave you, so that your reads count for your edits", id, sessionArg, id)
	}
	m := make(map[string]any, len(meta))
	for k, v := range meta {
		if k != metaSession {
			m[k] = v
		}
	}
	r, err := s.handleIn(ctx, nil, nil, id, name, args, m, line)
	if err != nil {
		return nil, err
	}
	return s.withHandle(r, id), nil
}

// shared reports whether every call runs in the one session Options.Session
// names (stet mcp --session NAME), so that no handle is minted.
func (s *Server) shared() bool { return s.o.SharedSession && s.o.Session != "" }

// takeSessionArg removes the session argument from args, the arguments of a
// call, and returns its value ("" when absent). A session that is not a
// string is an invalid refusal.
func takeSessionArg(args json.RawMessage) (string, json.RawMessage, *stet.Refusal) {
	if !bytes.Contains(args, []byte(`"`+sessionArg+`"`)) {
		return "", args, nil
	}
	var m map[string]json.RawMessage
	if json.Unmarshal(args, &m) != nil {
		return "", args, nil // the facade says what is wrong with them
	}
	raw, ok := m[sessionArg]
	if !ok {
		return "", args, nil
	}
	var id string
	if json.Unmarshal(raw, &id) != nil || id == "" {
		return "", args, invalid("", "the %s argument must be the session handle a result gave you (a string such as \"s_...\"), got %s; leave it out to start a new session", sessionArg, raw)
	}
	delete(m, sessionArg)
	out, err := json.Marshal(m)
	if err != nil {
		return "", args, nil
	}
	return id, out, nil
}

// withHandle adds the handle id to r: in _meta, and at the front of the
// structured content unless that already names a session.
func (s *Server) withHandle(r *toolResult, id string) *toolResult {
	if r.Meta == nil {
		r.Meta = mcp.Meta{}
	}
	r.Meta[metaSession] = id
	b := r.buf
	const key = `,"structuredContent":{`
	at := bytes.Index(b[headroom:], []byte(key))
	if at < 0 || bytes.Contains(b[headroom+at:], []byte(`"session":`)) {
		return r
	}
	at += headroom + len(key)
	member := fmt.Sprintf(`"session":%q`, id)
	if b[at] != '}' {
		member += ","
	}
	nb := make([]byte, 0, len(b)+len(member))
	nb = append(nb, b[:at]...)
	nb = append(nb, member...)
	nb = append(nb, b[at:]...)
	r.buf = nb
	return r
}

// sessionTools returns l's tools with the session argument declared on
// each, for the tool list of a stateless request.
func sessionTools(tools []*mcp.Tool) []*mcp.Tool {
	out := make([]*mcp.Tool, len(tools))
	for i, t := range tools {
		c := *t
		if in, ok := t.InputSchema.(*jsonschema.Schema); ok && in != nil {
			in = in.CloneSchemas()
			if in.Properties == nil {
				in.Properties = map[string]*jsonschema.Schema{}
			}
			in.Properties[sessionArg] = &jsonschema.Schema{
				Type:        "string",
				Description: "The session handle (s_...) an earlier result gave.",
			}
			if len(in.PropertyOrder) > 0 {
				in.PropertyOrder = append(in.PropertyOrder, sessionArg)
			}
			c.InputSchema = in
		}
		out[i] = &c
	}
	return out
}
