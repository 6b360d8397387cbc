package engine

import (
	"encoding/json"
	"errors"

	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
)

// Session snapshots. A CLI call rebuilds its session from the journal; a
// long session's index holds many records about few files (each new window
// of a file is a new observation of it). When the records read past the
// newest snapshot outweigh it (and snapshotMinBytes), load appends a
// snapshot record of the whole state to the session, and a cursor names
// where it lies in the session's index; the next load starts there. So a
// rebuild reads at most about twice the size of the state, which follows
// the session's distinct files, never its history.
//
// A snapshot is a journal record like any other: it is chained into the
// log and SessionFrom checks its index line against the log before it is
// used, so a snapshot line that the log does not hold is never acted on.
// It is derived data: the cursor is not trusted (a cursor that does not
// point at a snapshot of this session is ignored and the session replayed
// from its start), and a replay from the start ignores snapshot records.
// A snapshot is appended only if no record of the session was appended
// since the ones it sums up (journal.AppendAtSessionEnd).

// snapshotMinBytes is how much of a session's index past its newest
// snapshot a rebuild reads before it writes a new one.
const snapshotMinBytes = 64 << 10

// errNoSnapshot: the snapshot cursor does not point at a snapshot.
var errNoSnapshot = errors.New("no snapshot at the session's snapshot cursor")

// snapshotData is the payload of a snapshot record.
type snapshotData = history.Snapshot

// snapshotCursor names the journal cursor that holds the index offset of
// the session's newest snapshot.
func SnapshotCursor(id string) string { return "snapshot\x00" + id }

// reset empties the session's state.
func (s *Session) reset() {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.sessionState.State = history.NewState()
}

// restore sets the session's state to a snapshot's.
func (s *Session) restore(st snapshotData) {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	s.sessionState.State.Restore(st)
}

// Snapshot returns the session's state as a snapshot.
func (s *Session) Snapshot() snapshotData {
	s.Mu.Lock()
	defer s.Mu.Unlock()
	return s.sessionState.State.Snapshot()
}

// compact appends a snapshot of the state the session was just rebuilt to,
// when the records read past the newest snapshot (from..snapEnd is that
// snapshot's line, snapEnd..end what followed it) outweigh it. It is best
// effort: failing, it leaves the session as it was.
func (s *Session) compact(from, snapEnd, end int64) {
	past := end - snapEnd
	if past < snapshotMinBytes || past < snapEnd-from {
		return
	}
	b, err := json.Marshal(s.Snapshot())
	if err != nil {
		return
	}
	j := s.WS.Journal
	ok, err := j.AppendAtSessionEnd(s.id, end, journal.Record{Type: recSnapshot, Session: s.id, Data: b})
	if err == nil && ok {
		j.SetCursor(SnapshotCursor(s.id), end) // derived data: a lost update only costs a longer rebuild
	}
}
