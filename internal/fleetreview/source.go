package fleetreview

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/fleetdb"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/review"
)

// notSeen is what the page says the fleet review does not see.
const notSeen = review.NotSeen + " Over many machines: each change's state is the one its host saw when it last shipped; undo runs on that host (the page names the command)."

// Source is the review over a fleet database.
type Source struct{ db *fleetdb.DB }

var (
	_ review.Source        = (*Source)(nil)
	_ review.UndoCommander = (*Source)(nil)
)

// New returns the review source over db.
func New(db *fleetdb.DB) *Source { return &Source{db: db} }

// sessionID is the page's id of a session: "<journal>/<session>".
func sessionID(j int64, s string) string { return strconv.FormatInt(j, 10) + "/" + s }

// parseID splits a page session id.
func parseID(id string) (int64, string, error) {
	j, s, ok := strings.Cut(id, "/")
	n, err := strconv.ParseInt(j, 10, 64)
	if !ok || err != nil || s == "" {
		return 0, "", &stet.Refusal{Kind: stet.KindNotFound, Message: fmt.Sprintf("no session %q: a fleet session is named <journal>/<session>", id)}
	}
	return n, s, nil
}

// About says the page is over the fleet.
func (s *Source) About(context.Context) (review.About, error) {
	return review.About{Roots: []string{}, NotSeen: notSeen, ReviewSession: stet.ReviewSession, Fleet: true, Where: s.db.Where()}, nil
}

// Summary counts over every journal.
func (s *Source) Summary(ctx context.Context) (stet.ReviewSummary, error) {
	t, err := s.db.Totals(ctx)
	if err != nil {
		return stet.ReviewSummary{}, err
	}
	sum := stet.ReviewSummary{Sessions: int(t.Sessions), Files: int(t.Files), Changes: int(t.Changes), Standing: int(t.Standing), Refused: int(t.Refused), Kinds: []stet.RefusalCount{}}
	for _, k := range orderKinds(t.Kinds) {
		sum.Kinds = append(sum.Kinds, stet.RefusalCount{Kind: k, Words: stet.KindWords(k), Count: int(t.Kinds[k])})
	}
	return sum, nil
}

// orderKinds returns the kinds of m in the order of stet.Kinds, then the
// rest sorted.
func orderKinds(m map[string]int64) []string {
	var out, rest []string
	for _, k := range stet.Kinds {
		if m[k] > 0 {
			out = append(out, k)
		}
	}
	for k := range m {
		if !slices.Contains(stet.Kinds, k) && m[k] > 0 {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(out, rest...)
}

func light(r fleetdb.SessionRow) review.Session {
	return review.Session{
		SessionView: stet.SessionView{ID: sessionID(r.Journal.ID, r.Session), Start: r.First, End: r.Last,
			Receipts: int(r.Receipts), Refusals: int(r.Refusals), Turns: []stet.TurnView{}, Files: []stet.FileChange{}},
		Name: r.Session, TurnCount: int(r.Turns) + 1, FileCount: int(r.Files), Host: r.Journal.Host,
		Workspace: strings.Join(r.Journal.Roots, ", "), StateDir: r.Journal.StateDir, Shipper: r.Journal.Shipper, Light: true,
	}
}

// Sessions lists a page of sessions over every journal, light (counts
// only; Session gives one in full).
func (s *Source) Sessions(ctx context.Context, q review.SessionQuery) ([]review.Session, error) {
	rows, err := s.db.Sessions(ctx, q.Q, q.Offset, q.Limit)
	if err != nil {
		return nil, err
	}
	out := make([]review.Session, 0, len(rows))
	for _, r := range rows {
		out = append(out, light(r))
	}
	return out, nil
}

// event is one receipt of a session as the review shows it.
type event struct {
	d       history.Receipt
	seq     int64
	turn    int
	time    time.Time
	session string
}

// sessionLog is one session read from the database.
type sessionLog struct {
	row      fleetdb.SessionRow
	turns    []stet.TurnView
	events   []*event
	refusals []int // per turn
	undone   map[string]string
}

func (s *Source) load(ctx context.Context, id string) (*sessionLog, error) {
	j, name, err := parseID(id)
	if err != nil {
		return nil, err
	}
	row, ok, err := s.db.SessionOf(ctx, j, name)
	if err != nil {
		return nil, err
	}
	if !ok {
		return nil, &stet.Refusal{Kind: stet.KindNotFound, Message: fmt.Sprintf("the database has no session %s (journal %d)", name, j)}
	}
	lines, err := s.db.SessionLines(ctx, j, name, []string{history.TypeTurn, history.TypeReceipt, history.TypeRefusal})
	if err != nil {
		return nil, err
	}
	l := &sessionLog{row: row, turns: []stet.TurnView{{Turn: 0, Receipts: []stet.ReceiptView{}, Files: []stet.FileChange{}}}, refusals: []int{0}}
	var ids []string
	for _, st := range lines {
		if st.Line == nil {
			continue // redacted: a deny-read file's line
		}
		var r journal.Record
		if err := json.Unmarshal(st.Line, &r); err != nil {
			return nil, fmt.Errorf("fleetreview: journal %d seq %d: %w", j, st.Seq, err)
		}
		switch r.Type {
		case history.TypeTurn:
			t, err := history.Decode[history.Turn](r)
			if err != nil {
				return nil, err
			}
			l.turns = append(l.turns, stet.TurnView{Turn: len(l.turns), Request: t.Request, Inputs: t.Inputs, Time: r.Time, Receipts: []stet.ReceiptView{}, Files: []stet.FileChange{}})
			l.refusals = append(l.refusals, 0)
		case history.TypeRefusal:
			l.refusals[len(l.refusals)-1]++
		case history.TypeReceipt:
			d, err := history.Decode[history.Receipt](r)
			if err != nil {
				return nil, err
			}
			l.events = append(l.events, &event{d: d, seq: st.Seq, turn: len(l.turns) - 1, time: r.Time, session: name})
			ids = append(ids, d.Receipt.ID)
		}
	}
	undos, err := s.db.Undos(ctx, j, ids)
	if err != nil {
		return nil, err
	}
	var u history.Undos
	for _, p := range undos {
		u.Note(p[0], p[1])
	}
	l.undone = map[string]string{}
	for _, id := range ids {
		if by := u.UndoneBy(id); by != "" {
			l.undone[id] = by
		}
	}
	return l, nil
}

func (e *event) view(undone map[string]string) stet.ReceiptView {
	r := e.d.Receipt
	return stet.ReceiptView{ID: r.ID, Tool: r.Tool, Path: r.Path, From: r.From, Verified: r.Verified, Undoes: e.d.Undoes, UndoneBy: undone[r.ID], Time: e.time}
}

// Session returns one session in full: turns, receipts, and each file's
// combined change with its counts.
func (s *Source) Session(ctx context.Context, id string) (review.Session, error) {
	l, err := s.load(ctx, id)
	if err != nil {
		return review.Session{}, err
	}
	v := light(l.row)
	v.Light = false
	vs := newVersions(s.db, l.row.Journal.ID)
	var all []*event
	for i := range l.turns {
		t := &l.turns[i]
		t.Refusals = l.refusals[i]
		var evs []*event
		for _, e := range l.events {
			if e.turn == t.Turn {
				evs = append(evs, e)
				t.Receipts = append(t.Receipts, e.view(l.undone))
			}
		}
		if t.Turn == 0 && len(evs) == 0 && t.Refusals == 0 {
			continue
		}
		if t.Files, err = vs.changes(ctx, groups(evs)); err != nil {
			return v, err
		}
		v.Turns = append(v.Turns, *t)
		all = append(all, evs...)
	}
	if v.Files, err = vs.changes(ctx, groups(all)); err != nil {
		return v, err
	}
	v.TurnCount, v.FileCount = len(v.Turns), len(v.Files)
	return v, nil
}

// Diff returns a page of combined diffs of a session (a turn, a path).
func (s *Source) Diff(ctx context.Context, spec stet.DiffSpec) (stet.DiffPage, error) {
	if spec.Session == "" {
		return stet.DiffPage{}, &stet.Refusal{Kind: stet.KindInvalid, Message: "over many machines a diff is of one session: name it"}
	}
	l, err := s.load(ctx, spec.Session)
	if err != nil {
		return stet.DiffPage{}, err
	}
	var evs []*event
	for _, e := range l.events {
		if (spec.Turn == 0 || e.turn == spec.Turn) && (spec.Path == "" || e.d.Receipt.Path == spec.Path || e.d.Receipt.From == spec.Path) {
			evs = append(evs, e)
		}
	}
	gs := groups(evs)
	page := stet.DiffPage{Files: []stet.FileDiff{}, Offset: max(spec.Offset, 0), Total: len(gs)}
	end := len(gs)
	if spec.Limit > 0 {
		end = min(end, page.Offset+spec.Limit)
	}
	vs := newVersions(s.db, l.row.Journal.ID)
	for i := page.Offset; i < end; i++ {
		fd, err := vs.diff(ctx, gs[i])
		if err != nil {
			return page, err
		}
		page.Files = append(page.Files, fd)
	}
	return page, nil
}

// Stands reports each receipt's last state as its host saw it.
func (s *Source) Stands(ctx context.Context, session, id string) ([]stet.Standing, error) {
	var j int64
	var evs []*event
	var undone map[string]string
	if id != "" {
		st, ok, err := s.db.ReceiptLine(ctx, id)
		if err != nil || !ok {
			return nil, fmt.Errorf("fleetreview: no receipt %s in the database: %w", id, err)
		}
		var r journal.Record
		if err := json.Unmarshal(st.Line, &r); err != nil {
			return nil, err
		}
		d, err := history.Decode[history.Receipt](r)
		if err != nil {
			return nil, err
		}
		j, evs = st.Journal, []*event{{d: d}}
	} else {
		l, err := s.load(ctx, session)
		if err != nil {
			return nil, err
		}
		j, evs, undone = l.row.Journal.ID, l.events, l.undone
	}
	ids := make([]string, len(evs))
	for i, e := range evs {
		ids[i] = e.d.Receipt.ID
	}
	seen, err := s.db.StandingOf(ctx, j, ids)
	if err != nil {
		return nil, err
	}
	out := []stet.Standing{}
	for _, e := range evs {
		r := e.d.Receipt
		st := stet.Standing{Receipt: r.ID, Path: r.Path, State: "unknown", Message: "its host has not reported on this change yet", UndoneBy: undone[r.ID]}
		if sn, ok := seen[r.ID]; ok {
			st.State = sn.State
			st.Message = fmt.Sprintf("%s (as its host saw it at %s)", sn.Message, sn.At.UTC().Format("2006-01-02 15:04:05 UTC"))
		}
		out = append(out, st)
	}
	return out, nil
}

// Refusals returns the refusals of a session (of every journal when the
// session is empty), grouped by kind, counts first.
func (s *Source) Refusals(ctx context.Context, q stet.RefusalQuery) ([]stet.RefusalGroup, error) {
	var j int64
	var name string
	if q.Session != "" {
		var err error
		if j, name, err = parseID(q.Session); err != nil {
			return nil, err
		}
	}
	counts, err := s.db.RefusalCounts(ctx, j, name)
	if err != nil {
		return nil, err
	}
	limit := q.Limit
	if limit == 0 {
		limit = stet.RefusalPage
	}
	out := []stet.RefusalGroup{}
	for _, k := range orderKinds(counts) {
		if q.Kind != "" && k != q.Kind {
			continue
		}
		g := stet.RefusalGroup{Kind: k, Words: stet.KindWords(k), Count: int(counts[k]), Offset: max(q.Offset, 0), Refusals: []stet.RefusalEntry{}}
		if limit > 0 {
			lines, err := s.db.Refusals(ctx, j, name, k, g.Offset, limit)
			if err != nil {
				return nil, err
			}
			for _, st := range lines {
				if st.Line == nil {
					g.Refusals = append(g.Refusals, stet.RefusalEntry{Session: sessionID(st.Journal, st.Session), Kind: k, Message: "(about a deny-read file: not shipped)", Time: st.Time})
					continue
				}
				var r journal.Record
				if err := json.Unmarshal(st.Line, &r); err != nil {
					return nil, err
				}
				d, err := history.Decode[history.Refusal](r)
				if err != nil {
					return nil, err
				}
				g.Refusals = append(g.Refusals, stet.RefusalEntry{Session: sessionID(st.Journal, st.Session), Kind: d.Kind, Tool: d.Tool, Path: d.Path, Message: d.Message, Time: r.Time})
			}
		}
		out = append(out, g)
	}
	return out, nil
}

// maxHistory bounds the entries of a path's history.
const maxHistory = 200

// History returns the changes of one path across every journal.
func (s *Source) History(ctx context.Context, path string) ([]stet.HistoryEntry, error) {
	lines, err := s.db.PathHistory(ctx, path, maxHistory)
	if err != nil {
		return nil, err
	}
	out := []stet.HistoryEntry{}
	type entry struct {
		st fleetdb.Stored
		e  *event
	}
	byJournal := map[int64][]entry{}
	var order []int64
	for _, st := range lines {
		if st.Line == nil {
			continue
		}
		var r journal.Record
		if err := json.Unmarshal(st.Line, &r); err != nil {
			return nil, err
		}
		d, err := history.Decode[history.Receipt](r)
		if err != nil {
			return nil, err
		}
		if byJournal[st.Journal] == nil {
			order = append(order, st.Journal)
		}
		byJournal[st.Journal] = append(byJournal[st.Journal], entry{st, &event{d: d, seq: st.Seq, turn: st.Turn, time: r.Time, session: st.Session}})
	}
	// Three queries whatever the number of journals: their receipts of
	// the path, the blobs those name, and the states their hosts saw.
	var js []int64
	var ids []string
	for _, j := range order {
		for _, e := range byJournal[j] {
			js, ids = append(js, j), append(ids, e.e.d.Receipt.ID)
		}
	}
	seen, err := s.db.StandingIn(ctx, js, ids)
	if err != nil {
		return nil, err
	}
	all, err := s.db.ReceiptsIn(ctx, order, path)
	if err != nil {
		return nil, err
	}
	shared := newVersions(s.db, 0)
	vss := map[int64]*versions{}
	var names []string
	for _, j := range order {
		vs := shared.sharing(j)
		vs.byPath[path] = nil
		var mine []fleetdb.Stored
		for _, st := range all {
			if st.Journal == j {
				mine = append(mine, st)
			}
		}
		n, err := vs.add(mine)
		if err != nil {
			return nil, err
		}
		names = append(names, n...)
		vss[j] = vs
	}
	if err := shared.fetch(ctx, names); err != nil {
		return nil, err
	}
	done := map[string]stet.HistoryEntry{}
	for _, j := range order {
		vs := vss[j]
		for _, e := range byJournal[j] {
			ch, err := vs.changes(ctx, groups([]*event{e.e}))
			if err != nil {
				return nil, err
			}
			r := e.e.d.Receipt
			st := stet.Standing{Receipt: r.ID, Path: r.Path, State: "unknown", Message: "its host has not reported on this change yet"}
			if sn, ok := seen[fmt.Sprint(j, "/", r.ID)]; ok {
				st.State, st.Message = sn.State, fmt.Sprintf("%s (as its host saw it at %s)", sn.Message, sn.At.UTC().Format("2006-01-02 15:04:05 UTC"))
			}
			h := stet.HistoryEntry{ReceiptView: e.e.view(nil), Session: sessionID(j, e.st.Session), Turn: e.st.Turn, Stands: st}
			if len(ch) > 0 {
				h.Change = ch[0]
			}
			done[fmt.Sprint(j, "/", e.st.Seq)] = h
		}
	}
	for _, st := range lines {
		if h, ok := done[fmt.Sprint(st.Journal, "/", st.Seq)]; ok {
			out = append(out, h)
		}
	}
	return out, nil
}

// SearchPaths returns changed paths holding q, over every journal.
func (s *Source) SearchPaths(ctx context.Context, q string, limit int) ([]string, error) {
	if limit <= 0 {
		limit = 100
	}
	return s.db.SearchPaths(ctx, q, limit)
}

// Verify checks every chain and blob.
func (s *Source) Verify(ctx context.Context) (bool, any, error) {
	rep, err := s.db.Verify(ctx)
	return err == nil && rep.OK(), rep, err
}

// UndoCommand names the command that takes spec back on the host that
// holds the files.
func (s *Source) UndoCommand(ctx context.Context, spec stet.UndoSpec) (review.UndoCommand, error) {
	var j int64
	args := []string{"undo"}
	switch {
	case len(spec.Receipts) > 0:
		st, ok, err := s.db.ReceiptLine(ctx, spec.Receipts[0])
		if err != nil || !ok {
			return review.UndoCommand{}, fmt.Errorf("fleetreview: no receipt %s in the database: %w", spec.Receipts[0], err)
		}
		j = st.Journal
		args = append(args, "--receipt", strings.Join(spec.Receipts, ","))
	case spec.Session != "":
		var name string
		var err error
		if j, name, err = parseID(spec.Session); err != nil {
			return review.UndoCommand{}, err
		}
		args = append(args, "--session", name)
		if spec.Turn > 0 {
			args = append(args, "--turn", strconv.Itoa(spec.Turn))
		}
		if spec.Path != "" {
			args = append(args, spec.Path)
		}
	default:
		return review.UndoCommand{}, &stet.Refusal{Kind: stet.KindInvalid, Message: "name the receipts or the session to undo"}
	}
	jr, err := s.db.JournalOf(ctx, j)
	if err != nil {
		return review.UndoCommand{}, err
	}
	words := []string{"stet"}
	for _, r := range jr.Roots {
		words = append(words, "--root", r)
	}
	words = append(words, "--state", jr.StateDir)
	words = append(words, args...)
	// Preview first: the same command with --dry-run shows what it would take back.
	for i, w := range words {
		words[i] = shellQuote(w)
	}
	cmd := strings.Join(words, " ")
	return review.UndoCommand{Host: jr.Host, Command: cmd + " --dry-run\n" + cmd,
		Message: "Undo runs on the machine that holds the files. The first command previews, the second takes the changes back."}, nil
}

// shellQuote quotes w for a POSIX shell when it needs it.
func shellQuote(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("-_./:=,@+", r))
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
