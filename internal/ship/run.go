package ship

import (
	"context"
	"errors"
	"time"

	"github.com/stet-dev/stet/internal/fleetdb"
	"github.com/stet-dev/stet/journal"
)

// lockName is the journal lock one shipper of a state directory holds
// while it ships (see journal.TryExclusive).
const lockName = "ship"

// Pass is one shipping pass under the state directory's shipping lock.
// With ifIdle, a pass finding another shipper at work returns
// journal.ErrBusy at once; that shipper ships what is there (see Drain).
// Otherwise it waits for the lock.
func (s *Shipper) Pass(ctx context.Context, db *fleetdb.DB, ifIdle bool) (Report, error) {
	var rep Report
	var err error
	run := func() error {
		rep, err = s.Once(ctx, db)
		return err
	}
	if ifIdle {
		lerr := s.j.TryExclusive(lockName, run)
		if errors.Is(lerr, journal.ErrBusy) {
			return rep, lerr
		}
		return rep, err
	}
	if lerr := s.j.Exclusive(lockName, run); lerr != nil && err == nil {
		return rep, lerr
	}
	return rep, err
}

// Drain ships until the local journal holds nothing the database lacks:
// after each pass, with the lock released, it looks at the log again, so
// lines appended by a process that found this one busy are shipped too.
func (s *Shipper) Drain(ctx context.Context, db *fleetdb.DB, ifIdle bool) (Report, error) {
	var total Report
	for {
		rep, err := s.Pass(ctx, db, ifIdle)
		total.add(rep)
		if err != nil {
			return total, err
		}
		v, err := s.j.View()
		if err != nil {
			return total, err
		}
		if h := v.Head(); h.Generation == rep.Generation && h.Seq <= rep.Seq {
			return total, nil
		}
		if ctx.Err() != nil {
			return total, ctx.Err()
		}
	}
}

func (r *Report) add(o Report) {
	r.Journal, r.Generation, r.Seq, r.Where = o.Journal, o.Generation, o.Seq, o.Where
	r.Lines += o.Lines
	r.Redacted += o.Redacted
	r.Blobs += o.Blobs
	r.BlobBytes += o.BlobBytes
	r.Sightings += o.Sightings
}

// RunOptions configure Run.
type RunOptions struct {
	// Every is how often the local journal is looked at (1 s when 0).
	Every time.Duration
	// MaxBackoff bounds the wait between attempts while the database is
	// down (1 minute when 0).
	MaxBackoff time.Duration
	// Logf reports what a person should know: the database went down,
	// came back, refused.
	Logf func(format string, args ...any)
}

// Run ships in the background until ctx is done, never failing the
// caller: the local journal goes on being the record, and Run catches up
// from where the database stopped. A database that is down is retried
// with a backoff; one that refuses (a fork, an old schema, a role that
// may not ship) is reported and retried slowly, so that fixing it resumes
// shipping.
func (s *Shipper) Run(ctx context.Context, url string, o RunOptions) {
	if o.Every <= 0 {
		o.Every = time.Second
	}
	if o.MaxBackoff <= 0 {
		o.MaxBackoff = time.Minute
	}
	logf := o.Logf
	if logf == nil {
		logf = func(string, ...any) {}
	}
	var db *fleetdb.DB
	defer func() {
		if db != nil {
			db.Close()
		}
	}()
	wait := o.Every
	down := ""
	var last journal.LogHead
	shipped := false
	for {
		err := func() error {
			v, err := s.j.View()
			if err != nil {
				return err
			}
			h := v.Head()
			if shipped && h == last && s.o.Now().Sub(s.lastSight) < s.o.SightEvery {
				return nil // nothing new here
			}
			if db == nil {
				if db, err = fleetdb.Open(ctx, url); err != nil {
					db = nil
					return err
				}
			}
			rep, err := s.Drain(ctx, db, false)
			if err != nil {
				return err
			}
			last, shipped = journal.LogHead{Generation: rep.Generation, Seq: rep.Seq, Kept: h.Kept}, true
			return nil
		}()
		switch {
		case ctx.Err() != nil:
			return
		case err == nil:
			if down != "" {
				logf("stet: shipping to %s again: caught up", fleetdb.Where(url))
				down = ""
			}
			wait = o.Every
		default:
			if fleetdb.Down(err) {
				if db != nil {
					db.Close()
					db = nil
				}
				var ue *fleetdb.UnreachableError
				if !errors.As(err, &ue) {
					err = &fleetdb.UnreachableError{Where: fleetdb.Where(url), Err: err}
				}
			}
			if msg := err.Error(); msg != down {
				logf("stet: shipping the journal: %v; local work continues, and shipping resumes from where the database stopped", err)
				down = msg
			}
			wait = min(max(wait*2, o.Every), o.MaxBackoff)
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(wait):
		}
	}
}
