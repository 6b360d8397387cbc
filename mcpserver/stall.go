package mcpserver

import (
	"fmt"
	"sync"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/stall"
	"github.com/stet-dev/stet/tools"
)

// stallState is one stet session's review-stall counter (SPEC section 8),
// shared by every connection that uses the session. A step is one
// tools/call. A nil *stallState is disabled.
type stallState struct {
	c *stall.Counter

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
		st = &stallState{c: stall.New(s.o.StallSteps)}
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
	st.cut, st.quiet = false, 0
}

// guard refuses a read (a tool that cannot change files) once the session
// has gone 2N steps without a change.
func (st *stallState) guard(tool string) *stet.Refusal {
	if st == nil {
		return nil
	}
	if mutating, ok := tools.Mutating(tool); !ok || mutating {
		return nil
	}
	st.mu.Lock()
	cut, quiet := st.cut, st.quiet
	st.mu.Unlock()
	if !cut {
		return nil
	}
	return &stet.Refusal{
		Kind: stet.KindStalled, Tool: tool,
		Message: fmt.Sprintf("refused: your last %d steps changed nothing, so the reading tools (read, list, find, grep) are withdrawn until a change lands; "+
			"make the change now (edit, write or patch), or reply with what you found and what blocks you", quiet),
		Details: map[string]any{"quiet": quiet, "threshold": st.c.Threshold()},
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
	mutating, _ := tools.Mutating(tool)
	st.mu.Lock()
	defer st.mu.Unlock()
	d := st.c.Step([]stall.Call{{Mutating: mutating, Landed: changed, Refused: refused}})
	st.cut, st.quiet = d.Cut, d.Quiet
	if d.Notice {
		return stall.NoticeText(st.c.Threshold())
	}
	return ""
}
