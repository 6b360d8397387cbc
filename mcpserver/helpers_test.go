package mcpserver

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// fixture is a workspace in a temp directory.
type fixture struct {
	root  string
	state string
	ws    *stet.Workspace
}

// lockedReader makes a deterministic random source safe for the facade's
// concurrent use.
type lockedReader struct {
	mu sync.Mutex
	r  *rand.ChaCha8
}

func (l *lockedReader) Read(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.r.Read(p)
}

// newFixture writes files (path -> content; a path ending in "/" is a
// directory) under a temp root and opens a workspace over it with a fixed
// clock and deterministic receipt ids.
func newFixture(t testing.TB, files map[string]string, opts stet.Options) *fixture {
	t.Helper()
	root := t.TempDir()
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if strings.HasSuffix(p, "/") {
			if err := os.MkdirAll(full, 0o755); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	state := t.TempDir()
	opts.State = state
	if opts.Now == nil {
		opts.Now = func() time.Time { return time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC) }
	}
	if opts.Rand == nil {
		opts.Rand = &lockedReader{r: rand.NewChaCha8([32]byte{'s', 't', 'e', 't'})}
	}
	ws, err := stet.Open([]string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	return &fixture{root: root, state: state, ws: ws}
}

func (f *fixture) path(p string) string { return filepath.Join(f.root, filepath.FromSlash(p)) }

func (f *fixture) write(t testing.TB, p, content string) {
	t.Helper()
	if err := os.WriteFile(f.path(p), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func (f *fixture) read(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(f.path(p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// connect serves srv over in-memory transports and returns a connected
// client session.
func connect(t *testing.T, srv *Server, copts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions) (*mcp.ClientSession, *mcp.Client) {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.mcp.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, copts)
	cs, err := client.Connect(ctx, ct, sopts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cs.Close()
		ss.Wait()
	})
	return cs, client
}

// result is a tool result as a test reads it.
type result struct {
	Text       string         `json:"text"`
	IsError    bool           `json:"isError"`
	Structured map[string]any `json:"structured,omitempty"`
}

func (r result) refused() string {
	k, _ := r.Structured["refused"].(string)
	return k
}

// callMeta calls a tool with arguments (any JSON-marshalable value, or a
// json.RawMessage) and _meta.
func callMeta(t *testing.T, cs *mcp.ClientSession, name string, args any, meta map[string]any) result {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args, Meta: meta})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	var r result
	r.IsError = res.IsError
	for _, c := range res.Content {
		tc, ok := c.(*mcp.TextContent)
		if !ok {
			t.Fatalf("%s: content %T, want text", name, c)
		}
		r.Text += tc.Text
	}
	if len(res.Content) != 1 {
		t.Errorf("%s: %d content blocks, want 1", name, len(res.Content))
	}
	if res.StructuredContent != nil {
		b, err := json.Marshal(res.StructuredContent)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &r.Structured); err != nil {
			t.Fatalf("%s: structured content is not an object: %s", name, b)
		}
	}
	return r
}

func call(t *testing.T, cs *mcp.ClientSession, name string, args any) result {
	t.Helper()
	return callMeta(t, cs, name, args, nil)
}

// mustOK fails unless r is a successful result.
func mustOK(t *testing.T, what string, r result) result {
	t.Helper()
	if r.IsError {
		t.Fatalf("%s: unexpected error result: %s", what, r.Text)
	}
	return r
}

// mustRefuse fails unless r is a refusal of kind.
func mustRefuse(t *testing.T, what string, r result, kind string) result {
	t.Helper()
	if !r.IsError || r.refused() != kind {
		t.Fatalf("%s: got isError=%v refused=%q (%s), want refusal %q", what, r.IsError, r.refused(), r.Text, kind)
	}
	if msg, _ := r.Structured["message"].(string); !strings.HasPrefix(r.Text, msg) || !strings.HasPrefix(msg, "refused: ") {
		t.Errorf("%s: text %q does not start with the refusal message %q", what, r.Text, msg)
	}
	return r
}

var (
	receiptID = regexp.MustCompile(`r_[0-9a-f]{16}`)
	mcpID     = regexp.MustCompile(`mcp-[0-9a-f]{12}`)
)

// normalize replaces the volatile parts of a golden value.
func (f *fixture) normalize(b []byte) []byte {
	for _, dir := range []string{f.root, f.state} {
		for _, form := range []string{dir, filepath.ToSlash(dir)} {
			if real, err := filepath.EvalSymlinks(form); err == nil && real != form {
				b = bytes.ReplaceAll(b, []byte(real), []byte("$TMP"))
			}
			b = bytes.ReplaceAll(b, []byte(form), []byte("$TMP"))
		}
	}
	b = receiptID.ReplaceAll(b, []byte("r_ID"))
	b = mcpID.ReplaceAll(b, []byte("mcp-ID"))
	return b
}

// golden compares got (indented JSON) with testdata/name, or rewrites it
// with -update.
func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test ./mcpserver -update to create it)", err)
	}
	if diff := cmp.Diff(string(want), string(got)); diff != "" {
		t.Errorf("%s differs (-want +got; go test ./mcpserver -update rewrites it):\n%s", path, diff)
	}
}

func indent(t *testing.T, v any) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// connectFunc connects an SDK client to srv and returns its session.
type connectFunc func(t *testing.T, srv *Server, copts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions) (*mcp.ClientSession, *mcp.Client)

// eachTransport runs test once over go-sdk's in-memory transports (every
// call through go-sdk) and once over the stdio line transport on pipes
// (calls through the fast path), with go-sdk's client both times.
func eachTransport(t *testing.T, test func(t *testing.T, connect connectFunc)) {
	t.Run("memory", func(t *testing.T) { test(t, connect) })
	t.Run("stdio", func(t *testing.T) { test(t, connectStdio) })
}

// connectStdio serves srv over the line transport on pipes, as ServeStdio
// does, and returns a connected client session. It fails the test if no
// call took the fast path.
func connectStdio(t *testing.T, srv *Server, copts *mcp.ClientOptions, sopts *mcp.ClientSessionOptions) (*mcp.ClientSession, *mcp.Client) {
	t.Helper()
	ctx := context.Background()
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	lt := &lineTransport{in: inR, out: outW}
	done := make(chan error, 1)
	go func() {
		done <- srv.run(ctx, lt)
		outW.Close()
	}()
	client := mcp.NewClient(&mcp.Implementation{Name: "test-client", Version: "0"}, copts)
	cs, err := client.Connect(ctx, &mcp.IOTransport{Reader: outR, Writer: inW}, sopts)
	if err != nil {
		t.Fatal(err)
	}
	waitFastPath(lt)
	t.Cleanup(func() {
		cs.Close()
		inW.Close()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			t.Error("the server did not stop after its input closed")
		}
		if lt.conn.served.Load() == 0 {
			t.Error("no call took the stdio fast path")
		}
	})
	return cs, client
}

// waitFastPath waits (10 s at most) until lt's connection is bound to its
// initialized session. A call read before that goes the SDK's way, rightly
// and answered the same; on a busy machine a test's first call can come
// that soon, so a test that checks which path a call takes waits first.
func waitFastPath(lt *lineTransport) {
	for end := time.Now().Add(10 * time.Second); time.Now().Before(end); time.Sleep(time.Millisecond) {
		if c := lt.conn; c != nil {
			if ss := c.ss.Load(); ss != nil && ss.InitializeParams() != nil {
				return
			}
		}
	}
}
