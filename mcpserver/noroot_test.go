//lint:file-ignore SA1019 client roots (deprecated by MCP 2026-07-28, kept for its deprecation window) are how clients older than that revision bound the workspace

package mcpserver

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/tools"
)

// noRootServer is a server made with no workspace (stet mcp with no
// --root), its state in a temp directory.
func noRootServer(t *testing.T, o Options) *Server {
	t.Helper()
	o.Workspace.State = t.TempDir()
	srv := New(nil, o)
	t.Cleanup(func() { srv.Close() })
	return srv
}

// TestNoRootNoClientRoots: a server with no root whose client shares none
// serves nothing: every tool is refused as outside, with a message naming
// --root and the configuration to write, and nothing is read.
func TestNoRootNoClientRoots(t *testing.T) { eachTransport(t, testNoRootNoClientRoots) }

func testNoRootNoClientRoots(t *testing.T, connect connectFunc) {
	for _, profile := range Profiles() {
		t.Run(profile, func(t *testing.T) {
			dir := t.TempDir()
			secret := filepath.Join(dir, "secret.txt")
			if err := os.WriteFile(secret, []byte("secret\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			srv := noRootServer(t, Options{Profile: profile})
			cs, _ := connect(t, srv, &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
			names := tools.Names(false)
			if profile == ProfileReference {
				names = refNames(false)
			}
			for _, name := range names {
				r := call(t, cs, name, map[string]any{"path": secret, "paths": []string{secret}, "pattern": "secret", "from": secret, "to": secret + ".2", "source": secret, "destination": secret + ".2"})
				if !r.IsError || r.refused() != stet.KindOutside {
					t.Fatalf("%s: got isError=%v refused=%q (%s), want refusal outside", name, r.IsError, r.refused(), r.Text)
				}
				for _, want := range []string{"--root", `"args": ["mcp", "--root"`, "does not offer roots"} {
					if !strings.Contains(r.Text, want) {
						t.Errorf("%s: the refusal does not say %q: %s", name, want, r.Text)
					}
				}
				if strings.Contains(r.Text, "secret\n") {
					t.Errorf("%s: a file was read: %s", name, r.Text)
				}
			}
			if b, err := os.ReadFile(secret); err != nil || string(b) != "secret\n" {
				t.Fatalf("secret.txt = %q, %v", b, err)
			}
			if _, err := os.Stat(secret + ".2"); err == nil {
				t.Fatal("a move landed")
			}
		})
	}
}

// TestNoRootEmptyClientRoots: a client that offers roots but shares none
// (or none that is a directory) is refused the same way, saying which.
func TestNoRootEmptyClientRoots(t *testing.T) { eachTransport(t, testNoRootEmptyClientRoots) }

func testNoRootEmptyClientRoots(t *testing.T, connect connectFunc) {
	srv := noRootServer(t, Options{})
	cs, client := connect(t, srv, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	r := mustRefuse(t, "roots with no client roots", call(t, cs, "roots", map[string]any{}), stet.KindOutside)
	if !strings.Contains(r.Text, "shares no file:// roots") || !strings.Contains(r.Text, "--root") {
		t.Errorf("refusal = %q", r.Text)
	}
	gone := filepath.Join(t.TempDir(), "gone")
	client.AddRoots(&mcp.Root{URI: fileURI(gone)})
	r = waitFor(t, func() result { return call(t, cs, "roots", map[string]any{}) }, func(r result) bool { return strings.Contains(r.Text, gone) })
	mustRefuse(t, "roots with a missing client root", r, stet.KindOutside)
	if !strings.Contains(r.Text, "none of the client's roots is a directory") {
		t.Errorf("refusal = %q", r.Text)
	}
}

// TestNoRootClientRoots: a server with no root serves the client's roots:
// they are the workspace, roots names them, a path outside them is
// refused, and roots/list_changed is followed.
func TestNoRootClientRoots(t *testing.T) { eachTransport(t, testNoRootClientRoots) }

func testNoRootClientRoots(t *testing.T, connect connectFunc) {
	a, b := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(a, "a.txt"), []byte("a\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(b, "b.txt"), []byte("b\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := noRootServer(t, Options{})
	cs, client := connect(t, srv, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	client.AddRoots(&mcp.Root{URI: fileURI(a)})

	r := mustOK(t, "roots", call(t, cs, "roots", map[string]any{}))
	if got := rootPaths(r); len(got) != 1 || got[0] != a {
		t.Fatalf("roots = %v, want [%s]", got, a)
	}
	mustOK(t, "read in the client's root", call(t, cs, "read", map[string]any{"path": "a.txt"}))
	mustRefuse(t, "read outside the client's root", call(t, cs, "read", map[string]any{"path": filepath.Join(b, "b.txt")}), stet.KindOutside)

	client.RemoveRoots(fileURI(a))
	client.AddRoots(&mcp.Root{URI: fileURI(b)})
	waitFor(t, func() result { return call(t, cs, "roots", map[string]any{}) }, func(r result) bool {
		got := rootPaths(r)
		return len(got) == 1 && got[0] == b
	})
	mustOK(t, "read in the new root", call(t, cs, "read", map[string]any{"path": "b.txt"}))
	mustRefuse(t, "read in the old root", call(t, cs, "read", map[string]any{"path": filepath.Join(a, "a.txt")}), stet.KindOutside)
}

// TestNarrowedRootsNamed: with a root of its own, the server's roots (and
// list_allowed_directories) name the directories actually served once the
// client's roots narrow them; when they do not meet, roots and every call
// say so.
func TestNarrowedRootsNamed(t *testing.T) { eachTransport(t, testNarrowedRootsNamed) }

func testNarrowedRootsNamed(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"sub/a.txt": "a\n", "b.txt": "b\n"}, stet.Options{})
	srv := New(f.ws, Options{})
	cs, client := connect(t, srv, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	client.AddRoots(&mcp.Root{URI: fileURI(f.path("sub"))})
	r := mustOK(t, "roots", call(t, cs, "roots", map[string]any{}))
	if got := rootPaths(r); len(got) != 1 || got[0] != f.path("sub") {
		t.Fatalf("roots = %v, want [%s]", got, f.path("sub"))
	}

	ref := New(f.ws, Options{Profile: ProfileReference})
	rcs, rclient := connect(t, ref, nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	rclient.AddRoots(&mcp.Root{URI: fileURI(f.path("sub"))})
	r = mustOK(t, "list_allowed_directories", call(t, rcs, "list_allowed_directories", map[string]any{}))
	if r.Text != "Allowed directories:\n"+f.path("sub") {
		t.Fatalf("list_allowed_directories = %q", r.Text)
	}

	elsewhere := t.TempDir()
	client.RemoveRoots(fileURI(f.path("sub")))
	client.AddRoots(&mcp.Root{URI: fileURI(elsewhere)})
	r = waitFor(t, func() result { return call(t, cs, "roots", map[string]any{}) }, func(r result) bool { return r.IsError })
	mustRefuse(t, "roots that do not meet", r, stet.KindOutside)
	for _, res := range []result{r, call(t, cs, "read", map[string]any{"path": "b.txt"})} {
		if !strings.Contains(res.Text, "do not meet the server's roots") || !strings.Contains(res.Text, elsewhere) || !strings.Contains(res.Text, f.root) {
			t.Errorf("refusal does not say the roots do not meet: %q", res.Text)
		}
	}
}

// rootPaths are the paths of a roots result.
func rootPaths(r result) []string {
	var out []string
	roots, _ := r.Structured["roots"].([]any)
	for _, x := range roots {
		if m, ok := x.(map[string]any); ok {
			p, _ := m["path"].(string)
			out = append(out, p)
		}
	}
	return out
}

// waitFor calls do until done holds of its result (a client's roots
// change reaches the server as a notification), and returns that result.
func waitFor(t *testing.T, do func() result, done func(result) bool) result {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		r := do()
		if done(r) {
			return r
		}
		if time.Now().After(deadline) {
			t.Fatalf("still waiting; last result: %s", r.Text)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestNoRootHTTPConnections: over HTTP, a server with no root serves each
// connection its own client's roots: one client's roots are never another
// client's workspace, and a client without roots gets nothing.
func TestNoRootHTTPConnections(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	for _, d := range []string{a, b} {
		if err := os.WriteFile(filepath.Join(d, "f.txt"), []byte(d+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	srv := noRootServer(t, Options{})
	ts := httptest.NewServer(srv.Handler(""))
	t.Cleanup(ts.Close)
	dial := func(roots ...string) *mcp.ClientSession {
		var copts *mcp.ClientOptions
		if roots == nil {
			copts = &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{}}
		}
		c := mcp.NewClient(&mcp.Implementation{Name: "c", Version: "0"}, copts)
		for _, r := range roots {
			c.AddRoots(&mcp.Root{URI: fileURI(r)})
		}
		cs, err := c.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: ts.URL + Path, MaxRetries: -1}, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cs.Close() })
		return cs
	}
	one, two, none := dial(a), dial(b), dial()
	for _, c := range []struct {
		cs       *mcp.ClientSession
		own, not string
	}{{one, a, b}, {two, b, a}} {
		r := mustOK(t, "read own root", call(t, c.cs, "read", map[string]any{"path": "f.txt"}))
		if !strings.Contains(r.Text, c.own) {
			t.Errorf("read f.txt = %q, want the file of %s", r.Text, c.own)
		}
		mustRefuse(t, "read the other client's root", call(t, c.cs, "read", map[string]any{"path": filepath.Join(c.not, "f.txt")}), stet.KindOutside)
	}
	mustRefuse(t, "a client without roots", call(t, none, "read", map[string]any{"path": filepath.Join(a, "f.txt")}), stet.KindOutside)
}
