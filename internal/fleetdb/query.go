package fleetdb

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
)

// The reads of the fleet review. Each answers one page from the derived
// tables (sessions, paths, kinds, standing) or by index, never by a scan
// of every record.

// Totals are the numbers at the top of the review.
type Totals struct {
	Sessions, Files, Changes, Standing, Refused int64
	Kinds                                       map[string]int64
}

// Totals counts over every journal.
func (db *DB) Totals(ctx context.Context) (Totals, error) {
	t := Totals{Kinds: map[string]int64{}}
	err := db.pool.QueryRow(ctx, `SELECT count(*), coalesce(sum(receipts), 0), coalesce(sum(standing), 0), coalesce(sum(refusals), 0) FROM stet.sessions`).
		Scan(&t.Sessions, &t.Changes, &t.Standing, &t.Refused)
	if err == nil {
		err = db.pool.QueryRow(ctx, `SELECT count(*) FROM stet.paths`).Scan(&t.Files)
	}
	if err != nil {
		return t, fmt.Errorf("fleetdb: totals: %w", err)
	}
	rows, err := db.pool.Query(ctx, `SELECT kind, count FROM stet.kinds`)
	if err != nil {
		return t, fmt.Errorf("fleetdb: totals: %w", err)
	}
	var k string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&k, &n}, func() error { t.Kinds[k] = n; return nil })
	return t, err
}

// SessionRow is one session with its journal.
type SessionRow struct {
	Journal                   Journal
	Session                   string
	First, Last               time.Time
	Receipts, Refusals, Turns int64
	Files                     int64
}

// likeEscape makes q a literal inside a LIKE pattern.
func likeEscape(q string) string {
	return strings.NewReplacer(`\`, `\\`, `%`, `\%`, `_`, `\_`).Replace(q)
}

// Sessions returns a page of sessions, newest first; q, when not empty,
// keeps those whose host, roots or id hold it (case folded).
func (db *DB) Sessions(ctx context.Context, q string, offset, limit int) ([]SessionRow, error) {
	where, args := "", []any{limit, offset}
	if q != "" {
		where = `WHERE j.host ILIKE $3 OR s.session ILIKE $3 OR array_to_string(j.roots, ' ') ILIKE $3`
		args = append(args, "%"+likeEscape(q)+"%")
	}
	// The page is chosen first; only its sessions' files are counted.
	rows, err := db.pool.Query(ctx, `SELECT j.id, j.shipper, j.host, j.state_dir, j.workspace, j.roots, s.session, s.first_time, s.last_time,
			s.receipts, s.refusals, s.turns,
			(SELECT count(DISTINCT r.path) FROM stet.records r WHERE r.journal = s.journal AND r.session = s.session AND r.type = 'receipt')
		FROM (SELECT s.* FROM stet.sessions s JOIN stet.journals j ON j.id = s.journal `+where+`
			ORDER BY s.last_time DESC, s.journal, s.session LIMIT $1 OFFSET $2) s
		JOIN stet.journals j ON j.id = s.journal
		ORDER BY s.last_time DESC, s.journal, s.session`, args...)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: sessions: %w", err)
	}
	var out []SessionRow
	var r SessionRow
	_, err = pgx.ForEachRow(rows, []any{&r.Journal.ID, &r.Journal.Shipper, &r.Journal.Host, &r.Journal.StateDir, &r.Journal.Workspace, &r.Journal.Roots,
		&r.Session, &r.First, &r.Last, &r.Receipts, &r.Refusals, &r.Turns, &r.Files}, func() error {
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fleetdb: sessions: %w", err)
	}
	return out, nil
}

// SessionOf returns one session's row.
func (db *DB) SessionOf(ctx context.Context, journal int64, session string) (SessionRow, bool, error) {
	var r SessionRow
	err := db.pool.QueryRow(ctx, `SELECT j.id, j.shipper, j.host, j.state_dir, j.workspace, j.roots, s.session, s.first_time, s.last_time,
			s.receipts, s.refusals, s.turns
		FROM stet.sessions s JOIN stet.journals j ON j.id = s.journal WHERE s.journal = $1 AND s.session = $2`, journal, session).
		Scan(&r.Journal.ID, &r.Journal.Shipper, &r.Journal.Host, &r.Journal.StateDir, &r.Journal.Workspace, &r.Journal.Roots,
			&r.Session, &r.First, &r.Last, &r.Receipts, &r.Refusals, &r.Turns)
	if err == pgx.ErrNoRows {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("fleetdb: session: %w", err)
	}
	return r, true, nil
}

// JournalOf returns journal id.
func (db *DB) JournalOf(ctx context.Context, id int64) (Journal, error) {
	j := Journal{ID: id}
	err := db.pool.QueryRow(ctx, `SELECT shipper, host, state_dir, workspace, roots FROM stet.journals WHERE id = $1`, id).
		Scan(&j.Shipper, &j.Host, &j.StateDir, &j.Workspace, &j.Roots)
	if err != nil {
		return j, fmt.Errorf("fleetdb: journal %d: %w", id, err)
	}
	return j, nil
}

// Stored is one stored line: its place and its bytes (nil: redacted).
type Stored struct {
	Journal, Generation, Seq int64
	Session, Type, Path      string
	Time                     time.Time
	Line                     []byte
	Turn                     int // PathHistory only: the turn of its session it belongs to
}

// SessionLines returns the lines of one session of a journal of the
// given types, in chain order (carried copies left out).
func (db *DB) SessionLines(ctx context.Context, journal int64, session string, types []string) ([]Stored, error) {
	return db.stored(ctx, `SELECT journal, generation, seq, session, type, path, time, line FROM stet.records
		WHERE journal = $1 AND session = $2 AND type = ANY($3) AND NOT carried ORDER BY generation, seq`, journal, session, types)
}

// Receipts returns the receipt lines of journal whose file is one of
// paths (or was moved from one), in chain order.
func (db *DB) Receipts(ctx context.Context, journal int64, paths []string) ([]Stored, error) {
	return db.stored(ctx, `SELECT journal, generation, seq, session, type, path, time, line FROM stet.records
		WHERE journal = $1 AND type = 'receipt' AND (path = ANY($2) OR from_path = ANY($2)) AND NOT carried ORDER BY generation, seq`, journal, paths)
}

// ReceiptsIn returns the receipt lines of path (or moves from it) in each
// of journals, in chain order per journal.
func (db *DB) ReceiptsIn(ctx context.Context, journals []int64, path string) ([]Stored, error) {
	return db.stored(ctx, `SELECT journal, generation, seq, session, type, path, time, line FROM stet.records
		WHERE journal = ANY($1) AND type = 'receipt' AND (path = $2 OR from_path = $2) AND NOT carried ORDER BY journal, generation, seq`, journals, path)
}

// StandingIn returns the last state seen of each (journal, receipt) pair,
// keyed "<journal>/<receipt>".
func (db *DB) StandingIn(ctx context.Context, journals []int64, ids []string) (map[string]Seen, error) {
	rows, err := db.pool.Query(ctx, `SELECT s.journal, s.receipt, s.state, s.message, s.seen FROM stet.standing s
		JOIN unnest($1::bigint[], $2::text[]) AS k(journal, receipt) ON k.journal = s.journal AND k.receipt = s.receipt`, journals, ids)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: standing: %w", err)
	}
	out := map[string]Seen{}
	var j int64
	var id string
	var sn Seen
	_, err = pgx.ForEachRow(rows, []any{&j, &id, &sn.State, &sn.Message, &sn.At}, func() error {
		out[fmt.Sprint(j, "/", id)] = sn
		return nil
	})
	return out, err
}

// PathHistory returns the receipt lines of path (or moves from it) in
// every journal, oldest first, at most limit.
func (db *DB) PathHistory(ctx context.Context, path string, limit int) ([]Stored, error) {
	rows, err := db.pool.Query(ctx, `SELECT journal, generation, seq, session, type, path, time, line,
			(SELECT count(*) FROM stet.records t WHERE t.journal = r.journal AND t.session = r.session AND t.type = 'turn'
				AND (t.generation, t.seq) < (r.generation, r.seq) AND NOT t.carried)
		FROM stet.records r WHERE type = 'receipt' AND (path = $1 OR from_path = $1) AND NOT carried
		ORDER BY time, journal, generation, seq LIMIT $2`, path, limit)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: history: %w", err)
	}
	var out []Stored
	var s Stored
	_, err = pgx.ForEachRow(rows, []any{&s.Journal, &s.Generation, &s.Seq, &s.Session, &s.Type, &s.Path, &s.Time, &s.Line, &s.Turn}, func() error {
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fleetdb: history: %w", err)
	}
	return out, nil
}

// ReceiptLine returns the line of receipt id (in any journal when
// journal is 0).
func (db *DB) ReceiptLine(ctx context.Context, id string) (Stored, bool, error) {
	out, err := db.stored(ctx, `SELECT journal, generation, seq, session, type, path, time, line FROM stet.records
		WHERE receipt = $1 AND type = 'receipt' AND NOT carried LIMIT 1`, id)
	if err != nil || len(out) == 0 {
		return Stored{}, false, err
	}
	return out[0], true, nil
}

// Undos returns, for the receipts ids of journal, the undo receipts that
// took each back (and, in turn, those that took the undos back), as
// pairs (receipt, by) in chain order.
func (db *DB) Undos(ctx context.Context, journal int64, ids []string) ([][2]string, error) {
	var out [][2]string
	seen := map[string]bool{}
	for len(ids) > 0 {
		rows, err := db.pool.Query(ctx, `SELECT receipt, by_receipt FROM stet.records WHERE journal = $1 AND type = 'undo' AND receipt = ANY($2)
			ORDER BY generation, seq`, journal, ids)
		if err != nil {
			return nil, fmt.Errorf("fleetdb: undos: %w", err)
		}
		var next []string
		var a, b string
		_, err = pgx.ForEachRow(rows, []any{&a, &b}, func() error {
			out = append(out, [2]string{a, b})
			if !seen[b] {
				seen[b] = true
				next = append(next, b)
			}
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("fleetdb: undos: %w", err)
		}
		ids = next
	}
	return out, nil
}

// Seen is a change's last state as its host saw it.
type Seen struct {
	State, Message string
	At             time.Time
}

// StandingOf returns the last state seen of each receipt of ids.
func (db *DB) StandingOf(ctx context.Context, journal int64, ids []string) (map[string]Seen, error) {
	rows, err := db.pool.Query(ctx, `SELECT receipt, state, message, seen FROM stet.standing WHERE journal = $1 AND receipt = ANY($2)`, journal, ids)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: standing: %w", err)
	}
	out := map[string]Seen{}
	var id string
	var s Seen
	_, err = pgx.ForEachRow(rows, []any{&id, &s.State, &s.Message, &s.At}, func() error { out[id] = s; return nil })
	return out, err
}

// BlobsOf returns the stored bytes of those of names the database holds.
func (db *DB) BlobsOf(ctx context.Context, names []string) (map[string][]byte, error) {
	rows, err := db.pool.Query(ctx, `SELECT hash, data FROM stet.blobs WHERE hash = ANY($1)`, names)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: blobs: %w", err)
	}
	out := map[string][]byte{}
	var h string
	var b []byte
	_, err = pgx.ForEachRow(rows, []any{&h, &b}, func() error { out[h] = b; return nil })
	return out, err
}

// RefusalCounts counts refusals by kind, of one session of a journal
// (every refusal when journal is 0).
func (db *DB) RefusalCounts(ctx context.Context, journal int64, session string) (map[string]int64, error) {
	out := map[string]int64{}
	if journal == 0 {
		t, err := db.Totals(ctx)
		return t.Kinds, err
	}
	rows, err := db.pool.Query(ctx, `SELECT kind, count(*) FROM stet.records WHERE journal = $1 AND session = $2 AND type = 'refusal' AND NOT carried GROUP BY kind`, journal, session)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: refusals: %w", err)
	}
	var k string
	var n int64
	_, err = pgx.ForEachRow(rows, []any{&k, &n}, func() error { out[k] = n; return nil })
	return out, err
}

// Refusals returns a page of the refusal lines of one kind, of one
// session of a journal (of every journal when journal is 0), oldest first.
func (db *DB) Refusals(ctx context.Context, journal int64, session, kind string, offset, limit int) ([]Stored, error) {
	if journal == 0 {
		return db.stored(ctx, `SELECT journal, generation, seq, session, type, path, time, line FROM stet.records
			WHERE type = 'refusal' AND kind = $1 AND NOT carried ORDER BY time, journal, generation, seq OFFSET $2 LIMIT $3`, kind, offset, limit)
	}
	return db.stored(ctx, `SELECT journal, generation, seq, session, type, path, time, line FROM stet.records
		WHERE journal = $1 AND session = $2 AND type = 'refusal' AND kind = $3 AND NOT carried ORDER BY generation, seq OFFSET $4 LIMIT $5`,
		journal, session, kind, offset, limit)
}

// SearchPaths returns the changed paths holding q (case folded), sorted.
func (db *DB) SearchPaths(ctx context.Context, q string, limit int) ([]string, error) {
	rows, err := db.pool.Query(ctx, `SELECT DISTINCT path FROM stet.paths WHERE path ILIKE $1 ORDER BY path LIMIT $2`, "%"+likeEscape(q)+"%", limit)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: search: %w", err)
	}
	return pgx.CollectRows(rows, pgx.RowTo[string])
}

func (db *DB) stored(ctx context.Context, sql string, args ...any) ([]Stored, error) {
	rows, err := db.pool.Query(ctx, sql, args...)
	if err != nil {
		return nil, fmt.Errorf("fleetdb: %w", err)
	}
	var out []Stored
	var s Stored
	_, err = pgx.ForEachRow(rows, []any{&s.Journal, &s.Generation, &s.Seq, &s.Session, &s.Type, &s.Path, &s.Time, &s.Line}, func() error {
		out = append(out, s)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("fleetdb: %w", err)
	}
	return out, nil
}
