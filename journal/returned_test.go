package journal_test

import (
	"encoding/json"
	"reflect"
	"testing"
	"time"

	"github.com/stet-dev/stet/journal"
)

// The records Append returns are the records a reader of the log gets
// back, field for field, however their strings and payloads are written:
// payload whitespace compacted, a payload holding a "data" key of its own,
// a path that spells the payload's key, a path or a session that is not
// valid UTF-8 (the encoder replaces those bytes), a null payload, none.
func TestAppendReturnsWhatIsReadBack(t *testing.T) {
	recs := []journal.Record{
		{Type: "observe", Session: "s", Path: "a.txt", Data: json.RawMessage(`{ "v" : 1,  "list": [1, 2] }`)},
		{Type: "observe", Session: "s", Path: "b.txt", Data: json.RawMessage(`{"data":{"data":"x"},"n":"\u00e9<&>"}`)},
		{Type: "observe", Session: "s", Path: `q,"data":{"x":1}.txt`, Data: json.RawMessage(`{"k":"v"}`)},
		{Type: "observe", Session: "s", Path: "bad\xff\xfename", Data: json.RawMessage(`{"k":2}`)},
		{Type: "note\xc3", Session: "s", Data: json.RawMessage(`null`)},
		{Type: "turn", Session: "s", Time: time.Date(2026, 12, 2, 3, 4, 5, 6, time.FixedZone("x", 3600))},
		{Type: "turn", Session: "s"},
	}
	for _, lazy := range []bool{false, true} {
		dir := t.TempDir()
		j := open(t, dir)
		var got []journal.Record
		var err error
		if lazy {
			got, err = j.AppendLazy(recs...)
		} else {
			got, err = j.Append(recs...)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, k := range []*journal.Journal{j, open(t, dir)} {
			back := sessionAll(t, k, "s")
			if len(back) != len(got) {
				t.Fatalf("read back %d records, Append returned %d", len(back), len(got))
			}
			for i := range got {
				if !reflect.DeepEqual(got[i], back[i]) {
					t.Errorf("lazy %v, record %d: Append returned\n%#v\nthe log holds\n%#v", lazy, i, got[i], back[i])
				}
			}
		}
	}
}
