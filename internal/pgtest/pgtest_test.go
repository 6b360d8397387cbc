package pgtest

import (
	"context"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

func TestMain(m *testing.M) {
	code := m.Run()
	Cleanup()
	os.Exit(code)
}

// TestStopStart: a database made before Stop holds its rows after Start,
// and the server refuses connections while stopped.
func TestStopStart(t *testing.T) {
	s, db := NewDB(t)
	ctx := context.Background()
	u := s.URL(db, Superuser)
	Exec(t, u, "CREATE TABLE x (v int); INSERT INTO x VALUES (7)")
	s.Stop()
	if _, err := pgx.Connect(ctx, u); err == nil {
		t.Fatal("connected to a stopped server")
	}
	if err := s.Start(ctx); err != nil {
		t.Fatal(err)
	}
	conn, err := pgx.Connect(ctx, u)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	var v int
	if err := conn.QueryRow(ctx, "SELECT v FROM x").Scan(&v); err != nil || v != 7 {
		t.Fatalf("after a restart: %d, %v", v, err)
	}
	var user string
	conn.QueryRow(ctx, "SELECT current_setting('listen_addresses')").Scan(&user)
	if user != "" {
		t.Fatalf("listen_addresses = %q; the test cluster listens on its socket only", user)
	}
}
