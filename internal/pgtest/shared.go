package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// RequireEnv is the variable that turns a skip for want of PostgreSQL
// into a failure.
const RequireEnv = "STET_REQUIRE_POSTGRES"

var shared struct {
	once sync.Once
	s    *Server
	err  error
}

// Shared returns the test process's cluster, started on first use. Where
// PostgreSQL cannot start, the test is skipped with the reason (failed
// when RequireEnv is 1). The cluster is never stopped by a test: one that
// stops it (Stop) starts it again before it ends.
func Shared(t testing.TB) *Server {
	t.Helper()
	shared.once.Do(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		shared.s, shared.err = Start(ctx)
	})
	if shared.err != nil {
		if os.Getenv(RequireEnv) == "1" || !errors.Is(shared.err, ErrUnavailable) {
			t.Fatalf("PostgreSQL: %v", shared.err)
		}
		t.Skipf("skipped: %v (%s=1 makes this a failure)", shared.err, RequireEnv)
	}
	return shared.s
}

// Cleanup removes the shared cluster; TestMain calls it after the tests.
func Cleanup() {
	if shared.s != nil {
		shared.s.Close()
	}
}

// NewDB creates an empty database for one test, dropped when it ends, and
// returns its name.
func NewDB(t testing.TB) (*Server, string) {
	t.Helper()
	s := Shared(t)
	b := make([]byte, 6)
	rand.Read(b)
	name := "t_" + hex.EncodeToString(b)
	Exec(t, s.URL("postgres", Superuser), "CREATE DATABASE "+name+" TEMPLATE template0")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		if err := s.Start(ctx); err != nil {
			return
		}
		conn, err := pgx.Connect(ctx, s.URL("postgres", Superuser))
		if err == nil {
			conn.Exec(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			conn.Close(ctx)
		}
	})
	return s, name
}

// with runs do on a connection of its own to url (a minute at most),
// failing the test when the connection or do fails.
func with(t testing.TB, url, sql string, do func(ctx context.Context, conn *pgx.Conn) error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	if err := do(ctx, conn); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
}

// Exec runs sql on url, failing the test on an error.
func Exec(t testing.TB, url string, sql string, args ...any) {
	t.Helper()
	with(t, url, sql, func(ctx context.Context, conn *pgx.Conn) error {
		_, err := conn.Exec(ctx, sql, args...)
		return err
	})
}

// ready reports nil once url accepts a connection and a query.
func ready(ctx context.Context, url string) error {
	ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		return err
	}
	defer conn.Close(ctx)
	_, err = conn.Exec(ctx, "SELECT 1")
	return err
}

// OwnTLS starts a cluster of the test's own with TLS (StartTLS), closed
// when the test ends; where PostgreSQL cannot start it skips or fails as
// Shared does.
func OwnTLS(t testing.TB) *Server {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	s, err := StartTLS(ctx)
	if err != nil {
		if os.Getenv(RequireEnv) == "1" || !errors.Is(err, ErrUnavailable) {
			t.Fatalf("PostgreSQL: %v", err)
		}
		t.Skipf("skipped: %v (%s=1 makes this a failure)", err, RequireEnv)
	}
	t.Cleanup(s.Close)
	return s
}

// Count runs a query of one integer (a count) on url, failing the test on
// an error.
func Count(t testing.TB, url, sql string, args ...any) int64 {
	t.Helper()
	var n int64
	with(t, url, sql, func(ctx context.Context, conn *pgx.Conn) error {
		return conn.QueryRow(ctx, sql, args...).Scan(&n)
	})
	return n
}

// Strings runs a query on url and returns the first column of every row
// (of type text), failing the test on an error.
func Strings(t testing.TB, url, sql string, args ...any) []string {
	t.Helper()
	var out []string
	with(t, url, sql, func(ctx context.Context, conn *pgx.Conn) error {
		rows, err := conn.Query(ctx, sql, args...)
		if err != nil {
			return err
		}
		out, err = pgx.CollectRows(rows, pgx.RowTo[string])
		return err
	})
	return out
}
