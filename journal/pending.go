package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"slices"
)

// The session index lines of this handle's appends, between the log and
// the index files.
//
// An index line is written to its file only once the log line it copies is
// durable: after the group sync that covers it (or, for completeIndex, an
// fdatasync of the log it runs first). So an index file never holds a line
// that a power cut could take from the log: such a line (an index line past
// the log's end, or one whose seq the log later gives to another record)
// would break its session for good. Until then the lines wait here, in log
// order, and this handle's readers take them from here (Session,
// SessionFrom: at the offsets they will have in the file).
//
// The lines are written in batches, and the index files fsynced right
// after, off the appends' path: by a background flush once drainBatch
// appends wait (kick), by Flush, Verify and Close, or by whoever completes
// the index from the log. The watermark moves over lines only once their
// index lines are durable, so a watermark never vouches for an index line
// a power cut could take (it is not synced itself: a lost update only makes
// the next holder of the lock redo some idempotent copying).
//
// The gap between the watermark and the end of the log is this handle's
// own while every line in it was appended by this handle: its readers then
// take the index as complete (written, or waiting here). Another handle or
// process sees the watermark behind and takes the lines the index lacks
// from the log past the watermark (unwritten), writing nothing; its flush,
// or anyone who finds the watermark unusable or lagMax behind, completes
// the index from the log (an fdatasync of the log, the missing lines, an
// fsync of every index file it touches, the watermark), which also covers
// this handle's lines: they are then skipped here by seq.
type pendingIndex struct {
	// valid: every log line of log in [from, to) was appended by this
	// handle, and the watermark, if at or past from, is this handle's to
	// move. Lines in [from, drained) are written to their index files;
	// those of entries are not.
	valid   bool
	log     *os.File
	from    int64
	to      int64
	drained int64
	entries []pendingEntry

	dirty     map[string]bool // index files written since they were last synced
	dirtyDir  bool            // a new index file's entry in sessions/ is not yet synced
	epoch     uint64          // changes whenever the state is reset
	bgRunning bool            // a background flush is running
}

// pendingEntry is the index lines of one append, not yet written.
type pendingEntry struct {
	gen   uint64 // the append's generation: written once it is synced
	end   int64  // the log offset just past the append's lines
	lines map[string][]indexLine
}

// Thresholds of the background flush (kick): it writes and syncs the
// index lines once drainBatch appends wait, and syncs the log for lines
// that wait only for that (lazy appends with no durable one after them)
// past maxPendingEntries.
//
// closeSyncBytes is how many bytes of log lines waiting for their index
// make Close sync the log to write them (below it, the next reader takes
// them from the log's tail, cheaply; lagMax behind, it would have to
// complete the index before it answers).
const (
	drainBatch        = 64
	maxPendingEntries = 256
	closeSyncBytes    = 64 << 10
)

// closeLagBytes is how far the index may lag the log for Close of a
// handle that made a durable append to leave it so. Readers take the
// lines past the watermark from the log, decoding and hashing each
// (about 15 µs per KiB on the project's machine), so the bound keeps that
// under the cost of the flush it saves most processes.
const closeLagBytes = 16 << 10

// lagBytes returns how far the watermark is behind the log's end (0 when
// either cannot be read: Close then leaves the index to the next reader,
// which completes what it cannot use).
func (j *Journal) lagBytes() int64 {
	var lag int64
	j.withLock(false, func() error {
		info, err := j.log.Stat()
		if wm, ok := j.readWatermark(); err == nil && ok && wm <= info.Size() {
			lag = info.Size() - wm
		}
		return nil
	})
	return lag
}

// resetPending forgets this handle's gap: what it held is either written
// and synced by whoever completed the index, or past a watermark that the
// next holder of the lock completes from the log. The gap starts afresh at
// end of the current log. The caller holds j.mu.
func (j *Journal) resetPending(end int64) {
	p := &j.pend
	p.valid, p.log, p.from, p.to, p.drained = true, j.log, end, end, end
	p.entries, p.dirty, p.dirtyDir = nil, nil, false
	p.epoch++
}

// invalidatePending drops the gap without starting a new one: the index is
// then behind for this handle too (readers take the lines from the log, a
// flush completes it).
func (j *Journal) invalidatePending() {
	j.resetPending(0)
	j.pend.valid = false
}

// settle checks the gap against the log's tail t, dropping it when another
// handle appended since. The caller holds the exclusive lock.
func (j *Journal) settle(t tail) {
	p := &j.pend
	if p.valid && (p.log != j.log || p.to != t.end) {
		j.invalidatePending()
	}
}

// drain writes, in log order, the pending entries whose log lines are
// durable (all of them with force: the caller just synced the log), one
// write per index file. The caller holds the exclusive lock.
func (j *Journal) drain(force bool) {
	p := &j.pend
	n := 0
	merged := map[string][]indexLine{}
	for _, e := range p.entries {
		if !force && !j.group.isSynced(e.gen) {
			break
		}
		for id, lines := range e.lines {
			merged[id] = append(merged[id], lines...)
		}
		n++
	}
	if n == 0 {
		return
	}
	newFile, err := j.appendIndexes(merged, false)
	if err != nil {
		// The watermark stays behind these lines: the next holder of the
		// lock completes the index from the log.
		j.invalidatePending()
		return
	}
	if p.dirty == nil {
		p.dirty = map[string]bool{}
	}
	for id := range merged {
		p.dirty[sessionFile(id)] = true
	}
	p.dirtyDir = p.dirtyDir || newFile
	p.drained = p.entries[n-1].end
	p.entries = slices.Delete(p.entries, 0, n)
	if len(p.entries) == 0 {
		p.drained = p.to
	}
}

// enqueue adds the index lines of an append of generation gen, which ends
// the log at end, to the gap. The caller holds the exclusive lock, called
// settle, and found the index current.
func (j *Journal) enqueue(gen uint64, end int64, lines map[string][]indexLine) {
	p := &j.pend
	if len(lines) > 0 {
		p.entries = append(p.entries, pendingEntry{gen: gen, end: end, lines: lines})
	}
	p.to = end
	if len(p.entries) == 0 {
		p.drained = end // nothing waits: as good as written
	}
	j.kick()
}

// kick starts a background flush when enough waits for one: lines to
// write (drainBatch; the log's sync is waited for only past
// maxPendingEntries, a run of lazy appends no durable one covered), or
// appends made while the index was behind (which readers take from the
// log). The caller holds j.mu.
func (j *Journal) kick() {
	p := &j.pend
	if j.closing || p.bgRunning || len(p.entries) < drainBatch && j.behind < drainBatch {
		return
	}
	p.bgRunning = true
	sync := len(p.entries) >= maxPendingEntries
	j.bg.Add(1)
	go func() {
		defer j.bg.Done()
		j.flushWith(sync) // best effort: the index is derived data
		j.mu.Lock()
		j.pend.bgRunning = false
		j.mu.Unlock()
	}()
}

// unwritten returns the lines of session id that its index file f (nil: no
// file) lacks, in order, for the log whose tail is t: this handle's lines
// waiting to be written when the gap is its own (indexCurrent), else the
// session's lines of the log past the watermark. ok is false when the
// watermark is unusable or too far behind (lagMax): the index must then be
// completed first. The caller holds the lock.
func (j *Journal) unwritten(id string, f *os.File, t tail) (lines []indexLine, ok bool, err error) {
	lastSeq := func() (int64, error) {
		if f == nil {
			return 0, nil
		}
		ft, err := readTail(f)
		return lastSeqOf(ft), err
	}
	if j.indexCurrent(t) {
		for _, e := range j.pend.entries {
			lines = append(lines, e.lines[id]...)
		}
		if len(lines) == 0 {
			return nil, true, nil
		}
		// Another handle that completed the index may have written some.
		last, err := lastSeq()
		if err != nil {
			return nil, false, err
		}
		i := 0
		for i < len(lines) && lines[i].seq <= last {
			i++
		}
		return lines[i:], true, nil
	}
	wm, ok := j.readWatermark()
	if !ok || wm > t.end || t.end-wm > lagMax || !j.atLineStart(wm) {
		return nil, false, nil
	}
	last, err := lastSeq()
	if err != nil {
		return nil, false, err
	}
	lines, err = j.tailLines(id, wm, t, last)
	return lines, err == nil, err
}

// lagMax is how far the watermark may lag behind the log's end for readers
// to take the missing index lines from the log rather than complete the
// index (which fsyncs).
const lagMax = 256 << 10

// tailLines returns the lines of session id in the log from offset wm (a
// line start) to t.end whose seq is past after. It checks the chain of
// every line it reads, from the line before wm on, so what it returns is
// as trustworthy as an index line checked against the log.
func (j *Journal) tailLines(id string, wm int64, t tail, after int64) ([]indexLine, error) {
	before, err := (&logLines{f: j.log, end: t.end}).lineBefore(wm)
	if err != nil {
		return nil, err
	}
	var prevSeq int64
	prevHash := ""
	if before != nil {
		if prevSeq, err = leadingSeq(before); err != nil {
			return nil, err
		}
		prevHash = hashName(before)
	}
	var out []indexLine
	_, err = eachLine(io.NewSectionReader(j.log, wm, t.end-wm), func(_ int64, line []byte) error {
		var h chainHead
		if err := json.Unmarshal(line, &h); err != nil {
			return &lineError{file: logName, line: prevSeq + 1, err: err}
		}
		if err := sameHead(line, h.Seq, h.Prev); err != nil {
			return &lineError{file: logName, line: prevSeq + 1, err: err}
		}
		if h.Seq != prevSeq+1 || h.Prev != prevHash {
			return &lineError{file: logName, line: prevSeq + 1, err: fmt.Errorf("seq %d does not chain to seq %d", h.Seq, prevSeq)}
		}
		prevSeq, prevHash = h.Seq, hashName(line)
		if h.Session == id && h.Seq > after {
			out = append(out, indexLine{seq: h.Seq, line: slices.Clone(line)})
		}
		return nil
	})
	return out, err
}

// sessionEnd returns where the index of session id ends, counting the
// lines it lacks (unwritten) for the log whose tail is t. The caller holds
// the lock and found the index current or completed it.
func (j *Journal) sessionEnd(id string, t tail) (int64, error) {
	f, err := j.root.Open(sessionFile(id))
	if errors.Is(err, fs.ErrNotExist) {
		f = nil
	} else if err != nil {
		return 0, err
	}
	var size int64
	if f != nil {
		defer f.Close()
		info, err := f.Stat()
		if err != nil {
			return 0, err
		}
		size = info.Size()
	}
	lines, ok, err := j.unwritten(id, f, t)
	if err != nil {
		return 0, err
	}
	if !ok {
		return 0, errors.New("session index behind the log")
	}
	for _, l := range lines {
		size += int64(len(l.line)) + 1
	}
	return size, nil
}

// flush makes this handle's index lines durable and moves the watermark
// over them: it waits for the sync of the log lines they copy, writes
// them, fsyncs the index files outside the lock, and moves the watermark
// if the gap is still this handle's. An error leaves the watermark behind
// (the index is then completed from the log).
func (j *Journal) flush() error { return j.flushWith(true) }

// flushWith is flush that, without syncLog, writes only the lines whose
// log lines a sync already covered.
func (j *Journal) flushWith(syncLog bool) error {
	j.mu.Lock()
	busy := !j.closed && (j.behind > 0 || j.pend.valid && (len(j.pend.entries) > 0 || len(j.pend.dirty) > 0))
	j.mu.Unlock()
	if !busy {
		return nil
	}
	if syncLog {
		if err := j.waitSynced(j.group.last()); err != nil {
			return err
		}
	}
	var files []string
	var dir bool
	var to int64
	var epoch uint64
	err := j.withLock(true, func() error {
		t, err := readTail(j.log)
		if err != nil {
			return err
		}
		j.settle(t)
		if !j.indexCurrent(t) {
			// Behind another handle's lines: complete from the log (it
			// syncs everything it writes).
			if err := j.completeIndex(t); err != nil {
				return err
			}
		}
		j.drain(false)
		p := &j.pend
		files, dir, to, epoch = slices.Sorted(maps.Keys(p.dirty)), p.dirtyDir, p.drained, p.epoch
		p.dirty, p.dirtyDir = nil, false
		return nil
	})
	if err != nil {
		return err
	}
	var serr error
	for _, name := range files {
		if err := j.syncNamed(name); err != nil && serr == nil {
			serr = err
		}
	}
	if dir {
		if err := j.syncDir(sessionsDir); err != nil && serr == nil {
			serr = err
		}
	}
	return j.withLock(true, func() error {
		p := &j.pend
		if p.epoch != epoch || !p.valid || p.log != j.log {
			return serr
		}
		if serr != nil {
			j.invalidatePending()
			return serr
		}
		if wm, ok := j.readWatermark(); ok && wm >= p.from && wm < to && to <= p.to {
			return j.writeWatermark(to)
		}
		return nil
	})
}

// syncNamed fsyncs the file name of the state directory.
func (j *Journal) syncNamed(name string) error {
	if j.noSync {
		return nil
	}
	f, err := j.root.OpenFile(name, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // replaced or removed since (Compact): its writer synced
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return j.sync(f, name)
}

// Flush makes this handle's records and their session index lines durable
// now: it fdatasyncs the log (if lazy appends were not yet synced), writes
// the index lines that wait for that, fsyncs the index files, and moves the
// watermark over them. Appends do not wait for the index, nor, below a
// lag of closeLagBytes, does Close.
// Callers need it only to hand the state directory to a reader that must
// not repair it (a copy, a backup) while this handle stays open.
func (j *Journal) Flush() error {
	if err := j.flush(); err != nil {
		return fmt.Errorf("journal: flush: %w", err)
	}
	return nil
}
