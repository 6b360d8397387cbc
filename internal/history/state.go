package history

import (
	"maps"
	"slices"

	"github.com/stet-dev/stet/receipt"
)

// State is what a session knows, as its records make it: the files it
// observed, the directories it listed, the files it created, the user's
// files it removed, its pinned request and declared inputs, and the open
// calls of a client's own tools. A record changes it only through its row
// of the record table (Apply, ApplyPayload), both when the session writes
// the record and when a later process replays it.
type State struct {
	Files   map[string]*Observation // by key
	Dirs    map[string]bool         // observed directories, by key
	Created map[string]bool         // files the session created, by key
	// Removed holds the user's files (not created by the session) it
	// deleted or moved away, with what they held, by key: a create there
	// is a replace of the user's file for the input guard.
	Removed map[string]receipt.State
	Pinned  string   // the request of the current turn
	Inputs  []string // the declared inputs of the current turn
	// Clients are the changes a client's own tools are about to make, by
	// the client's id of the call, until their outcome.
	Clients map[string]ClientIntent
}

// NewState returns an empty state.
func NewState() State {
	return State{
		Files:   map[string]*Observation{},
		Dirs:    map[string]bool{},
		Created: map[string]bool{},
		Removed: map[string]receipt.State{},
		Clients: map[string]ClientIntent{},
	}
}

// Snapshot returns the state as a snapshot record's payload.
func (st *State) Snapshot() Snapshot {
	return Snapshot{
		Files:   maps.Clone(st.Files),
		Dirs:    slices.Sorted(maps.Keys(st.Dirs)),
		Created: slices.Sorted(maps.Keys(st.Created)),
		Removed: maps.Clone(st.Removed),
		Request: st.Pinned,
		Inputs:  slices.Clone(st.Inputs),
		Clients: maps.Clone(st.Clients),
	}
}

// Restore sets the state to a snapshot's.
func (st *State) Restore(sn Snapshot) {
	*st = NewState()
	for k, o := range sn.Files {
		if o != nil {
			st.Files[k] = o
		}
	}
	for _, d := range sn.Dirs {
		st.Dirs[d] = true
	}
	for _, c := range sn.Created {
		st.Created[c] = true
	}
	maps.Copy(st.Removed, sn.Removed)
	st.Pinned, st.Inputs = sn.Request, sn.Inputs
	maps.Copy(st.Clients, sn.Clients)
}
