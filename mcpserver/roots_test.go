//lint:file-ignore SA1019 client roots (deprecated by MCP 2026-07-28, kept for its deprecation window) are how clients older than that revision bound the workspace

package mcpserver

import (
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
)

func fileURI(p string) string {
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(p)}).String()
}

// TestRootsNarrow: roots a client announces narrow the workspace (paths
// outside them are refused as outside), follow roots/list_changed, and
// never widen it.
func TestRootsNarrow(t *testing.T) { eachTransport(t, testRootsNarrow) }

func testRootsNarrow(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"sub/a.txt": "a\n", "b.txt": "b\n", "sub/c.txt": "c\n"}, stet.Options{})
	outside := t.TempDir()
	srv := New(f.ws, Options{})
	cs, client := connect(t, srv, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	client.AddRoots(&mcp.Root{URI: fileURI(f.path("sub"))}, &mcp.Root{URI: fileURI(outside)}, &mcp.Root{URI: "https://example.com/x"})

	mustOK(t, "read inside a root", call(t, cs, "read", map[string]any{"path": "sub/a.txt"}))
	mustOK(t, "read inside a root by absolute path", call(t, cs, "read", map[string]any{"path": f.path("sub/c.txt")}))
	r := mustRefuse(t, "read outside the roots", call(t, cs, "read", map[string]any{"path": "b.txt"}), stet.KindOutside)
	if !strings.Contains(r.Text, "roots") {
		t.Errorf("outside text = %q", r.Text)
	}
	mustRefuse(t, "list of the workspace root", call(t, cs, "list", map[string]any{}), stet.KindOutside)
	mustRefuse(t, "grep of the workspace root", call(t, cs, "grep", map[string]any{"pattern": "b"}), stet.KindOutside)
	mustOK(t, "list inside", call(t, cs, "list", map[string]any{"path": "sub"}))
	mustRefuse(t, "move out of the roots", call(t, cs, "move", map[string]any{"from": "sub/a.txt", "to": "a.txt"}), stet.KindOutside)
	mustRefuse(t, "patch outside the roots", call(t, cs, "patch", map[string]any{
		"patch": "*** Begin Patch\n*** Add File: new.txt\n+x\n*** End Patch\n"}), stet.KindOutside)
	// A root outside the workspace does not widen it.
	mustRefuse(t, "read in an announced root outside the workspace",
		call(t, cs, "read", map[string]any{"path": filepath.Join(outside, "x.txt")}), stet.KindOutside)

	// The client changes its roots: the next call sees the new set.
	client.RemoveRoots(fileURI(f.path("sub")))
	client.AddRoots(&mcp.Root{URI: fileURI(f.root)})
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := call(t, cs, "read", map[string]any{"path": "b.txt"})
		if !r.IsError {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after roots/list_changed, b.txt is still refused: %s", r.Text)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestRootsAbsent: a client without the roots capability is not narrowed.
func TestRootsAbsent(t *testing.T) { eachTransport(t, testRootsAbsent) }

func testRootsAbsent(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"b.txt": "b\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{}), &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	mustOK(t, "read", call(t, cs, "read", map[string]any{"path": "b.txt"}))
}

// TestRootsResolved: narrowing holds on resolved paths: a symlink inside an
// announced root that leads to a part of the workspace the client did not
// announce is refused for reads and changes, a file or directory alike.
func TestRootsResolved(t *testing.T) { eachTransport(t, testRootsResolved) }

func testRootsResolved(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"sub/a.txt": "a\n", "other/secret.txt": "secret\n"}, stet.Options{})
	if err := os.Symlink(filepath.Join("..", "other", "secret.txt"), f.path("sub/link.txt")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := os.Symlink(filepath.Join("..", "other"), f.path("sub/dir")); err != nil {
		t.Fatal(err)
	}
	srv := New(f.ws, Options{})
	cs, client := connect(t, srv, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	client.AddRoots(&mcp.Root{URI: fileURI(f.path("sub"))})

	mustOK(t, "read inside", call(t, cs, "read", map[string]any{"path": "sub/a.txt"}))
	for _, p := range []string{"sub/link.txt", "sub/dir/secret.txt"} {
		r := mustRefuse(t, "read "+p, call(t, cs, "read", map[string]any{"path": p}), stet.KindOutside)
		if !strings.Contains(r.Text, f.path("sub")) {
			t.Errorf("read %s: the refusal does not name the announced root: %q", p, r.Text)
		}
		mustRefuse(t, "edit "+p, call(t, cs, "edit", map[string]any{"path": p, "old_string": "secret", "new_string": "x"}), stet.KindOutside)
		mustRefuse(t, "write "+p, call(t, cs, "write", map[string]any{"path": p, "content": "x", "overwrite": true}), stet.KindOutside)
		mustRefuse(t, "move from "+p, call(t, cs, "move", map[string]any{"from": p, "to": "sub/b.txt"}), stet.KindOutside)
		mustRefuse(t, "patch "+p, call(t, cs, "patch", map[string]any{
			"patch": "*** Begin Patch\n*** Delete File: " + p + "\n*** End Patch\n"}), stet.KindOutside)
	}
	mustRefuse(t, "list through a link", call(t, cs, "list", map[string]any{"path": "sub/dir"}), stet.KindOutside)
	mustRefuse(t, "grep through a link", call(t, cs, "grep", map[string]any{"pattern": "secret", "path": "sub/dir"}), stet.KindOutside)
	mustRefuse(t, "find through a link", call(t, cs, "find", map[string]any{"pattern": "*", "path": "sub/dir"}), stet.KindOutside)
	mustRefuse(t, "move to a link", call(t, cs, "move", map[string]any{"from": "sub/a.txt", "to": "sub/dir/a.txt"}), stet.KindOutside)
	if got := f.read(t, "other/secret.txt"); got != "secret\n" {
		t.Fatalf("other/secret.txt changed: %q", got)
	}
}
