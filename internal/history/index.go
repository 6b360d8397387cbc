package history

import (
	"encoding/json"

	"github.com/stet-dev/stet/journal"
)

// maxUndoDepth bounds a chain of undos of undos: one longer is not made by
// people (a forged journal), and the index gives the safe answer, undone.
const maxUndoDepth = 64

// Undos is the undo index: which receipt was taken back by which. The zero
// value is empty and ready to use. It answers "is this receipt undone" the
// one way every reader of the journal asks it: a receipt stands undone when
// some undo of it was not itself taken back in turn (a redo).
type Undos struct {
	by map[string][]string // receipt -> the receipts that undid it, in journal order
}

// Note records that receipt by took back receipt id.
func (u *Undos) Note(id, by string) {
	if u.by == nil {
		u.by = map[string][]string{}
	}
	u.by[id] = append(u.by[id], by)
}

// Add records r if it is an undo record; any other record, and an undo
// record whose payload does not decode, is ignored.
func (u *Undos) Add(r journal.Record) {
	if r.Type != TypeUndo {
		return
	}
	var d Undo
	if json.Unmarshal(r.Data, &d) == nil {
		u.Note(d.Receipt, d.By)
	}
}

// Undone reports whether receipt id stands undone.
func (u *Undos) Undone(id string) bool { return u.undoneBy(id, 0) != "" }

// UndoneBy returns the newest undo receipt of id that stands (was not
// itself taken back), or "" if id is not undone.
func (u *Undos) UndoneBy(id string) string { return u.undoneBy(id, 0) }

func (u *Undos) undoneBy(id string, depth int) string {
	bys := u.by[id]
	if depth > maxUndoDepth {
		if len(bys) > 0 {
			return bys[len(bys)-1]
		}
		return id // the safe answer: undone
	}
	for i := len(bys) - 1; i >= 0; i-- {
		if u.undoneBy(bys[i], depth+1) == "" {
			return bys[i]
		}
	}
	return ""
}

// Change is one receipt record as the index keeps it.
type Change struct {
	Seq  int64  // the record's journal line
	Key  string // the record's Path: the file's key
	Data Receipt
}

// Index is the undo index and the changes of each key, built once from a
// stream of journal records (see Add).
type Index struct {
	Undos
	changes map[string][]*Change // key (or a move's source key) -> its receipts, oldest first
}

// Add takes one record: a receipt record is indexed under its key and,
// for a move, its source key; an undo record goes to the undo index. The
// error names the journal line of a receipt whose payload does not decode.
func (x *Index) Add(r journal.Record) error {
	switch r.Type {
	case TypeUndo:
		x.Undos.Add(r)
	case TypeReceipt:
		d, err := Decode[Receipt](r)
		if err != nil {
			return err
		}
		c := &Change{Seq: r.Seq, Key: r.Path, Data: d}
		if x.changes == nil {
			x.changes = map[string][]*Change{}
		}
		x.changes[r.Path] = append(x.changes[r.Path], c)
		if d.FromKey != "" && d.FromKey != r.Path {
			x.changes[d.FromKey] = append(x.changes[d.FromKey], c)
		}
	}
	return nil
}

// Changes returns the receipts of key (those whose record is about key,
// and moves away from it), oldest first.
func (x *Index) Changes(key string) []*Change { return x.changes[key] }

// LastChange returns the newest verified change of key that is not an undo
// and does not stand undone: what an undo of key takes back. Undo receipts
// are skipped, so repeated undos walk back. It returns nil if there is
// none.
func (x *Index) LastChange(key string) *Change {
	cs := x.changes[key]
	for i := len(cs) - 1; i >= 0; i-- {
		c := cs[i]
		if c.Data.Undoes == "" && c.Data.Receipt.Verified && !x.Undone(c.Data.Receipt.ID) {
			return c
		}
	}
	return nil
}
