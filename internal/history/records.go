package history

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"

	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

// Record types: the Type of each journal record stet writes. The journal
// package's own checkpoint record (journal.RecCheckpoint) is the only other.
const (
	TypeObserve  = "observe"  // a file observation (the whole new state of it): Observation
	TypeDir      = "dir"      // a directory observation: no payload
	TypeCreated  = "created"  // a file created by the session: no payload
	TypeTurn     = "turn"     // a pinned request and declared inputs: Turn
	TypeReceipt  = "receipt"  // a mutation: Receipt
	TypeUndo     = "undo"     // a receipt reverted by undo: Undo
	TypeSnapshot = "snapshot" // the session's whole state, derived from the records before it: Snapshot
	TypeRefusal  = "refusal"  // a refused tool call: Refusal
	TypeIntent   = "intent"   // a commit about to move bytes: Intent
	TypeDone     = "done"     // the outcome of an intent: Done

	// A client's own tool (a hook, SPEC section 10): the change it is
	// about to make, checked and saved, in the client's session; and its
	// outcome. They are not intents of the commit sequence: the client,
	// not stet, moves the bytes, so recovery never resolves them.
	TypeClientIntent = "client_intent" // ClientIntent
	TypeClientDone   = "client_done"   // ClientDone
)

// Receipt is the payload of a receipt record: the receipt and what undo
// needs to take the change back.
type Receipt struct {
	Receipt  receipt.Receipt `json:"receipt"`
	Pre      string          `json:"pre,omitempty"`       // blob holding the whole preimage
	Old      []string        `json:"old,omitempty"`       // each match's old bytes, when Pre is not kept
	Over     string          `json:"over,omitempty"`      // blob holding the file a move replaced
	OverMode string          `json:"over_mode,omitempty"` // its mode (receipt.FormatMode)
	FromKey  string          `json:"from_key,omitempty"`
	Undoes   string          `json:"undoes,omitempty"`
}

// Undo is the payload of an undo record: receipt Receipt was taken back by
// receipt By. The field order is the encoding's (by first).
type Undo struct {
	By      string `json:"by"`
	Receipt string `json:"receipt"`
}

// Observation is what a session saw of one file at one version: the
// payload of an observe record, and a file of a snapshot.
type Observation struct {
	Version string        `json:"version"`
	Seen    policy.Ranges `json:"seen,omitempty"`
	Whole   bool          `json:"whole,omitempty"` // a whole-file read at this version
	Size    int           `json:"size"`
	Lines   int           `json:"lines"`
}

// Same reports whether o and p say the same thing: an observation that
// equals the session's current one is not journaled again.
func (o *Observation) Same(p *Observation) bool {
	return o != nil && p != nil && o.Version == p.Version && o.Whole == p.Whole &&
		o.Size == p.Size && o.Lines == p.Lines && slices.Equal(o.Seen, p.Seen)
}

// appendJSON appends o's JSON as json.Marshal writes it, without
// reflection (a grep journals an observation per matching file), and
// reports true; false, with dst as it was, when the version holds a byte
// that json.Marshal escapes (never one of fsys.Version's), which Encode then
// leaves to it. TestObservationJSONIsMarshal holds the two equal.
func (o *Observation) appendJSON(dst []byte) ([]byte, bool) {
	for i := 0; i < len(o.Version); i++ {
		if c := o.Version[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			return dst, false
		}
	}
	if dst == nil {
		dst = make([]byte, 0, 64+len(o.Version)+16*len(o.Seen))
	}
	b := append(dst, `{"version":"`...)
	b = append(b, o.Version...)
	b = append(b, '"')
	if len(o.Seen) > 0 {
		b = append(b, `,"seen":[`...)
		for i, r := range o.Seen {
			if i > 0 {
				b = append(b, ',')
			}
			b = strconv.AppendInt(b, int64(r.Start), 10)
			b = append(b, ',')
			b = strconv.AppendInt(b, int64(r.End), 10)
		}
		b = append(b, ']')
	}
	if o.Whole {
		b = append(b, `,"whole":true`...)
	}
	b = append(b, `,"size":`...)
	b = strconv.AppendInt(b, int64(o.Size), 10)
	b = append(b, `,"lines":`...)
	b = strconv.AppendInt(b, int64(o.Lines), 10)
	return append(b, '}'), true
}

// Turn is the payload of a turn record: the pinned request and declared
// inputs (both empty: the turn ended).
type Turn struct {
	Request string   `json:"request"`
	Inputs  []string `json:"inputs,omitempty"`
}

// Refusal is the payload of a refusal record.
type Refusal struct {
	Kind    string `json:"kind"`
	Tool    string `json:"tool"`
	Path    string `json:"path,omitempty"`
	Message string `json:"message"`
}

// Snapshot is the payload of a snapshot record: a session's whole state.
type Snapshot struct {
	Files   map[string]*Observation  `json:"files,omitempty"`
	Dirs    []string                 `json:"dirs,omitempty"`
	Created []string                 `json:"created,omitempty"`
	Removed map[string]receipt.State `json:"removed,omitempty"`
	Request string                   `json:"request,omitempty"`
	Inputs  []string                 `json:"inputs,omitempty"`
	// Clients are the client intents not yet closed, by the client's id
	// of the tool call.
	Clients map[string]ClientIntent `json:"clients,omitempty"`
}

// IntentFile is one file of an intent: the receipt it plans and the data
// undo needs.
type IntentFile struct {
	Key  string  `json:"key"`
	Data Receipt `json:"data"`
	Dir  bool    `json:"dir,omitempty"` // a directory move
	// Temp is the root-relative path of the temp file the change writes
	// through, removed by name when the intent is resolved.
	Temp string `json:"temp,omitempty"`
}

// Intent is the payload of an intent record.
type Intent struct {
	ID      string       `json:"id"`
	Session string       `json:"session"`
	PID     int          `json:"pid"`
	Start   string       `json:"start,omitempty"` // the process's start time, to tell a reused pid
	Live    string       `json:"live,omitempty"`  // the writer's liveness lock (journal.Live)
	Files   []IntentFile `json:"files"`
}

// ClientIntent is the payload of a client_intent record: a change a
// client's own tool is about to make, as stet planned it from the tool's
// input, with the saved bytes undo needs (each file's Data.Pre).
type ClientIntent struct {
	ID    string       `json:"id"`   // the client's id of the tool call
	Tool  string       `json:"tool"` // the client's name of the tool
	Files []IntentFile `json:"files"`
	// Unknown: stet does not work out the tool's result (a notebook
	// edit); its receipts record what the files hold afterwards,
	// unverified.
	Unknown bool `json:"unknown,omitempty"`
}

// ClientDone is the payload of a client_done record: the outcome of a
// client intent (ClientLanded, ClientUnchanged, ClientFailed).
type ClientDone struct {
	ID    string `json:"id"`
	State string `json:"state"`
}

// Outcomes of a client intent (ClientDone.State).
const (
	ClientLanded    = "landed"    // the tool ran; receipts were written
	ClientUnchanged = "unchanged" // the files hold what they held: nothing to record
	ClientFailed    = "failed"    // the client's tool failed: nothing to record
)

// Done is the payload of a done record.
type Done struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
}

// Encode returns the compact JSON of a payload, as a record's Data holds
// it. A nil payload (dir, created) encodes as no data.
func Encode(payload any) (json.RawMessage, error) {
	if payload == nil {
		return nil, nil
	}
	if o, ok := payload.(*Observation); ok && o != nil {
		if b, ok := o.appendJSON(nil); ok {
			return b, nil
		}
	}
	b, err := json.Marshal(payload)
	if err != nil {
		return nil, fmt.Errorf("history: encode %T: %w", payload, err)
	}
	return b, nil
}

// Decode decodes the Data of record r as a T, the payload type of r.Type.
// The error names the journal line.
func Decode[T any](r journal.Record) (T, error) {
	var v T
	if err := json.Unmarshal(r.Data, &v); err != nil {
		return v, fmt.Errorf("journal line %d (%s): %w", r.Seq, r.Type, err)
	}
	return v, nil
}
