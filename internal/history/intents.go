package history

import (
	"time"

	"github.com/stet-dev/stet/journal"
)

// DoneUnresolved is the state of a done record whose intent recovery could
// not settle: the disk held neither its old state nor its new one. It was
// reported and nothing was touched; such an intent is kept by gc whatever
// its age (Intents.Keep).
const DoneUnresolved = "unresolved"

// Intents is the set of open intents: write-ahead intents with no done
// record yet (a change in flight, or one whose process died before closing
// it). The zero value is empty and ready to use. It is the one answer to
// "which intents are open" for every reader of the journal: the sweep's
// list of temp files to keep, the recovery of dead writers' intents at
// Open, and what gc must keep.
type Intents struct {
	order []string               // intent ids, in journal order
	byID  map[string]*OpenIntent // id -> its intent record
	done  map[string]Done        // id -> its (last) done record
}

// OpenIntent is an intent record as Intents keeps it.
type OpenIntent struct {
	Data Intent
	Seq  int64     // the record's journal line
	Time time.Time // the record's time
	At   int64     // where the caller read it (an index offset), as given to Add
}

// Add takes one record, read at position at (the caller's, such as its
// offset in the intents' index): an intent record or a done record; any
// other record is ignored. The error names the journal line of an intent
// whose payload does not decode (it is not added); a done record whose
// payload does not decode is ignored.
func (x *Intents) Add(r journal.Record, at int64) error {
	switch r.Type {
	case TypeIntent:
		d, err := Decode[Intent](r)
		if err != nil {
			return err
		}
		if x.byID == nil {
			x.byID = map[string]*OpenIntent{}
		}
		if x.byID[d.ID] == nil {
			x.order = append(x.order, d.ID)
		}
		x.byID[d.ID] = &OpenIntent{Data: d, Seq: r.Seq, Time: r.Time, At: at}
	case TypeDone:
		d, err := Decode[Done](r)
		if err != nil {
			return nil
		}
		if x.done == nil {
			x.done = map[string]Done{}
		}
		x.done[d.ID] = d
	}
	return nil
}

// Open reports whether intent id is open: its intent record was added and
// no done record closes it.
func (x *Intents) Open(id string) bool {
	_, closed := x.done[id]
	return x.byID[id] != nil && !closed
}

// Keep reports whether the records of intent id must outlive any retention:
// it is open, or its done record says it was left unresolved. An id with no
// intent record is kept too, when no done record closes it (gc cannot tell
// what it was).
func (x *Intents) Keep(id string) bool {
	d, closed := x.done[id]
	return !closed || d.State == DoneUnresolved
}

// Intent returns the intent record of id, or nil if none was added.
func (x *Intents) Intent(id string) *OpenIntent { return x.byID[id] }

// Closed returns the done record that closed intent id, if one did.
func (x *Intents) Closed(id string) (Done, bool) {
	d, ok := x.done[id]
	return d, ok
}

// All returns every intent added, open or closed, oldest first.
func (x *Intents) All() []*OpenIntent {
	out := make([]*OpenIntent, 0, len(x.order))
	for _, id := range x.order {
		out = append(out, x.byID[id])
	}
	return out
}

// Pending returns the open intents, oldest first.
func (x *Intents) Pending() []*OpenIntent {
	var out []*OpenIntent
	for _, id := range x.order {
		if x.Open(id) {
			out = append(out, x.byID[id])
		}
	}
	return out
}
