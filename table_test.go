package stet

import (
	"reflect"
	"slices"
	"testing"

	"github.com/stet-dev/stet/tools"
)

// TestToolTable: the table of tools holds every tool package tools knows,
// in its order, each under the argument type tools.Decode makes for it, so
// that Call and Do run the same method for a name and for its arguments.
func TestToolTable(t *testing.T) {
	var names []string
	for _, r := range toolTable {
		names = append(names, r.name)
	}
	if want := tools.Names(false); !slices.Equal(names, want) {
		t.Fatalf("table names %v, tools.Names %v", names, want)
	}
	valid := map[string]string{
		"edit": `{"path":"a","old_string":"x","new_string":"y"}`, "write": `{"path":"a","content":""}`,
		"patch": `{"patch":"x"}`, "find": `{"pattern":"*"}`, "grep": `{"pattern":"x"}`, "mkdir": `{"path":"a"}`,
		"move": `{"from":"a","to":"b"}`, "delete": `{"path":"a"}`, "read": `{"path":"a"}`, "info": `{"path":"a"}`, "undo": `{"path":"a"}`,
	}
	for _, r := range toolTable {
		raw, ok := valid[r.name]
		if !ok {
			raw = `{}`
		}
		args, err := tools.Decode(r.name, []byte(raw))
		if err != nil {
			t.Fatalf("%s %s: %v", r.name, raw, err)
		}
		if got := reflect.TypeOf(args); got != reflect.PointerTo(r.args) {
			t.Errorf("%s: Decode makes %v, the table takes %v", r.name, got, r.args)
		}
		if toolFor(args) != toolFor(reflect.ValueOf(args).Elem().Interface()) || toolFor(args).name != r.name {
			t.Errorf("%s: its arguments find %q", r.name, toolFor(args).name)
		}
	}
	for _, r := range toolTable {
		if m, _ := tools.Mutating(r.name); m != (r.changed != nil) {
			t.Errorf("%s: mutating %v, but its row says whether a result changed the tree: %v", r.name, m, r.changed != nil)
		}
		if r.render == nil {
			t.Errorf("%s: no text for its result", r.name)
		}
	}
	if toolFor(42) != nil || toolFor(nil) != nil {
		t.Error("a value no tool takes finds a row")
	}
}
