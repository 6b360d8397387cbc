package history_test

import (
	"encoding/json"
	"testing"

	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
)

func intentRec(t *testing.T, seq int64, typ string, payload any) journal.Record {
	t.Helper()
	b, err := json.Marshal(payload)
	if err != nil {
		t.Fatal(err)
	}
	return journal.Record{Seq: seq, Type: typ, Data: b}
}

// The rule: an intent is open until a done record names it, whatever its
// state; gc also keeps one whose done record says unresolved, and an id
// with no record at all unless a done record closes it.
func TestIntentsRule(t *testing.T) {
	var x history.Intents
	recs := []journal.Record{
		intentRec(t, 1, history.TypeIntent, history.Intent{ID: "a"}),
		intentRec(t, 2, history.TypeIntent, history.Intent{ID: "b"}),
		intentRec(t, 3, history.TypeIntent, history.Intent{ID: "c"}),
		intentRec(t, 4, history.TypeDone, history.Done{ID: "b", State: "committed"}),
		intentRec(t, 5, history.TypeDone, history.Done{ID: "c", State: history.DoneUnresolved}),
		intentRec(t, 6, history.TypeIntent, history.Intent{ID: "d"}),
		{Seq: 7, Type: history.TypeDone, Data: json.RawMessage(`{"id":`)}, // does not decode: ignored
		{Seq: 8, Type: "observe"},
	}
	for i, r := range recs {
		if err := x.Add(r, int64(100+i)); err != nil {
			t.Fatal(err)
		}
	}
	if err := x.Add(journal.Record{Seq: 9, Type: history.TypeIntent, Data: json.RawMessage(`[`)}, 0); err == nil {
		t.Error("an intent whose payload does not decode was taken")
	}
	for id, want := range map[string][2]bool{"a": {true, true}, "b": {false, false}, "c": {false, true}, "d": {true, true}, "none": {false, true}} {
		if got := x.Open(id); got != want[0] {
			t.Errorf("Open(%s) = %v, want %v", id, got, want[0])
		}
		if got := x.Keep(id); got != want[1] {
			t.Errorf("Keep(%s) = %v, want %v", id, got, want[1])
		}
	}
	var ids []string
	for _, it := range x.Pending() {
		ids = append(ids, it.Data.ID)
	}
	if len(ids) != 2 || ids[0] != "a" || ids[1] != "d" {
		t.Errorf("Pending = %v, want [a d] in journal order", ids)
	}
	if it := x.Intent("d"); it == nil || it.Seq != 6 || it.At != 105 {
		t.Errorf("Intent(d) = %+v, want seq 6 read at 105", it)
	}
}
