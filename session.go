package stet

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
	ws *Workspace
	id string
	*sessionState
	scope *scope // the directories a view is narrowed to; nil: the whole workspace
}

// sessionState is what a session knows. Views made by Within share it.
type sessionState struct {
	mu      sync.Mutex
	files   map[string]*observation // by target.key()
	dirs    map[string]bool         // observed directories, by target.key()
	created map[string]bool         // files this session created, by target.key()
	// removed: the user's files (not created by the session) it deleted or
	// moved away, with what they held, by target.key(); a create there is
	// a replace of the user's file for the input guard.
	removed map[string]receipt.State
	request string
	inputs  []string
	own     map[int64]bool // seqs of records this process appended and applied, not yet met by catchUp
	// clients: the changes a client's own tools are about to make (hooks,
	// client.go), by the client's id of the call, until their outcome.
	clients map[string]history.ClientIntent

	syncMu sync.Mutex // held by catchUp
	loaded int64      // offset in the session's journal index applied up to
}

// observation is what the session saw of one file at one version.
type observation = history.Observation

func newSession(ws *Workspace, id string) *Session {
	return &Session{
		ws: ws,
		id: id,
		sessionState: &sessionState{
			files:   map[string]*observation{},
			dirs:    map[string]bool{},
			created: map[string]bool{},
			removed: map[string]receipt.State{},
			own:     map[int64]bool{},
			clients: map[string]history.ClientIntent{},
		},
	}
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// Journal record types written by sessions.
const (
	recObserve = history.TypeObserve // a file observation (the whole new state of it)
	recDir     = history.TypeDir     // a directory observation
	recCreated = history.TypeCreated // a file created by the session
	recTurn    = history.TypeTurn    // a pinned request and declared inputs
	recReceipt = history.TypeReceipt // a mutation
	recUndo    = history.TypeUndo    // a receipt reverted by undo

	recSnapshot = history.TypeSnapshot // the session's whole state, derived from the records before it

	recClientIntent = history.TypeClientIntent // a change a client's own tool is about to make
	recClientDone   = history.TypeClientDone   // its outcome
)

type turnData = history.Turn

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
	j := s.ws.journal
	if from := j.Cursor(snapshotCursor(s.id)); from > 0 {
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
	end, err = s.ws.journal.SessionFrom(s.id, from, func(r journal.Record, off int64) error {
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
// reads only the session's journal index past the offset already applied:
// when nothing changed, that is a stat and a look at the log's tail under
// a shared lock. Records this process appended itself are already applied
// and are skipped (applying one again would do no harm).
//
// Every exported tool method calls it first. A journal error fails the
// call: a session that cannot know its pinned turn must not guess it.
func (s *Session) catchUp() error {
	s.syncMu.Lock()
	defer s.syncMu.Unlock()
	from := s.loaded
	end, err := s.ws.journal.SessionFrom(s.id, from, s.applyNew)
	if from > 0 && (err != nil || end < from) {
		// The index was rewritten under us (stet gc): rebuild the session
		// from what the journal holds now.
		s.reset()
		s.mu.Lock()
		s.own = map[int64]bool{}
		s.mu.Unlock()
		return s.loadLocked()
	}
	if err != nil {
		return s.journalErr(err)
	}
	s.loaded = end
	return nil
}

// applyNew applies one record read by catchUp, unless this process
// appended (and applied) it.
func (s *Session) applyNew(r journal.Record, _ int64) error {
	s.mu.Lock()
	mine := s.own[r.Seq]
	delete(s.own, r.Seq)
	s.mu.Unlock()
	if mine {
		return nil
	}
	return s.apply(r)
}

// apply updates the session with one of its journal records.
func (s *Session) apply(r journal.Record) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch r.Type {
	case recObserve:
		var o observation
		if err := json.Unmarshal(r.Data, &o); err != nil {
			return fmt.Errorf("stet: journal line %d: %w", r.Seq, err)
		}
		s.files[r.Path] = &o
	case recDir:
		s.dirs[r.Path] = true
	case recCreated:
		s.created[r.Path] = true
		delete(s.removed, r.Path)
	case recTurn:
		var t turnData
		if err := json.Unmarshal(r.Data, &t); err != nil {
			return fmt.Errorf("stet: journal line %d: %w", r.Seq, err)
		}
		s.request, s.inputs = t.Request, t.Inputs
	case recClientIntent:
		var it history.ClientIntent
		if err := json.Unmarshal(r.Data, &it); err != nil {
			return fmt.Errorf("stet: journal line %d: %w", r.Seq, err)
		}
		s.clients[it.ID] = it
	case recClientDone:
		var d history.ClientDone
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return fmt.Errorf("stet: journal line %d: %w", r.Seq, err)
		}
		delete(s.clients, d.ID)
	case recReceipt:
		// What the process that made the change did to its session (see
		// record): a deleted file is no longer observed, a moved one is
		// observed (and created) under its new name only.
		var d struct {
			Receipt struct {
				Before   *receipt.State  `json:"before"`
				After    json.RawMessage `json:"after"`
				Verified bool            `json:"verified"`
				DryRun   bool            `json:"dry_run"`
			} `json:"receipt"`
			FromKey string `json:"from_key"`
		}
		if err := json.Unmarshal(r.Data, &d); err != nil {
			return fmt.Errorf("stet: journal line %d: %w", r.Seq, err)
		}
		if !d.Receipt.Verified || d.Receipt.DryRun {
			break
		}
		if len(d.Receipt.After) == 0 || string(d.Receipt.After) == "null" {
			delete(s.files, r.Path)
			if d.Receipt.Before != nil && !s.created[r.Path] {
				s.removed[r.Path] = *d.Receipt.Before
			}
		}
		if d.FromKey != "" && d.FromKey != r.Path {
			delete(s.files, d.FromKey)
			if d.Receipt.Before != nil && !s.created[d.FromKey] {
				s.removed[d.FromKey] = *d.Receipt.Before
			}
			delete(s.created, d.FromKey)
		}
	}
	return nil
}

// append writes records of this session to the journal (durably, or
// lazily as AppendLazy), and remembers their seqs so that catchUp does not
// apply again what the caller applies itself.
func (s *Session) append(durable bool, recs ...journal.Record) error {
	write := s.ws.journal.AppendLazy
	if durable {
		write = s.ws.journal.Append
	}
	out, err := write(recs...)
	if err != nil {
		return err
	}
	s.mu.Lock()
	for _, r := range out {
		if r.Session == s.id {
			s.own[r.Seq] = true
		}
	}
	s.mu.Unlock()
	return nil
}

// rec builds a journal record of this session.
func (s *Session) rec(typ, key string, data any) journal.Record {
	r := journal.Record{Type: typ, Session: s.id, Path: key}
	if b, err := history.Encode(data); err == nil {
		r.Data = b
	}
	return r
}

// observeFile records that the session saw [start,end) of the file at
// version (whole: the whole file in one read). Seen ranges of an older
// version are dropped.
func (s *Session) observeFile(t target, version string, size, lines int, seen policy.Range, whole bool) error {
	key := t.key()
	parent := t.parent().key()
	s.mu.Lock()
	o := s.files[key]
	if o == nil || o.Version != version {
		o = &observation{Version: version}
	}
	next := &observation{Version: version, Seen: o.Seen.Add(seen), Whole: o.Whole || whole, Size: size, Lines: lines}
	var recs []journal.Record
	if !next.Same(o) {
		s.files[key] = next
		recs = append(recs, s.rec(recObserve, key, next))
	}
	newDir := !s.dirs[parent]
	s.dirs[parent] = true
	s.mu.Unlock()
	if newDir {
		recs = append(recs, s.rec(recDir, parent, nil))
	}
	if len(recs) == 0 {
		return nil // nothing new was seen: the journal already holds it
	}
	return s.append(false, recs...)
}

// observeDirs records that the session saw the directories.
func (s *Session) observeDirs(ts ...target) error {
	var recs []journal.Record
	s.mu.Lock()
	for _, t := range ts {
		k := t.key()
		if !s.dirs[k] {
			s.dirs[k] = true
			recs = append(recs, s.rec(recDir, k, nil))
		}
	}
	s.mu.Unlock()
	if len(recs) == 0 {
		return nil
	}
	return s.append(false, recs...)
}

func (s *Session) observed(key string) (observation, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	o, ok := s.files[key]
	if !ok {
		return observation{}, false
	}
	return *o, true
}

func (s *Session) dirObserved(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.dirs[key]
}

// removedFile returns what a user's file the session deleted or moved away
// held (a file it did not create), while no file stands at key again.
func (s *Session) removedFile(key string) (receipt.State, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	st, ok := s.removed[key]
	return st, ok
}

func (s *Session) wasCreated(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.created[key]
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
	if err := s.catchUp(); err != nil {
		return err
	}
	in, err := s.Declared(request, inputs...)
	if err != nil {
		return err
	}
	if err := s.append(true, s.rec(recTurn, "", turnData{Request: request, Inputs: in})); err != nil {
		return err
	}
	s.mu.Lock()
	s.request, s.inputs = request, in
	s.mu.Unlock()
	return nil
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
	if err := s.catchUp(); err != nil {
		return err
	}
	if err := s.append(true, s.rec(recTurn, "", turnData{})); err != nil {
		return err
	}
	s.mu.Lock()
	s.request, s.inputs = "", nil
	s.mu.Unlock()
	return nil
}

// distinctInputs drops inputs that resolve to a file named earlier in the
// list. A path that does not resolve is kept as spelled.
func (s *Session) distinctInputs(in []string) []string {
	seen := map[string]bool{}
	out := in[:0:0]
	for _, p := range in {
		if t, ref := s.ws.resolve("turn", p); ref == nil {
			if k := t.key(); seen[k] {
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
	_ = s.catchUp() // a tool call reports the error
	return s.pinned()
}

// pinned returns the pinned request and declared inputs as last applied.
func (s *Session) pinned() (string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.request, append([]string(nil), s.inputs...)
}
