package fleetdb

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

//go:embed schema/*.sql
var schemaFS embed.FS

// migration is one step of the schema: version N is schema/00N_*.sql.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations are the steps in order, read from schema/.
var migrations = func() []migration {
	ents, err := schemaFS.ReadDir("schema")
	if err != nil {
		panic(err)
	}
	var out []migration
	for _, e := range ents {
		v, err := strconv.Atoi(strings.SplitN(e.Name(), "_", 2)[0])
		if err != nil {
			panic("fleetdb: schema file " + e.Name() + " has no version")
		}
		b, err := schemaFS.ReadFile(path.Join("schema", e.Name()))
		if err != nil {
			panic(err)
		}
		out = append(out, migration{version: v, name: e.Name(), sql: string(b)})
	}
	slices.SortFunc(out, func(a, b migration) int { return a.version - b.version })
	for i, m := range out {
		if m.version != i+1 {
			panic(fmt.Sprintf("fleetdb: schema versions must run 1, 2, ...: %s", m.name))
		}
	}
	return out
}()

// SchemaVersion is the version this stet writes and reads.
var SchemaVersion = len(migrations)

// ErrSchema is the cause of an error saying the database's schema is not
// one this stet can use.
var ErrSchema = errors.New("the database's stet schema is not usable by this stet")

// Version returns the schema version the database holds: 0 when it holds
// no stet schema.
func (db *DB) Version(ctx context.Context) (int, error) {
	var exists bool
	if err := db.pool.QueryRow(ctx, "SELECT to_regclass('stet.schema_version') IS NOT NULL").Scan(&exists); err != nil {
		return 0, fmt.Errorf("fleetdb: schema version: %w", err)
	}
	if !exists {
		return 0, nil
	}
	var v int
	if err := db.pool.QueryRow(ctx, "SELECT coalesce(max(version), 0) FROM stet.schema_version").Scan(&v); err != nil {
		return 0, fmt.Errorf("fleetdb: schema version: %w", err)
	}
	return v, nil
}

// CheckVersion refuses a database whose schema is older than this stet's
// (the next step: migrate it) or absent.
func (db *DB) CheckVersion(ctx context.Context) error {
	v, err := db.Version(ctx)
	if err != nil {
		return err
	}
	if v < SchemaVersion {
		what := "holds no stet schema"
		if v > 0 {
			what = fmt.Sprintf("holds stet schema version %d", v)
		}
		return fmt.Errorf("%w: %s %s, this stet needs version %d; run `stet sync --migrate --to URL` once as the database's owner", ErrSchema, db.host, what, SchemaVersion)
	}
	return nil
}

// Migrate brings the schema to SchemaVersion and returns the versions it
// went from and to. Each step runs in its own transaction under an
// advisory lock, so two stets migrating at once apply each step once. It
// needs a role that may create schemas and roles (the database's owner
// with CREATEROLE, or a superuser).
func (db *DB) Migrate(ctx context.Context) (from, to int, err error) {
	return db.MigrateTo(ctx, SchemaVersion)
}

// MigrateTo is Migrate stopping at version target.
func (db *DB) MigrateTo(ctx context.Context, target int) (from, to int, err error) {
	from, err = db.Version(ctx)
	if err != nil {
		return 0, 0, err
	}
	if from > SchemaVersion {
		return from, from, fmt.Errorf("%w: %s holds stet schema version %d, newer than this stet's %d; use a newer stet", ErrSchema, db.host, from, SchemaVersion)
	}
	to = from
	for _, m := range migrations {
		if m.version > target {
			break
		}
		err := db.tx(ctx, func(tx pgx.Tx) error {
			if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock(hashtext('stet schema'))"); err != nil {
				return err
			}
			if _, err := tx.Exec(ctx, "CREATE SCHEMA IF NOT EXISTS stet; CREATE TABLE IF NOT EXISTS stet.schema_version (version int PRIMARY KEY, applied timestamptz NOT NULL DEFAULT now())"); err != nil {
				return err
			}
			var done bool
			if err := tx.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM stet.schema_version WHERE version = $1)", m.version).Scan(&done); err != nil || done {
				return err
			}
			if _, err := tx.Exec(ctx, m.sql); err != nil {
				return err
			}
			_, err := tx.Exec(ctx, "INSERT INTO stet.schema_version (version) VALUES ($1)", m.version)
			return err
		})
		if err != nil {
			var pe *pgconn.PgError
			if errors.As(err, &pe) && (pe.Code == "42501" || pe.Code == "42939") {
				return from, to, fmt.Errorf("fleetdb: migrating %s to version %d (%s): %w; run it as the database's owner with CREATEROLE, or as a superuser", db.host, m.version, m.name, err)
			}
			return from, to, fmt.Errorf("fleetdb: migrating %s to version %d (%s): %w", db.host, m.version, m.name, err)
		}
		to = m.version
	}
	return from, to, nil
}
