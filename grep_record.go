package stet

import "github.com/stet-dev/stet/journal"

// grepRecBatch is how many observation records grep hands the journal at
// once.
const grepRecBatch = 256

// grepRecorder appends the observation records of one search (the lines
// each file's rows showed, grepObserve) as the search goes, a batch at a
// time, on a goroutine of its own: the journal's work (encoding, chaining
// and writing a record per matching file) overlaps the search instead of
// following it. The records are appended in the order they were added.
// The session's own state holds each observation as soon as it is shown
// (grepObserve), so the journal now follows it during the search rather
// than only at its end.
type grepRecorder struct {
	s     *Session
	batch []journal.Record
	ch    chan []journal.Record // nil until the first batch is full
	done  chan error            // the appender's first error, once ch is closed
}

// add takes one record; a full batch goes to the appender, which is
// started on first use.
func (r *grepRecorder) add(rec journal.Record) {
	r.batch = append(r.batch, rec)
	if len(r.batch) < grepRecBatch {
		return
	}
	if r.ch == nil {
		r.ch, r.done = make(chan []journal.Record, 1), make(chan error, 1)
		go func() {
			var err error
			for b := range r.ch {
				if err == nil {
					err = r.s.e.Append(false, b...)
				}
			}
			r.done <- err
		}()
	}
	r.ch <- r.batch
	r.batch = nil
}

// finish appends the records not handed over yet (unless the search
// failed: keep false), waits for the appender and returns its first error.
// The batches already handed over are appended either way: their rows were
// handed to the caller, and the session's state holds them already.
func (r *grepRecorder) finish(keep bool) error {
	var err error
	if r.ch != nil {
		if keep && len(r.batch) > 0 {
			r.ch <- r.batch
		}
		close(r.ch)
		err = <-r.done
	} else if keep && len(r.batch) > 0 {
		err = r.s.e.Append(false, r.batch...)
	}
	r.batch, r.ch = nil, nil
	return err
}
