package mcpserver

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
)

// TestTextResults: with Options.TextResults a result is its text alone
// (what a model reads best; no structured content for a client to hand it
// JSON-escaped), tools/list declares no output schemas, and a program still
// finds the structured result, a change's whole receipt among it, in
// _meta "stet/result"; on both transports.
func TestTextResults(t *testing.T) {
	eachTransport(t, func(t *testing.T, connect connectFunc) {
		f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n"}, stet.Options{})
		srv := New(f.ws, Options{Version: "test", TextResults: true})
		cs, _ := connect(t, srv, nil, nil)
		ctx := context.Background()
		list, err := cs.ListTools(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range list.Tools {
			if tool.OutputSchema != nil {
				t.Errorf("%s declares an output schema", tool.Name)
			}
		}
		raw := func(name string, args any) *mcp.CallToolResult {
			t.Helper()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if res.StructuredContent != nil {
				t.Errorf("%s: structured content %v", name, res.StructuredContent)
			}
			return res
		}
		meta := func(res *mcp.CallToolResult) map[string]any {
			t.Helper()
			b, _ := json.Marshal(res.Meta[MetaResult])
			var m map[string]any
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatalf("_meta %s: %s", MetaResult, b)
			}
			return m
		}
		text := func(res *mcp.CallToolResult) string { return res.Content[0].(*mcp.TextContent).Text }
		read := raw("read", map[string]any{"path": "a.txt"})
		if text(read) != "00001|one\n00002|two\n00003|\n(3 lines)" || meta(read)["version"] == nil {
			t.Errorf("read: %q, _meta %v", text(read), read.Meta)
		}
		edit := raw("edit", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "TWO"})
		rc, _ := meta(edit)["receipt"].(map[string]any)
		if !strings.Contains(text(edit), "verified") || rc["verified"] != true || rc["after"] == nil {
			t.Errorf("edit: %q, receipt %v", text(edit), rc)
		}
		refused := raw("edit", map[string]any{"path": "a.txt", "old_string": "nope", "new_string": "x"})
		if !refused.IsError || meta(refused)["refused"] != stet.KindNoMatch {
			t.Errorf("a refusal: %v %v", refused.IsError, refused.Meta)
		}
	})
}

// TestSessionsNamedByCallsAreBoundedInMemory: sessions that calls name
// (_meta stet/session, stateless handles) are held in memory up to a bound,
// the least recently used dropped from memory only: a dropped session is
// rebuilt from the journal when named again, its reads still counting.
func TestSessionsNamedByCallsAreBoundedInMemory(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\n"}, stet.Options{})
	srv := New(f.ws, Options{Version: "test"})
	var dropped []string
	srv.mem = newMemory(4, func(id string) { dropped = append(dropped, id); srv.dropMemory(id) })
	cs, _ := connect(t, srv, nil, nil)
	named := func(session, tool string, args map[string]any) result {
		return callMeta(t, cs, tool, args, map[string]any{metaSession: session})
	}
	mustOK(t, "read as agent-a", named("agent-a", "read", map[string]any{"path": "a.txt"}))
	for i := range 20 {
		named(fmt.Sprintf("other-%d", i), "roots", map[string]any{})
	}
	if n := srv.mem.len(); n != 4 || len(dropped) != 17 || dropped[0] != "agent-a" {
		t.Fatalf("held %d, dropped %v; want 4 held and agent-a dropped first", n, dropped)
	}
	mustOK(t, "edit as agent-a after it was dropped", named("agent-a", "edit", map[string]any{"path": "a.txt", "old_string": "one", "new_string": "two"}))
	if got := f.read(t, "a.txt"); got != "two\n" {
		t.Errorf("a.txt = %q", got)
	}
}
