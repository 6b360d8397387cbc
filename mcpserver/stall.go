package mcpserver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/stall"
	"github.com/stet-dev/stet/tools"
)

// stallState is one stet session's review-stall counter (SPEC section 8),
// shared by every connection that uses the session. A step is one
// tools/call. A nil *stallState is disabled.
type stallState struct {
	c      *stall.Counter
	onFlip func() // called (in its own goroutine) when the reads are withdrawn or given back

	mu      sync.Mutex
	request string // the turn the counter was last started for
	cut     bool   // the last step's decision: reads are withdrawn
	quiet   int    // consecutive steps that changed nothing
}

// stallOf returns the counter of session id, or nil when stalls are off.
func (s *Server) stallOf(id string) *stallState {
	if s.o.StallSteps <= 0 {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.stalls[id]
	if !ok {
		st = &stallState{c: stall.New(s.o.StallSteps), onFlip: func() { s.toolsChanged(id) }}
		s.stalls[id] = st
	}
	return st
}

// turn starts a new turn when the session's pinned request changed (a
// repair request halves the threshold; the count starts again).
func (st *stallState) turn(request string) {
	if st == nil {
		return
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	if request == st.request {
		return
	}
	st.request = request
	st.c.Turn(request)
	st.setCut(false)
	st.quiet = 0
}

// setCut records the cut; a change of it changes the session's tool list.
// The caller holds st.mu.
func (st *stallState) setCut(cut bool) {
	if cut != st.cut && st.onFlip != nil {
		go st.onFlip()
	}
	st.cut = cut
}

// isCut reports whether the reads are withdrawn.
func (st *stallState) isCut() bool {
	if st == nil {
		return false
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	return st.cut
}

// withdrawn reports whether tool leaves the tool list while the reads are
// withdrawn: every tool that cannot change files.
func withdrawn(tool string) bool {
	mutating, ok := tools.Mutating(stetName(tool))
	return ok && !mutating
}

// guard refuses a read (a tool that cannot change files) once the session
// has gone 2N steps without a change.
func (st *stallState) guard(tool string) *stet.Refusal {
	if st == nil || !withdrawn(tool) {
		return nil
	}
	st.mu.Lock()
	cut, quiet := st.cut, st.quiet
	st.mu.Unlock()
	if !cut {
		return nil
	}
	n := st.c.Threshold()
	return &stet.Refusal{
		Kind: stet.KindStalled, Tool: tool,
		Message: fmt.Sprintf("refused: your last %d steps changed nothing, so the reading tools (read, list, find, grep) are withdrawn until a change lands; "+
			"make the change now (edit, write or patch), or reply with what you found and what blocks you", quiet),
		Details: map[string]any{"steps": quiet, "phase": stall.PhaseOf(quiet, n), "threshold": n},
	}
}

// step counts one call and returns the notice to append to its result:
// stall.NoticeText once, on the call that reaches N. changed is the
// facade's stet.Output.Changed: only a call that altered the tree resets
// the count (a mkdir of a directory that exists does not).
func (st *stallState) step(tool string, refused, changed bool) string {
	if st == nil {
		return ""
	}
	mutating, _ := tools.Mutating(stetName(tool))
	st.mu.Lock()
	defer st.mu.Unlock()
	d := st.c.Step([]stall.Call{{Mutating: mutating, Landed: changed, Refused: refused}})
	st.setCut(d.Cut)
	st.quiet = d.Quiet
	if d.Notice {
		return stall.NoticeText(st.c.Threshold())
	}
	return ""
}

// listTools is the tool list a connection sees: without the read tools
// while its session is stalled at 2N.
func (s *Server) listTools(ss *mcp.ServerSession, l *mcp.ListToolsResult) {
	if s.o.StallSteps <= 0 || !s.stallOf(s.connOf(ss).id).isCut() {
		return
	}
	l.Tools = slices.DeleteFunc(l.Tools, func(t *mcp.Tool) bool { return withdrawn(t.Name) })
}

// listChangedToken marks the progress notification that sendListChanged
// turns into notifications/tools/list_changed: go-sdk sends that
// notification only to every session at once, when the server's own tool
// set changes, while a stall withdraws the reads of one session.
const listChangedToken = "stet/tools-list-changed"

// toolsChanged tells every connection serving stet session id that its
// tool list changed (notifications/tools/list_changed). Clients of
// protocol 2026-07-28 and later get list changes only on a subscription
// stream, which stet does not keep; they see the new list when they next
// ask for it, and a withdrawn read is refused as stalled meanwhile.
func (s *Server) toolsChanged(id string) {
	s.mu.Lock()
	var targets []*mcp.ServerSession
	for ss, c := range s.conns {
		if ss != nil && c.id == id && !newProtocol(ss) {
			targets = append(targets, ss)
		}
	}
	s.mu.Unlock()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, ss := range targets {
		if err := ss.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: listChangedToken}); err != nil {
			s.log.Warn("mcpserver: notifying a tool list change", "err", err)
		}
	}
}

// sendListChanged is the sending middleware that turns the marked progress
// notification of toolsChanged into notifications/tools/list_changed, on
// the one connection it was sent to.
func sendListChanged(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if p, ok := req.GetParams().(*mcp.ProgressNotificationParams); ok && method == "notifications/progress" && p.ProgressToken == listChangedToken {
			ss, _ := req.GetSession().(*mcp.ServerSession)
			return next(ctx, "notifications/tools/list_changed", &mcp.ServerRequest[*mcp.ToolListChangedParams]{Session: ss, Params: &mcp.ToolListChangedParams{}})
		}
		return next(ctx, method, req)
	}
}
