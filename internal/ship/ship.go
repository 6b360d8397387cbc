package ship

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/fleetdb"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
)

// Options configure a Shipper.
type Options struct {
	// Host names this machine in the database; os.Hostname when empty.
	Host string
	// DenyRead are deny-read globs of the workspace (its --deny-read):
	// lines about those files go redacted. Every glob the state directory
	// recorded (journal.RecordDenyRead: any process that opened it with
	// one) is added to them.
	DenyRead []string
	// Batch is how many lines go in one transaction (500 when 0).
	Batch int
	// BlobBatch bounds the bytes of blobs in one transaction (16 MiB when 0).
	BlobBatch int
	// Now is the clock of sightings; time.Now when nil.
	Now func() time.Time
	// SightEvery is how often a pass that shipped no new line checks the
	// files against their changes again (10 s when 0; a pass that shipped
	// lines always checks).
	SightEvery time.Duration
	// AfterBatch, if set, is called after each batch is committed (tests
	// use it to stop a pass in the middle).
	AfterBatch func(lines int)
}

// Report is what one pass shipped.
type Report struct {
	Journal    int64  // the journal's id in the database
	Generation int64  // the local log's generation
	Seq        int64  // the chain's last seq now in the database
	Lines      int    // lines added
	Redacted   int    // of them, sent without their bytes (deny-read)
	Blobs      int    // blobs added
	BlobBytes  int64  // their bytes
	Sightings  int    // changes whose state was sent
	Where      string // the database, for messages
}

// change is one receipt as the shipper follows it.
type change struct {
	id, session, path string
	from              bool
	before, after     *receipt.State
	hidden            bool
}

// Shipper ships one state directory's journal. It keeps what it learned
// of the journal between passes; it is not safe for concurrent use (two
// Shippers, in one process or two, may ship the same journal at once).
type Shipper struct {
	j     *journal.Journal
	o     Options
	host  string
	roots *roots
	owner journal.Owner

	// What the passes read so far of the local log.
	gen     int64
	indexed int64
	changes []*change
	undos   history.Undos
	// seen is the state last sent of each change, by receipt id (loaded
	// from the database on the first pass).
	seen      map[string]string
	seenOf    int64 // the journal id seen belongs to
	haveBlobs map[string]bool
	lastSight time.Time // when sight last ran
}

// New returns a Shipper of j.
func New(j *journal.Journal, o Options) (*Shipper, error) {
	if o.Batch <= 0 {
		o.Batch = 500
	}
	if o.BlobBatch <= 0 {
		o.BlobBatch = 16 << 20
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.SightEvery <= 0 {
		o.SightEvery = 10 * time.Second
	}
	host := o.Host
	if host == "" {
		h, err := os.Hostname()
		if err != nil {
			return nil, fmt.Errorf("ship: this machine's name: %w; give one with --host", err)
		}
		host = h
	}
	owner, err := j.Owner()
	if err != nil && !errors.Is(err, journal.ErrNotFound) {
		return nil, fmt.Errorf("ship: %w", err)
	}
	if owner.Workspace == "" {
		owner.Workspace = "unclaimed"
	}
	// What any process of this state directory hid stays back, whatever
	// this shipper was given.
	recorded, err := j.DenyRead()
	if err != nil {
		return nil, fmt.Errorf("ship: %w", err)
	}
	deny := slices.Clone(o.DenyRead)
	for _, p := range recorded {
		if !slices.Contains(deny, p) {
			deny = append(deny, p)
		}
	}
	return &Shipper{j: j, o: o, host: host, owner: owner, roots: newRoots(owner.Roots, j.Dir(), deny), haveBlobs: map[string]bool{}}, nil
}

// Once ships what the local journal holds now and returns what it added.
// A line the database holds differently is a *fleetdb.ForkError; nothing
// after it is shipped.
func (s *Shipper) Once(ctx context.Context, db *fleetdb.DB) (Report, error) {
	rep := Report{Where: db.Where()}
	if err := db.CheckVersion(ctx); err != nil {
		return rep, err
	}
	jr, err := db.Register(ctx, s.host, s.j.Dir(), s.owner.Workspace, s.owner.Roots)
	if err != nil {
		return rep, err
	}
	rep.Journal = jr.ID
	if s.seen == nil || s.seenOf != jr.ID {
		if s.seen, err = db.Standing(ctx, jr.ID); err != nil {
			return rep, err
		}
		s.seenOf = jr.ID
	}
	v, err := s.j.View()
	if err != nil {
		return rep, err
	}
	head := v.Head()
	rep.Generation = head.Generation
	if head.Generation != s.gen {
		s.gen, s.indexed, s.changes, s.undos = head.Generation, 0, nil, history.Undos{}
	}
	tip, err := db.Tip(ctx, jr.ID, head.Generation)
	if err != nil {
		return rep, err
	}
	rep.Seq = tip.Seq
	if tip.Seq > head.Seq {
		return rep, &fleetdb.ForkError{Journal: jr.ID, Generation: head.Generation, Seq: head.Seq + 1, Have: tip.Hash, Want: "(no line: the local journal ends at seq " + fmt.Sprint(head.Seq) + ")"}
	}
	carried := false
	if head.Generation > 0 && head.Kept > 0 {
		if carried, err = db.HasGeneration(ctx, jr.ID, head.Generation); err != nil {
			return rep, err
		}
	}
	// Lines already in the database are read only to follow the changes
	// (the first pass of a process), and the one at the tip to prove it
	// is the same line.
	from := min(s.indexed, max(tip.Seq-1, 0))
	var rows []fleetdb.Row
	var names []string
	flush := func() error {
		if len(rows) == 0 {
			return nil
		}
		if err := s.put(ctx, db, jr.ID, head.Generation, names, rows, &rep); err != nil {
			return err
		}
		rep.Seq = rows[len(rows)-1].Seq
		if s.o.AfterBatch != nil {
			s.o.AfterBatch(len(rows))
		}
		rows, names = rows[:0], names[:0]
		return nil
	}
	err = v.LinesAfter(from, func(l journal.Line) error {
		if l.Seq == tip.Seq && l.Hash != tip.Hash {
			return &fleetdb.ForkError{Journal: jr.ID, Generation: head.Generation, Seq: l.Seq, Have: tip.Hash, Want: l.Hash}
		}
		hidden, err := s.follow(l)
		if err != nil {
			return err
		}
		if l.Seq <= tip.Seq {
			return nil
		}
		row, err := fleetdb.RowOf(l)
		if err != nil {
			return err
		}
		row.Carried = carried && l.Seq >= 2 && l.Seq <= head.Kept+1
		if hidden {
			row.Redact()
			rep.Redacted++
		} else {
			bs, err := fleetdb.Blobs(l.Bytes)
			if err != nil {
				return fmt.Errorf("ship: journal line %d: %w", l.Seq, err)
			}
			names = append(names, bs...)
		}
		rows = append(rows, row)
		if len(rows) >= s.o.Batch {
			return flush()
		}
		return nil
	})
	if err == nil {
		err = flush()
	}
	if err != nil {
		return rep, err
	}
	if rep.Lines == 0 && s.o.Now().Sub(s.lastSight) < s.o.SightEvery {
		return rep, nil
	}
	n, err := s.sight(ctx, db, jr.ID)
	rep.Sightings = n
	if err == nil {
		s.lastSight = s.o.Now()
	}
	return rep, err
}

// follow takes one local line into what the shipper knows of the
// journal's changes, once, and reports whether deny-read hides it.
func (s *Shipper) follow(l journal.Line) (hidden bool, err error) {
	paths, err := fleetdb.Paths(l.Bytes)
	if err != nil {
		return false, fmt.Errorf("ship: journal line %d: %w", l.Seq, err)
	}
	for _, p := range paths {
		if s.roots.denied(p) {
			hidden = true
			break
		}
	}
	if l.Seq <= s.indexed {
		return hidden, nil
	}
	s.indexed = l.Seq
	var r journal.Record
	if err := json.Unmarshal(l.Bytes, &r); err != nil {
		return hidden, fmt.Errorf("ship: journal line %d: %w", l.Seq, err)
	}
	switch r.Type {
	case history.TypeUndo:
		s.undos.Add(r)
	case history.TypeReceipt:
		d, err := history.Decode[history.Receipt](r)
		if err != nil {
			return hidden, err
		}
		s.changes = append(s.changes, &change{id: d.Receipt.ID, session: r.Session, path: d.Receipt.Path,
			from: d.FromKey != "", before: d.Receipt.Before, after: d.Receipt.After, hidden: hidden})
	}
	return hidden, nil
}

// put sends one batch: the blobs its lines name that the database lacks
// (in transactions of their own, at most BlobBatch bytes each), then the
// lines.
func (s *Shipper) put(ctx context.Context, db *fleetdb.DB, jid, gen int64, names []string, rows []fleetdb.Row, rep *Report) error {
	if err := s.putBlobs(ctx, db, jid, gen, names, rep); err != nil {
		return err
	}
	n, err := db.Put(ctx, jid, gen, nil, rows)
	if err != nil {
		return err
	}
	rep.Lines += n
	return nil
}

// putBlobs sends the blobs of names the database lacks, from the local
// store (a name the store does not hold is skipped: gc dropped it).
func (s *Shipper) putBlobs(ctx context.Context, db *fleetdb.DB, jid, gen int64, names []string, rep *Report) error {
	var want []string
	for _, n := range names {
		if !s.haveBlobs[n] {
			want = append(want, n)
			s.haveBlobs[n] = true
		}
	}
	missing, err := db.MissingBlobs(ctx, want)
	if err != nil {
		return err
	}
	var batch []fleetdb.Blob
	size := 0
	send := func() error {
		if len(batch) == 0 {
			return nil
		}
		if _, err := db.Put(ctx, jid, gen, batch, nil); err != nil {
			for _, b := range batch {
				delete(s.haveBlobs, b.Hash)
			}
			return err
		}
		rep.Blobs += len(batch)
		rep.BlobBytes += int64(size)
		batch, size = nil, 0
		return nil
	}
	for _, name := range missing {
		b, err := s.j.Get(name)
		if errors.Is(err, journal.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if size+len(b) > s.o.BlobBatch {
			if err := send(); err != nil {
				return err
			}
		}
		batch = append(batch, fleetdb.Blob{Hash: name, Data: b})
		size += len(b)
	}
	return send()
}

// sight checks every change's file against its result, sends the states
// that differ from the last ones sent, and the current bytes of a file
// that holds a change's result (the review's diffs start from them).
func (s *Shipper) sight(ctx context.Context, db *fleetdb.DB, jid int64) (int, error) {
	now := s.o.Now().UTC()
	files := map[string]current{}
	var out []fleetdb.Sighting
	var blobs []fleetdb.Blob
	var blobNames []string
	for _, c := range s.changes {
		if c.hidden {
			continue
		}
		cur, ok := files[c.path]
		if !ok {
			var hidden bool
			cur, hidden = s.roots.read(c.path)
			if hidden {
				c.hidden = true
				continue
			}
			files[c.path] = cur
		}
		state, msg := s.state(c, cur)
		if state == "stands" && c.after != nil && cur.b != nil && !s.haveBlobs[c.after.Version] {
			blobs = append(blobs, fleetdb.Blob{Hash: c.after.Version, Data: cur.b})
			blobNames = append(blobNames, c.after.Version)
		}
		if s.seen[c.id] != state {
			out = append(out, fleetdb.Sighting{Receipt: c.id, Session: c.session, State: state, Message: msg, Seen: now})
		}
	}
	if len(blobs) > 0 {
		missing, err := db.MissingBlobs(ctx, blobNames)
		if err != nil {
			return 0, err
		}
		want := map[string]bool{}
		for _, m := range missing {
			want[m] = true
		}
		var send []fleetdb.Blob
		for _, b := range blobs {
			if want[b.Hash] {
				send = append(send, b)
				delete(want, b.Hash)
			}
			s.haveBlobs[b.Hash] = true
		}
		for len(send) > 0 {
			k, size := 0, 0
			for k < len(send) && (k == 0 || size+len(send[k].Data) <= s.o.BlobBatch) {
				size += len(send[k].Data)
				k++
			}
			if _, err := db.Put(ctx, jid, s.gen, send[:k], nil); err != nil {
				return 0, err
			}
			send = send[k:]
		}
	}
	if err := db.PutSightings(ctx, jid, out); err != nil {
		return 0, err
	}
	for _, o := range out {
		s.seen[o.Receipt] = o.State
	}
	return len(out), nil
}

// state says whether c's result stands in cur, in the words of the local
// review.
func (s *Shipper) state(c *change, cur current) (string, string) {
	p := trimKey(c.path)
	if u := s.undos.UndoneBy(c.id); u != "" {
		return "undone", "undone by " + u
	}
	switch {
	case c.after == nil && !c.from && !cur.exists:
		return "stands", p + " is still deleted"
	case c.after == nil && !c.from:
		return "changed", p + " exists again"
	case c.before == nil && c.from:
		if cur.dir {
			return "stands", p + " is still there"
		}
		return "gone", p + " is no longer a directory"
	case cur.kept:
		return "changed", p + " now leads to a file deny-read keeps on its host"
	case !cur.exists || cur.dir:
		return "gone", p + " is no longer there"
	case cur.b == nil:
		return "changed", p + " could not be read as a file here (unreadable, too large, or one of several hard links)"
	case string(fsys.VersionOf(cur.b)) == c.after.Version:
		return "stands", p + " holds this change's result"
	}
	now := receipt.StateOf(cur.b)
	return "changed", fmt.Sprintf("changed since: %d bytes, %d lines now (was %d bytes, %d lines)", now.Bytes, now.Lines, c.after.Bytes, c.after.Lines)
}
