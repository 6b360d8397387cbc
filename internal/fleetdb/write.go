package fleetdb

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
)

// Journal is one shipped journal: a state directory on a host, as its
// shipping role sees it.
type Journal struct {
	ID        int64
	Shipper   string // the role that ships it
	Host      string
	StateDir  string
	Workspace string
	Roots     []string
}

// Register returns the journal of host and state directory shipped by
// the connection's role, adding it on first use. Two shippers registering
// at once get the same journal.
func (db *DB) Register(ctx context.Context, host, stateDir, workspace string, roots []string) (Journal, error) {
	if roots == nil {
		roots = []string{}
	}
	j := Journal{Host: host, StateDir: stateDir, Workspace: workspace, Roots: roots}
	err := db.tx(ctx, func(tx pgx.Tx) error {
		_, err := tx.Exec(ctx, `INSERT INTO stet.journals (host, state_dir, workspace, roots) VALUES ($1, $2, $3, $4)
			ON CONFLICT (shipper, host, state_dir) DO NOTHING`, host, stateDir, workspace, roots)
		if err != nil {
			return err
		}
		return tx.QueryRow(ctx, `SELECT id, shipper, workspace, roots FROM stet.journals
			WHERE shipper = current_user AND host = $1 AND state_dir = $2`, host, stateDir).Scan(&j.ID, &j.Shipper, &j.Workspace, &j.Roots)
	})
	if err != nil {
		return Journal{}, fmt.Errorf("fleetdb: register %s %s: %w", host, stateDir, err)
	}
	if j.Workspace != workspace {
		return Journal{}, fmt.Errorf("fleetdb: %s holds the journal of %s on %s for workspace %s, not %s: a state directory serves one workspace", db.host, stateDir, host, j.Workspace, workspace)
	}
	return j, nil
}

// Tip is the last line the database holds of one chain.
type Tip struct {
	Seq  int64  // 0: none
	Hash string // its hash
}

// Tip returns the last line stored of journal j's generation gen.
func (db *DB) Tip(ctx context.Context, j, gen int64) (Tip, error) {
	var t Tip
	err := db.pool.QueryRow(ctx, `SELECT seq, hash FROM stet.records WHERE journal = $1 AND generation = $2
		ORDER BY seq DESC LIMIT 1`, j, gen).Scan(&t.Seq, &t.Hash)
	if errors.Is(err, pgx.ErrNoRows) {
		return Tip{}, nil
	}
	if err != nil {
		return Tip{}, fmt.Errorf("fleetdb: tip of journal %d generation %d: %w", j, gen, err)
	}
	return t, nil
}

// HasGeneration reports whether journal j has any line of a generation
// below gen: the records a compaction carried over are then already in
// the database under their first generation.
func (db *DB) HasGeneration(ctx context.Context, j, gen int64) (bool, error) {
	var ok bool
	err := db.pool.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM stet.records WHERE journal = $1 AND generation < $2)`, j, gen).Scan(&ok)
	return ok, err
}

// ForkError is a line that differs from the one the database holds at
// the same place: the local journal or the database was rewritten.
type ForkError struct {
	Journal    int64
	Generation int64
	Seq        int64
	Have, Want string // the database's hash, and the shipper's
}

func (e *ForkError) Error() string {
	what := "a line that does not chain to the line the database holds before it"
	if e.Have != "" {
		what = fmt.Sprintf("line %s where the database holds %s", short(e.Want), short(e.Have))
	}
	return fmt.Sprintf("journal %d generation %d seq %d: this journal has %s: one of them was rewritten (a fork); nothing more is shipped of it; run `stet verify --all` here and `stet verify --all --journal URL` to find which",
		e.Journal, e.Generation, e.Seq, what)
}

func short(h string) string {
	if len(h) > 19 {
		return h[:19]
	}
	return h
}

// Blob is one blob to store.
type Blob struct {
	Hash string
	Data []byte
}

// MissingBlobs returns those of hashes the database does not hold.
func (db *DB) MissingBlobs(ctx context.Context, hashes []string) ([]string, error) {
	if len(hashes) == 0 {
		return nil, nil
	}
	rows, err := db.pool.Query(ctx, `SELECT h FROM unnest($1::text[]) AS h WHERE NOT EXISTS (SELECT 1 FROM stet.blobs b WHERE b.hash = h)`, hashes)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: blobs: %w", err)
	}
	out, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil, fmt.Errorf("fleetdb: blobs: %w", err)
	}
	return out, nil
}

// Put stores blobs and then rows of journal j's generation gen in one
// transaction: a row is stored only with the blobs it names. Rows already
// there (the same hash at the same seq) are skipped; one that differs is a
// *ForkError and nothing is stored. It returns how many rows were new.
func (db *DB) Put(ctx context.Context, j, gen int64, blobs []Blob, rows []Row) (int, error) {
	added := 0
	err := db.tx(ctx, func(tx pgx.Tx) error {
		if len(blobs) > 0 {
			hs, sizes, data := make([]string, len(blobs)), make([]int64, len(blobs)), make([][]byte, len(blobs))
			for i, b := range blobs {
				hs[i], sizes[i], data[i] = b.Hash, int64(len(b.Data)), b.Data
			}
			if _, err := tx.Exec(ctx, `INSERT INTO stet.blobs (hash, size, data) SELECT * FROM unnest($1::text[], $2::bigint[], $3::bytea[])
				ON CONFLICT DO NOTHING`, hs, sizes, data); err != nil {
				return fmt.Errorf("blobs: %w", err)
			}
		}
		if len(rows) == 0 {
			return nil
		}
		n := len(rows)
		seq, prev, hash := make([]int64, n), make([]string, n), make([]string, n)
		line := make([][]byte, n)
		tm := make([]time.Time, n)
		typ, session, path, from, rcpt, by, tool, kind := make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n), make([]string, n)
		verified, carried := make([]bool, n), make([]bool, n)
		for i, r := range rows {
			seq[i], prev[i], hash[i], line[i], tm[i] = r.Seq, r.Prev, r.Hash, r.Line, r.Time
			typ[i], session[i], path[i], from[i], rcpt[i], by[i], tool[i], kind[i] = r.Type, r.Session, r.Path, r.From, r.Receipt, r.By, r.Tool, r.Kind
			verified[i], carried[i] = r.Verified, r.Carried
		}
		got, err := tx.Query(ctx, `INSERT INTO stet.records (journal, generation, seq, prev, hash, line, time, type, session, path,
				from_path, receipt, by_receipt, tool, kind, verified, carried)
			SELECT $1, $2, * FROM unnest($3::bigint[], $4::text[], $5::text[], $6::bytea[], $7::timestamptz[], $8::text[], $9::text[],
				$10::text[], $11::text[], $12::text[], $13::text[], $14::text[], $15::text[], $16::bool[], $17::bool[])
			ON CONFLICT (journal, generation, seq) DO NOTHING RETURNING seq`,
			j, gen, seq, prev, hash, line, tm, typ, session, path, from, rcpt, by, tool, kind, verified, carried)
		if err != nil {
			return err
		}
		inserted, err := pgx.CollectRows(got, pgx.RowTo[int64])
		if err != nil {
			return err
		}
		added = len(inserted)
		if added == n {
			return nil
		}
		// Some were there: each must be the same line.
		have, err := tx.Query(ctx, `SELECT seq, hash FROM stet.records WHERE journal = $1 AND generation = $2 AND seq = ANY($3)`, j, gen, seq)
		if err != nil {
			return err
		}
		stored := map[int64]string{}
		var s int64
		var h string
		_, err = pgx.ForEachRow(have, []any{&s, &h}, func() error { stored[s] = h; return nil })
		if err != nil {
			return err
		}
		for _, r := range rows {
			if h, ok := stored[r.Seq]; ok && h != r.Hash {
				return &ForkError{Journal: j, Generation: gen, Seq: r.Seq, Have: h, Want: r.Hash}
			}
		}
		return nil
	})
	if err != nil {
		var fe *ForkError
		if errors.As(err, &fe) {
			return 0, err
		}
		var pe *pgconn.PgError
		if errors.As(err, &pe) && pe.Code == "ST001" {
			seq, _ := strconv.ParseInt(pe.Detail, 10, 64)
			return 0, &ForkError{Journal: j, Generation: gen, Seq: seq}
		}
		return 0, fmt.Errorf("fleetdb: journal %d generation %d: %w", j, gen, err)
	}
	return added, nil
}

// Sighting is what a host saw of one change: the state of its file.
type Sighting struct {
	Receipt string
	Session string
	State   string // stands, changed, gone, undone
	Message string
	Seen    time.Time
}

// Standing returns the last state stored of each change of journal j.
func (db *DB) Standing(ctx context.Context, j int64) (map[string]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT DISTINCT ON (receipt) receipt, state FROM stet.stands WHERE journal = $1 ORDER BY receipt, seen DESC`, j)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: standing: %w", err)
	}
	out := map[string]string{}
	var id, st string
	_, err = pgx.ForEachRow(rows, []any{&id, &st}, func() error { out[id] = st; return nil })
	if err != nil {
		return nil, fmt.Errorf("fleetdb: standing: %w", err)
	}
	return out, nil
}

// PutSightings stores what the host saw of changes of journal j.
func (db *DB) PutSightings(ctx context.Context, j int64, ss []Sighting) error {
	if len(ss) == 0 {
		return nil
	}
	n := len(ss)
	id, session, state, msg := make([]string, n), make([]string, n), make([]string, n), make([]string, n)
	seen := make([]time.Time, n)
	for i, s := range ss {
		id[i], session[i], state[i], msg[i], seen[i] = s.Receipt, s.Session, s.State, s.Message, s.Seen
	}
	_, err := db.pool.Exec(ctx, `INSERT INTO stet.stands (journal, receipt, session, state, message, seen)
		SELECT $1, * FROM unnest($2::text[], $3::text[], $4::text[], $5::text[], $6::timestamptz[]) ON CONFLICT DO NOTHING`,
		j, id, session, state, msg, seen)
	if err != nil {
		return fmt.Errorf("fleetdb: stands: %w", err)
	}
	return nil
}
