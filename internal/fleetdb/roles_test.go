package fleetdb

import (
	"context"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"
	"github.com/stet-dev/stet/internal/pgtest"
)

// TestRoles: a shipping role adds to its own journals only, sees no other
// role's, and can neither change nor remove a row; the reader sees all and
// adds nothing. The refusal of another role's insert is row-level
// security's: with it turned off the same insert lands.
func TestRoles(t *testing.T) {
	f := newFleet(t, SchemaVersion)
	ctx := context.Background()
	a := openDB(t, f.url("host_a"))
	ja, err := a.Register(ctx, "laptop-a", "/state", "ws1", []string{"/w"})
	if err != nil {
		t.Fatal(err)
	}
	rows := journalLines(t, "s1", 8)
	if _, err := a.Put(ctx, ja.ID, 0, nil, rows[:6]); err != nil {
		t.Fatal(err)
	}
	before := count(t, f.admin, "SELECT count(*) FROM stet.records")

	b := openDB(t, f.url("host_b"))
	if n := count(t, f.url("host_b"), "SELECT count(*) FROM stet.records"); n != 0 {
		t.Fatalf("host_b sees %d of host_a's rows", n)
	}
	if _, err := b.Put(ctx, ja.ID, 0, nil, rows[6:7]); err == nil || !strings.Contains(err.Error(), "row-level security") {
		t.Fatalf("host_b adding to host_a's journal: %v, want a row-level security refusal", err)
	}

	for _, sql := range []string{
		"UPDATE stet.records SET path = 'x'",
		"DELETE FROM stet.records",
		"UPDATE stet.journals SET host = 'other'",
		"DELETE FROM stet.blobs",
		"TRUNCATE stet.records",
		"DELETE FROM stet.stands",
	} {
		conn, err := pgx.Connect(ctx, f.url("host_a"))
		if err != nil {
			t.Fatal(err)
		}
		_, err = conn.Exec(ctx, sql)
		conn.Close(ctx)
		if err == nil || !strings.Contains(err.Error(), "permission denied") {
			t.Errorf("host_a: %s: %v, want permission denied", sql, err)
		}
	}
	// The owner, too, is refused by the append-only trigger.
	for _, sql := range []string{"UPDATE stet.records SET path = 'x'", "DELETE FROM stet.records", "TRUNCATE stet.records"} {
		conn, _ := pgx.Connect(ctx, f.admin)
		_, err := conn.Exec(ctx, sql)
		conn.Close(ctx)
		if err == nil || !strings.Contains(err.Error(), "append-only") {
			t.Errorf("the owner: %s: %v, want append-only", sql, err)
		}
	}
	if n := count(t, f.admin, "SELECT count(*) FROM stet.records WHERE path = 'x'"); n != 0 || count(t, f.admin, "SELECT count(*) FROM stet.records") != before {
		t.Fatal("rows changed")
	}

	conn, err := pgx.Connect(ctx, f.url("reader"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if _, err := conn.Exec(ctx, "INSERT INTO stet.journals (host, state_dir, workspace, roots) VALUES ('h', '/s', 'w', '{}')"); err == nil {
		t.Error("the reader registered a journal")
	}
	if n := count(t, f.url("reader"), "SELECT count(*) FROM stet.records"); n != before {
		t.Errorf("the reader sees %d rows of %d", n, before)
	}

	// Without row-level security the same insert by host_b lands: the
	// refusal above is the policy's.
	pgtest.Exec(t, f.admin, "ALTER TABLE stet.records DISABLE ROW LEVEL SECURITY")
	if _, err := b.Put(ctx, ja.ID, 0, nil, rows[6:7]); err != nil {
		t.Fatalf("without row-level security: %v", err)
	}
}
