package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// TestMetaTurnInputs: stet/request and stet/inputs pin the turn, and a
// whole-file replace of a declared input is refused as input.
func TestMetaTurnInputs(t *testing.T) { eachTransport(t, testMetaTurnInputs) }

func testMetaTurnInputs(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"data/sales.csv": "region,total\nnorth,10\n", "notes.txt": "n\n"}, stet.Options{})
	srv := New(f.ws, Options{Session: "worker"})
	cs, _ := connect(t, srv, nil, nil)
	meta := map[string]any{metaRequest: "Summarize the sales by region.", metaInputs: []any{"data/sales.csv"}}

	mustOK(t, "read", callMeta(t, cs, "read", map[string]any{"path": "data/sales.csv"}, meta))
	r := mustRefuse(t, "replace declared input",
		callMeta(t, cs, "write", map[string]any{"path": "data/sales.csv", "content": "total\n30\n", "overwrite": true}, meta), stet.KindInput)
	if !strings.Contains(r.Text, "data/sales.csv") || !strings.Contains(r.Text, "edit it in place") {
		t.Errorf("input refusal text = %q", r.Text)
	}
	if got := f.read(t, "data/sales.csv"); got != "region,total\nnorth,10\n" {
		t.Fatalf("declared input changed: %q", got)
	}
	sess, _ := f.ws.Session("worker")
	req, in := sess.Request()
	if req != "Summarize the sales by region." || len(in) != 1 || in[0] != "data/sales.csv" {
		t.Errorf("pinned turn = %q %q", req, in)
	}

	// Editing in place is fine.
	mustOK(t, "edit input in place", callMeta(t, cs, "edit", map[string]any{"path": "data/sales.csv", "old_string": "north,10", "new_string": "north,11"}, meta))

	// A new request without inputs starts a turn without declared inputs.
	mustOK(t, "new turn", callMeta(t, cs, "read", map[string]any{"path": "notes.txt"}, map[string]any{metaRequest: "Tidy the notes."}))
	if _, in := sess.Request(); len(in) != 0 {
		t.Errorf("inputs after a new request = %q, want none", in)
	}
}

// TestMetaBad: wrong _meta values are invalid refusals naming the key, and
// change nothing.
func TestMetaBad(t *testing.T) { eachTransport(t, testMetaBad) }

func testMetaBad(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{}), nil, nil)
	for _, tc := range []struct {
		meta map[string]any
		want string
	}{
		{map[string]any{metaInputs: "a.txt"}, metaInputs},
		{map[string]any{metaInputs: []any{"a.txt", 3}}, "inputs[1]"},
		{map[string]any{metaInputs: []any{"a.txt", " "}}, "inputs[1] must be a non-empty path"},
		{map[string]any{metaRequest: 42}, metaRequest},
		{map[string]any{metaSession: ""}, metaSession},
		{map[string]any{metaSession: strings.Repeat("s", 300)}, metaSession},
	} {
		r := mustRefuse(t, "meta", callMeta(t, cs, "read", map[string]any{"path": "a.txt"}, tc.meta), stet.KindInvalid)
		if !strings.Contains(r.Text, tc.want) {
			t.Errorf("meta %v: text %q does not name %q", tc.meta, r.Text, tc.want)
		}
	}
}

// TestMetaSession: stet/session runs a call in another session, with that
// session's observations.
func TestMetaSession(t *testing.T) { eachTransport(t, testMetaSession) }

func testMetaSession(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{}), nil, nil)
	other := map[string]any{metaSession: "other"}

	mustOK(t, "read in the connection's session", call(t, cs, "read", map[string]any{"path": "a.txt"}))
	mustRefuse(t, "edit in a session that read nothing",
		callMeta(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "hello", "new_string": "bye"}, other), stet.KindNotRead)
	mustOK(t, "read in the other session", callMeta(t, cs, "read", map[string]any{"path": "a.txt"}, other))
	r := mustOK(t, "edit in the other session",
		callMeta(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "hello", "new_string": "bye"}, other))
	if rc, _ := r.Structured["receipt"].(map[string]any); rc == nil || rc["session"] != "other" {
		t.Errorf("receipt session = %v, want other", r.Structured["receipt"])
	}
}

// FuzzParseMeta: any _meta map gives a pin or an invalid refusal, never a
// panic.
func FuzzParseMeta(f *testing.F) {
	f.Add("s", "req", "a.txt", 1)
	f.Add("", "", "", 0)
	f.Add("x", "FAIL", "", 2)
	f.Fuzz(func(t *testing.T, session, request, input string, shape int) {
		m := map[string]any{}
		switch shape % 4 {
		case 0:
			m[metaSession] = session
		case 1:
			m[metaRequest] = request
			m[metaInputs] = []any{input, session}
		case 2:
			m[metaInputs] = []any{input, float64(len(input))}
		case 3:
			m[metaRequest] = []any{request}
		}
		p, ref := parseMeta(m)
		if ref != nil {
			if ref.Kind != stet.KindInvalid || !strings.HasPrefix(ref.Message, "refused: _meta ") {
				t.Fatalf("refusal %+v", ref)
			}
			return
		}
		if shape%4 == 0 && p.session != session {
			t.Fatalf("session %q, want %q", p.session, session)
		}
	})
}

// TestReservedSessionNames: a call cannot run in a session stet keeps for
// itself (its intents, the review's undos), so it cannot land receipts the
// review, diff and undo would not show or would take for a person's undo.
func TestReservedSessionNames(t *testing.T) { eachTransport(t, testReservedSessionNames) }

func testReservedSessionNames(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{}), nil, nil)
	for _, name := range []string{"stet:intents", "STET:anything", "review"} {
		meta := map[string]any{metaSession: name}
		mustRefuse(t, "read in "+name, callMeta(t, cs, "read", map[string]any{"path": "a.txt"}, meta), stet.KindInvalid)
		mustRefuse(t, "write in "+name, callMeta(t, cs, "write", map[string]any{"path": "b.txt", "content": "x\n"}, meta), stet.KindInvalid)
	}
	if _, err := os.Stat(filepath.Join(f.root, "b.txt")); !os.IsNotExist(err) {
		t.Fatalf("b.txt was written: %v", err)
	}
	log, err := f.ws.Log("", "")
	if err != nil || len(log) != 0 {
		t.Fatalf("receipts after refused calls: %d %v", len(log), err)
	}
}
