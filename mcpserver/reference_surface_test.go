package mcpserver

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
)

// TestBeforeInitialize: tools/list and tools/call before initialize get a
// JSON-RPC error with a code (-32600, invalid request), never code 0, in
// both profiles; the session then initializes and is served.
func TestBeforeInitialize(t *testing.T) {
	for _, profile := range Profiles() {
		t.Run(profile, func(t *testing.T) {
			f := newFixture(t, map[string]string{"a.txt": "a\n"}, stet.Options{})
			c := startRaw(t, New(f.ws, Options{Profile: profile}), 0)
			c.send(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
			c.wantError("1", -32600, "initialize")
			c.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`)
			c.wantError("2", -32600, "initialize")
			c.initialize()
			c.send(`{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
			c.wantResult("3")
		})
	}
}

// TestRefMediaResource: read_media_file of a file that is neither image
// nor audio returns it as an embedded resource: a percent-encoded file://
// URI naming the file, application/octet-stream, the bytes in base64, the
// structured result mirroring the content; a file over the media bound is
// refused as too_large.
func TestRefMediaResource(t *testing.T) { eachTransport(t, testRefMediaResource) }

func testRefMediaResource(t *testing.T, connect connectFunc) {
	bin := []byte{0, 1, 2, 3, 0xff, 0xfe}
	f := newFixture(t, map[string]string{"my café.bin": string(bin), "big.bin": strings.Repeat("x", 2048)}, stet.Options{MaxMediaBytes: 1024})
	cs, _ := connect(t, New(f.ws, Options{Profile: ProfileReference}), nil, nil)
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_media_file", Arguments: map[string]any{"path": "my café.bin"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("read_media_file = %+v", res)
	}
	er, ok := res.Content[0].(*mcp.EmbeddedResource)
	if !ok || er.Resource == nil {
		t.Fatalf("content = %#v, want an embedded resource", res.Content[0])
	}
	r := er.Resource
	if !strings.HasPrefix(r.URI, "file:///") || !strings.Contains(r.URI, "my%20caf%C3%A9.bin") || strings.Contains(r.URI, " ") {
		t.Errorf("uri = %q, want the file's path percent-encoded", r.URI)
	}
	if r.URI != fileURI(f.path("my café.bin")) {
		t.Errorf("uri = %q, want %q", r.URI, fileURI(f.path("my café.bin")))
	}
	if r.MIMEType != "application/octet-stream" || string(r.Blob) != string(bin) {
		t.Errorf("resource = %q %v", r.MIMEType, r.Blob)
	}
	sc, _ := json.Marshal(res.StructuredContent)
	want, _ := json.Marshal(map[string]any{"content": []any{map[string]any{"type": "resource", "resource": map[string]any{
		"uri": r.URI, "mimeType": "application/octet-stream", "blob": base64.StdEncoding.EncodeToString(bin)}}}})
	var a, b any
	json.Unmarshal(sc, &a)
	json.Unmarshal(want, &b)
	if fmt.Sprint(a) != fmt.Sprint(b) {
		t.Errorf("structured = %s, want %s", sc, want)
	}
	mustRefuse(t, "read_media_file over the media bound", call(t, cs, "read_media_file", map[string]any{"path": "big.bin"}), stet.KindTooLarge)
}

// TestRefTreeBounded: directory_tree is bounded like list (entries and
// bytes): a larger tree is cut, stays valid JSON, and its result says it
// was cut and how to see the rest.
func TestRefTreeBounded(t *testing.T) {
	files := map[string]string{"small/a.txt": "a\n"}
	for i := range 1200 {
		files[fmt.Sprintf("many/%04d.txt", i)] = ""
	}
	long := strings.Repeat("n", 240)
	for i := range 1000 {
		files[fmt.Sprintf("wide/%s%04d", long, i)] = ""
	}
	f := newFixture(t, files, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{Profile: ProfileReference}), nil, nil)
	for _, dir := range []string{"many", "wide"} {
		r := mustOK(t, "directory_tree "+dir, call(t, cs, "directory_tree", map[string]any{"path": dir}))
		content, _ := r.Structured["content"].(string)
		var tree []map[string]any
		if err := json.Unmarshal([]byte(content), &tree); err != nil {
			t.Fatalf("%s: structured content is not JSON: %v", dir, err)
		}
		if len(tree) == 0 || len(tree) > stet.DefaultListLimit || len(content) > stet.DefaultMaxReadBytes {
			t.Errorf("%s: %d entries, %d bytes: over the bounds", dir, len(tree), len(content))
		}
		note, _ := r.Structured["note"].(string)
		if r.Structured["truncated"] != true || !strings.Contains(note, "subdirectory") || !strings.Contains(r.Text, note) {
			t.Errorf("%s: the cut is not said: truncated=%v note=%q", dir, r.Structured["truncated"], note)
		}
	}
	r := mustOK(t, "directory_tree small", call(t, cs, "directory_tree", map[string]any{"path": "small"}))
	if _, ok := r.Structured["truncated"]; ok || r.Text != "[\n  {\n    \"name\": \"a.txt\",\n    \"type\": \"file\"\n  }\n]" {
		t.Errorf("a small tree: %q %v", r.Text, r.Structured)
	}
}

// TestRefRefusalsJournaled: the reference profile's refusals are journaled
// for review as the native tools' are, under the name the client called.
func TestRefRefusalsJournaled(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{Profile: ProfileReference}), nil, nil)
	mustRefuse(t, "edit unread", call(t, cs, "edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "a", "newText": "b"}}}), stet.KindNotRead)
	mustRefuse(t, "bad argument", call(t, cs, "list_directory", map[string]any{"path": ".", "depth": 2}), stet.KindInvalid)
	mustRefuse(t, "read missing", call(t, cs, "read_text_file", map[string]any{"path": "missing.txt"}), stet.KindNotFound)
	groups, err := f.ws.Refusals(stet.RefusalQuery{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, g := range groups {
		for _, r := range g.Refusals {
			got[g.Kind+" "+r.Tool]++
		}
	}
	for _, want := range []string{"not_read edit_file", "invalid list_directory", "not_found read"} {
		if got[want] != 1 {
			t.Errorf("journal refusals %v: want one %q", got, want)
		}
	}
	if len(got) != 3 {
		t.Errorf("journal refusals %v: want three", got)
	}
}

// TestHTTPBeforeInitialize: over HTTP, a request that opens a connection
// with tools/list or tools/call instead of initialize gets HTTP 400 and
// the JSON-RPC error -32600, never code 0; initialize is still served.
func TestHTTPBeforeInitialize(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, stet.Options{})
	ts := httptest.NewServer(New(f.ws, Options{Profile: ProfileReference}).Handler(""))
	t.Cleanup(ts.Close)
	for i, body := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","id":"c","method":"tools/call","params":{"name":"read_text_file","arguments":{"path":"a.txt"}}}`,
	} {
		req, _ := http.NewRequest(http.MethodPost, ts.URL+Path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		var m struct {
			ID    json.RawMessage `json:"id"`
			Error *struct {
				Code    int    `json:"code"`
				Message string `json:"message"`
			} `json:"error"`
		}
		if resp.StatusCode != http.StatusBadRequest || json.Unmarshal(b, &m) != nil || m.Error == nil || m.Error.Code != -32600 || !strings.Contains(m.Error.Message, "initialize") {
			t.Errorf("request %d: HTTP %d %s", i, resp.StatusCode, b)
		}
		if want := []string{`1`, `"c"`}[i]; string(m.ID) != want {
			t.Errorf("request %d: id %s, want %s", i, m.ID, want)
		}
	}
	resp, _ := postInit(t, ts.URL+Path, "")
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("initialize after: HTTP %d", resp.StatusCode)
	}
}
