package ship

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/fleetdb"
	"github.com/stet-dev/stet/internal/pgtest"
	"github.com/stet-dev/stet/journal"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Cleanup()
	os.Exit(code)
}

// fleet is a migrated database with a shipping role per host and a
// reader.
type fleet struct {
	srv   *pgtest.Server
	db    string
	admin string
}

func newFleet(t testing.TB) *fleet {
	t.Helper()
	srv, name := pgtest.NewDB(t)
	f := &fleet{srv: srv, db: name, admin: srv.URL(name, pgtest.Superuser)}
	db, err := fleetdb.Open(context.Background(), f.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, _, err := db.Migrate(context.Background()); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"host_a", "host_b"} {
		pgtest.Exec(t, f.admin, fmt.Sprintf("CREATE ROLE %s_%s LOGIN IN ROLE stet_ship", r, name))
	}
	pgtest.Exec(t, f.admin, fmt.Sprintf("CREATE ROLE reader_%s LOGIN IN ROLE stet_read", name))
	return f
}

func (f *fleet) url(role string) string {
	if role == "" {
		return f.admin
	}
	return f.srv.URL(f.db, role+"_"+f.db)
}

func (f *fleet) open(t testing.TB, role string) *fleetdb.DB {
	t.Helper()
	db, err := fleetdb.Open(context.Background(), f.url(role))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// query returns the first column of every row of sql, as text.
func (f *fleet) query(t *testing.T, sql string, args ...any) []string {
	t.Helper()
	return pgtest.Strings(t, f.admin, sql, args...)
}

// host is one machine: a workspace, its state directory, a session.
type host struct {
	root, state string
	ws          *stet.Workspace
	s           *stet.Session
}

func newHost(t *testing.T, files map[string]string, denyRead ...string) *host {
	t.Helper()
	return newHostWith(t, files, stet.Options{DenyRead: denyRead})
}

// newHostWith is newHost with the workspace's options (State is set).
func newHostWith(t *testing.T, files map[string]string, o stet.Options) *host {
	t.Helper()
	h := &host{root: t.TempDir(), state: t.TempDir()}
	for name, body := range files {
		p := filepath.Join(h.root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	o.State = h.state
	ws, err := stet.Open([]string{h.root}, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	h.ws = ws
	if h.s, err = ws.Session("agent"); err != nil {
		t.Fatal(err)
	}
	return h
}

// reopen opens h's root and state directory again, as a new process.
func reopen(t *testing.T, h *host) *host {
	t.Helper()
	ws, err := stet.Open([]string{h.root}, stet.Options{State: h.state})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	o := &host{root: h.root, state: h.state, ws: ws}
	if o.s, err = ws.Session("agent"); err != nil {
		t.Fatal(err)
	}
	return o
}

// edit reads path and replaces old with new in it.
func (h *host) edit(t *testing.T, path, old, new string) {
	t.Helper()
	ctx := context.Background()
	if _, err := h.s.Read(ctx, stet.ReadArgs{Path: path}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.Edit(ctx, stet.EditArgs{Path: path, OldString: &old, NewString: &new}); err != nil {
		t.Fatal(err)
	}
}

// write creates path (its directory listed first).
func (h *host) write(t *testing.T, path, content string) {
	t.Helper()
	ctx := context.Background()
	if _, err := h.s.List(ctx, stet.ListArgs{}); err != nil {
		t.Fatal(err)
	}
	if _, err := h.s.Write(ctx, stet.WriteArgs{Path: path, Content: content}); err != nil {
		t.Fatal(err)
	}
}

// journal opens the host's state directory as a shipper does.
func (h *host) journal(t *testing.T) *journal.Journal {
	t.Helper()
	j, err := journal.Open(h.state, journal.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { j.Close() })
	return j
}

// localLines returns the host's journal lines.
func (h *host) localLines(t *testing.T) []string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(h.state, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
}

// sameLines checks that the database holds exactly the host's lines, once
// each, in order.
func sameLines(t *testing.T, f *fleet, h *host, hostName string) {
	t.Helper()
	got := f.query(t, `SELECT coalesce(convert_from(r.line, 'UTF8'), '(redacted)') FROM stet.records r JOIN stet.journals j ON j.id = r.journal
		WHERE j.host = $1 AND j.state_dir = $2 ORDER BY r.generation, r.seq`, hostName, h.state)
	want := h.localLines(t)
	if len(got) != len(want) {
		t.Fatalf("%s: the database holds %d lines, the journal %d", hostName, len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("%s: line %d differs:\n db: %.200s\nhas: %.200s", hostName, i+1, got[i], want[i])
		}
	}
}
