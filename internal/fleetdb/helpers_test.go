package fleetdb

import (
	"context"
	"fmt"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/internal/pgtest"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Cleanup()
	os.Exit(code)
}

// fleet is a fresh database with stet's schema and login roles for two
// hosts and a reader.
type fleet struct {
	srv   *pgtest.Server
	db    string
	admin string // the superuser's URL
	roles map[string]string
}

// url is the connection URL of role (a key of roles, or the superuser).
func (f *fleet) url(role string) string {
	if r, ok := f.roles[role]; ok {
		return f.srv.URL(f.db, r)
	}
	return f.admin
}

func newFleet(t *testing.T, version int) *fleet {
	t.Helper()
	srv, name := pgtest.NewDB(t)
	f := &fleet{srv: srv, db: name, admin: srv.URL(name, pgtest.Superuser), roles: map[string]string{}}
	ctx := context.Background()
	db, err := Open(ctx, f.admin)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if _, _, err := db.MigrateTo(ctx, version); err != nil {
		t.Fatal(err)
	}
	for _, r := range []string{"host_a", "host_b", "reader"} {
		role := r + "_" + name
		group := "stet_ship"
		if r == "reader" {
			group = "stet_read"
		}
		pgtest.Exec(t, f.admin, fmt.Sprintf("CREATE ROLE %s LOGIN IN ROLE %s", role, group))
		f.roles[r] = role
	}
	return f
}

func openDB(t *testing.T, url string) *DB {
	t.Helper()
	db, err := Open(context.Background(), url)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(db.Close)
	return db
}

// journalLines appends n receipts (and a refusal every fourth) to a new
// local journal and returns its lines as rows.
func journalLines(t *testing.T, session string, n int) []Row {
	t.Helper()
	j, err := journal.Open(t.TempDir(), journal.Options{NoSync: true, Now: func() time.Time { return time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC) }})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	for i := range n {
		p := fmt.Sprintf("src/f%d.go", i%3)
		rec, err := record(history.TypeReceipt, session, p, history.Receipt{Receipt: receipt.Receipt{
			ID: fmt.Sprintf("r_%s_%d", session, i), Session: session, Tool: "edit", Path: p, Verified: true,
			Before: &receipt.State{Version: "sha256:" + strings.Repeat("a", 64), Bytes: 1, Lines: 1},
			After:  &receipt.State{Version: "sha256:" + strings.Repeat("b", 64), Bytes: 2, Lines: 1}}, Old: []string{"x"}})
		if err != nil {
			t.Fatal(err)
		}
		recs := []journal.Record{rec}
		if i%4 == 3 {
			ref, _ := record(history.TypeRefusal, session, p, history.Refusal{Kind: "not_read", Tool: "edit", Path: p, Message: "refused"})
			recs = append(recs, ref)
		}
		if _, err := j.AppendLazy(recs...); err != nil {
			t.Fatal(err)
		}
	}
	v, err := j.View()
	if err != nil {
		t.Fatal(err)
	}
	var rows []Row
	err = v.LinesAfter(0, func(l journal.Line) error {
		r, err := RowOf(l)
		rows = append(rows, r)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func count(t *testing.T, url, sql string, args ...any) int64 {
	t.Helper()
	return pgtest.Count(t, url, sql, args...)
}

// record builds a journal record with payload as its data.
func record(typ, session, path string, payload any) (journal.Record, error) {
	b, err := history.Encode(payload)
	return journal.Record{Type: typ, Session: session, Path: path, Data: b}, err
}
