package stet

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// Review: what agents changed, read back from the journal (SPEC section 7)
// for a person, by session, turn and file. Everything here is derived from
// receipts and the bytes the journal and the files hold; nothing is kept
// on the side. stet sees only its own tool calls: a change made by a shell
// command or an editor shows up only as a file that no longer holds a
// receipt's result ("changed since").

// Standing states of a receipt (Standing.State).
const (
	StateStands  = "stands"  // the file holds the receipt's result
	StateChanged = "changed" // the file holds something else ("changed since")
	StateGone    = "gone"    // the file the receipt left is no longer there
	StateUndone  = "undone"  // the receipt was undone (and the undo stands undone or not)
)

// SessionView is one session as review shows it: its turns and every file
// it changed.
type SessionView struct {
	ID       string       `json:"id"`
	Start    time.Time    `json:"start"`
	End      time.Time    `json:"end"`
	Receipts int          `json:"receipts"`
	Refusals int          `json:"refusals"`
	Turns    []TurnView   `json:"turns"`
	Files    []FileChange `json:"files"` // the session's combined change per file
}

// TurnView is one turn of a session: the pinned request, the declared
// inputs, and what it changed. Turn 0 holds what the session did before
// its first pinned request.
type TurnView struct {
	Turn     int           `json:"turn"`
	Request  string        `json:"request"`
	Inputs   []string      `json:"inputs,omitempty"`
	Time     time.Time     `json:"time"`
	Receipts []ReceiptView `json:"receipts"`
	Files    []FileChange  `json:"files"`
	Refusals int           `json:"refusals"`
}

// ReceiptView is one receipt in a turn.
type ReceiptView struct {
	ID       string    `json:"id"`
	Tool     string    `json:"tool"`
	Path     string    `json:"path"`
	From     string    `json:"from,omitempty"`
	Verified bool      `json:"verified"`
	Undoes   string    `json:"undoes,omitempty"`
	UndoneBy string    `json:"undone_by,omitempty"` // the undo that took it back, while that undo stands
	Time     time.Time `json:"time"`
}

// FileChange is the combined change of one file over a turn, a session or
// a set of receipts: from the version before the first receipt to the
// version after the last. Added and Removed count lines; they are exact
// only when both versions could be rebuilt (Exact): the journal keeps the
// bytes an edit replaced, not the new ones, so after a change stet did not
// make the versions before it may be known by hash only.
type FileChange struct {
	Path     string   `json:"path"`
	From     string   `json:"from,omitempty"` // the file was moved here from this name
	Added    int      `json:"added"`
	Removed  int      `json:"removed"`
	Created  bool     `json:"created,omitempty"`
	Deleted  bool     `json:"deleted,omitempty"`
	Dir      bool     `json:"dir,omitempty"` // a directory move
	Exact    bool     `json:"exact"`
	Receipts []string `json:"receipts"`
}

// FileDiff is a FileChange with its unified diff.
type FileDiff struct {
	FileChange
	Diff string `json:"diff"`
}

// DiffSpec selects the changes Diff combines: a session (all when empty),
// a turn of it (0: every turn), and a path (every file when empty).
// Offset and Limit page through the files (Limit 0: every file).
type DiffSpec struct {
	Session string
	Turn    int
	Path    string
	Offset  int
	Limit   int
}

// DiffPage is one page of combined diffs; Total counts every file the
// spec selects.
type DiffPage struct {
	Files  []FileDiff `json:"files"`
	Offset int        `json:"offset"`
	Total  int        `json:"total"`
}

// Standing says whether a receipt's change still stands, proven by hashing
// what the file holds now against the receipt's after version.
type Standing struct {
	Receipt   string         `json:"receipt"`
	Path      string         `json:"path"`
	State     string         `json:"state"` // StateStands, StateChanged, StateGone, StateUndone
	Message   string         `json:"message"`
	Now       *receipt.State `json:"now,omitempty"`        // what the file holds now, when it changed since
	ChangedBy string         `json:"changed_by,omitempty"` // the later receipt whose result the file holds, if stet made the change
	UndoneBy  string         `json:"undone_by,omitempty"`
	Diff      string         `json:"diff,omitempty"` // from the receipt's result to the file now, when both are known
}

// RefusalEntry is one refused tool call, as the session journaled it.
type RefusalEntry struct {
	Session string    `json:"session"`
	Turn    int       `json:"turn"`
	Kind    string    `json:"kind"`
	Tool    string    `json:"tool"`
	Path    string    `json:"path,omitempty"`
	Message string    `json:"message"`
	Time    time.Time `json:"time"`
}

// RefusalGroup is the refusals of one kind: how many there are, what the
// kind means in words, and one page of them (Offset, then up to the page's
// limit, oldest first).
type RefusalGroup struct {
	Kind     string         `json:"kind"`
	Words    string         `json:"words"`
	Count    int            `json:"count"`
	Offset   int            `json:"offset"`
	Refusals []RefusalEntry `json:"refusals"`
}

// RefusalPage is the default number of refusals a group carries.
const RefusalPage = 50

// KindWords says what a refusal kind stopped, in words for a person
// ("changes to files not read first"); a kind it does not know is
// returned as it is.
func KindWords(kind string) string {
	if w, ok := kindWords[kind]; ok {
		return w
	}
	return kind
}

var kindWords = map[string]string{
	KindInvalid:    "calls with bad arguments",
	KindOutside:    "paths outside the workspace",
	KindNotFound:   "files that do not exist",
	KindNotRegular: "special files (not regular files)",
	KindReadOnly:   "changes in a read-only workspace",
	KindProtected:  "changes to protected paths",
	KindNotRead:    "changes to files not read first",
	KindChanged:    "changes to files that changed since they were read",
	KindNotSeen:    "edits of lines never shown to the agent",
	KindInput:      "replacements of the user's input files",
	KindExists:     "creates over existing files",
	KindNoMatch:    "edits whose old text was not found",
	KindAmbiguous:  "edits whose old text matched several places",
	KindBinary:     "binary files",
	KindNotUTF8:    "files that are not UTF-8 text",
	KindTooLarge:   "files or results over the size limits",
	KindStalled:    "reads after the agent stalled",
	KindConflict:   "changes that raced another writer",
}

// ReviewSummary is the top of the review: how many sessions, files and
// changes there are, how many changes still stand, and what the guards
// stopped, by kind.
type ReviewSummary struct {
	Sessions int            `json:"sessions"`
	Files    int            `json:"files"`    // distinct files changed
	Changes  int            `json:"changes"`  // receipts
	Standing int            `json:"standing"` // receipts whose result a file still holds
	Refused  int            `json:"refused"`
	Kinds    []RefusalCount `json:"kinds"` // in the order of Kinds
}

// RefusalCount is how many refusals of one kind there were.
type RefusalCount struct {
	Kind  string `json:"kind"`
	Words string `json:"words"`
	Count int    `json:"count"`
}

// Summary returns the review's summary over every session.
func (ws *Workspace) Summary() (ReviewSummary, error) {
	h, err := ws.readHistory()
	if err != nil {
		return ReviewSummary{}, err
	}
	sum := ReviewSummary{Sessions: len(h.order), Kinds: []RefusalCount{}}
	files := map[string]bool{}
	for _, e := range h.events {
		sum.Changes++
		files[e.d.Receipt.Path] = true
		if h.standing(e).State == StateStands {
			sum.Standing++
		}
	}
	sum.Files = len(files)
	groups, err := ws.Refusals(RefusalQuery{Limit: -1})
	if err != nil {
		return ReviewSummary{}, err
	}
	for _, g := range groups {
		sum.Refused += g.Count
		sum.Kinds = append(sum.Kinds, RefusalCount{Kind: g.Kind, Words: g.Words, Count: g.Count})
	}
	return sum, nil
}

// HistoryEntry is one change of a file, in any session.
type HistoryEntry struct {
	ReceiptView
	Session string     `json:"session"`
	Turn    int        `json:"turn"`
	Change  FileChange `json:"change"`
	Stands  Standing   `json:"stands"`
}

// recRefusal is a refused tool call, journaled lazily by the session.
const recRefusal = history.TypeRefusal

// maxRefusalMessage bounds the message a refusal record keeps.
const maxRefusalMessage = 400

type refusalData = history.Refusal

// NoteRefusal journals a refusal a surface made or passed on for this
// session, as Call and Do journal their own, so that review shows it: a
// surface that runs the typed methods itself (the MCP server's reference
// profile) calls it once per refused call. tool is the name the client
// called.
func (s *Session) NoteRefusal(tool string, r *Refusal) {
	if r == nil {
		return
	}
	c := *r
	c.Tool = tool
	s.noteRefusal(tool, &c)
}

// noteRefusal journals a refusal of this session: one lazy record, its
// message cut to a bound. A journal failure is ignored: the record is for
// people reviewing the session, and the call was refused either way.
func (s *Session) noteRefusal(tool string, err error) {
	r, ok := AsRefusal(err)
	if !ok || s.e.ID() == engine.ReviewSession {
		return
	}
	if r.Tool != "" {
		tool = r.Tool
	}
	msg := r.Message
	if len(msg) > maxRefusalMessage {
		cut := maxRefusalMessage
		for cut > 0 && msg[cut]&0xC0 == 0x80 {
			cut--
		}
		msg = msg[:cut] + "…"
	}
	_ = s.e.Append(false, s.e.Rec(recRefusal, "", refusalData{Kind: r.Kind, Tool: tool, Path: r.Path, Message: msg}))
}

// event is one receipt as review reads it.
type event struct {
	seq     int64
	session string
	turn    int
	key     string
	d       engine.ReceiptData
}

func (e *event) view(h *reviewLog) ReceiptView {
	r := e.d.Receipt
	return ReceiptView{ID: r.ID, Tool: r.Tool, Path: r.Path, From: r.From, Verified: r.Verified, Undoes: e.d.Undoes,
		UndoneBy: h.undoneBy(r.ID), Time: r.Time}
}

type turnInfo struct {
	index    int
	request  string
	inputs   []string
	time     time.Time
	events   []*event
	refusals int
}

type sessionInfo struct {
	id          string
	first, last time.Time
	lastSeq     int64
	turns       []*turnInfo
	refusals    []RefusalEntry
}

// reviewLog is the journal read once for review, with the versions of files
// rebuilt as they are asked for.
type reviewLog struct {
	ws       *Workspace
	events   []*event
	byID     map[string]*event
	undos    history.Undos
	sessions map[string]*sessionInfo
	order    []string
	byBefore map[string][]*event // before version -> receipts that can rebuild it from their after
	known    map[string][]byte   // version -> bytes
	tried    map[string]bool
	seeded   bool
	cur      map[string]current // display path -> what the file holds now
}

type current struct {
	b      []byte
	exists bool
	dir    bool
}

// readHistory reads the whole journal once.
func (ws *Workspace) readHistory() (*reviewLog, error) {
	h := &reviewLog{ws: ws, byID: map[string]*event{}, sessions: map[string]*sessionInfo{},
		byBefore: map[string][]*event{}, known: map[string][]byte{}, tried: map[string]bool{}, cur: map[string]current{}}
	err := ws.e.Journal.Scan(func(r journal.Record) error {
		// Filtered by record type, never by a session's name: whatever
		// session a receipt names, the review shows it.
		if r.Session == "" {
			return nil
		}
		shown := history.ShownOf(r.Type) // where the record table says the review shows it
		switch shown {
		case history.ShownTurn, history.ShownChange, history.ShownUndo, history.ShownRefusal:
		default:
			return nil
		}
		si := h.sessions[r.Session]
		if si == nil {
			si = &sessionInfo{id: r.Session, first: r.Time, turns: []*turnInfo{{time: r.Time}}}
			h.sessions[r.Session] = si
			h.order = append(h.order, r.Session)
		}
		si.last, si.lastSeq = r.Time, r.Seq
		t := si.turns[len(si.turns)-1]
		switch shown {
		case history.ShownTurn:
			var td engine.TurnData
			if err := json.Unmarshal(r.Data, &td); err != nil {
				return fmt.Errorf("journal line %d: %w", r.Seq, err)
			}
			si.turns = append(si.turns, &turnInfo{index: len(si.turns), request: td.Request, inputs: td.Inputs, time: r.Time})
		case history.ShownUndo:
			h.undos.Add(r)
		case history.ShownRefusal:
			var rd refusalData
			if json.Unmarshal(r.Data, &rd) == nil {
				t.refusals++
				si.refusals = append(si.refusals, RefusalEntry{Session: r.Session, Turn: t.index, Kind: rd.Kind, Tool: rd.Tool,
					Path: rd.Path, Message: rd.Message, Time: r.Time})
			}
		case history.ShownChange:
			e := &event{seq: r.Seq, session: r.Session, turn: t.index, key: r.Path}
			if err := json.Unmarshal(r.Data, &e.d); err != nil {
				return fmt.Errorf("journal line %d: %w", r.Seq, err)
			}
			if e.d.Receipt.DryRun {
				return nil
			}
			h.events = append(h.events, e)
			h.byID[e.d.Receipt.ID] = e
			t.events = append(t.events, e)
			rc := e.d.Receipt
			if rc.Before != nil && rc.After != nil && e.d.FromKey == "" && e.d.Pre == "" && len(e.d.Old) == len(rc.Matches) {
				h.byBefore[rc.Before.Version] = append(h.byBefore[rc.Before.Version], e)
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return h, nil
}

// undoneBy returns the undo receipt that took id back, unless that undo
// was itself taken back (a redo).
func (h *reviewLog) undoneBy(id string) string { return h.undos.UndoneBy(id) }

// current returns what the file at display path p holds now.
func (h *reviewLog) current(p string) current {
	if c, ok := h.cur[p]; ok {
		return c
	}
	var c current
	// A file the workspace hides (deny-read, the state directory, through
	// any name) is not shown by the review either: it counts as unreadable.
	if t, ref := h.ws.e.Resolve("review", p); ref == nil && h.ws.e.Denied(t) == nil {
		if info, err := t.Root.P.Stat(t.Rel); err == nil {
			c.exists = true
			if info.Type == fsys.TypeDir {
				c.dir = true
			} else if b, err := fsys.ReadFileMax(t.Root.P, t.Rel, h.ws.e.Opts.MaxFileBytes); err == nil {
				c.b = b
			}
		}
	}
	h.cur[p] = c
	return c
}

// bytesOf returns the bytes of a file version: from the files as they are
// now, a blob of the journal, or rebuilt from a newer version and the
// regions a receipt replaced.
func (h *reviewLog) bytesOf(ver string) ([]byte, bool) {
	if b, ok := h.known[ver]; ok {
		return b, true
	}
	if h.tried[ver] {
		return nil, false
	}
	h.tried[ver] = true
	if !h.seeded {
		h.seeded = true
		for _, e := range h.events {
			if c := h.current(e.d.Receipt.Path); c.exists && !c.dir && c.b != nil {
				h.known[string(fsys.VersionOf(c.b))] = c.b
			}
		}
		if b, ok := h.known[ver]; ok {
			return b, true
		}
	}
	if b, err := h.ws.e.Journal.Get(ver); err == nil {
		h.known[ver] = b
		return b, true
	}
	for _, e := range h.byBefore[ver] {
		after, ok := h.bytesOf(e.d.Receipt.After.Version)
		if !ok {
			continue
		}
		if pre, err := history.Preimage(h.ws.e.Journal, &e.d, after); err == nil {
			h.known[ver] = pre
			return pre, true
		}
	}
	return nil, false
}

// group is one file's receipts within a selection.
type group struct {
	path, from  string
	first, last *event
	ids         []string
}

// groups gathers events by file, in order of first change; a moved file
// keeps one group under its newest name.
func groups(events []*event) []*group {
	var out []*group
	by := map[string]*group{}
	for _, e := range events {
		r := e.d.Receipt
		g := by[r.Path]
		if e.d.FromKey != "" && r.From != r.Path {
			if old := by[r.From]; old != nil && g == nil {
				delete(by, r.From)
				g = old
				if g.from == "" {
					g.from = r.From
				}
				g.path = r.Path
			}
			if g == nil {
				g = &group{path: r.Path, from: r.From, first: e}
				out = append(out, g)
			}
			by[r.Path] = g
		}
		if g == nil {
			g = &group{path: r.Path, first: e}
			by[r.Path] = g
			out = append(out, g)
		}
		g.last = e
		g.ids = append(g.ids, r.ID)
	}
	return out
}

// change computes the combined change of g, and its diff when withDiff.
func (h *reviewLog) change(g *group, withDiff bool) FileDiff {
	fc := FileChange{Path: g.path, From: g.from, Receipts: g.ids}
	first, last := g.first.d.Receipt, g.last.d.Receipt
	if first.Before == nil && g.first.d.FromKey != "" {
		fc.Dir, fc.Exact = true, true
		return FileDiff{FileChange: fc}
	}
	fc.Created = first.Before == nil
	fc.Deleted = last.After == nil
	if h.ws.e.Hides(g.path) || h.ws.e.Hides(g.from) {
		return FileDiff{FileChange: fc, Diff: engine.HiddenDiff(g.path)}
	}
	if fc.Created && fc.Deleted {
		fc.Exact = true
		return FileDiff{FileChange: fc, Diff: fmt.Sprintf("(%s was created and deleted again)\n", g.path)}
	}
	var a, b []byte
	okA, okB := true, true
	if !fc.Created {
		a, okA = h.bytesOf(first.Before.Version)
	}
	if !fc.Deleted {
		b, okB = h.bytesOf(last.After.Version)
	}
	name := g.path
	if !okA || !okB {
		missing := []string{}
		if !okA {
			missing = append(missing, "before")
		}
		if !okB {
			missing = append(missing, "after")
		}
		return FileDiff{FileChange: fc, Diff: fmt.Sprintf("--- %s\n+++ %s\n(the %s version is known by hash only: the file was changed since by something stet did not see, and the journal keeps only the bytes a change replaced)\n",
			textedit.Label("a/", name), textedit.Label("b/", name), strings.Join(missing, " and "))}
	}
	fc.Exact = true
	var d string
	switch {
	case fc.Created:
		d = textedit.DiffCreate(name, b)
	case fc.Deleted:
		d = textedit.DiffDelete(name, a)
	case string(a) == string(b):
		d = ""
	default:
		d = textedit.Diff(name, a, b)
	}
	fc.Added, fc.Removed = countDiff(d)
	if !withDiff {
		d = ""
	} else if len(d) > maxReviewDiff {
		cut := strings.LastIndexByte(d[:maxReviewDiff], '\n') + 1
		d = d[:cut] + fmt.Sprintf("(diff cut at %d of %d bytes)\n", cut, len(d))
	}
	return FileDiff{FileChange: fc, Diff: d}
}

// maxReviewDiff bounds one file's diff as review returns it.
const maxReviewDiff = 256 << 10

// countDiff counts the added and removed lines of a unified diff.
func countDiff(d string) (added, removed int) {
	lines := strings.Split(d, "\n")
	for i, l := range lines {
		if i < 2 && (strings.HasPrefix(l, "--- ") || strings.HasPrefix(l, "+++ ")) {
			continue
		}
		switch {
		case strings.HasPrefix(l, "+"):
			added++
		case strings.HasPrefix(l, "-"):
			removed++
		}
	}
	return added, removed
}

func (h *reviewLog) changes(events []*event) []FileChange {
	gs := groups(events)
	out := make([]FileChange, len(gs))
	for i, g := range gs {
		out[i] = h.change(g, false).FileChange
	}
	return out
}

// Sessions lists every session that changed, turned or was refused
// anything, newest first, with its turns and the files each changed.
func (ws *Workspace) Sessions() ([]SessionView, error) {
	h, err := ws.readHistory()
	if err != nil {
		return nil, err
	}
	ids := append([]string(nil), h.order...)
	sort.SliceStable(ids, func(i, j int) bool { return h.sessions[ids[i]].lastSeq > h.sessions[ids[j]].lastSeq })
	out := make([]SessionView, 0, len(ids))
	for _, id := range ids {
		out = append(out, h.sessionView(h.sessions[id]))
	}
	return out, nil
}

// Session returns one session's view.
func (h *reviewLog) sessionView(si *sessionInfo) SessionView {
	v := SessionView{ID: si.id, Start: si.first, End: si.last, Refusals: len(si.refusals), Turns: []TurnView{}}
	var all []*event
	for _, t := range si.turns {
		if t.index == 0 && len(t.events) == 0 && t.refusals == 0 {
			continue
		}
		tv := TurnView{Turn: t.index, Request: t.request, Inputs: t.inputs, Time: t.time, Refusals: t.refusals, Receipts: []ReceiptView{}}
		for _, e := range t.events {
			tv.Receipts = append(tv.Receipts, e.view(h))
		}
		tv.Files = h.changes(t.events)
		v.Turns = append(v.Turns, tv)
		all = append(all, t.events...)
	}
	v.Receipts = len(all)
	v.Files = h.changes(all)
	return v
}

// selected returns the events spec selects.
func (h *reviewLog) selected(session string, turn int, path string) ([]*event, error) {
	var key string
	if path != "" {
		t, ref := h.ws.e.Resolve("diff", path)
		if ref != nil {
			return nil, ref
		}
		key = t.Key()
	}
	var src []*event
	switch {
	case session == "":
		if turn != 0 {
			return nil, engine.Refuse(KindInvalid, "", "a turn is counted within a session: name the session too")
		}
		src = h.events
	default:
		si := h.sessions[session]
		if si == nil {
			return nil, engine.Refuse(KindNotFound, "", "the journal has no session %q (stet review lists them)", session)
		}
		if turn < 0 || turn >= len(si.turns) {
			return nil, engine.Refuse(KindNotFound, "", "session %s has no turn %d (it has %d)", session, turn, len(si.turns)-1)
		}
		for _, t := range si.turns {
			if turn == 0 || t.index == turn {
				src = append(src, t.events...)
			}
		}
	}
	if key == "" {
		return src, nil
	}
	var out []*event
	for _, e := range src {
		if e.key == key || e.d.FromKey == key {
			out = append(out, e)
		}
	}
	return out, nil
}

// Diff returns the combined diff of each file a session, a turn or the
// whole journal changed (see DiffSpec), one page at a time.
func (ws *Workspace) Diff(spec DiffSpec) (DiffPage, error) {
	h, err := ws.readHistory()
	if err != nil {
		return DiffPage{}, err
	}
	events, err := h.selected(spec.Session, spec.Turn, spec.Path)
	if err != nil {
		return DiffPage{}, err
	}
	gs := groups(events)
	page := DiffPage{Files: []FileDiff{}, Offset: max(spec.Offset, 0), Total: len(gs)}
	end := len(gs)
	if spec.Limit > 0 {
		end = min(end, page.Offset+spec.Limit)
	}
	for i := page.Offset; i < end; i++ {
		page.Files = append(page.Files, h.change(gs[i], true))
	}
	return page, nil
}

// Stands reports whether the change of a receipt still stands: the file
// holds its result (stands), holds something else (changed since: what it
// holds now, and which later receipt made it so when stet did), or is no
// longer there (gone). It is proven by hashing the file against the
// receipt's after version, not taken from a snapshot.
func (ws *Workspace) Stands(id string) (Standing, error) {
	h, err := ws.readHistory()
	if err != nil {
		return Standing{}, err
	}
	e := h.byID[id]
	if e == nil {
		return Standing{}, errNoReceipt(id)
	}
	return h.standing(e), nil
}

// SessionStands reports Stands for every receipt of a session.
func (ws *Workspace) SessionStands(session string) ([]Standing, error) {
	h, err := ws.readHistory()
	if err != nil {
		return nil, err
	}
	out := []Standing{}
	for _, e := range h.events {
		if e.session == session {
			out = append(out, h.standing(e))
		}
	}
	return out, nil
}

func (h *reviewLog) standing(e *event) Standing {
	r := e.d.Receipt
	st := Standing{Receipt: r.ID, Path: r.Path}
	if u := h.undoneBy(r.ID); u != "" {
		st.State, st.UndoneBy = StateUndone, u
		st.Message = fmt.Sprintf("undone by %s", u)
		return st
	}
	c := h.current(r.Path)
	switch {
	case r.After == nil && e.d.FromKey == "" && !c.exists:
		st.State, st.Message = StateStands, r.Path+" is still deleted"
	case r.After == nil && e.d.FromKey == "":
		st.State, st.Message = StateChanged, r.Path+" exists again"
	case r.Before == nil && e.d.FromKey != "": // a directory move
		if c.dir {
			st.State, st.Message = StateStands, r.Path+" is still there"
		} else {
			st.State, st.Message = StateGone, r.Path+" is no longer a directory"
		}
	case !c.exists || c.dir:
		st.State, st.Message = StateGone, r.Path+" is no longer there"
	case c.b == nil:
		st.State, st.Message = StateChanged, r.Path+" can no longer be read as a file"
	case string(fsys.VersionOf(c.b)) == r.After.Version:
		st.State, st.Message = StateStands, r.Path+" holds this change's result"
	default:
		now := receipt.StateOf(c.b)
		st.State, st.Now = StateChanged, now
		ver := now.Version
		for i := len(h.events) - 1; i >= 0; i-- {
			l := h.events[i]
			if l.seq > e.seq && l.d.Receipt.After != nil && l.d.Receipt.After.Version == ver && (l.key == e.key || l.d.FromKey == e.key) {
				st.ChangedBy = l.d.Receipt.ID
				break
			}
		}
		if st.ChangedBy != "" {
			st.Message = fmt.Sprintf("changed since by %s (session %s): %d bytes, %d lines now", st.ChangedBy, h.byID[st.ChangedBy].session, now.Bytes, now.Lines)
		} else {
			st.Message = fmt.Sprintf("changed outside: something stet did not see (a shell command, an editor, a tool no hook covers) changed it since: %d bytes, %d lines now (was %d bytes, %d lines)",
				now.Bytes, now.Lines, r.After.Bytes, r.After.Lines)
		}
		if after, ok := h.bytesOf(r.After.Version); ok {
			st.Diff = textedit.Diff(r.Path, after, c.b)
			if len(st.Diff) > maxReviewDiff {
				st.Diff = st.Diff[:strings.LastIndexByte(st.Diff[:maxReviewDiff], '\n')+1] + "(diff cut)\n"
			}
		}
	}
	return st
}

// RefusalQuery selects refusals: of one session (every session's when
// empty), of one kind (every kind's when empty), a page of each group from
// Offset, at most Limit entries (RefusalPage when 0; none, only the counts,
// when negative).
type RefusalQuery struct {
	Session string
	Kind    string
	Offset  int
	Limit   int
}

// Refusals returns the refusals q selects, grouped by kind in the order of
// Kinds: each group's count first, then one page of its entries.
func (ws *Workspace) Refusals(q RefusalQuery) ([]RefusalGroup, error) {
	h, err := ws.readHistory()
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = RefusalPage
	}
	offset := max(q.Offset, 0)
	by := map[string]*RefusalGroup{}
	for _, id := range h.order {
		if q.Session != "" && id != q.Session {
			continue
		}
		for _, r := range h.sessions[id].refusals {
			if q.Kind != "" && r.Kind != q.Kind {
				continue
			}
			g := by[r.Kind]
			if g == nil {
				g = &RefusalGroup{Kind: r.Kind, Words: KindWords(r.Kind), Offset: offset, Refusals: []RefusalEntry{}}
				by[r.Kind] = g
			}
			if g.Count >= offset && len(g.Refusals) < limit {
				g.Refusals = append(g.Refusals, r)
			}
			g.Count++
		}
	}
	out := []RefusalGroup{}
	for _, k := range Kinds {
		if g := by[k]; g != nil {
			out = append(out, *g)
			delete(by, k)
		}
	}
	var rest []string
	for k := range by {
		rest = append(rest, k)
	}
	sort.Strings(rest)
	for _, k := range rest {
		out = append(out, *by[k])
	}
	return out, nil
}

// History returns every change of one file, oldest first, across sessions
// (a file moved keeps its changes under both names), each with its own
// change and whether it stands.
func (ws *Workspace) History(path string) ([]HistoryEntry, error) {
	h, err := ws.readHistory()
	if err != nil {
		return nil, err
	}
	events, err := h.selected("", 0, path)
	if err != nil {
		return nil, err
	}
	out := []HistoryEntry{}
	for _, e := range events {
		out = append(out, HistoryEntry{ReceiptView: e.view(h), Session: e.session, Turn: e.turn,
			Change: h.change(&group{path: e.d.Receipt.Path, from: e.d.Receipt.From, first: e, last: e, ids: []string{e.d.Receipt.ID}}, false).FileChange,
			Stands: h.standing(e)})
	}
	return out, nil
}

// SearchPaths returns the paths stet changed whose name holds q (case
// folded), sorted, at most limit of them (100 when limit is 0).
func (ws *Workspace) SearchPaths(q string, limit int) ([]string, error) {
	if limit <= 0 {
		limit = 100
	}
	h, err := ws.readHistory()
	if err != nil {
		return nil, err
	}
	q = strings.ToLower(q)
	seen := map[string]bool{}
	var out []string
	for _, e := range h.events {
		for _, p := range []string{e.d.Receipt.Path, e.d.Receipt.From} {
			if p != "" && !seen[p] && strings.Contains(strings.ToLower(p), q) {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	sort.Strings(out)
	if len(out) > limit {
		out = out[:limit]
	}
	return out, nil
}

// errNoReceipt words a receipt id the journal does not hold.
func errNoReceipt(id string) error {
	return fmt.Errorf("no receipt %s in the journal (stet log lists them): %w", id, ErrNotFound)
}
