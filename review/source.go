package review

import (
	"context"

	"github.com/stet-dev/stet"
)

// Source is what the page shows: one workspace's journal (NewHandler), or
// every journal shipped to a database (a fleet source). Each method is one
// endpoint; a source holds the rules of its data, the handler none.
type Source interface {
	// About says what the page serves.
	About(ctx context.Context) (About, error)
	Summary(ctx context.Context) (stet.ReviewSummary, error)
	// Sessions lists sessions newest first, a page at a time; q, when not
	// empty, keeps those whose id (or host, or workspace) holds it.
	Sessions(ctx context.Context, q SessionQuery) ([]Session, error)
	// Session is one session in full (turns, receipts, files).
	Session(ctx context.Context, id string) (Session, error)
	Diff(ctx context.Context, spec stet.DiffSpec) (stet.DiffPage, error)
	// Stands reports on one receipt, or on every receipt of a session.
	Stands(ctx context.Context, session, receipt string) ([]stet.Standing, error)
	Refusals(ctx context.Context, q stet.RefusalQuery) ([]stet.RefusalGroup, error)
	History(ctx context.Context, path string) ([]stet.HistoryEntry, error)
	SearchPaths(ctx context.Context, q string, limit int) ([]string, error)
	// Verify checks the journal(s): ok, and a report for the page.
	Verify(ctx context.Context) (bool, any, error)
}

// Undoer is a Source that can take changes back where it runs (the local
// workspace). A source without it gets no undo endpoint: the page shows
// the command to run on the machine that holds the files (UndoCommander).
type Undoer interface {
	UndoChanges(ctx context.Context, spec stet.UndoSpec) (*stet.UndoResult, error)
}

// UndoCommander is a Source that names, for an undo the page asks about,
// the command to run on the machine holding the files.
type UndoCommander interface {
	UndoCommand(ctx context.Context, spec stet.UndoSpec) (UndoCommand, error)
}

// UndoCommand is an undo to run elsewhere.
type UndoCommand struct {
	Host    string `json:"host"`
	Command string `json:"command"`
	Message string `json:"message"`
}

// About is what /api/about answers.
type About struct {
	Roots         []string `json:"roots"`
	NotSeen       string   `json:"not_seen"`
	ReviewSession string   `json:"review_session"`
	// Fleet: the page is over many machines' journals (undo runs there).
	Fleet bool   `json:"fleet,omitempty"`
	Where string `json:"where,omitempty"` // the database, for the title
}

// SessionQuery selects a page of sessions.
type SessionQuery struct {
	Offset, Limit int
	Q             string
}

// Session is one session as the page lists it: its view, and where it
// ran when the source spans machines.
type Session struct {
	stet.SessionView
	Name      string `json:"session,omitempty"` // the session's own id, when ID names more (a fleet's "<journal>/<session>")
	TurnCount int    `json:"turn_count"`
	FileCount int    `json:"file_count"`
	Host      string `json:"host,omitempty"`
	Workspace string `json:"workspace,omitempty"` // its roots
	StateDir  string `json:"state_dir,omitempty"`
	Shipper   string `json:"shipper,omitempty"` // the database role that shipped it
	// Light: Turns and Files are left out of a list; Session fills them.
	Light bool `json:"light,omitempty"`
}

// workspaceSource is the Source of one local workspace: each method is
// one facade call.
type workspaceSource struct{ ws *stet.Workspace }

var (
	_ Source = workspaceSource{}
	_ Undoer = workspaceSource{}
)

func (s workspaceSource) About(context.Context) (About, error) {
	return About{Roots: s.ws.Roots(), NotSeen: NotSeen, ReviewSession: stet.ReviewSession}, nil
}

func (s workspaceSource) Summary(context.Context) (stet.ReviewSummary, error) { return s.ws.Summary() }

func (s workspaceSource) Sessions(_ context.Context, q SessionQuery) ([]Session, error) {
	v, err := s.ws.Sessions()
	if err != nil {
		return nil, err
	}
	off := min(max(q.Offset, 0), len(v))
	v = v[off:min(off+q.Limit, len(v))]
	out := make([]Session, 0, len(v))
	for _, sv := range v {
		out = append(out, Session{SessionView: sv, TurnCount: len(sv.Turns), FileCount: len(sv.Files)})
	}
	return out, nil
}

func (s workspaceSource) Session(_ context.Context, id string) (Session, error) {
	v, err := s.ws.Sessions()
	if err != nil {
		return Session{}, err
	}
	for _, sv := range v {
		if sv.ID == id {
			return Session{SessionView: sv, TurnCount: len(sv.Turns), FileCount: len(sv.Files)}, nil
		}
	}
	return Session{}, &stet.Refusal{Kind: stet.KindNotFound, Message: "the journal has no session " + id}
}

func (s workspaceSource) Diff(_ context.Context, spec stet.DiffSpec) (stet.DiffPage, error) {
	return s.ws.Diff(spec)
}

func (s workspaceSource) Stands(_ context.Context, session, receipt string) ([]stet.Standing, error) {
	if receipt != "" {
		st, err := s.ws.Stands(receipt)
		if err != nil {
			return nil, err
		}
		return []stet.Standing{st}, nil
	}
	return s.ws.SessionStands(session)
}

func (s workspaceSource) Refusals(_ context.Context, q stet.RefusalQuery) ([]stet.RefusalGroup, error) {
	return s.ws.Refusals(q)
}

func (s workspaceSource) History(_ context.Context, path string) ([]stet.HistoryEntry, error) {
	return s.ws.History(path)
}

func (s workspaceSource) SearchPaths(_ context.Context, q string, limit int) ([]string, error) {
	return s.ws.SearchPaths(q, limit)
}

func (s workspaceSource) Verify(context.Context) (bool, any, error) {
	rep, err := s.ws.Verify("")
	return err == nil && rep.OK(), rep, err
}

func (s workspaceSource) UndoChanges(ctx context.Context, spec stet.UndoSpec) (*stet.UndoResult, error) {
	return s.ws.UndoChanges(ctx, spec)
}
