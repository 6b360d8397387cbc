package journal

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
)

// The session index is derived data: sessions/<hex>.jsonl holds a copy of
// each line of one session, so rebuilding a session reads one small file.
//
// journal.lock records how far into journal.jsonl every index is complete
// and durable (the watermark). Append writes the log; the index lines
// follow once the log lines are durable, and the watermark once the index
// lines are (pending.go), so a crash in between leaves the watermark behind
// the log's end. Whoever next takes the lock and sees that (and is not the
// handle whose gap it is) copies the lines after the watermark into their
// indexes; a line is copied only if its seq is past the last seq of its
// index file, so completing twice does no harm.

// watermarkFormat is fixed-width so that rewriting it in place is one small
// write at offset 0 that never leaves stale bytes behind.
const watermarkFormat = "index %020d\n"

var watermarkLen = len(fmt.Sprintf(watermarkFormat, 0))

// readWatermark returns the offset in journal.jsonl up to which every index
// is complete; ok is false when journal.lock holds none (new, or damaged).
func (j *Journal) readWatermark() (off int64, ok bool) {
	buf := make([]byte, watermarkLen)
	if _, err := j.lock.ReadAt(buf, 0); err != nil {
		return 0, false
	}
	s, found := strings.CutPrefix(string(buf), "index ")
	s, found2 := strings.CutSuffix(s, "\n")
	if !found || !found2 {
		return 0, false
	}
	off, err := strconv.ParseInt(s, 10, 64)
	if err != nil || off < 0 {
		return 0, false
	}
	return off, true
}

// writeWatermark records that every index is complete up to off. It is not
// fsynced: a watermark lost to a power cut only makes the next reader redo
// some idempotent copying, and it is never written before the index lines it
// vouches for are durable.
func (j *Journal) writeWatermark(off int64) error {
	_, err := j.lock.WriteAt(fmt.Appendf(nil, watermarkFormat, off), 0)
	return err
}

// indexCurrent reports whether every index is complete for the log as it
// is, given its tail. Callers hold the lock.
func (j *Journal) indexCurrent(t tail) bool {
	wm, ok := j.readWatermark()
	if !ok {
		return false
	}
	p := &j.pend
	return wm == t.end || p.valid && p.log == j.log && p.to == t.end && p.from <= wm && wm <= p.to
}

// completeIndex copies into the session indexes every line of the log that
// lies past the watermark, up to t.end, fsyncs every index it touched, then
// moves the watermark there. It fdatasyncs the log first: an index line must
// never reach the disk before the log line it copies (pending.go). This
// handle's gap is then empty. Callers hold the exclusive lock.
func (j *Journal) completeIndex(t tail) error {
	from, ok := j.readWatermark()
	if !ok || from > t.end || !j.atLineStart(from) {
		// No usable watermark: start over. Copying is idempotent, so this
		// costs one pass over the log and changes nothing already indexed.
		from = 0
	}
	if from < t.end {
		if err := j.syncData(j.log, logName); err != nil {
			return fmt.Errorf("complete session index: %s: %w", logName, err)
		}
	}
	bySession := map[string][]indexLine{}
	_, err := eachLine(io.NewSectionReader(j.log, from, t.end-from), func(_ int64, line []byte) error {
		var r Record
		if json.Unmarshal(line, &r) != nil || r.Session == "" {
			return nil // not a record (Verify reports it) or not in a session
		}
		bySession[r.Session] = append(bySession[r.Session], indexLine{seq: r.Seq, line: slices.Clone(line)})
		return nil
	})
	if err != nil {
		return fmt.Errorf("complete session index: %w", err)
	}
	if _, err := j.appendIndexes(bySession, true); err != nil {
		return fmt.Errorf("complete session index: %w", err)
	}
	if err := j.writeWatermark(t.end); err != nil {
		return err
	}
	j.resetPending(t.end)
	j.behind = 0
	return nil
}

// atLineStart reports whether off is 0 or just past a "\n" of the log.
func (j *Journal) atLineStart(off int64) bool {
	if off == 0 {
		return true
	}
	var b [1]byte
	_, err := j.log.ReadAt(b[:], off-1)
	return err == nil && b[0] == '\n'
}

// indexLine is one line bound for a session index.
type indexLine struct {
	seq  int64
	line []byte // without "\n"
}

// appendIndexes appends lines to their sessions' index files, in session
// order for determinism, and reports whether it may have made a new file.
// With durable, it fsyncs each file (and sessions/ for a new one). Callers
// hold the exclusive lock.
func (j *Journal) appendIndexes(bySession map[string][]indexLine, durable bool) (newFile bool, err error) {
	for _, id := range slices.Sorted(maps.Keys(bySession)) {
		isNew, err := j.appendIndex(id, bySession[id], durable)
		if err != nil {
			return newFile, err
		}
		newFile = newFile || isNew
	}
	return newFile, nil
}

// lastSeqOf returns the seq of the last complete line of an index file
// whose tail is t (0 if none).
func lastSeqOf(t tail) int64 {
	if t.last == nil {
		return 0
	}
	var r chainHead
	if json.Unmarshal(t.last, &r) != nil {
		return 0
	}
	return r.Seq
}

// appendIndex appends to one session's index the lines whose seq is past
// the index's last seq, first cutting off a torn line left by a crash. It
// reports whether the file was empty (possibly new).
func (j *Journal) appendIndex(id string, lines []indexLine, durable bool) (newFile bool, err error) {
	name := sessionFile(id)
	f, err := j.root.OpenFile(name, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return false, err
	}
	defer f.Close()
	t, err := readTail(f)
	if err != nil {
		return false, fmt.Errorf("%s: %w", name, err)
	}
	newFile = t.size == 0
	if t.torn() > 0 {
		if err := f.Truncate(t.end); err != nil {
			return newFile, fmt.Errorf("%s: %w", name, err)
		}
	}
	lastSeq := lastSeqOf(t)
	size := 0
	for _, l := range lines {
		size += len(l.line) + 1
	}
	buf := make([]byte, 0, size) // a grep's observations: a megabyte, grown once
	for _, l := range lines {
		if l.seq > lastSeq {
			buf = append(append(buf, l.line...), '\n')
			lastSeq = l.seq
		}
	}
	if len(buf) == 0 && (!durable || len(lines) == 0) {
		return newFile, nil
	}
	// Durable with nothing new: the lines may have been written by
	// another handle that has not synced them yet; sync them before the
	// watermark vouches for them.
	if _, err := f.Write(buf); err != nil {
		return newFile, fmt.Errorf("%s: %w", name, err)
	}
	if !durable {
		return newFile, nil
	}
	if err := j.sync(f, name); err != nil {
		return newFile, fmt.Errorf("%s: %w", name, err)
	}
	if newFile {
		// Possibly a new file: make its directory entry durable too.
		return newFile, j.syncDir(sessionsDir)
	}
	return newFile, nil
}
