package stet

import (
	"encoding/json"
	"fmt"
	"time"

	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
)

// DefaultRetention is how long GC keeps records and blobs by default.
const DefaultRetention = 30 * 24 * time.Hour

// GCReport is what GC freed.
type GCReport struct {
	Cutoff       time.Time `json:"cutoff"`        // records older than this were dropped, unless still needed
	Lines        int64     `json:"lines"`         // journal lines before
	Kept         int64     `json:"kept"`          // records carried over
	Dropped      int64     `json:"dropped"`       // lines dropped
	BlobsDropped int       `json:"blobs_dropped"` // saved contents removed
	BlobBytes    int64     `json:"blob_bytes"`    // their bytes
	BytesBefore  int64     `json:"bytes_before"`  // the state directory, before
	BytesAfter   int64     `json:"bytes_after"`   // and after
	Generation   int64     `json:"generation"`    // how many times the journal was compacted
}

// Freed is how many bytes of the state directory GC freed.
func (r GCReport) Freed() int64 { return r.BytesBefore - r.BytesAfter }

// GC drops what the retention keep allows from the journal: every record
// (observations, sessions, turns, receipts) older than keep, and the saved
// contents (blobs) that no kept record names and that are older than keep.
// It never drops an intent that is unresolved (no done record, or one that
// says unresolved), nor a blob that a kept receipt needs for undo: a kept
// receipt keeps what undo needs. Nor what a session's rules stand on,
// whatever its age: its current turn while it pins a request or declared
// inputs (so the input guard holds after gc, in this process and in a
// running server that catches up), and the record of the files it created
// while it has a turn pinned or any record within keep. Sessions whose records are all older than
// keep are gone; a kept session forgets what it observed before the cutoff.
//
// The journal is rewritten behind a checkpoint record (see
// journal.Compact) that Verify checks; the hash chain of what is kept stays
// verifiable, and what was dropped can no longer be checked. GC refuses a
// journal whose chain is broken: run Verify first. Other processes using
// the same state directory wait for GC and then follow the new journal.
func (ws *Workspace) GC(keep time.Duration) (GCReport, error) {
	if keep < 0 {
		return GCReport{}, fmt.Errorf("stet: gc: negative retention %v", keep)
	}
	cutoff := ws.e.Opts.Now().Add(-keep).UTC()
	var intents history.Intents // which intents are open, and when each was written
	// What a session's rules stand on, whatever its age: its current turn
	// (the pinned request and declared inputs of the input guard) and, for
	// a session still in use, which files it created.
	lastTurn := map[string]int64{}   // session -> seq of its newest turn record
	liveTurn := map[string]bool{}    // session -> that turn pins something
	newest := map[string]time.Time{} // session -> time of its newest record
	opts := journal.CompactOptions{
		Prepare: func(r journal.Record) {
			if r.Session != "" && r.Time.After(newest[r.Session]) {
				newest[r.Session] = r.Time
			}
			switch history.RetentionOf(r.Type) {
			case history.KeepPinnedTurn:
				var td engine.TurnData
				lastTurn[r.Session] = r.Seq
				liveTurn[r.Session] = json.Unmarshal(r.Data, &td) != nil || td.Request != "" || len(td.Inputs) > 0
			case history.KeepOpenIntent, history.KeepDoneOfKept:
				intents.Add(r, 0) // an intent that does not decode is kept (Keep)
			}
		},
		// Keep answers from the record table's retention of each type
		// (history.Table); a type no row names (a newer stet's) is kept.
		Keep: func(r journal.Record) bool {
			if !r.Time.Before(cutoff) {
				return true
			}
			switch history.RetentionOf(r.Type) {
			case history.DropAged:
				return false
			case history.KeepPinnedTurn:
				return r.Seq == lastTurn[r.Session] && liveTurn[r.Session]
			case history.KeepLiveSession:
				return liveTurn[r.Session] || !newest[r.Session].Before(cutoff)
			case history.KeepOpenIntent:
				var it engine.IntentData
				return json.Unmarshal(r.Data, &it) != nil || intents.Keep(it.ID)
			case history.KeepDoneOfKept:
				var d engine.DoneData
				if json.Unmarshal(r.Data, &d) != nil {
					return true
				}
				it := intents.Intent(d.ID)
				return it != nil && (intents.Keep(d.ID) || !it.Time.Before(cutoff))
			}
			return true
		},
		BlobsBefore: cutoff,
	}
	jr, err := ws.e.Journal.Compact(opts)
	if err != nil {
		return GCReport{}, fmt.Errorf("stet: gc: %w", err)
	}
	return GCReport{
		Cutoff:       cutoff,
		Lines:        jr.Checkpoint.OldLines,
		Kept:         jr.Checkpoint.Kept,
		Dropped:      jr.Checkpoint.Dropped,
		BlobsDropped: jr.BlobsDropped,
		BlobBytes:    jr.BlobBytes,
		BytesBefore:  jr.BytesBefore,
		BytesAfter:   jr.BytesAfter,
		Generation:   jr.Checkpoint.Generation,
	}, nil
}
