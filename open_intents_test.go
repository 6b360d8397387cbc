package stet

import (
	"context"
	"maps"
	"slices"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
)

// intentsOf reads the journal's intent index into history.Intents, the one
// rule of which intents are open.
func intentsOf(t *testing.T, ws *Workspace) *history.Intents {
	t.Helper()
	var x history.Intents
	if err := ws.e.Journal.Session(engine.IntentSession, func(r journal.Record) error { return x.Add(r, 0) }); err != nil {
		t.Fatal(err)
	}
	return &x
}

// The three readers of the open intents (the sweep's list of temp files
// to keep, gc, and the recovery at Open) take them from history.Intents:
// on one journal with an intent in flight (its writer gone), one closed and
// one left unresolved, each does what that rule says. The expectations are
// read from history.Intents, so a change of its rule moves all three.
func TestOpenIntentsOneRule(t *testing.T) {
	ws, s, _, _ := openIntentWS(t, map[string]string{"a.txt": "one\n"})
	tgt, ref := ws.e.Resolve("edit", "a.txt")
	if ref != nil {
		t.Fatal(ref)
	}
	p := ws.e.RootList[0].P
	temps := map[string]string{}
	for _, id := range []string{"r_open", "r_done", "r_unresolved"} {
		temps[id] = fsys.TempName(p)
		appendIntent(t, ws, engine.IntentData{ID: id, Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{{Key: tgt.Key(), Temp: temps[id]}}})
	}
	if _, err := ws.e.Journal.Append(engine.DoneRecord("r_done", engine.DoneCommitted, ""), engine.DoneRecord("r_unresolved", engine.DoneUnresolved, "")); err != nil {
		t.Fatal(err)
	}
	x := intentsOf(t, ws)
	var pending []string
	for _, it := range x.Pending() {
		pending = append(pending, it.Data.ID)
	}
	if len(pending) == 0 {
		t.Fatal("history.Intents finds no open intent: the test needs one")
	}

	// The sweep keeps exactly the temp files of the open intents.
	held, err := ws.e.HeldTemps()
	if err != nil {
		t.Fatal(err)
	}
	for id, temp := range temps {
		if held[0][temp] != x.Open(id) {
			t.Errorf("heldTemps holds %s of %s: %v; history.Intents says open: %v", temp, id, held[0][temp], x.Open(id))
		}
	}

	// gc keeps the intent records history.Intents says to keep.
	if _, err := ws.GC(0); err != nil {
		t.Fatal(err)
	}
	kept := map[string]bool{}
	if err := ws.e.Journal.Session(engine.IntentSession, func(r journal.Record) error {
		if r.Type == engine.RecIntent {
			d, err := history.Decode[engine.IntentData](r)
			kept[d.ID] = err == nil
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	for id := range temps {
		if kept[id] != x.Keep(id) {
			t.Errorf("gc kept the intent %s: %v; history.Intents says keep: %v", id, kept[id], x.Keep(id))
		}
	}

	// Recovery resolves exactly the open intents of writers that are gone.
	before := map[string]bool{}
	for _, it := range intentsOf(t, ws).Pending() {
		before[it.Data.ID] = true
	}
	if dead, err := ws.e.ScanIntents(context.Background(), true); err != nil || !dead {
		t.Fatalf("scanIntents = %v, %v; want the open intents of a gone writer found", dead, err)
	}
	after := intentsOf(t, ws)
	var resolved []string
	for id := range before {
		if !after.Open(id) {
			resolved = append(resolved, id)
		}
	}
	slices.Sort(resolved)
	slices.Sort(pending)
	if !slices.Equal(resolved, pending) {
		t.Errorf("recovery resolved %v; history.Intents had open %v", resolved, pending)
	}
	if n := len(after.Pending()); n != 0 {
		t.Errorf("%d intents still open after recovery: %v", n, slices.Collect(maps.Keys(before)))
	}
}
