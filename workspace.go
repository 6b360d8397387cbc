package stet

import (
	"context"
	"sync"

	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/tools"
)

// Workspace is a set of roots and the policy that guards them. It is safe for
// concurrent use; sessions share its journal and per-file locks.
type Workspace struct {
	e *engine.Workspace

	mu       sync.Mutex
	sessions map[*engine.Session]*Session
}

// Session is one agent's working state: what it observed, what it created,
// its pinned request and declared inputs, with one method per tool. Every
// change to it is recorded in the journal, so a later process (a CLI call)
// with the same id continues where the last one stopped. A Session is safe
// for concurrent use.
type Session struct {
	e  *engine.Session
	ws *Workspace
}

// Open opens a workspace over roots (at least one directory). Paths given to
// tools are absolute inside any root, or relative: a relative path resolves
// in the one root where it exists (in several, it is refused as ambiguous,
// naming each); one that exists in no root (a new file) resolves in the
// first root.
func Open(roots []string, opts Options) (*Workspace, error) {
	ws := &Workspace{sessions: map[*engine.Session]*Session{}}
	e, err := engine.OpenWorkspace(roots, opts, engine.Face{ListDir: ws.listForRefusal})
	if err != nil {
		return nil, err
	}
	ws.e = e
	return ws, nil
}

// Session returns the session with the given id (created on first use,
// then continued from the journal). Ids that ReservedSession names are
// refused.
func (ws *Workspace) Session(id string) (*Session, error) {
	s, err := ws.e.Session(id)
	if err != nil {
		return nil, err
	}
	return ws.wrap(s), nil
}

// session is Session without the check of reserved ids, for stet's own
// records (the review's undo session).
func (ws *Workspace) session(id string) (*Session, error) {
	s, err := ws.e.SessionOf(id)
	if err != nil {
		return nil, err
	}
	return ws.wrap(s), nil
}

// Forget drops the session named id from this Workspace's memory, for a
// server that ends sessions it opened (such as those named by the session
// handles of stateless MCP requests). Nothing is removed from the journal:
// a later Session(id) rebuilds the session from it, as another process
// would. A call still running in the dropped session finishes normally.
func (ws *Workspace) Forget(id string) {
	if s := ws.e.Forget(id); s != nil {
		ws.mu.Lock()
		delete(ws.sessions, s)
		ws.mu.Unlock()
	}
}

// wrap returns the facade's session over the engine's, one per engine
// session.
func (ws *Workspace) wrap(s *engine.Session) *Session {
	ws.mu.Lock()
	defer ws.mu.Unlock()
	if w, ok := ws.sessions[s]; ok {
		return w
	}
	w := &Session{e: s, ws: ws}
	ws.sessions[s] = w
	return w
}

// Within returns a view of s narrowed to dirs (a client's announced
// directories): see engine.Session.Within.
func (s *Session) Within(dirs []string) *Session {
	return &Session{e: s.e.Within(dirs), ws: s.ws}
}

// listForRefusal lists dir for a refusal that shows it, as the list tool
// with no arguments does, with the text a model reads of it.
func (ws *Workspace) listForRefusal(ctx context.Context, es *engine.Session, dir engine.Target) (*tools.ListResult, string, error) {
	s := &Session{e: es, ws: ws}
	res, err := s.listDir(ctx, dir, ListArgs{})
	if err != nil {
		return nil, "", err
	}
	return res, Text(res), nil
}

// Close releases the roots and the journal.
func (ws *Workspace) Close() error { return ws.e.Close() }

// ID is the workspace id: a hash of its root directories.
func (ws *Workspace) ID() string { return ws.e.ID() }

// Roots returns the absolute root directories.
func (ws *Workspace) Roots() []string { return ws.e.Roots() }

// StateDir is the journal directory.
func (ws *Workspace) StateDir() string { return ws.e.StateDir() }

// Effects reports the workspace's effects mode.
func (ws *Workspace) Effects() policy.Effects { return ws.e.Effects() }

// ID returns the session's id.
func (s *Session) ID() string { return s.e.ID() }

// Turn pins the request of the current turn and the declared inputs, for
// the input guard (SPEC section 4, rule 8), replacing those of the turn
// before. When the request is a worker brief (see package brief), the paths
// of its INPUTS section are declared too, after those passed. Inputs are
// normalized (trimmed, globs ignored, at most 32) and deduplicated as the
// tools resolve them: two spellings of one file count once, the first
// spelling kept. A declared input is edit-only for this session until the
// next turn or EndTurn.
func (s *Session) Turn(request string, inputs ...string) error { return s.e.Turn(request, inputs...) }

// Declared returns the inputs Turn(request, inputs...) would declare: those
// passed, then the INPUTS of a worker brief, normalized and deduplicated by
// resolved file. A bad entry is an invalid *Refusal naming it by index.
func (s *Session) Declared(request string, inputs ...string) ([]string, error) {
	return s.e.Declared(request, inputs...)
}

// EndTurn ends the current turn: the pinned request and the declared
// inputs are cleared (the CLI's stet turn --end).
func (s *Session) EndTurn() error { return s.e.EndTurn() }

// Request returns the pinned request and declared inputs, after catching
// up with what other processes appended to the session (when the journal
// cannot be read, as last known).
func (s *Session) Request() (string, []string) { return s.e.Request() }
