package mcpserver

import (
	"strings"
	"testing"

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
