package history

import (
	"encoding/json"
	"fmt"

	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
)

// Retention is how gc (journal compaction) treats a record older than the
// retention window. Every type says it: a type with none fails
// TestEveryTypeHasARow, so a new type is never compacted away by default.
type Retention int

// The retention answers.
const (
	// DropAged: dropped once older than the window (observations,
	// receipts, undos, refusals, snapshots, a client's calls). The zero
	// Retention is no answer: TestEveryTypeHasARow fails on it.
	DropAged Retention = iota + 1
	// KeepPinnedTurn: a turn record stays while it is its session's newest
	// and pins a request or inputs (the input guard stands on it).
	KeepPinnedTurn
	// KeepLiveSession: stays while its session's turn pins something or
	// the session wrote within the window (a created file keeps the input
	// guard's answer for it).
	KeepLiveSession
	// KeepOpenIntent: an intent stays while it is open (Intents.Keep), or
	// when it does not decode.
	KeepOpenIntent
	// KeepDoneOfKept: a done record stays while its intent is kept, or
	// while its intent is within the window.
	KeepDoneOfKept
)

// Shown says where the review and the audit (log, show, verify) show a
// record of a type.
type Shown int

// Where a record is shown.
const (
	// ShownNowhere: state only, never listed (observations, directories,
	// creations, snapshots, a client's calls). The zero Shown is no
	// answer.
	ShownNowhere Shown = iota + 1
	// ShownChange: a change, listed by the review and the log, shown and
	// verified.
	ShownChange
	// ShownUndo: links a change to the change that took it back.
	ShownUndo
	// ShownTurn: starts a turn of its session in the review.
	ShownTurn
	// ShownRefusal: a refused call, counted and listed by the review.
	ShownRefusal
	// ShownIntent: the write-ahead of a change and its outcome, checked
	// by verify (an intent left open or unresolved is a problem).
	ShownIntent
)

// A Kind is one row of the record table: a record type, what it does to
// a session's state, how gc keeps it, and where it is shown.
type Kind struct {
	Type string
	// decode reads the payload the transition takes from a record's data;
	// nil when the record changes no state.
	decode func(json.RawMessage) (any, error)
	// apply is what the record does to its session's state: the one
	// transition, for a record as it is written and as it is replayed.
	apply  func(st *State, key string, payload any)
	Retain Retention
	Shown  Shown
}

// Changes reports whether a record of the kind changes a session's state.
func (k Kind) Changes() bool { return k.apply != nil }

// Table is every record type stet writes, one row each. It is never
// changed.
var Table = []Kind{
	{Type: TypeObserve, decode: decodeAs[Observation], apply: applyObserve, Retain: DropAged, Shown: ShownNowhere},
	{Type: TypeDir, apply: func(st *State, key string, _ any) { st.Dirs[key] = true }, Retain: DropAged, Shown: ShownNowhere},
	{Type: TypeCreated, apply: applyCreated, Retain: KeepLiveSession, Shown: ShownNowhere},
	{Type: TypeTurn, decode: decodeAs[Turn], apply: applyTurn, Retain: KeepPinnedTurn, Shown: ShownTurn},
	{Type: TypeReceipt, decode: decodeEffect, apply: applyReceipt, Retain: DropAged, Shown: ShownChange},
	{Type: TypeUndo, Retain: DropAged, Shown: ShownUndo},
	{Type: TypeSnapshot, Retain: DropAged, Shown: ShownNowhere},
	{Type: TypeRefusal, Retain: DropAged, Shown: ShownRefusal},
	{Type: TypeIntent, Retain: KeepOpenIntent, Shown: ShownIntent},
	{Type: TypeDone, Retain: KeepDoneOfKept, Shown: ShownIntent},
	{Type: TypeClientIntent, decode: decodeAs[ClientIntent], apply: applyClientIntent, Retain: DropAged, Shown: ShownNowhere},
	{Type: TypeClientDone, decode: decodeAs[ClientDone], apply: applyClientDone, Retain: DropAged, Shown: ShownNowhere},
}

// KindOf returns the row of record type typ; ok is false for a type stet
// does not write (the journal's own checkpoint, or a newer stet's).
func KindOf(typ string) (k Kind, ok bool) {
	for _, k := range Table {
		if k.Type == typ {
			return k, true
		}
	}
	return Kind{}, false
}

// RetentionOf is the retention of record type typ, or 0 for a type no row
// names.
func RetentionOf(typ string) Retention {
	k, _ := KindOf(typ)
	return k.Retain
}

// ShownOf says where the review and the audit show record type typ, or 0
// for a type no row names (shown nowhere).
func ShownOf(typ string) Shown {
	k, _ := KindOf(typ)
	return k.Shown
}

// Apply applies a journal record to st, as replay does: its payload
// decoded, then its row's transition. A record of no row, or one that
// changes no state, leaves st as it was.
func Apply(st *State, r journal.Record) error {
	k, ok := KindOf(r.Type)
	if !ok || k.apply == nil {
		return nil
	}
	var p any
	if k.decode != nil {
		var err error
		if p, err = k.decode(r.Data); err != nil {
			return fmt.Errorf("journal line %d: %w", r.Seq, err)
		}
	}
	k.apply(st, r.Path, p)
	return nil
}

// ApplyPayload applies a record of type typ about key, with its payload as
// it was written (a *Receipt for a receipt, a *Observation, a Turn, ...),
// to st: the same transition Apply makes of the record read back.
func ApplyPayload(st *State, typ, key string, payload any) {
	if k, ok := KindOf(typ); ok && k.apply != nil {
		k.apply(st, key, payload)
	}
}

// decodeAs decodes a payload of type T.
func decodeAs[T any](data json.RawMessage) (any, error) {
	var v T
	if err := json.Unmarshal(data, &v); err != nil {
		return nil, err
	}
	return &v, nil
}

// effect is what a receipt does to its session, read without the rest of
// its payload (the old bytes of a large edit are never decoded by replay).
type effect struct {
	Receipt struct {
		Before   *receipt.State  `json:"before"`
		After    json.RawMessage `json:"after"`
		Verified bool            `json:"verified"`
		DryRun   bool            `json:"dry_run"`
	} `json:"receipt"`
	FromKey string `json:"from_key"`
}

func decodeEffect(data json.RawMessage) (any, error) {
	var e effect
	if err := json.Unmarshal(data, &e); err != nil {
		return nil, err
	}
	return &e, nil
}

func applyObserve(st *State, key string, p any) {
	switch o := p.(type) {
	case *Observation:
		st.Files[key] = o
	case Observation:
		st.Files[key] = &o
	}
}

func applyCreated(st *State, key string, _ any) {
	st.Created[key] = true
	delete(st.Removed, key)
}

func applyTurn(st *State, _ string, p any) {
	switch t := p.(type) {
	case *Turn:
		st.Pinned, st.Inputs = t.Request, t.Inputs
	case Turn:
		st.Pinned, st.Inputs = t.Request, t.Inputs
	}
}

func applyClientIntent(st *State, _ string, p any) {
	switch it := p.(type) {
	case *ClientIntent:
		st.Clients[it.ID] = *it
	case ClientIntent:
		st.Clients[it.ID] = it
	}
}

func applyClientDone(st *State, _ string, p any) {
	switch d := p.(type) {
	case *ClientDone:
		delete(st.Clients, d.ID)
	case ClientDone:
		delete(st.Clients, d.ID)
	}
}

// applyReceipt: a deleted file is no longer observed; a file moved away is
// observed (and created) under its new name only; a user's file removed
// is remembered with what it held. A receipt not verified, or of a dry
// run, changes nothing.
func applyReceipt(st *State, key string, p any) {
	var before *receipt.State
	var gone, verified, dry bool
	var fromKey string
	switch d := p.(type) {
	case *Receipt:
		before, gone, verified, dry, fromKey = d.Receipt.Before, d.Receipt.After == nil, d.Receipt.Verified, d.Receipt.DryRun, d.FromKey
	case *effect:
		before, gone, verified, dry, fromKey = d.Receipt.Before, len(d.Receipt.After) == 0 || string(d.Receipt.After) == "null", d.Receipt.Verified, d.Receipt.DryRun, d.FromKey
	default:
		return
	}
	if !verified || dry {
		return
	}
	if gone {
		delete(st.Files, key)
		if before != nil && !st.Created[key] {
			st.Removed[key] = *before
		}
	}
	if fromKey != "" && fromKey != key {
		delete(st.Files, fromKey)
		if before != nil && !st.Created[fromKey] {
			st.Removed[fromKey] = *before
		}
		delete(st.Created, fromKey)
	}
}
