package fleetdb

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/stet-dev/stet/journal"
)

// Problem is one finding of Verify: a line (journal, generation, seq) or
// a blob, and what is wrong with it.
type Problem struct {
	Journal    int64  `json:"journal,omitempty"`
	Host       string `json:"host,omitempty"`
	StateDir   string `json:"state_dir,omitempty"`
	Generation int64  `json:"generation,omitempty"`
	Seq        int64  `json:"seq,omitempty"`
	Blob       string `json:"blob,omitempty"`
	Msg        string `json:"message"`
}

// String formats p for people.
func (p Problem) String() string {
	switch {
	case p.Blob != "":
		return fmt.Sprintf("blob %s: %s", p.Blob, p.Msg)
	case p.Seq > 0:
		return fmt.Sprintf("%s %s generation %d seq %d: %s", p.Host, p.StateDir, p.Generation, p.Seq, p.Msg)
	case p.Host != "":
		return fmt.Sprintf("%s %s: %s", p.Host, p.StateDir, p.Msg)
	}
	return p.Msg
}

// VerifyReport is what Verify found.
type VerifyReport struct {
	Journals int       `json:"journals"`
	Chains   int       `json:"chains"` // journal generations
	Lines    int64     `json:"lines"`
	Redacted int64     `json:"redacted"` // lines held without their bytes (deny-read)
	Blobs    int64     `json:"blobs"`
	Problems []Problem `json:"problems"`
	Warnings []Problem `json:"warnings"`
}

// OK reports whether Verify found no damage.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }

// Verify checks every chain the database holds: each generation of each
// journal starts at seq 1 and runs without a gap; every line hashes to
// its hash and names the hash of the line before it (a line that does not
// is a fork or a changed row, named); its columns are the ones its bytes
// give; every blob hashes to its name. A redacted line (deny-read) is
// checked only through its successor's prev. It reads, and so judges, only
// the rows the connection's role may see.
func (db *DB) Verify(ctx context.Context) (VerifyReport, error) {
	rep := VerifyReport{Problems: []Problem{}, Warnings: []Problem{}}
	type jinfo struct{ host, dir string }
	journals := map[int64]jinfo{}
	rows, err := db.pool.Query(ctx, "SELECT id, host, state_dir FROM stet.journals")
	if err != nil {
		return rep, fmt.Errorf("fleetdb: verify: %w", err)
	}
	var id int64
	var host, dir string
	if _, err := pgx.ForEachRow(rows, []any{&id, &host, &dir}, func() error {
		journals[id] = jinfo{host, dir}
		return nil
	}); err != nil {
		return rep, fmt.Errorf("fleetdb: verify: %w", err)
	}
	rep.Journals = len(journals)

	named := map[string]bool{}
	var cur struct {
		journal, gen, seq int64
		hash              string
		open              bool
	}
	problem := func(j, gen, seq int64, format string, args ...any) {
		ji := journals[j]
		rep.Problems = append(rep.Problems, Problem{Journal: j, Host: ji.host, StateDir: ji.dir, Generation: gen, Seq: seq, Msg: fmt.Sprintf(format, args...)})
	}
	rows, err = db.pool.Query(ctx, `SELECT journal, generation, seq, prev, hash, line, time, type, session, path, from_path,
		receipt, by_receipt, tool, kind, verified FROM stet.records ORDER BY journal, generation, seq`)
	if err != nil {
		return rep, fmt.Errorf("fleetdb: verify: %w", err)
	}
	var r Row
	var j, gen int64
	_, err = pgx.ForEachRow(rows, []any{&j, &gen, &r.Seq, &r.Prev, &r.Hash, &r.Line, &r.Time, &r.Type, &r.Session, &r.Path, &r.From,
		&r.Receipt, &r.By, &r.Tool, &r.Kind, &r.Verified}, func() error {
		rep.Lines++
		if !cur.open || cur.journal != j || cur.gen != gen {
			rep.Chains++
			cur.journal, cur.gen, cur.seq, cur.hash, cur.open = j, gen, 0, "", true
		}
		switch {
		case r.Seq != cur.seq+1 && cur.seq == 0:
			problem(j, gen, r.Seq, "the chain starts at seq %d: seq 1 to %d are missing (a gap)", r.Seq, r.Seq-1)
		case r.Seq != cur.seq+1:
			problem(j, gen, r.Seq, "seq %d to %d are missing (a gap)", cur.seq+1, r.Seq-1)
		case r.Prev != cur.hash:
			problem(j, gen, r.Seq, "does not chain to seq %d: its prev is %s, that line's hash %s (a fork, or a changed row)", cur.seq, short(r.Prev), short(cur.hash))
		}
		if r.Line == nil {
			rep.Redacted++
		} else {
			sum := sha256.Sum256(r.Line)
			if got := "sha256:" + hex.EncodeToString(sum[:]); got != r.Hash {
				problem(j, gen, r.Seq, "changed row: its bytes hash to %s, not to its hash %s", short(got), short(r.Hash))
			} else if want, err := RowOf(journal.Line{Seq: r.Seq, Prev: r.Prev, Hash: r.Hash, Bytes: r.Line}); err != nil {
				problem(j, gen, r.Seq, "changed row: its bytes are not a journal record: %v", err)
			} else if diff := r.differs(want); diff != "" {
				problem(j, gen, r.Seq, "changed row: its %s is not what its bytes say", diff)
			}
			if bs, err := Blobs(r.Line); err == nil {
				for _, b := range bs {
					named[b] = true
				}
			}
		}
		cur.seq, cur.hash = r.Seq, r.Hash
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("fleetdb: verify: %w", err)
	}

	rows, err = db.pool.Query(ctx, "SELECT hash, size, data FROM stet.blobs")
	if err != nil {
		return rep, fmt.Errorf("fleetdb: verify: blobs: %w", err)
	}
	var name string
	var size int64
	var data []byte
	_, err = pgx.ForEachRow(rows, []any{&name, &size, &data}, func() error {
		rep.Blobs++
		delete(named, name)
		sum := sha256.Sum256(data)
		if got := "sha256:" + hex.EncodeToString(sum[:]); got != name || size != int64(len(data)) {
			rep.Problems = append(rep.Problems, Problem{Blob: name, Msg: fmt.Sprintf("changed blob: its %d bytes hash to %s", len(data), short(got))})
		}
		return nil
	})
	if err != nil {
		return rep, fmt.Errorf("fleetdb: verify: blobs: %w", err)
	}
	for b := range named {
		rep.Warnings = append(rep.Warnings, Problem{Blob: b, Msg: "named by a line but not in the database (the host dropped it before it was shipped, or the blob was removed)"})
	}
	return rep, nil
}

// differs names the first column of r that is not want's.
func (r Row) differs(want Row) string {
	switch {
	case !r.Time.Equal(want.Time.Truncate(time.Microsecond)):
		return "time"
	case r.Type != want.Type:
		return "type"
	case r.Session != want.Session:
		return "session"
	case r.Path != want.Path:
		return "path"
	case r.From != want.From:
		return "from_path"
	case r.Receipt != want.Receipt:
		return "receipt"
	case r.By != want.By:
		return "by_receipt"
	case r.Tool != want.Tool:
		return "tool"
	case r.Kind != want.Kind:
		return "kind"
	case r.Verified != want.Verified:
		return "verified"
	case !bytes.Equal(r.Line, want.Line):
		return "line"
	}
	return ""
}
