package mcpserver

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// TestFlow walks the loop a model goes through: read, edit, the file
// changes behind the server's back, the next edit is refused as changed,
// re-read, edit again, list, create a file, undo.
func TestFlow(t *testing.T) { eachTransport(t, testFlow) }

func testFlow(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"src/main.go": "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{Version: "test"}), nil, nil)

	r := mustOK(t, "read", call(t, cs, "read", map[string]any{"path": "src/main.go"}))
	if r.Structured["frame"] != r.Text || !strings.HasPrefix(r.Text, "00001|package main\n") || !strings.HasSuffix(r.Text, "(6 lines)") {
		t.Fatalf("read text = %q, structured frame = %q", r.Text, r.Structured["frame"])
	}
	if r.Structured["path"] != "src/main.go" || r.Structured["lines"] != 6.0 || !strings.HasPrefix(r.Structured["version"].(string), "sha256:") {
		t.Errorf("read structured = %v", r.Structured)
	}
	v1 := r.Structured["version"]

	r = mustOK(t, "edit", call(t, cs, "edit", map[string]any{"path": "src/main.go", "old_string": `println("hello")`, "new_string": `println("hello, world")`}))
	rc, _ := r.Structured["receipt"].(map[string]any)
	if rc == nil || rc["verified"] != true || rc["tool"] != "edit" || rc["before"].(map[string]any)["version"] != v1 {
		t.Fatalf("edit receipt = %v", r.Structured["receipt"])
	}
	diff, _ := r.Structured["diff"].(string)
	if !strings.Contains(diff, `+	println("hello, world")`) || !strings.Contains(r.Text, diff[:20]) || !strings.HasPrefix(r.Text, r.Structured["message"].(string)) {
		t.Errorf("edit text = %q, structured = %v", r.Text, r.Structured)
	}
	if got := f.read(t, "src/main.go"); !strings.Contains(got, `println("hello, world")`) {
		t.Fatalf("file after edit = %q", got)
	}

	// Someone else changes the file.
	f.write(t, "src/main.go", "package main\n\nfunc main() {\n\tprintln(\"hello, world\")\n\tprintln(\"bye\")\n}\n")
	mustRefuse(t, "stale edit", call(t, cs, "edit", map[string]any{"path": "src/main.go", "old_string": `"bye"`, "new_string": `"ciao"`}), stet.KindChanged)
	if got := f.read(t, "src/main.go"); !strings.Contains(got, `"bye"`) {
		t.Fatalf("a refused edit changed the file: %q", got)
	}

	mustOK(t, "re-read", call(t, cs, "read", map[string]any{"path": "src/main.go"}))
	mustOK(t, "edit after re-read", call(t, cs, "edit", map[string]any{"path": "src/main.go", "old_string": `"bye"`, "new_string": `"ciao"`}))
	if got := f.read(t, "src/main.go"); !strings.Contains(got, `"ciao"`) {
		t.Fatalf("file after second edit = %q", got)
	}

	// Creating needs the parent observed: write first is refused, list, then write.
	mustRefuse(t, "create unlisted", call(t, cs, "write", map[string]any{"path": "NOTES.md", "content": "notes\n"}), stet.KindNotRead)
	r = mustOK(t, "list", call(t, cs, "list", map[string]any{}))
	if !strings.Contains(r.Text, "src/") {
		t.Errorf("list text = %q", r.Text)
	}
	r = mustOK(t, "write", call(t, cs, "write", map[string]any{"path": "NOTES.md", "content": "notes\n"}))
	rc, _ = r.Structured["receipt"].(map[string]any)
	if rc == nil || rc["before"] != nil || rc["verified"] != true {
		t.Errorf("create receipt = %v", r.Structured["receipt"])
	}
	if got := f.read(t, "NOTES.md"); got != "notes\n" {
		t.Fatalf("created file = %q", got)
	}

	r = mustOK(t, "undo", call(t, cs, "undo", map[string]any{"path": "src/main.go"}))
	if rc, _ := r.Structured["receipt"].(map[string]any); rc == nil || rc["tool"] != "undo" {
		t.Errorf("undo structured = %v", r.Structured)
	}
	if got := f.read(t, "src/main.go"); !strings.Contains(got, `"bye"`) || strings.Contains(got, `"ciao"`) {
		t.Fatalf("file after undo = %q", got)
	}
}

// TestUnknownAndBadArguments: unknown tools, wrong types and malformed
// arguments come back as refusals naming the problem.
func TestUnknownAndBadArguments(t *testing.T) { eachTransport(t, testUnknownAndBadArguments) }

func testUnknownAndBadArguments(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{}), nil, nil)

	r := mustRefuse(t, "unknown tool", call(t, cs, "frobnicate", map[string]any{}), stet.KindInvalid)
	if !strings.Contains(r.Text, "frobnicate") || !strings.Contains(r.Text, "read") {
		t.Errorf("unknown tool text = %q", r.Text)
	}
	r = mustRefuse(t, "wrong type", call(t, cs, "read", map[string]any{"path": 7}), stet.KindInvalid)
	if !strings.Contains(r.Text, "path") {
		t.Errorf("wrong type text = %q", r.Text)
	}
	r = mustRefuse(t, "unknown key", call(t, cs, "read", map[string]any{"path": "a.txt", "line": 2}), stet.KindInvalid)
	if !strings.Contains(r.Text, "line") {
		t.Errorf("unknown key text = %q", r.Text)
	}
	mustRefuse(t, "no arguments", call(t, cs, "read", nil), stet.KindInvalid)
	mustRefuse(t, "array arguments", call(t, cs, "read", json.RawMessage(`["a.txt"]`)), stet.KindInvalid)
	r = mustRefuse(t, "escape", call(t, cs, "read", map[string]any{"path": "a/../../../etc/passwd"}), stet.KindOutside)
	if strings.Contains(r.Text, "openat") || strings.Contains(r.Text, "escapes from parent") {
		t.Errorf("raw Go error leaked: %q", r.Text)
	}
}

// TestReadOnlyUnlistedTool: a mutating tool is absent from a read-only
// server's list, and calling it anyway is a read_only refusal, not a
// protocol error.
func TestReadOnlyUnlistedTool(t *testing.T) { eachTransport(t, testReadOnlyUnlistedTool) }

func testReadOnlyUnlistedTool(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, stet.Options{Effects: "read-only"})
	cs, _ := connect(t, New(f.ws, Options{}), nil, nil)
	for _, name := range []string{"edit", "write", "patch", "mkdir", "move", "delete", "undo"} {
		mustRefuse(t, name, call(t, cs, name, map[string]any{"path": "a.txt"}), stet.KindReadOnly)
	}
	if got := f.read(t, "a.txt"); got != "x\n" {
		t.Fatalf("read-only workspace changed: %q", got)
	}
}
