package history_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
)

// recordTypes returns every record type records.go declares (the Type*
// constants), read from the source, so that a type added there without a
// row of the table fails TestEveryTypeHasARow.
func recordTypes(t *testing.T) []string {
	t.Helper()
	f, err := parser.ParseFile(token.NewFileSet(), "records.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, sp := range g.Specs {
			vs := sp.(*ast.ValueSpec)
			for i, n := range vs.Names {
				if !strings.HasPrefix(n.Name, "Type") || i >= len(vs.Values) {
					continue
				}
				if lit, ok := vs.Values[i].(*ast.BasicLit); ok {
					v, _ := strconv.Unquote(lit.Value)
					out = append(out, v)
				}
			}
		}
	}
	if len(out) < 10 {
		t.Fatalf("found only %d record types in records.go: %v", len(out), out)
	}
	return out
}

// TestEveryTypeHasARow: each record type has one row of the record table,
// with an answer for gc (its retention) and for the review and audit
// (where it is shown), and a sample in the golden file of every record
// type; no row names a type records.go does not declare.
func TestEveryTypeHasARow(t *testing.T) {
	types := recordTypes(t)
	sampled := map[string]bool{}
	for _, s := range samples() {
		sampled[s.typ] = true
	}
	for _, typ := range types {
		k, ok := history.KindOf(typ)
		switch {
		case !ok:
			t.Errorf("record type %q has no row in history.Table", typ)
		case k.Retain == 0:
			t.Errorf("record type %q: no retention answer (gc would not know how long to keep it)", typ)
		case k.Shown == 0:
			t.Errorf("record type %q: no answer for where the review and audit show it", typ)
		}
		if !sampled[typ] {
			t.Errorf("record type %q has no sample in testdata/records.txtar", typ)
		}
	}
	if len(history.Table) != len(types) {
		t.Errorf("history.Table has %d rows for %d record types", len(history.Table), len(types))
	}
	seen := map[string]bool{}
	for _, k := range history.Table {
		if seen[k.Type] {
			t.Errorf("two rows for %q", k.Type)
		}
		seen[k.Type] = true
	}
	if history.RetentionOf(journal.RecCheckpoint) != 0 || history.ShownOf("a newer type") != 0 {
		t.Error("a type no row names has an answer")
	}
}

// TestTransitions: a record changes a session's state the same way as it
// is written (ApplyPayload, with its payload) and as it is replayed (Apply,
// from its journal line).
func TestTransitions(t *testing.T) {
	for _, s := range samples() {
		rec, err := record(s.typ, s.session, s.path, s.payload)
		if err != nil {
			t.Fatal(err)
		}
		written, replayed := history.NewState(), history.NewState()
		history.ApplyPayload(&written, s.typ, s.path, s.payload)
		if err := history.Apply(&replayed, rec); err != nil {
			t.Fatalf("%s: %v", s.name, err)
		}
		if a, b := written.Snapshot(), replayed.Snapshot(); !snapEqual(a, b) {
			t.Errorf("%s: written %+v, replayed %+v", s.name, a, b)
		}
		k, _ := history.KindOf(s.typ)
		empty := history.NewState()
		if changed := !snapEqual(written.Snapshot(), empty.Snapshot()); changed && !k.Changes() {
			t.Errorf("%s changed the state, yet its row says it changes none", s.name)
		}
	}
}

func snapEqual(a, b history.Snapshot) bool { return reflect.DeepEqual(a, b) }

// TestMoveAndDeleteTransitions: a verified move frees the name it came
// from (remembered as removed only when it was the user's file, forgotten
// as created when the session made it); a move onto its own name frees
// nothing; a delete of a created file is not remembered as the user's.
func TestMoveAndDeleteTransitions(t *testing.T) {
	before := &receipt.State{Version: "sha256:" + strings.Repeat("a", 64), Bytes: 1, Lines: 1}
	after := &receipt.State{Version: "sha256:" + strings.Repeat("b", 64), Bytes: 1, Lines: 1}
	start := func() history.State {
		st := history.NewState()
		for _, k := range []string{"0:user.txt", "0:made.txt"} {
			st.Files[k] = &history.Observation{Version: before.Version}
		}
		st.Created["0:made.txt"] = true
		return st
	}
	apply := func(st *history.State, key, from string, a *receipt.State) {
		history.ApplyPayload(st, "receipt", key, &history.Receipt{FromKey: from,
			Receipt: receipt.Receipt{Before: before, After: a, Verified: true}})
	}

	st := start()
	apply(&st, "0:new.txt", "0:user.txt", after)
	if _, ok := st.Files["0:user.txt"]; ok {
		t.Error("a moved file is still observed under its old name")
	}
	if r, ok := st.Removed["0:user.txt"]; !ok || r.Version != before.Version {
		t.Errorf("the user's moved file is not remembered as removed: %v", st.Removed)
	}

	st = start()
	apply(&st, "0:new.txt", "0:made.txt", after)
	if _, ok := st.Removed["0:made.txt"]; ok {
		t.Error("a file the session made is remembered as the user's, removed")
	}
	if st.Created["0:made.txt"] {
		t.Error("the old name of a created file that moved is still created")
	}
	if _, ok := st.Files["0:made.txt"]; ok {
		t.Error("a moved created file is still observed under its old name")
	}

	st = start()
	apply(&st, "0:user.txt", "0:user.txt", after)
	if _, ok := st.Files["0:user.txt"]; !ok || len(st.Removed) != 0 {
		t.Errorf("a move onto its own name freed it: files %v, removed %v", st.Files, st.Removed)
	}

	st = start()
	apply(&st, "0:made.txt", "", nil)
	if _, ok := st.Files["0:made.txt"]; ok || len(st.Removed) != 0 {
		t.Errorf("a created file deleted: files %v, removed %v", st.Files, st.Removed)
	}
	st = start()
	apply(&st, "0:user.txt", "", nil)
	if r, ok := st.Removed["0:user.txt"]; !ok || r.Version != before.Version {
		t.Errorf("the user's deleted file is not remembered as removed: %v", st.Removed)
	}
}
