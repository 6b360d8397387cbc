package stet

import (
	"context"
	"sync"

	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/tools"
)

// Workspace is a set of roots and the policy that guards them. It is safe for
// concurrent use; sessions share its journal and per-file locks.
type Workspace struct {
	*engine.Workspace

	mu       sync.Mutex
	sessions map[*engine.Session]*Session
}

// Session is one agent's working state: what it observed, what it created,
// its pinned request and declared inputs, with one method per tool. Every
// change to it is recorded in the journal, so a later process (a CLI call)
// with the same id continues where the last one stopped. A Session is safe
// for concurrent use.
type Session struct {
	*engine.Session
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
	ws.Workspace = e
	return ws, nil
}

// Session returns the session with the given id (created on first use,
// then continued from the journal). Ids that ReservedSession names are
// refused.
func (ws *Workspace) Session(id string) (*Session, error) {
	s, err := ws.Workspace.Session(id)
	if err != nil {
		return nil, err
	}
	return ws.wrap(s), nil
}

// session is Session without the check of reserved ids, for stet's own
// records (the review's undo session).
func (ws *Workspace) session(id string) (*Session, error) {
	s, err := ws.Workspace.SessionOf(id)
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
	if s := ws.Workspace.Forget(id); s != nil {
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
	w := &Session{Session: s, ws: ws}
	ws.sessions[s] = w
	return w
}

// Within returns a view of s narrowed to dirs (a client's announced
// directories): see engine.Session.Within.
func (s *Session) Within(dirs []string) *Session {
	return &Session{Session: s.Session.Within(dirs), ws: s.ws}
}

// listForRefusal lists dir for a refusal that shows it, as the list tool
// with no arguments does, with the text a model reads of it.
func (ws *Workspace) listForRefusal(ctx context.Context, es *engine.Session, dir engine.Target) (*tools.ListResult, string, error) {
	s := &Session{Session: es, ws: ws}
	res, err := s.listDir(ctx, dir, ListArgs{})
	if err != nil {
		return nil, "", err
	}
	return res, Text(res), nil
}
