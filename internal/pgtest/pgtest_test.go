package pgtest

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strings"
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

// TestTLS: a StartTLS cluster takes TCP connections only over TLS, and a
// client with sslmode=verify-full accepts it by the name its certificate
// holds with its CA, and refuses it with a CA that did not sign it or by an
// address the certificate does not name (which verify-ca, checking the
// signature only, accepts).
func TestTLS(t *testing.T) {
	s := OwnTLS(t)
	ctx := context.Background()
	verifyCA := strings.Replace(s.TLSURL("127.0.0.1", "postgres", Superuser, s.CA()), "verify-full", "verify-ca", 1)
	for _, u := range []string{s.TLSURL("localhost", "postgres", Superuser, s.CA()), verifyCA} {
		conn, err := pgx.Connect(ctx, u)
		if err != nil {
			t.Fatalf("%s: %v", u, err)
		}
		var ssl bool
		err = conn.QueryRow(ctx, "SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()").Scan(&ssl)
		conn.Close(ctx)
		if err != nil || !ssl {
			t.Fatalf("connection %s: ssl %v, %v", u, ssl, err)
		}
	}
	dir := t.TempDir()
	if _, _, err := NewCA(dir, "other"); err != nil {
		t.Fatal(err)
	}
	if conn, err := pgx.Connect(ctx, s.TLSURL("localhost", "postgres", Superuser, filepath.Join(dir, "other.crt"))); err == nil {
		conn.Close(ctx)
		t.Fatal("verify-full accepted a server certificate its root did not sign")
	}
	if conn, err := pgx.Connect(ctx, s.TLSURL("127.0.0.1", "postgres", Superuser, s.CA())); err == nil {
		conn.Close(ctx)
		t.Fatal("verify-full accepted a certificate that does not name the address connected to")
	}
	plain := "postgres://" + Superuser + "@" + net.JoinHostPort("127.0.0.1", s.port()) + "/postgres?sslmode=disable"
	if conn, err := pgx.Connect(ctx, plain); err == nil {
		conn.Close(ctx)
		t.Fatal("the TLS cluster took a TCP connection without TLS")
	}
}
