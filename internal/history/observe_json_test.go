package history_test

import (
	"encoding/json"
	"reflect"
	"testing"

	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/policy"
)

// TestObservationJSONIsMarshal: Encode writes an observation without
// reflection, byte for byte as json.Marshal does, escapes included.
func TestObservationJSONIsMarshal(t *testing.T) {
	full := history.Observation{Version: "sha256:0123abcd", Seen: policy.NewRanges(policy.Range{Start: 0, End: 5}, policy.Range{Start: 9, End: 12}), Whole: true, Size: 12, Lines: 3}
	// Every field of full is set: a field added to Observation is either
	// written by Encode's own encoding or fails here.
	v := reflect.ValueOf(full)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("the full observation leaves %s zero: set it, and encode it", v.Type().Field(i).Name)
		}
	}
	with := func(f func(*history.Observation)) history.Observation {
		o := full
		f(&o)
		return o
	}
	for name, o := range map[string]history.Observation{
		"full":          full,
		"zero":          {},
		"not whole":     with(func(o *history.Observation) { o.Whole = false }),
		"no seen":       with(func(o *history.Observation) { o.Seen = nil }),
		"empty seen":    with(func(o *history.Observation) { o.Seen = policy.Ranges{} }),
		"one range":     with(func(o *history.Observation) { o.Seen = policy.NewRanges(policy.Range{Start: 7, End: 1 << 40}) }),
		"negative":      with(func(o *history.Observation) { o.Size, o.Lines = -1, -20 }),
		"html":          with(func(o *history.Observation) { o.Version = "a<b>&c" }),
		"quote":         with(func(o *history.Observation) { o.Version = `a"b\c` }),
		"control":       with(func(o *history.Observation) { o.Version = "a\nb\x00" }),
		"utf-8":         with(func(o *history.Observation) { o.Version = "é\u2028" }),
		"invalid utf-8": with(func(o *history.Observation) { o.Version = "a\xffb" }),
	} {
		want, err := json.Marshal(&o)
		if err != nil {
			t.Fatal(err)
		}
		got, err := history.Encode(&o)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%s: Encode wrote\n%s\njson.Marshal\n%s", name, got, want)
		}
	}
}
