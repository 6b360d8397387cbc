package mcpserver

import (
	"context"
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
)

var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==")

// rawCall returns the whole tools/call result, indented, for a golden file.
func rawCall(t *testing.T, f *fixture, cs *mcp.ClientSession, name string, args any) (*mcp.CallToolResult, []byte) {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return res, f.normalize(indent(t, res))
}

// TestMediaRead pins a read of an image: image content with the base64
// bytes and the sniffed MIME type, beside the text and the structured
// result (which never holds the bytes).
func TestMediaRead(t *testing.T) {
	eachTransport(t, func(t *testing.T, connect connectFunc) {
		f := newFixture(t, nil, stet.Options{})
		if err := os.WriteFile(f.path("dot.png"), tinyPNG, 0o644); err != nil {
			t.Fatal(err)
		}
		cs, _ := connect(t, New(f.ws, Options{Version: "test"}), nil, nil)
		res, raw := rawCall(t, f, cs, "read", map[string]any{"path": "dot.png"})
		if len(res.Content) != 2 {
			t.Fatalf("content: %s", raw)
		}
		img, ok := res.Content[1].(*mcp.ImageContent)
		if !ok || img.MIMEType != "image/png" || string(img.Data) != string(tinyPNG) {
			t.Fatalf("image content: %s", raw)
		}
		golden(t, "read_media.json", raw)
		// The read observed the file: it can be deleted.
		mustOK(t, "delete after a media read", call(t, cs, "delete", map[string]any{"path": "dot.png"}))
	})
}

// TestInfoGolden pins an info result.
func TestInfoGolden(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "one\ntwo\n"}, stet.Options{})
	when := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	if err := os.Chtimes(f.path("a.txt"), when, when); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, New(f.ws, Options{Version: "test"}), nil, nil)
	_, raw := rawCall(t, f, cs, "info", map[string]any{"path": "a.txt"})
	golden(t, "info.json", raw)
}

// TestMultiRootServer pins what a model sees of a workspace of two roots:
// instructions naming both, list with no path listing them, roots, and a
// file of the second root read by its relative path.
func TestMultiRootServer(t *testing.T) {
	base := t.TempDir()
	r1, r2 := filepath.Join(base, "one"), filepath.Join(base, "two")
	for _, d := range []string{r1, r2} {
		os.MkdirAll(d, 0o755)
	}
	os.WriteFile(filepath.Join(r1, "a.txt"), []byte("A\n"), 0o644)
	os.WriteFile(filepath.Join(r2, "b.txt"), []byte("B\n"), 0o644)
	state := t.TempDir()
	ws, err := stet.Open([]string{r1, r2}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	f := &fixture{root: base, state: state, ws: ws}
	cs, _ := connect(t, New(ws, Options{Version: "test"}), nil, nil)
	ins := cs.InitializeResult().Instructions
	if !strings.Contains(ins, r1) || !strings.Contains(ins, r2) {
		t.Errorf("instructions do not name both roots:\n%s", ins)
	}
	_, list := rawCall(t, f, cs, "list", map[string]any{"depth": 2})
	golden(t, "list_multi_root.json", list)
	_, roots := rawCall(t, f, cs, "roots", map[string]any{})
	golden(t, "roots.json", roots)
	r := mustOK(t, "read b.txt", call(t, cs, "read", map[string]any{"path": "b.txt"}))
	if !strings.HasPrefix(r.Text, "00001|B") {
		t.Errorf("read b.txt: %s", r.Text)
	}
}

// TestSharedSession: with SharedSession (stet mcp --session NAME) a client
// that opens a connection per call builds up its observations: a file read
// over one connection can be edited over the next.
func TestSharedSession(t *testing.T) {
	for _, shared := range []bool{false, true} {
		f := newFixture(t, map[string]string{"a.txt": "hello\n"}, stet.Options{})
		srv := New(f.ws, Options{Version: "test", Session: "agent", SharedSession: shared})
		cs1, _ := connect(t, srv, nil, nil)
		mustOK(t, "read", call(t, cs1, "read", map[string]any{"path": "a.txt"}))
		cs1.Close()
		cs2, _ := connect(t, srv, nil, nil)
		r := call(t, cs2, "edit", map[string]any{"path": "a.txt", "old_string": "hello", "new_string": "HELLO"})
		switch {
		case shared && r.IsError:
			t.Errorf("shared session: edit over a second connection refused: %s", r.Text)
		case !shared && r.refused() != "not_read":
			t.Errorf("separate sessions: edit over a second connection: %s, want not_read", r.Text)
		}
	}
}
