package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"unicode/utf8"
)

// Append writes recs to the end of the log as one batch, under one exclusive
// lock, and returns them as written (each decoded back from its line).
//
// For each record it assigns Seq (one past the last record) and Prev (the hash
// of the line before), overwriting whatever the caller put there, and sets a
// zero Time from Options.Now. Times are stored in UTC. Type must not be empty,
// and Data, if set, must be valid JSON; it is stored compacted.
//
// A torn last line left by a crash is cut off first. The log is
// fdatasynced before Append returns (unless Options.NoSync), after the lock
// is released: one sync covers every Append of this handle whose lines
// were written before it began (group commit). Records of a session are
// copied to its index once that sync ran, and the index is fsynced later
// (see pending.go); this handle's Session sees them at once, another
// handle once it has completed the index from the log. If the copy fails,
// Append still succeeds, since the log is the record and the index is
// completed later.
//
// If Append returns an error after writing began (a failed fsync), the
// records may or may not be in the log; Scan tells.
func (j *Journal) Append(recs ...Record) ([]Record, error) {
	return j.appendLocked(recs, true)
}

// AppendThen is Append that calls logged once the records are durable in
// the log, just before it returns, outside the lock. logged is not called
// when the records do not become durable.
func (j *Journal) AppendThen(logged func(), recs ...Record) ([]Record, error) {
	return j.appendIf(recs, true, nil, logged)
}

// AppendLazy is Append without the fsyncs: the records reach the log (and
// survive a crash of this process) but may be lost on a power failure. It is
// for records whose loss costs nothing but a repeated step, such as a
// session's observations; receipts go through Append.
func (j *Journal) AppendLazy(recs ...Record) ([]Record, error) {
	return j.appendLocked(recs, false)
}

// AppendAtSessionEnd appends recs lazily (as AppendLazy) only if the
// index of session id still ends at the byte offset end, as returned by
// SessionFrom: nothing of the session was appended since. It reports
// whether it appended. It is for records that sum up a session as it stood
// at end, such as a snapshot of its state, which would be wrong after
// records the caller has not seen.
func (j *Journal) AppendAtSessionEnd(id string, end int64, recs ...Record) (bool, error) {
	if id == "" {
		return false, errors.New("journal: append: empty session id")
	}
	ok := false
	_, err := j.appendIf(recs, false, func(t tail) (bool, error) {
		at, err := j.sessionEnd(id, t)
		ok = err == nil && at == end
		return ok, nil // an index that cannot tell: not appended
	}, nil)
	return ok, err
}

func (j *Journal) appendLocked(recs []Record, durable bool) ([]Record, error) {
	return j.appendIf(recs, durable, nil, nil)
}

// appendIf appends recs if cond (called under the lock, with the session
// index complete) reports true, or if cond is nil. logged, if not nil, is
// called as AppendThen says.
func (j *Journal) appendIf(recs []Record, durable bool, cond func(tail) (bool, error), logged func()) ([]Record, error) {
	if len(recs) == 0 {
		return nil, nil
	}
	for i, r := range recs {
		if r.Type == "" {
			return nil, fmt.Errorf("journal: append: record %d has no type", i)
		}
		if r.Type == RecCheckpoint {
			return nil, fmt.Errorf("journal: append: record %d: %w", i, errReservedType)
		}
	}
	var out []Record
	var gen uint64
	err := j.withLock(true, func() error {
		if err := j.checkHome(); err != nil {
			return err
		}
		var err error
		out, gen, err = j.append(recs, durable, cond)
		return err
	})
	if err == nil && gen > 0 {
		// Outside the lock: appends that came in meanwhile share the sync.
		err = j.waitSynced(gen)
	}
	if err != nil {
		return nil, fmt.Errorf("journal: append: %w", err)
	}
	if logged != nil && out != nil {
		logged()
	}
	return out, nil
}

// append does the work of Append; the caller holds the exclusive lock. For
// durable records it returns the generation to wait for (waitSynced), once
// the lock is released.
func (j *Journal) append(recs []Record, durable bool, cond func(tail) (bool, error)) ([]Record, uint64, error) {
	t, err := readTail(j.log)
	if err != nil {
		return nil, 0, err
	}
	if t.torn() > 0 {
		if err := j.log.Truncate(t.end); err != nil {
			return nil, 0, fmt.Errorf("cut torn last line: %w", err)
		}
	}
	j.settle(t)
	indexed := j.indexCurrent(t)
	if !indexed && !j.lagging(t) {
		// Too far behind (or no usable watermark): complete it now.
		indexed = j.completeIndex(t) == nil
	}
	if cond != nil {
		if ok, err := cond(t); err != nil || !ok {
			return nil, 0, err
		}
	}
	seq, err := j.lastSeq(t)
	if err != nil {
		return nil, 0, err
	}
	prev := ""
	if t.last != nil {
		prev = hashName(t.last)
	}

	buf, out, bySession, err := j.encode(recs, seq, prev)
	if err != nil {
		return nil, 0, err
	}

	if _, err := j.log.Write(buf.Bytes()); err != nil {
		// Leave no torn line behind if we can help it; the next Append
		// would cut it anyway.
		j.log.Truncate(t.end)
		return nil, 0, err
	}
	end := t.end + int64(buf.Len())
	if durable {
		j.durable = true
	}
	if !indexed {
		// Behind another handle's lines: the watermark stays behind, and
		// readers take these lines from the log until a flush completes
		// the index (kick, Close).
		j.invalidatePending()
		j.behind++
		gen := j.logged(durable)
		j.kick()
		return out, gen, nil
	}
	if j.noSync {
		// Nothing is durable anyway: index at once, as if synced.
		if _, err := j.appendIndexes(bySession, false); err != nil {
			j.invalidatePending()
		} else {
			j.writeWatermark(end)
			j.resetPending(end)
		}
		return out, 0, nil
	}
	// The index lines wait until the log lines they copy are durable
	// (pending.go): written in a batch once the group sync covering them
	// ran, and fsynced right after, off this path.
	gen := j.logged(durable)
	if !durable {
		gen = j.group.added(j.log, nil)
	}
	if !j.pend.valid {
		j.resetPending(t.end) // the watermark is at t.end: the gap starts there
	}
	j.enqueue(gen, end, bySession)
	if !durable {
		gen = 0
	}
	return out, gen, nil
}

// lagging reports whether the index is behind the log (not this handle's
// gap) by little enough that readers may take the missing lines from the
// log (unwritten), so an append need not complete it first. The caller
// holds the lock.
func (j *Journal) lagging(t tail) bool {
	wm, ok := j.readWatermark()
	return ok && wm <= t.end && t.end-wm <= lagMax && j.atLineStart(wm)
}

// logged records a durable append's write for the group sync and returns
// its generation (0 for a lazy append, or without syncs). The caller holds
// the exclusive lock.
func (j *Journal) logged(durable bool) uint64 {
	if !durable || j.noSync {
		return 0
	}
	var dirs []string
	if j.newDir {
		// A new state directory: its entries are made durable with the
		// first record that must survive.
		dirs = append(dirs, ".")
		j.newDir = false
	}
	return j.group.added(j.log, dirs)
}

// lastSeq returns the Seq of the last complete line. If that line is not a
// record (damage that Verify reports), the count of complete lines stands in,
// so the log stays appendable.
func (j *Journal) lastSeq(t tail) (int64, error) {
	if t.last == nil {
		return 0, nil
	}
	var r Record
	if json.Unmarshal(t.last, &r) == nil && r.Seq > 0 {
		return r.Seq, nil
	}
	var n int64
	_, err := eachLine(io.NewSectionReader(j.log, 0, t.end), func(int64, []byte) error {
		n++
		return nil
	})
	return n, err
}

// checkHome fails with ErrMoved when the state directory's path names
// another directory than the one this handle has open: records appended
// here would be seen by no process that opens the path now.
func (j *Journal) checkHome() error {
	named, err := os.Stat(j.dir) // the state directory: not a workspace path
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s: %w", j.dir, ErrMoved)
	}
	if err != nil {
		return fmt.Errorf("state directory %s: %w", j.dir, err)
	}
	open, err := j.root.Stat(".")
	if err != nil {
		return fmt.Errorf("state directory %s: %w", j.dir, err)
	}
	if !os.SameFile(named, open) {
		return fmt.Errorf("%s: %w", j.dir, ErrMoved)
	}
	return nil
}

// encode chains recs after the record numbered seq whose line hashes to
// prev: the lines to append, the records as they will read back, and each
// session's index lines. The records and index lines share the returned
// buffer's bytes, which must not be written to after.
func (j *Journal) encode(recs []Record, seq int64, prev string) (*bytes.Buffer, []Record, map[string][]indexLine, error) {
	now := j.now().UTC()
	var buf bytes.Buffer
	size := 0
	for _, r := range recs {
		size += len(r.Prev) + len(r.Type) + len(r.Session) + len(r.Path) + len(r.Data)
	}
	buf.Grow(size + 200*len(recs)) // the keys, seq, prev and time: one allocation for the batch
	var enc *json.Encoder          // for a record appendLine leaves to it
	out := make([]Record, len(recs))
	ends := make([]int, len(recs))
	for i, r := range recs {
		seq++
		r.Seq, r.Prev = seq, prev
		if r.Time.IsZero() {
			r.Time = now
		}
		r.Time = r.Time.UTC()
		start := buf.Len()
		if !appendLine(&buf, &r) {
			if enc == nil {
				enc = json.NewEncoder(&buf) // Encode ends each line with "\n"
				enc.SetEscapeHTML(false)    // keep <, > and & readable in paths and payloads
			}
			if err := enc.Encode(r); err != nil {
				return nil, nil, nil, fmt.Errorf("record %d: %w", i, err)
			}
		}
		out[i], ends[i] = r, buf.Len()
		prev = hashName(buf.Bytes()[start : buf.Len()-1])
	}
	// The buffer holds every line now: they are sliced from it, not copied.
	all := buf.Bytes()
	bySession := map[string][]indexLine{}
	start := 0
	for i, r := range out {
		line := all[start : ends[i]-1 : ends[i]-1]
		start = ends[i]
		if d, ok := asDecoded(r, line); ok {
			out[i] = d
		} else {
			out[i] = Record{}
			if err := json.Unmarshal(line, &out[i]); err != nil {
				return nil, nil, nil, fmt.Errorf("record %d: %w", i, err)
			}
		}
		if r.Session != "" {
			bySession[r.Session] = append(bySession[r.Session], indexLine{seq: r.Seq, line: line})
		}
	}
	return &buf, out, bySession, nil
}

// dataKey precedes a record's payload in its line: the last field, after
// fields whose strings cannot hold an unescaped quote.
var dataKey = []byte(`,"data":`)

// asDecoded is r as decoding line, its encoding, gives it back, without
// decoding: the same strings where they are valid UTF-8 (the encoder
// replaces invalid bytes: ok is false then, and the caller decodes), the
// time in UTC (already so), and Data as the line holds it, compacted.
func asDecoded(r Record, line []byte) (Record, bool) {
	for _, s := range [...]string{r.Prev, r.Type, r.Session, r.Path} {
		if !utf8.ValidString(s) {
			return Record{}, false
		}
	}
	if len(r.Data) > 0 {
		i := bytes.Index(line, dataKey)
		if i < 0 || line[len(line)-1] != '}' {
			return Record{}, false
		}
		r.Data = json.RawMessage(line[i+len(dataKey) : len(line)-1])
	}
	return r, true
}
