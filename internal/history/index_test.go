package history_test

import (
	"fmt"
	"testing"

	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
)

func receiptRec(t *testing.T, seq int64, key, id, undoes string) journal.Record {
	t.Helper()
	r, err := record(history.TypeReceipt, "s", key, history.Receipt{Receipt: receipt.Receipt{ID: id, Verified: true}, Undoes: undoes})
	if err != nil {
		t.Fatal(err)
	}
	r.Seq = seq
	return r
}

func undoRec(t *testing.T, id, by string) journal.Record {
	t.Helper()
	r, err := record(history.TypeUndo, "s", "a", history.Undo{Receipt: id, By: by})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// An undo takes back the last change; a second undo walks back to the one
// before; an undo of the undo (a redo) makes the change stand again.
func TestIndexUndoRedo(t *testing.T) {
	var x history.Index
	add := func(r journal.Record) {
		if err := x.Add(r); err != nil {
			t.Fatal(err)
		}
	}
	add(receiptRec(t, 1, "a", "r1", ""))
	add(receiptRec(t, 2, "a", "r2", ""))
	if c := x.LastChange("a"); c == nil || c.Data.Receipt.ID != "r2" {
		t.Fatalf("last change of a = %+v, want r2", c)
	}
	add(receiptRec(t, 3, "a", "u1", "r2"))
	add(undoRec(t, "r2", "u1"))
	if !x.Undone("r2") || x.UndoneBy("r2") != "u1" || x.Undone("r1") {
		t.Errorf("after undo of r2: undone(r2)=%v by %q, undone(r1)=%v; want true u1 false", x.Undone("r2"), x.UndoneBy("r2"), x.Undone("r1"))
	}
	if c := x.LastChange("a"); c == nil || c.Data.Receipt.ID != "r1" {
		t.Fatalf("last change of a after one undo = %+v, want r1 (undo receipts are skipped)", c)
	}
	add(receiptRec(t, 4, "a", "u2", "u1"))
	add(undoRec(t, "u1", "u2"))
	if x.Undone("r2") || x.UndoneBy("r2") != "" {
		t.Errorf("after the redo: r2 undone %v by %q, want it standing", x.Undone("r2"), x.UndoneBy("r2"))
	}
	add(receiptRec(t, 5, "a", "u3", "r2"))
	add(undoRec(t, "r2", "u3"))
	if x.UndoneBy("r2") != "u3" {
		t.Errorf("undone again: by %q, want u3 (the newest undo that stands)", x.UndoneBy("r2"))
	}
	if x.LastChange("b") != nil {
		t.Error("a key with no receipts has a last change")
	}
}

// A move is a change of its source too, so an undo of the old name finds it.
func TestIndexMoveSource(t *testing.T) {
	var x history.Index
	r, _ := record(history.TypeReceipt, "s", "new", history.Receipt{Receipt: receipt.Receipt{ID: "m1", Verified: true}, FromKey: "old"})
	if err := x.Add(r); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"old", "new"} {
		if c := x.LastChange(k); c == nil || c.Data.Receipt.ID != "m1" {
			t.Errorf("last change of %s = %+v, want the move", k, c)
		}
	}
}

// A cycle of undos (only a forged journal has one) ends in the safe
// answer instead of recursing without end.
func TestIndexUndoCycle(t *testing.T) {
	var u history.Undos
	u.Note("a", "b")
	u.Note("b", "a")
	_ = u.Undone("a") // must return
	var x history.Index
	bad := journal.Record{Seq: 7, Type: history.TypeReceipt, Data: []byte(`{"receipt":1}`)}
	if err := x.Add(bad); err == nil {
		t.Error("a receipt record that does not decode was indexed without an error")
	}
}

// undoChain notes a chain of n undos of undos of r0: u1 takes back r0, u2
// takes back u1 (a redo), and so on; un stands.
func undoChain(n int) *history.Undos {
	var u history.Undos
	prev := "r0"
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("u%d", i)
		u.Note(prev, id)
		prev = id
	}
	return &u
}

// A chain of undo and redo as long as the index follows (64 undos of
// undos) is answered exactly: after an even number r0 stands again, after
// an odd number it is undone, by u1.
func TestUndosLongChainExact(t *testing.T) {
	if u := undoChain(64); u.Undone("r0") || u.UndoneBy("r0") != "" {
		t.Errorf("64 undos of undos: r0 undone %v by %q, want it standing (the last one is a redo)", u.Undone("r0"), u.UndoneBy("r0"))
	}
	if u := undoChain(63); u.UndoneBy("r0") != "u1" {
		t.Errorf("63 undos of undos: r0 undone by %q, want u1", u.UndoneBy("r0"))
	}
}

// A chain longer than the index follows (only a forged journal has one)
// still gets an answer: the walk stops at the bound, whether the receipt
// there was itself undone or not.
func TestUndosChainPastTheBound(t *testing.T) {
	for _, n := range []int{65, 66, 200} {
		u := undoChain(n)
		_ = u.Undone("r0") // must return, not fail
		_ = u.UndoneBy("r0")
	}
}
