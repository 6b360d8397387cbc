package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/internal/pgtest"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
)

// fleetDB is a database migrated by stet sync --migrate, with login roles
// for two hosts and a reader made as the README says.
type fleetDB struct {
	srv         *pgtest.Server
	name, admin string
}

func newFleetDB(t *testing.T, w *ws) *fleetDB {
	t.Helper()
	srv, name := pgtest.NewDB(t)
	f := &fleetDB{srv: srv, name: name, admin: srv.URL(name, pgtest.Superuser)}
	r := w.ok("sync", "--migrate", "--to", f.admin)
	if !strings.Contains(r.stdout, "migrated from stet schema version 0 to") {
		t.Fatalf("stet sync --migrate said: %s", r.stdout)
	}
	if r := w.ok("sync", "--migrate", "--to", f.admin); !strings.Contains(r.stdout, "nothing to do") {
		t.Fatalf("a second migrate said: %s", r.stdout)
	}
	for _, role := range []string{"host_a", "host_b"} {
		pgtest.Exec(t, f.admin, fmt.Sprintf("CREATE ROLE %s_%s LOGIN IN ROLE stet_ship", role, name))
	}
	pgtest.Exec(t, f.admin, fmt.Sprintf("CREATE ROLE reader_%s LOGIN IN ROLE stet_read", name))
	return f
}

func (f *fleetDB) url(role string) string { return f.srv.URL(f.name, role+"_"+f.name) }

func (f *fleetDB) count(t *testing.T, sql string) int64 {
	t.Helper()
	return pgtest.Count(t, f.admin, sql)
}

// TestFleetCommands: two hosts' journals shipped with stet sync, checked
// with stet verify --all --journal (a row changed behind the triggers is
// named, exit 1), and served by stet review --journal: sessions of both
// hosts, a diff, whether a change stands, and the undo command to run on
// the host.
func TestFleetCommands(t *testing.T) {
	a := newWS(t, map[string]string{"main.go": "package main\n\nfunc main() {}\n"})
	b := newWS(t, map[string]string{"notes.md": "# notes\n"})
	f := newFleetDB(t, a)
	a.ok("read", "main.go")
	a.ok("edit", "--old-string", "func main() {}", "--new-string", "func main() { println(1) }", "main.go")
	b.ok("read", "notes.md")
	b.ok("edit", "--old-string", "# notes", "--new-string", "# notes\n\nshipped", "notes.md")

	r := a.ok("sync", "--to", f.url("host_a"), "--host", "laptop-a")
	if !strings.Contains(r.stdout, "new lines to") {
		t.Fatalf("stet sync said: %s", r.stdout)
	}
	b.ok("sync", "--to", f.url("host_b"), "--host", "ci-runner-7")
	if r := a.ok("sync", "--to", f.url("host_a"), "--host", "laptop-a"); !strings.Contains(r.stdout, "0 new lines") {
		t.Fatalf("a second sync said: %s", r.stdout)
	}
	if r := a.run("", "sync", "--to", f.url("reader"), "--host", "laptop-a"); r.code == 0 || !strings.Contains(r.stderr, "permission denied") {
		t.Fatalf("the reader role shipping: exit %d, %s", r.code, r.stderr)
	}

	r = a.ok("verify", "--all", "--journal", f.url("reader"))
	if !strings.Contains(r.stdout, "2 journals") || !strings.HasSuffix(strings.TrimSpace(r.stdout), ": ok") {
		t.Fatalf("verify said: %s", r.stdout)
	}

	srv := startReview(t, a, f.url("reader"))
	var sessions []map[string]any
	srv.get(t, "sessions", nil, &sessions)
	hosts := map[string]string{}
	for _, s := range sessions {
		hosts[s["host"].(string)] = s["id"].(string)
	}
	if hosts["laptop-a"] == "" || hosts["ci-runner-7"] == "" {
		t.Fatalf("sessions: %v", sessions)
	}
	var filtered []map[string]any
	srv.get(t, "sessions", url.Values{"q": {"ci-runner"}}, &filtered)
	if len(filtered) != 1 || filtered[0]["host"] != "ci-runner-7" {
		t.Fatalf("sessions filtered by host: %v", filtered)
	}
	var page struct {
		Files []struct {
			Path, Diff string
			Exact      bool
			Added      int
		}
	}
	srv.get(t, "diff", url.Values{"session": {hosts["laptop-a"]}, "limit": {"5"}}, &page)
	if len(page.Files) != 1 || !page.Files[0].Exact || !strings.Contains(page.Files[0].Diff, "+func main() { println(1) }") {
		t.Fatalf("diff: %+v", page)
	}
	var stands []map[string]any
	srv.get(t, "stands", url.Values{"session": {hosts["laptop-a"]}}, &stands)
	if len(stands) != 1 || stands[0]["state"] != "stands" {
		t.Fatalf("stands: %v", stands)
	}
	var undo struct {
		Command struct{ Host, Command string }
	}
	srv.post(t, "undo", map[string]any{"session": hosts["laptop-a"], "dry_run": true}, &undo)
	if undo.Command.Host != "laptop-a" || !strings.Contains(undo.Command.Command, "--state "+a.state) || !strings.Contains(undo.Command.Command, "undo --session default") {
		t.Fatalf("undo: %+v", undo)
	}
	// The command runs there as given.
	cmdLine := strings.Split(undo.Command.Command, "\n")[1]
	out, err := exec.Command("sh", "-c", strings.Replace(cmdLine, "stet ", bin+" ", 1)).CombinedOutput()
	if err != nil || a.get("main.go") != "package main\n\nfunc main() {}\n" {
		t.Fatalf("running the page's undo command: %v\n%s\nmain.go: %q", err, out, a.get("main.go"))
	}

	pgtest.Exec(t, f.admin, "SET session_replication_role = replica; UPDATE stet.records SET session = 'someone-else' WHERE seq = 2 AND journal = (SELECT min(journal) FROM stet.records)")
	r = a.run("", "verify", "--all", "--journal", f.url("reader"))
	if r.code != 1 || !strings.Contains(r.stdout, "seq 2: changed row: its session") {
		t.Fatalf("verify after a row changed: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// review is a running stet review --journal.
type reviewProc struct {
	base, token string
}

func startReview(t *testing.T, w *ws, dbURL string) *reviewProc {
	t.Helper()
	cmd := exec.Command(bin, "review", "--journal", dbURL, "--addr", "127.0.0.1:0")
	cmd.Dir = w.root
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatal(err)
	}
	i := strings.Index(line, "http://")
	u, err := url.Parse(strings.Fields(line[i:])[0])
	if err != nil {
		t.Fatal(err)
	}
	return &reviewProc{base: "http://" + u.Host + "/api/", token: u.Query().Get("t")}
}

func (p *reviewProc) get(t *testing.T, path string, q url.Values, v any) {
	t.Helper()
	req, _ := http.NewRequest("GET", p.base+path+"?"+q.Encode(), nil)
	p.do(t, req, v)
}

func (p *reviewProc) post(t *testing.T, path string, body any, v any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, _ := http.NewRequest("POST", p.base+path, strings.NewReader(string(b)))
	req.Header.Set("Content-Type", "application/json")
	p.do(t, req, v)
}

func (p *reviewProc) do(t *testing.T, req *http.Request, v any) {
	t.Helper()
	req.Header.Set("X-Stet-Token", p.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != 200 {
		t.Fatalf("%s %s: %d %s", req.Method, req.URL.Path, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v: %s", req.URL.Path, err, b)
	}
}

// TestSyncKilled: stet sync killed with SIGKILL in the middle of a large
// journal leaves a prefix of the chain in the database; the next sync
// sends the rest; every line is there once and the chains verify.
func TestSyncKilled(t *testing.T) {
	w := newWS(t, nil)
	f := newFleetDB(t, w)
	j, err := journal.Open(w.state, journal.Options{NoSync: true})
	if err != nil {
		t.Fatal(err)
	}
	const n = 30000
	var recs []journal.Record
	for i := range n {
		p := fmt.Sprintf("src/f%d.go", i%50)
		d := history.Receipt{Receipt: receipt.Receipt{ID: fmt.Sprintf("r_%d", i), Session: "s", Tool: "write", Path: p, Verified: true,
			Before: &receipt.State{Version: "sha256:" + strings.Repeat("a", 64)}, After: &receipt.State{Version: "sha256:" + strings.Repeat("b", 64)}}}
		if i%20 == 0 {
			if d.Pre, err = j.Put([]byte(fmt.Sprintf("saved bytes %d\n%s", i, strings.Repeat("x", 2048)))); err != nil {
				t.Fatal(err)
			}
		}
		data, _ := history.Encode(d)
		recs = append(recs, journal.Record{Type: history.TypeReceipt, Session: "s", Path: "0:" + p, Data: data})
		if len(recs) == 1000 {
			if _, err := j.AppendLazy(recs...); err != nil {
				t.Fatal(err)
			}
			recs = recs[:0]
		}
	}
	j.Close()

	cmd := exec.Command(bin, "--state", w.state, "sync", "--to", f.url("host_a"), "--host", "h")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(60 * time.Second)
	var got int64
	for {
		got = f.count(t, "SELECT count(*) FROM stet.records")
		if got > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(2 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	got = f.count(t, "SELECT count(*) FROM stet.records")
	if got == 0 || got >= n {
		t.Skipf("the kill landed outside the sync (%d of %d lines shipped); nothing to resume", got, n)
	}
	if max := f.count(t, "SELECT max(seq) FROM stet.records"); max != got {
		t.Fatalf("after the kill: %d lines up to seq %d: not a prefix", got, max)
	}
	r := w.ok("--state", w.state, "sync", "--to", f.url("host_a"), "--host", "h")
	if !strings.Contains(r.stdout, fmt.Sprintf("%d new lines", n-got)) {
		t.Fatalf("the resumed sync said: %s (killed after %d of %d)", r.stdout, got, n)
	}
	if c, s := f.count(t, "SELECT count(*) FROM stet.records"), f.count(t, "SELECT count(DISTINCT seq) FROM stet.records"); c != n || s != n {
		t.Fatalf("%d rows, %d distinct seqs, want %d", c, s, n)
	}
	if c := f.count(t, "SELECT count(*) FROM stet.blobs"); c != n/20 {
		t.Fatalf("%d blobs, want %d", c, n/20)
	}
	if r := w.ok("verify", "--all", "--journal", f.url("reader")); !strings.Contains(r.stdout, ": ok") {
		t.Fatalf("verify: %s", r.stdout)
	}
	t.Logf("killed after %d of %d lines; resumed", got, n)
}

// TestMCPSync: stet mcp --sync ships what is changed while it serves
// (here by a CLI call beside it) without a sync command.
func TestMCPSync(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\n"})
	f := newFleetDB(t, w)
	cmd := exec.Command(bin, "mcp", "--root", w.root, "--state", w.state, "--sync", f.url("host_a"))
	cmd.Env = append(os.Environ(), "STET_HOST=served-host")
	stdin, _ := cmd.StdinPipe()
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { stdin.Close(); cmd.Process.Kill(); cmd.Wait() }()
	w.ok("read", "a.txt")
	w.ok("edit", "--old-string", "one", "--new-string", "two", "a.txt")
	deadline := time.Now().Add(30 * time.Second)
	for f.count(t, "SELECT count(*) FROM stet.records r JOIN stet.journals j ON j.id = r.journal WHERE j.host = 'served-host' AND r.type = 'receipt'") != 1 {
		if time.Now().After(deadline) {
			t.Fatalf("the server shipped nothing in 30 s; stderr:\n%s", stderr.String())
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHookSync: stet hook --sync answers its client and ships the change
// it recorded from a background stet sync, not before answering.
func TestHookSync(t *testing.T) {
	root, state := hookTree(t)
	f := newFleetDB(t, newWS(t, nil))
	for _, name := range []string{"codex/PreToolUse-apply_patch.json", "codex/PostToolUse-apply_patch.json"} {
		cmd := exec.Command(bin, "hook", "codex", "--root", root, "--state", state, "--sync", f.url("host_a"))
		cmd.Env = append(os.Environ(), "STET_HOST=hooked-host")
		cmd.Stdin = strings.NewReader(fixture(t, name, root))
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		if strings.HasPrefix(name, "codex/Pre") {
			// What the fixture's patch does, as Codex would after the hook.
			os.WriteFile(root+"/src/a.txt", []byte("ALPHA\nbeta\ngamma\n"), 0o644)
		}
	}
	deadline := time.Now().Add(30 * time.Second)
	for f.count(t, "SELECT count(*) FROM stet.records r JOIN stet.journals j ON j.id = r.journal WHERE j.host = 'hooked-host' AND r.type = 'receipt'") != 1 {
		if time.Now().After(deadline) {
			t.Fatal("the hook's change was not shipped in 30 s")
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestHookSyncFailureReported: a background sync a hook started that
// fails has no one to tell; its error goes to sync.log in the state
// directory and the next hook says it on standard error, while answering
// its client as ever. Each sync's log is made new, so a sync that went
// well leaves nothing to say, and a sync.log turned into a link (here to
// the journal) is replaced, never written through.
func TestHookSyncFailureReported(t *testing.T) {
	root, state := hookTree(t)
	event := "codex/PreToolUse-apply_patch.json"
	hookRun := func(url string) (stdout, stderr string) {
		t.Helper()
		cmd := exec.Command(bin, "hook", "codex", "--root", root, "--state", state, "--sync", url)
		cmd.Env = append(os.Environ(), "STET_HOST=hooked-host")
		cmd.Stdin = strings.NewReader(fixture(t, event, root))
		var o, e strings.Builder
		cmd.Stdout, cmd.Stderr = &o, &e
		if err := cmd.Run(); err != nil {
			t.Fatalf("hook: %v\n%s%s", err, o.String(), e.String())
		}
		return o.String(), e.String()
	}
	logPath := filepath.Join(state, "sync.log")
	waitLog := func() {
		t.Helper()
		deadline := time.Now().Add(30 * time.Second)
		for {
			b, _ := os.ReadFile(logPath)
			if strings.Contains(string(b), "cannot reach PostgreSQL") {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("sync.log after 30 s: %q, want the sync's error", b)
			}
			time.Sleep(50 * time.Millisecond)
		}
	}
	// Port 1 of the loopback: nothing listens there.
	down := "postgres://nobody@127.0.0.1:1/none?connect_timeout=5"
	if _, stderr := hookRun(down); strings.Contains(stderr, "failed") {
		t.Fatalf("the first hook reports a failure before any sync ran: %q", stderr)
	}
	waitLog()
	// The change the hook allowed, as Codex makes it, and its report.
	os.WriteFile(filepath.Join(root, "src", "a.txt"), []byte("ALPHA\nbeta\ngamma\n"), 0o644)
	event = "codex/PostToolUse-apply_patch.json"
	if fi, err := os.Lstat(logPath); err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Fatalf("sync.log: %v, %v; want it readable by its owner only", fi, err)
	}
	_, stderr := hookRun(down)
	if !strings.Contains(stderr, "the last background sync failed") || !strings.Contains(stderr, "cannot reach PostgreSQL") || !strings.Contains(stderr, logPath) {
		t.Fatalf("the next hook said %q, want the failure and where its log is", stderr)
	}
	waitLog()

	// sync.log made a link to the journal: the next sync writes a log of
	// its own beside it, and the journal keeps its bytes.
	journalPath := filepath.Join(state, "journal.jsonl")
	before, err := os.ReadFile(journalPath)
	if err != nil || !bytes.Contains(before, []byte(`"receipt"`)) {
		t.Fatalf("the journal holds no receipt of the change: %v\n%s", err, before)
	}
	os.Remove(logPath)
	if err := os.Symlink("journal.jsonl", logPath); err != nil {
		t.Skip("no symlinks here:", err)
	}
	hookRun(down)
	waitLog()
	if fi, err := os.Lstat(logPath); err != nil || !fi.Mode().IsRegular() {
		t.Fatalf("sync.log after the hook: %v, %v; want a file of its own", fi, err)
	}
	if after, err := os.ReadFile(journalPath); err != nil || !bytes.HasPrefix(after, before) || bytes.Contains(after, []byte("cannot reach")) {
		t.Fatalf("the journal was written through the link: %v\n%s", err, after)
	}

	// A sync that goes well leaves nothing for the next hook to say.
	f := newFleetDB(t, newWS(t, nil))
	hookRun(f.url("host_a")) // says the old failure, then ships
	deadline := time.Now().Add(30 * time.Second)
	for f.count(t, "SELECT count(*) FROM stet.records r JOIN stet.journals j ON j.id = r.journal WHERE j.host = 'hooked-host' AND r.type = 'receipt'") != 1 {
		if time.Now().After(deadline) {
			b, _ := os.ReadFile(logPath)
			t.Fatalf("the change was not shipped in 30 s; sync.log: %q", b)
		}
		time.Sleep(50 * time.Millisecond)
	}
	if _, stderr := hookRun(f.url("host_a")); strings.Contains(stderr, "failed") {
		t.Fatalf("after a sync that went well the hook said %q", stderr)
	}
}

// TestSyncVerifyFull: stet sync ships over TLS with sslmode=verify-full
// (README, "Many machines"), to a server that takes TCP connections only
// over TLS; a root that did not sign the server's certificate, or a name
// the certificate does not hold, is refused before anything is shipped,
// with the reason, and the local journal is untouched.
func TestSyncVerifyFull(t *testing.T) {
	w := newWS(t, map[string]string{"main.go": "package main\n"})
	srv := pgtest.OwnTLS(t)
	pgtest.Exec(t, srv.URL("postgres", pgtest.Superuser), "CREATE DATABASE fleet")
	w.ok("read", "main.go")
	w.ok("edit", "--old-string", "package main", "--new-string", "package main // shipped over TLS", "main.go")

	other := t.TempDir()
	if _, _, err := pgtest.NewCA(other, "other"); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []struct{ host, ca, want string }{
		{"localhost", filepath.Join(other, "other.crt"), "unknown authority"},
		{"127.0.0.1", srv.CA(), "127.0.0.1"},
	} {
		r := w.run("", "sync", "--migrate", "--to", srv.TLSURL(bad.host, "fleet", pgtest.Superuser, bad.ca))
		if r.code == 0 || !strings.Contains(r.stderr, bad.want) || !strings.Contains(r.stderr, "TLS certificate was not accepted") ||
			!strings.Contains(r.stderr, "again with the URL fixed") {
			t.Fatalf("sync to %s with root %s: exit %d, stderr %q", bad.host, bad.ca, r.code, r.stderr)
		}
	}
	admin := srv.URL("fleet", pgtest.Superuser)
	if n := pgtest.Count(t, admin, "SELECT count(*) FROM pg_namespace WHERE nspname = 'stet'"); n != 0 {
		t.Fatalf("a refused connection made the schema (%d)", n)
	}

	good := srv.TLSURL("localhost", "fleet", pgtest.Superuser, srv.CA())
	w.ok("sync", "--migrate", "--to", good)
	r := w.ok("sync", "--to", good)
	if !strings.Contains(r.stdout, "new lines to") {
		t.Fatalf("stet sync over TLS said: %s", r.stdout)
	}
	if n := pgtest.Count(t, admin, "SELECT count(*) FROM stet.records"); n == 0 {
		t.Fatal("nothing shipped over TLS")
	}
	w.ok("verify", "--all", "--journal", good)
}
