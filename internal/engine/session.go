package engine

import (
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/stet-dev/stet/brief"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

// Session is one agent's working state: what it observed, what it created,
// its pinned request and declared inputs. Every change to it is recorded in
// the journal, so a later process (a CLI call) with the same id continues
// where the last one stopped. A Session is safe for concurrent use.
type Session struct {
	WS *Workspace
	id string
	*sessionState
	Scope *Scope // the directories a view is narrowed to; nil: the whole workspace
}

// sessionState is what a session knows. Views made by Within share it.
type sessionState struct {
	Mu sync.Mutex
	// State is what the session's records made it know (keys are
	// Target.Key): changed only through the record table's transitions
	// (history.Apply, history.ApplyPayload).
	history.State
	own map[int64]bool // seqs of records this process appended and applied, not yet met by catchUp

	syncMu sync.Mutex    // held by catchUp
	loaded int64         // offset in the session's journal index applied up to
	stamp  journal.Stamp // the log as the read that reached loaded saw it
}

// observation is what the session saw of one file at one version.
type Observation = history.Observation

func newSession(ws *Workspace, id string) *Session {
	return &Session{
		WS: ws,
		id: id,
		sessionState: &sessionState{
			State: history.NewState(),
			own:   map[int64]bool{},
		},
	}
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// Journal record types written by sessions.
const (
	RecObserve = history.TypeObserve // a file observation (the whole new state of it)
	recDir     = history.TypeDir     // a directory observation
	RecCreated = history.TypeCreated // a file created by the session
	RecTurn    = history.TypeTurn    // a pinned request and declared inputs
	RecReceipt = history.TypeReceipt // a mutation
	RecUndo    = history.TypeUndo    // a receipt reverted by undo

	recSnapshot = history.TypeSnapshot // the session's whole state, derived from the records before it

	RecClientIntent = history.TypeClientIntent // a change a client's own tool is about to make
	RecClientDone   = history.TypeClientDone   // its outcome
)

type TurnData = history.Turn

// load rebuilds the session from its journal records. It starts from the
// session's newest snapshot when one is known (see snapshot.go), so its cost
// follows the session's distinct files, not its history; later calls catch
// up from where it ended (catchUp).
func (s *Session) load() error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	return s.loadLocked()
}

func (s *Session) loadLocked() error {
	j := s.WS.Journal
	s.stamp = journal.Stamp{}
	if from := j.Cursor(SnapshotCursor(s.id)); from > 0 {
		end, snapEnd, err := s.replay(from)
		if err == nil {
			s.loaded = end
			s.compact(from, snapEnd, end)
			return nil
		}
		// The cursor is derived data: a stale or damaged one (or a line
		// that fails its chain check, reported again below) only costs
		// a replay from the start.
		s.reset()
	}
	end, _, err := s.replay(0)
	if err != nil {
		return s.journalErr(err)
	}
	s.loaded = end
	s.compact(0, 0, end)
	return nil
}

// replay applies the session's records from the index offset from: from
// 0, every record; past 0, the record at from must be a snapshot of this
// session, and the state starts from it. It returns the index's end and
// where the snapshot's line ends (0 when from is 0).
func (s *Session) replay(from int64) (end, snapEnd int64, err error) {
	first := true
	end, s.stamp, err = s.WS.Journal.SessionStamped(s.id, from, func(r journal.Record, off int64) error {
		if first && from > 0 {
			first = false
			if r.Type != recSnapshot || off != from {
				return errNoSnapshot
			}
			var st snapshotData
			if err := json.Unmarshal(r.Data, &st); err != nil {
				return fmt.Errorf("stet: journal line %d: %w", r.Seq, err)
			}
			s.restore(st)
			return nil
		}
		if snapEnd == 0 && from > 0 {
			snapEnd = off
		}
		return s.apply(r)
	})
	if err == nil && from > 0 && first {
		err = errNoSnapshot // nothing at from
	}
	if err != nil {
		s.stamp = journal.Stamp{}
	}
	if snapEnd == 0 && from > 0 {
		snapEnd = end
	}
	return end, snapEnd, err
}

// journalErr words a journal failure of a session: a broken chain is a
// conflict refusal naming stet verify --all.
func (s *Session) journalErr(err error) error {
	if errors.Is(err, journal.ErrCorrupt) {
		return &Refusal{Kind: KindConflict, Err: err,
			Message: fmt.Sprintf("refused: the journal's records of session %s do not check out against its hash chain, so nothing was done; run stet verify --all and tell the user what it reports", s.id)}
	}
	return fmt.Errorf("stet: session %s: %w", s.id, err)
}

// catchUp applies what other processes (or other Workspaces on the same
// state directory) appended to this session since it last looked (SPEC
// section 8: every process serving a session catches up before each call),
// so that a turn pinned from the CLI binds a running server at once. It
// reads only the session's journal index past the offset already applied.
// When the log is the file, of the size, that the last read saw
// (journal.Unchanged), no record can have been appended since, and it
// returns after that one stat: a server's run of reads pays no lock and no
// look at the index. Records this process appended itself are already
// applied and are skipped (applying one again would do no harm).
//
// Every exported tool method calls it first. A journal error fails the
// call: a session that cannot know its pinned turn must not guess it.
func (s *Session) CatchUp() error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	if s.WS.Journal.Unchanged(s.stamp) {
		return nil
	}
	from := s.loaded
	end, stamp, err := s.WS.Journal.SessionStamped(s.id, from, s.applyNew)
	if from > 0 && (err != nil || end < from) {
		// The index was rewritten under us (stet gc): rebuild the session
		// from what the journal holds now.
		s.reset()
		s.Mu.Lock()
		s.own = map[int64]bool{}
		s.Mu.Unlock()
		return s.loadLocked()
	}
	if err != nil {
		return s.journalErr(err)
	}
	s.loaded, s.stamp = end, stamp
	return nil
}

// applyNew applies one record read by catchUp, unless this process
// appended (and applied) it.
func (s *Session) applyNew(r journal.Record, _ int64) error {
	s.Mu.Lock()
	mine := s.own[r.Seq]
	delete(s.own, r.Seq)
	s.Mu.Unlock()
	if mine {
		return nil
	}
	return s.apply(r)
}

// apply updates the session with one of its journal records, through the
// record table's transition (history.Apply).
func (s *Session) apply(r journal.Record) error {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	if err := history.Apply(&s.State, r); err != nil {
		return fmt.Errorf("stet: %w", err)
	}
	return nil
}

// Log appends a record of this session (durably, or lazily as AppendLazy),
// then applies its payload to the session's state through the record
// table, as a replay of the record would.
func (s *Session) Log(durable bool, typ, key string, payload any) error {
	if err := s.Append(durable, s.Rec(typ, key, payload)); err != nil {
		return err
	}
	s.Mu.Lock()
	history.ApplyPayload(&s.State, typ, key, payload)
	s.Mu.Unlock()
	return nil
}

// append writes records of this session to the journal (durably, or
// lazily as AppendLazy), and remembers their seqs so that catchUp does not
// apply again what the caller applies itself.
func (s *Session) Append(durable bool, recs ...journal.Record) error {
	write := s.WS.Journal.AppendLazy
	if durable {
		write = s.WS.Journal.Append
	}
	out, err := write(recs...)
	if err != nil {
		return err
	}
	s.Mu.Lock()
	for _, r := range out {
		if r.Session == s.id {
			s.own[r.Seq] = true
		}
	}
	s.Mu.Unlock()
	return nil
}

// rec builds a journal record of this session.
func (s *Session) Rec(typ, key string, data any) journal.Record {
	r := journal.Record{Type: typ, Session: s.id, Path: key}
	if b, err := history.Encode(data); err == nil {
		r.Data = b
	}
	return r
}

// observeFile records that the session saw [start,end) of the file at
// version (whole: the whole file in one read). Seen ranges of an older
// version are dropped.
func (s *Session) ObserveFile(t Target, version string, size, lines int, seen policy.Range, whole bool) error {
	key := t.Key()
	parent := t.Parent().Key()
	s.Mu.Lock()
	o := s.Files[key]
	if o == nil || o.Version != version {
		o = &Observation{Version: version}
	}
	next := &Observation{Version: version, Seen: o.Seen.Add(seen), Whole: o.Whole || whole, Size: size, Lines: lines}
	var recs []journal.Record
	if !next.Same(o) {
		history.ApplyPayload(&s.State, RecObserve, key, next)
		recs = append(recs, s.Rec(RecObserve, key, next))
	}
	newDir := !s.Dirs[parent]
	history.ApplyPayload(&s.State, recDir, parent, nil)
	s.Mu.Unlock()
	if newDir {
		recs = append(recs, s.Rec(recDir, parent, nil))
	}
	if len(recs) == 0 {
		return nil // nothing new was seen: the journal already holds it
	}
	return s.Append(false, recs...)
}

// observeDirs records that the session saw the directories.
func (s *Session) ObserveDirs(ts ...Target) error {
	var recs []journal.Record
	s.Mu.Lock()
	for _, t := range ts {
		k := t.Key()
		if !s.Dirs[k] {
			history.ApplyPayload(&s.State, recDir, k, nil)
			recs = append(recs, s.Rec(recDir, k, nil))
		}
	}
	s.Mu.Unlock()
	if len(recs) == 0 {
		return nil
	}
	return s.Append(false, recs...)
}

func (s *Session) Observed(key string) (Observation, bool) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	o, ok := s.Files[key]
	if !ok {
		return Observation{}, false
	}
	return *o, true
}

func (s *Session) DirObserved(key string) bool {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return s.Dirs[key]
}

// removedFile returns what a user's file the session deleted or moved away
// held (a file it did not create), while no file stands at key again.
func (s *Session) removedFile(key string) (receipt.State, bool) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	st, ok := s.Removed[key]
	return st, ok
}

func (s *Session) WasCreated(key string) bool {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return s.Created[key]
}

// Turn pins the request of the current turn and the declared inputs, for
// the input guard (SPEC section 4, rule 8), replacing those of the turn
// before. When the request is a worker brief (see package brief), the paths
// of its INPUTS section are declared too, after those passed. Inputs are
// normalized (trimmed, globs ignored, at most 32) and deduplicated as the
// tools resolve them: two spellings of one file count once, the first
// spelling kept. A declared input is edit-only for this session until the
// next turn or EndTurn.
func (s *Session) Turn(request string, inputs ...string) error {
	if err := s.CatchUp(); err != nil {
		return err
	}
	in, err := s.Declared(request, inputs...)
	if err != nil {
		return err
	}
	return s.Log(true, RecTurn, "", TurnData{Request: request, Inputs: in})
}

// Declared returns the inputs Turn(request, inputs...) would declare: those
// passed, then the INPUTS of a worker brief, normalized and deduplicated by
// resolved file. A bad entry is an invalid *Refusal naming it by index.
func (s *Session) Declared(request string, inputs ...string) ([]string, error) {
	all := append(append([]string(nil), inputs...), brief.Parse(request).Inputs...)
	in, err := policy.NormalizeInputs(all)
	if err != nil {
		return nil, &Refusal{Kind: KindInvalid, Message: "refused: " + err.Error(), Err: err}
	}
	return s.distinctInputs(in), nil
}

// EndTurn ends the current turn: the pinned request and the declared
// inputs are cleared (the CLI's stet turn --end).
func (s *Session) EndTurn() error {
	if err := s.CatchUp(); err != nil {
		return err
	}
	return s.Log(true, RecTurn, "", TurnData{})
}

// distinctInputs drops inputs that resolve to a file named earlier in the
// list. A path that does not resolve is kept as spelled.
func (s *Session) distinctInputs(in []string) []string {
	seen := map[string]bool{}
	out := in[:0:0]
	for _, p := range in {
		if t, ref := s.WS.Resolve("turn", p); ref == nil {
			if k := t.Key(); seen[k] {
				continue
			} else {
				seen[k] = true
			}
		}
		out = append(out, p)
	}
	return out
}

// Request returns the pinned request and declared inputs, after catching
// up with what other processes appended to the session (when the journal
// cannot be read, as last known).
func (s *Session) Request() (string, []string) {
	_ = s.CatchUp() // a tool call reports the error
	return s.pinned()
}

// pinned returns the pinned request and declared inputs as last applied.
func (s *Session) pinned() (string, []string) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return s.Pinned, append([]string(nil), s.Inputs...)
}
