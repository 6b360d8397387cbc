package fleetdb

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// DB is a connection pool to the database holding stet's schema.
type DB struct {
	pool *pgxpool.Pool
	host string // where it is, for messages (never the password)
}

// UnreachableError is a database that could not be reached or refused the
// connection.
type UnreachableError struct {
	Where string // host and database, without credentials
	Err   error
}

func (e *UnreachableError) Error() string {
	if CertificateRefused(e.Err) {
		return fmt.Sprintf("cannot reach PostgreSQL at %s: its TLS certificate was not accepted (%v): the URL's sslrootcert must name the authority that signed it, and its host a name the certificate holds", e.Where, e.Err)
	}
	return fmt.Sprintf("cannot reach PostgreSQL at %s: %v", e.Where, e.Err)
}

// CertificateRefused reports whether err is a server's TLS certificate
// that did not verify (sslmode=verify-ca or verify-full): a setting to
// fix, not a database that is down for a while.
func CertificateRefused(err error) bool {
	var ve *tls.CertificateVerificationError
	return errors.As(err, &ve)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// Where describes a connection URL for messages: host and database, never
// the user's password.
func Where(connURL string) string {
	cfg, err := pgconn.ParseConfig(connURL)
	if err != nil {
		if u, uerr := url.Parse(connURL); uerr == nil {
			return u.Host + u.Path
		}
		return "(an unparsable URL)"
	}
	return fmt.Sprintf("%s:%d/%s", cfg.Host, cfg.Port, cfg.Database)
}

// Open connects to the database at connURL (a PostgreSQL URL or key=value
// string, TLS as libpq takes it: sslmode=verify-full with sslrootcert).
// It fails with *UnreachableError when the server cannot be reached.
func Open(ctx context.Context, connURL string) (*DB, error) {
	cfg, err := pgxpool.ParseConfig(connURL)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: the database URL: %w", err)
	}
	cfg.MaxConns = max(cfg.MaxConns, 8)
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, &UnreachableError{Where: Where(connURL), Err: err}
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, &UnreachableError{Where: Where(connURL), Err: err}
	}
	return &DB{pool: pool, host: Where(connURL)}, nil
}

// Close closes the pool.
func (db *DB) Close() { db.pool.Close() }

// Where names the database for messages.
func (db *DB) Where() string { return db.host }

// Down reports whether err means the database could not be reached (as
// opposed to a refusal by a reachable one).
func Down(err error) bool {
	var ue *UnreachableError
	if errors.As(err, &ue) {
		return true
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		// Class 08: connection exception; 57P: operator intervention
		// (the server shutting down).
		return strings.HasPrefix(pe.Code, "08") || strings.HasPrefix(pe.Code, "57P")
	}
	return pgconn.SafeToRetry(err) || errors.Is(err, context.DeadlineExceeded) || isNetErr(err)
}

// isNetErr: a connection that broke mid-call.
func isNetErr(err error) bool {
	var ce *pgconn.ConnectError
	if errors.As(err, &ce) {
		return true
	}
	return err != nil && (strings.Contains(err.Error(), "connection refused") ||
		strings.Contains(err.Error(), "broken pipe") || strings.Contains(err.Error(), "unexpected EOF") ||
		strings.Contains(err.Error(), "conn closed") || strings.Contains(err.Error(), "connection reset"))
}

// tx runs fn in a transaction, committed when fn returns nil.
func (db *DB) tx(ctx context.Context, fn func(pgx.Tx) error) error {
	return pgx.BeginFunc(ctx, db.pool, fn)
}
