package stet

import (
	"encoding/json"
	"fmt"
	"slices"
	"sync"

	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
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
	request string
	inputs  []string
}

// observation is what the session saw of one file at one version.
type observation struct {
	Version string        `json:"version"`
	Seen    policy.Ranges `json:"seen,omitempty"`
	Whole   bool          `json:"whole,omitempty"` // a whole-file read at this version
	Size    int           `json:"size"`
	Lines   int           `json:"lines"`
}

// same reports whether o and p say the same thing: an observation that
// equals the session's current one is not journaled again.
func (o *observation) same(p *observation) bool {
	return o != nil && p != nil && o.Version == p.Version && o.Whole == p.Whole &&
		o.Size == p.Size && o.Lines == p.Lines && slices.Equal(o.Seen, p.Seen)
}

func newSession(ws *Workspace, id string) *Session {
	return &Session{
		ws: ws,
		id: id,
		sessionState: &sessionState{
			files:   map[string]*observation{},
			dirs:    map[string]bool{},
			created: map[string]bool{},
		},
	}
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// Journal record types written by sessions.
const (
	recObserve  = "observe"  // a file observation (the whole new state of it)
	recDir      = "dir"      // a directory observation
	recCreated  = "created"  // a file created by the session
	recTurn     = "turn"     // a pinned request and declared inputs
	recReceipt  = "receipt"  // a mutation
	recUndo     = "undo"     // a receipt reverted by undo
	recSnapshot = "snapshot" // the session's whole state, derived from the records before it
)

type turnData struct {
	Request string   `json:"request"`
	Inputs  []string `json:"inputs,omitempty"`
}

// load rebuilds the session from its journal records. It starts from the
// session's newest snapshot when one is known (see snapshot.go), so its cost
// follows the session's distinct files, not its history.
func (s *Session) load() error {
	j := s.ws.journal
	if from := j.Cursor(snapshotCursor(s.id)); from > 0 {
		end, snapEnd, err := s.replay(from)
		if err == nil {
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
		return err
	}
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

// apply folds one journal record of the session into its state. Snapshot
// records are skipped: a replay from the start rebuilds the state from the
// records themselves.
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
	case recTurn:
		var t turnData
		if err := json.Unmarshal(r.Data, &t); err != nil {
			return fmt.Errorf("stet: journal line %d: %w", r.Seq, err)
		}
		s.request, s.inputs = t.Request, t.Inputs
	}
	return nil
}

// rec builds a journal record of this session.
func (s *Session) rec(typ, key string, data any) journal.Record {
	r := journal.Record{Type: typ, Session: s.id, Path: key}
	if data != nil {
		b, err := json.Marshal(data)
		if err == nil {
			r.Data = b
		}
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
	newDir := !s.dirs[parent]
	s.dirs[parent] = true
	var recs []journal.Record
	if !next.same(o) {
		s.files[key] = next
		recs = append(recs, s.rec(recObserve, key, next))
	}
	s.mu.Unlock()
	if newDir {
		recs = append(recs, s.rec(recDir, parent, nil))
	}
	if len(recs) == 0 {
		return nil // nothing new was seen: the journal already holds it
	}
	_, err := s.ws.journal.AppendLazy(recs...)
	return err
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
	_, err := s.ws.journal.AppendLazy(recs...)
	return err
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

func (s *Session) wasCreated(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.created[key]
}

// Turn pins the request of the current turn and the declared inputs, for the
// input guard (SPEC section 4, rule 8). Inputs are normalized: trimmed,
// deduplicated, globs ignored, at most 32.
func (s *Session) Turn(request string, inputs ...string) error {
	in, err := policy.NormalizeInputs(inputs)
	if err != nil {
		return &Refusal{Kind: KindInvalid, Message: "refused: " + err.Error(), Err: err}
	}
	s.mu.Lock()
	s.request, s.inputs = request, in
	s.mu.Unlock()
	_, err = s.ws.journal.Append(s.rec(recTurn, "", turnData{Request: request, Inputs: in}))
	return err
}

// Request returns the pinned request and declared inputs.
func (s *Session) Request() (string, []string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.request, append([]string(nil), s.inputs...)
}
