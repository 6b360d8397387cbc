package mcpserver

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/stall"
)

// TestStall: with N = 2, the second quiet call carries the notice once;
// after 2N quiet calls reads are refused as stalled (and count as quiet
// steps); a landed change gives the reads back.
func TestStall(t *testing.T) { eachTransport(t, testStall) }

func testStall(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{StallSteps: 2}), nil, nil)
	notice := stall.NoticeText(2)
	read := map[string]any{"path": "a.txt"}

	if r := mustOK(t, "read 1", call(t, cs, "read", read)); strings.Contains(r.Text, notice) {
		t.Fatal("notice after one step")
	}
	r := mustOK(t, "read 2", call(t, cs, "read", read))
	if !strings.HasSuffix(r.Text, "\n\n"+notice) || strings.Contains(r.Structured["frame"].(string), "stet:") {
		t.Fatalf("read 2 text = %q, want the notice appended to the text only", r.Text)
	}
	// A refused call is a quiet step too.
	if r := mustRefuse(t, "refused edit", call(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "zzz", "new_string": "y"}), stet.KindNoMatch); strings.Contains(r.Text, notice) {
		t.Fatal("notice given twice")
	}
	mustOK(t, "read 4", call(t, cs, "list", map[string]any{}))
	r = mustRefuse(t, "read 5", call(t, cs, "read", read), stet.KindStalled)
	if !strings.Contains(r.Text, "make the change now") {
		t.Errorf("stalled text = %q", r.Text)
	}
	mustRefuse(t, "grep when stalled", call(t, cs, "grep", map[string]any{"pattern": "one"}), stet.KindStalled)

	// A change is still allowed, and it resets the count.
	mustOK(t, "edit", call(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "2"}))
	mustOK(t, "read after a change", call(t, cs, "read", read))

	// A dry run changes nothing.
	mustOK(t, "dry run", call(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "1", "dry_run": true}))
	mustOK(t, "read", call(t, cs, "read", read))
	mustOK(t, "read", call(t, cs, "read", read))
	mustRefuse(t, "read after a dry run", call(t, cs, "read", read), stet.KindStalled)

	// A new turn starts the count again; a repair request halves N.
	meta := map[string]any{metaRequest: "The test is FAILING, fix it."}
	r = mustOK(t, "new repair turn", callMeta(t, cs, "read", read, meta))
	if !strings.HasSuffix(r.Text, stall.NoticeText(1)) {
		t.Errorf("repair turn with N=1: first quiet step text = %q, want the notice", r.Text)
	}
}

// TestStallOff: StallSteps 0 never refuses.
func TestStallOff(t *testing.T) { eachTransport(t, testStallOff) }

func testStallOff(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{}), nil, nil)
	for i := 0; i < 20; i++ {
		if r := mustOK(t, "read", call(t, cs, "read", map[string]any{"path": "a.txt"})); strings.Contains(r.Text, "stet:") {
			t.Fatalf("notice with stalls off: %q", r.Text)
		}
	}
}

// TestStallNoOpDoesNotReset: a call that lands but alters nothing (mkdir of
// a directory that exists: "nothing to do") is not progress; reads stay
// withdrawn until a change alters the tree.
func TestStallNoOpDoesNotReset(t *testing.T) { eachTransport(t, testStallNoOpDoesNotReset) }

func testStallNoOpDoesNotReset(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"a.txt": "one\n", "d/": ""}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{StallSteps: 1}), nil, nil)
	read := map[string]any{"path": "a.txt"}
	mustOK(t, "read 1", call(t, cs, "read", read))
	mustOK(t, "read 2", call(t, cs, "read", read))
	mustRefuse(t, "read when stalled", call(t, cs, "read", read), stet.KindStalled)
	for _, dir := range []string{".", "d"} {
		r := mustOK(t, "mkdir "+dir, call(t, cs, "mkdir", map[string]any{"path": dir}))
		if !strings.Contains(r.Text, "nothing to do") {
			t.Fatalf("mkdir %s: %q", dir, r.Text)
		}
		mustRefuse(t, "read after mkdir "+dir, call(t, cs, "read", read), stet.KindStalled)
	}
	mustOK(t, "mkdir new", call(t, cs, "mkdir", map[string]any{"path": "d/e"}))
	mustOK(t, "read after a real mkdir", call(t, cs, "read", read))
}

// TestStallWithdrawsReadTools: at 2N the read tools leave tools/list and
// the client gets notifications/tools/list_changed; calls to them are still
// refused as stalled, with {steps, phase} in the details; when a change
// lands they come back with another list_changed. Only the stalled
// session's connection sees the cut list.
func TestStallWithdrawsReadTools(t *testing.T) { eachTransport(t, testStallWithdrawsReadTools) }

func testStallWithdrawsReadTools(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n"}, stet.Options{})
	srv := New(f.ws, Options{StallSteps: 1})
	changed := make(chan struct{}, 10)
	copts := &mcp.ClientOptions{ToolListChangedHandler: func(context.Context, *mcp.ToolListChangedRequest) { changed <- struct{}{} }}
	// Clients of 2026-07-28 and later get list changes on a subscription
	// stream only; this one speaks the protocol every client speaks today.
	legacy := &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"}
	cs, _ := connect(t, srv, copts, legacy)
	other, _ := connect(t, srv, nil, legacy) // another connection, another session
	mustOK(t, "other session's read", call(t, other, "read", map[string]any{"path": "a.txt"}))
	read := map[string]any{"path": "a.txt"}

	names := func(cs *mcp.ClientSession) string {
		t.Helper()
		l, err := cs.ListTools(context.Background(), nil)
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, tool := range l.Tools {
			out = append(out, tool.Name)
		}
		return strings.Join(out, " ")
	}
	waitChanged := func(what string) {
		t.Helper()
		select {
		case <-changed:
		case <-time.After(5 * time.Second):
			t.Fatalf("%s: no notifications/tools/list_changed", what)
		}
	}
	full := names(cs)
	if !strings.Contains(full, "read") || !strings.Contains(full, "grep") {
		t.Fatalf("tools/list = %s", full)
	}

	r := mustOK(t, "read 1", call(t, cs, "read", read))
	if !strings.Contains(r.Text, stall.NoticeText(1)) {
		t.Fatalf("read 1 (N=1) has no notice: %q", r.Text)
	}
	select {
	case <-changed:
		t.Fatal("list_changed before 2N")
	default:
	}
	mustOK(t, "read 2", call(t, cs, "read", read)) // 2N: the cut starts with the next step
	waitChanged("at 2N")
	cut := names(cs)
	for _, tool := range []string{"read", "list", "find", "grep"} {
		if slices.Contains(strings.Fields(cut), tool) {
			t.Errorf("tools/list at 2N still has %s: %s", tool, cut)
		}
	}
	for _, tool := range []string{"edit", "write", "patch"} {
		if !slices.Contains(strings.Fields(cut), tool) {
			t.Errorf("tools/list at 2N lost %s: %s", tool, cut)
		}
	}
	if got := names(other); got != full {
		t.Errorf("another session's tools/list = %s, want %s", got, full)
	}
	r = mustRefuse(t, "read at 2N", call(t, cs, "read", read), stet.KindStalled)
	if r.Structured["phase"] != stall.PhaseCut || r.Structured["steps"] != float64(2) {
		t.Errorf("stalled details: phase %v, steps %v; want cut, 2", r.Structured["phase"], r.Structured["steps"])
	}

	// A change lands: the reads come back, with another list_changed.
	mustOK(t, "edit", call(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "2"}))
	waitChanged("after a change")
	if got := names(cs); got != full {
		t.Errorf("tools/list after a change = %s, want %s", got, full)
	}
	mustOK(t, "read after a change", call(t, cs, "read", read))
}
