package review_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/reviewfixture"
	"github.com/stet-dev/stet/review"
)

const token = "0123456789abcdef0123456789abcdef"

// serve plays the fixture and serves it on an httptest server.
func serve(t testing.TB) (*httptest.Server, string, *stet.Workspace) {
	t.Helper()
	root := t.TempDir()
	if err := reviewfixture.Write(root); err != nil {
		t.Fatal(err)
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if err := reviewfixture.Run(context.Background(), ws, root); err != nil {
		t.Fatal(err)
	}
	h, err := review.NewHandler(ws, token)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	return srv, root, ws
}

type call struct {
	method, path, body string
	header             map[string]string
}

func do(t testing.TB, srv *httptest.Server, c call) (int, []byte) {
	t.Helper()
	var body io.Reader
	if c.body != "" {
		body = strings.NewReader(c.body)
	}
	req, err := http.NewRequest(c.method, srv.URL+c.path, body)
	if err != nil {
		t.Fatal(err)
	}
	if c.body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	for k, v := range c.header {
		if k == "Host" {
			req.Host = v
			continue
		}
		req.Header.Set(k, v)
	}
	resp, err := srv.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, b
}

// endpoints lists every route with a request that succeeds with the token.
var endpoints = []call{
	{method: "GET", path: "/"},
	{method: "GET", path: "/app.js"},
	{method: "GET", path: "/app.css"},
	{method: "GET", path: "/api/about"},
	{method: "GET", path: "/api/sessions"},
	{method: "GET", path: "/api/diff?session=agent-a&offset=0"},
	{method: "GET", path: "/api/stands?session=agent-b"},
	{method: "GET", path: "/api/refusals"},
	{method: "GET", path: "/api/history?path=README.md"},
	{method: "GET", path: "/api/search?q=src"},
	{method: "GET", path: "/api/verify"},
	{method: "POST", path: "/api/undo", body: `{"session":"agent-c","dry_run":true}`},
}

func withToken(p, tok string) string {
	sep := "?"
	if strings.Contains(p, "?") {
		sep = "&"
	}
	return p + sep + "t=" + tok
}

func TestEveryEndpointGuarded(t *testing.T) {
	srv, _, _ := serve(t)
	host := strings.TrimPrefix(srv.URL, "http://")
	for _, ep := range endpoints {
		t.Run(ep.method+ep.path, func(t *testing.T) {
			good := ep
			good.path = withToken(ep.path, token)
			if code, b := do(t, srv, good); code != 200 {
				t.Fatalf("with the token: %d %s", code, b)
			}
			hdr := ep
			hdr.header = map[string]string{"X-Stet-Token": token, "Origin": srv.URL}
			if code, b := do(t, srv, hdr); code != 200 {
				t.Fatalf("token in the header, own origin: %d %s", code, b)
			}
			cases := []struct {
				name string
				c    call
				want int
			}{
				{"no token", ep, 401},
				{"wrong token", call{ep.method, withToken(ep.path, strings.Repeat("f", 32)), ep.body, nil}, 401},
				{"foreign origin", call{ep.method, good.path, ep.body, map[string]string{"Origin": "http://evil.example"}}, 403},
				{"loopback origin of another port", call{ep.method, good.path, ep.body, map[string]string{"Origin": "http://127.0.0.1:1"}}, 403},
				{"cross-site fetch", call{ep.method, good.path, ep.body, map[string]string{"Sec-Fetch-Site": "cross-site"}}, 403},
				{"rebound host", call{ep.method, good.path, ep.body, map[string]string{"Host": "evil.example:" + strings.Split(host, ":")[1]}}, 403},
			}
			for _, c := range cases {
				if code, b := do(t, srv, c.c); code != c.want {
					t.Errorf("%s: %d %s, want %d", c.name, code, b, c.want)
				}
			}
		})
	}
}

func TestNonLoopbackRefused(t *testing.T) {
	ws, err := stet.Open([]string{t.TempDir()}, stet.Options{State: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	for _, addr := range []string{"0.0.0.0:0", "[::]:0", "192.0.2.1:0", "example.com:0", ":0"} {
		if s, err := review.Listen(ws, addr); err == nil {
			s.Close()
			t.Errorf("Listen(%q) accepted a non-loopback address", addr)
		}
	}
	s, err := review.Listen(ws, "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if !strings.HasPrefix(s.URL(), "http://127.0.0.1:") || !strings.Contains(s.URL(), "/?t=") {
		t.Fatalf("URL %s", s.URL())
	}
	if _, err := review.NewHandler(ws, ""); err == nil {
		t.Fatal("an empty token was accepted")
	}
}

func TestPageSize(t *testing.T) {
	total := 0
	for _, name := range []string{"index.html", "app.js", "app.css"} {
		b, err := os.ReadFile(filepath.Join("page", name))
		if err != nil {
			t.Fatal(err)
		}
		total += len(b)
		if strings.Contains(string(b), "http://") || strings.Contains(string(b), "https://") {
			t.Errorf("%s names a network address", name)
		}
	}
	if total > 100<<10 {
		t.Fatalf("the page is %d bytes, over 100 KB", total)
	}
}

// The page's undo: a session whose file a person edited is refused, the
// file named and nothing changed; another session is previewed, undone,
// and the undo undone by its receipts.
func TestUndoEndpoint(t *testing.T) {
	srv, root, _ := serve(t)
	post := func(body string) (int, map[string]any) {
		code, b := do(t, srv, call{"POST", withToken("/api/undo", token), body, map[string]string{"Origin": srv.URL}})
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return code, m
	}
	code, m := post(`{"session":"agent-b"}`)
	if code != 409 || m["refused"] != "changed" || m["path"] != "README.md" {
		t.Fatalf("agent-b: %d %v", code, m)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "README.md")); string(b) != reviewfixture.HumanREADME {
		t.Fatalf("README.md: %q", b)
	}
	code, m = post(`{"session":"agent-c","dry_run":true}`)
	if code != 200 || len(m["steps"].([]any)) != 2 {
		t.Fatalf("preview: %d %v", code, m)
	}
	code, m = post(`{"session":"agent-c"}`)
	if code != 200 {
		t.Fatalf("undo: %d %v", code, m)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "config.yaml")); string(b) != reviewfixture.Files["config.yaml"] {
		t.Fatalf("config.yaml: %q", b)
	}
	var ids []string
	for _, r := range m["receipts"].([]any) {
		ids = append(ids, fmt.Sprintf("%q", r.(map[string]any)["id"]))
	}
	code, m = post(`{"receipts":[` + strings.Join(ids, ",") + `]}`)
	if code != 200 {
		t.Fatalf("redo: %d %v", code, m)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "config.yaml")); !strings.Contains(string(b), "debug: true") {
		t.Fatalf("config.yaml after redo: %q", b)
	}
	code, b := do(t, srv, call{"POST", withToken("/api/undo", token), `{"session":"agent-c","bogus":1}`, nil})
	if code != 400 {
		t.Fatalf("unknown field: %d %s", code, b)
	}
}

// An undo confirmed from a preview performs exactly the receipts that
// preview showed: a change the session made after the preview is not
// undone unseen; the confirm is refused, nothing moves, and the answer
// carries the new preview, whose confirm then lands.
func TestUndoPerformsWhatItPreviewed(t *testing.T) {
	srv, root, ws := serve(t)
	post := func(body string) (int, map[string]any) {
		code, b := do(t, srv, call{"POST", withToken("/api/undo", token), body, map[string]string{"Origin": srv.URL}})
		var m map[string]any
		if err := json.Unmarshal(b, &m); err != nil {
			t.Fatalf("%s: %v", b, err)
		}
		return code, m
	}
	code, m := post(`{"session":"agent-c","dry_run":true}`)
	if code != 200 || len(m["steps"].([]any)) != 2 {
		t.Fatalf("preview: %d %v", code, m)
	}
	set := m["set"].(string)
	// After the preview, the session changes one more file.
	c, err := ws.Session("agent-c")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.Do(context.Background(), stet.WriteArgs{Path: "docs/later.md", Content: "later\n"}); err != nil {
		t.Fatal(err)
	}
	code, m = post(`{"session":"agent-c","expect":"` + set + `"}`)
	if code != 409 || m["refused"] != "changed" || !strings.Contains(m["message"].(string), "not the ones previewed") {
		t.Fatalf("confirm of a stale preview: %d %v", code, m)
	}
	preview, _ := m["preview"].(map[string]any)
	if preview == nil || len(preview["steps"].([]any)) != 3 || preview["set"] == set {
		t.Fatalf("new preview: %v", m["preview"])
	}
	for name, want := range map[string]string{"docs/later.md": "later\n", "docs/new.md": "# New\n\nwritten by agent-c\n"} {
		if b, err := os.ReadFile(filepath.Join(root, name)); err != nil || string(b) != want {
			t.Fatalf("%s after the refused confirm: %q %v", name, b, err)
		}
	}
	code, m = post(`{"session":"agent-c","expect":"` + preview["set"].(string) + `"}`)
	if code != 200 || len(m["receipts"].([]any)) != 3 {
		t.Fatalf("confirm of the new preview: %d %v", code, m)
	}
	if _, err := os.Stat(filepath.Join(root, "docs/later.md")); !os.IsNotExist(err) {
		t.Fatalf("docs/later.md after the undo: %v", err)
	}
}

// The summary counts sessions, files, changes and what still stands, and
// names what the guards stopped in words; refusals come a page at a time,
// counts first.
func TestSummaryAndRefusalPages(t *testing.T) {
	srv, _, ws := serve(t)
	code, b := do(t, srv, call{"GET", withToken("/api/summary", token), "", nil})
	var sum stet.ReviewSummary
	if err := json.Unmarshal(b, &sum); code != 200 || err != nil {
		t.Fatalf("summary: %d %s", code, b)
	}
	if sum.Sessions != 3 || sum.Changes == 0 || sum.Standing == 0 || sum.Standing >= sum.Changes || sum.Refused == 0 {
		t.Fatalf("summary: %+v", sum)
	}
	words := map[string]string{}
	n := 0
	for _, k := range sum.Kinds {
		words[k.Kind] = k.Words
		n += k.Count
	}
	if n != sum.Refused || words["protected"] != "changes to protected paths" {
		t.Fatalf("summary kinds: %+v", sum.Kinds)
	}
	// Many refusals of one kind: the first page is bounded, the rest is
	// asked for by offset, and the pages add up to the count.
	s, err := ws.Session("flood")
	if err != nil {
		t.Fatal(err)
	}
	for range stet.RefusalPage + 7 {
		if _, err := s.Do(context.Background(), stet.ReadArgs{Path: "../outside.txt"}); err == nil {
			t.Fatal("a read outside the workspace landed")
		}
	}
	get := func(q string) []stet.RefusalGroup {
		code, b := do(t, srv, call{"GET", withToken("/api/refusals?"+q, token), "", nil})
		var g []stet.RefusalGroup
		if err := json.Unmarshal(b, &g); code != 200 || err != nil || len(g) != 1 {
			t.Fatalf("refusals %s: %d %s", q, code, b)
		}
		return g
	}
	first := get("session=flood")[0]
	if first.Count != stet.RefusalPage+7 || len(first.Refusals) != stet.RefusalPage || first.Words != "paths outside the workspace" {
		t.Fatalf("first page: count %d, %d entries, %q", first.Count, len(first.Refusals), first.Words)
	}
	rest := get(fmt.Sprintf("session=flood&kind=outside&offset=%d", stet.RefusalPage))[0]
	if rest.Offset != stet.RefusalPage || len(rest.Refusals) != 7 {
		t.Fatalf("second page: offset %d, %d entries", rest.Offset, len(rest.Refusals))
	}
}

// The page opened from stet review --open's private hand-off file is a
// cross-site top-level navigation: that GET of the page is served (with
// its token); an endpoint or asset asked for cross-site is still refused.
func TestCrossSiteNavigationServesOnlyThePage(t *testing.T) {
	srv, _, _ := serve(t)
	nav := map[string]string{"Sec-Fetch-Site": "cross-site", "Sec-Fetch-Mode": "navigate", "Sec-Fetch-Dest": "document"}
	if code, b := do(t, srv, call{"GET", withToken("/", token), "", nav}); code != 200 {
		t.Fatalf("navigation to the page: %d %s", code, b)
	}
	for _, p := range []string{"/api/sessions", "/app.js"} {
		if code, _ := do(t, srv, call{"GET", withToken(p, token), "", nav}); code != 403 {
			t.Errorf("cross-site %s: %d, want 403", p, code)
		}
	}
	if code, _ := do(t, srv, call{"GET", "/", "", nav}); code != 401 {
		t.Errorf("navigation without the token: %d, want 401", code)
	}
}

// The sessions list comes a page at a time (100), the rest by offset; the
// summary counts them all.
func TestSessionsPaged(t *testing.T) {
	srv, _, ws := serve(t)
	for i := range 105 {
		s, err := ws.Session(fmt.Sprintf("many-%03d", i))
		if err != nil {
			t.Fatal(err)
		}
		s.Do(context.Background(), stet.ReadArgs{Path: "../outside.txt"}) // a refusal makes the session show
	}
	count := func(q string) int {
		code, b := do(t, srv, call{"GET", withToken("/api/sessions"+q, token), "", nil})
		var v []stet.SessionView
		if err := json.Unmarshal(b, &v); code != 200 || err != nil {
			t.Fatalf("sessions%s: %d %s", q, code, b)
		}
		return len(v)
	}
	if n := count(""); n != 100 {
		t.Errorf("first page: %d sessions, want 100", n)
	}
	if n := count("?offset=100"); n != 108-100 {
		t.Errorf("second page: %d sessions, want 8", n)
	}
}
