package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// Scan calls fn with every complete record of the log, in order, and stops
// at fn's first error, which it returns. A torn last line is skipped.
//
// Scan sees the log as it was when it started: records appended meanwhile
// are not included. It holds no lock while fn runs, so fn may Append. A line
// that is not a record, or that does not chain to the line before it (its
// Prev is not that line's hash, or its seq is not one more: a gap), fails
// with ErrCorrupt naming the line, before fn sees it. Verify reports every
// problem of the log; Scan stops at the first.
func (j *Journal) Scan(fn func(Record) error) error {
	var end int64
	var logf *os.File
	err := j.withLock(false, func() error {
		logf = j.log
		t, err := readTail(logf)
		end = t.end
		return err
	})
	if err != nil {
		return fmt.Errorf("journal: scan: %w", err)
	}
	// Bytes before end are complete lines, and complete lines are never
	// changed: reading them needs no lock.
	// Two passes: the chain is checked to the end before fn sees a record,
	// so a forged line (one that only a later line shows up) is never
	// handed out.
	var prevHash string
	_, err = eachLine(io.NewSectionReader(logf, 0, end), func(n int64, line []byte) error {
		r, err := headOf(line)
		if err != nil {
			return &lineError{file: logName, line: n, err: err}
		}
		return linkLine(n, r.Seq, r.Prev, line, &prevHash)
	})
	if err != nil {
		return err
	}
	_, err = eachLine(io.NewSectionReader(logf, 0, end), func(n int64, line []byte) error {
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return &lineError{file: logName, line: n, err: err}
		}
		if err := sameHead(line, r.Seq, r.Prev); err != nil {
			return &lineError{file: logName, line: n, err: err}
		}
		return fn(r)
	})
	return err
}

// Session calls fn with every record of session id, in order, and stops at
// fn's first error, which it returns. It reads only the session's index
// file, so its cost follows the size of the session, not of the journal.
// If a crash left the index behind the log, Session completes it first.
//
// The index is derived data, so no line of it is taken on its word: each
// must be a record of this session with a rising seq, a byte-exact copy of
// the log's line with that seq, and chained to the log line before it (that
// line's hash in Prev, and the seq just below). The log lines are found by
// seq (see logLines), so the check reads about as much of the log as the
// session's own lines. A failed check is ErrCorrupt, before fn sees the
// line. As with Scan, no lock is held while fn runs.
func (j *Journal) Session(id string, fn func(Record) error) error {
	_, err := j.SessionFrom(id, 0, func(r Record, _ int64) error { return fn(r) })
	return err
}

// SessionFrom is Session for the records of id whose index line starts at
// or after the byte offset from of the session's index (0: all of them); fn
// also gets that offset. It returns the index's end offset, the from of a
// later call that wants only what was appended since.
func (j *Journal) SessionFrom(id string, from int64, fn func(r Record, off int64) error) (end int64, err error) {
	end, _, err = j.SessionStamped(id, from, fn)
	return end, err
}

// A Stamp is the log as a read of it saw it, under the journal's lock: the
// file and its size. Every record is a line appended to the log, and
// Compact replaces the log with another file, so a log that is still that
// file at that size holds no record the read did not see.
type Stamp struct {
	info os.FileInfo
}

// SessionStamped is SessionFrom that also returns the Stamp of the log
// the records came from. Unchanged(stamp) then tells, with one stat, that
// a SessionFrom from end would find nothing.
func (j *Journal) SessionStamped(id string, from int64, fn func(r Record, off int64) error) (end int64, stamp Stamp, err error) {
	if id == "" {
		return 0, Stamp{}, errors.New("journal: session: empty session id")
	}
	end, err = j.sessionFrom(id, from, &stamp, fn)
	if err != nil {
		stamp = Stamp{}
	}
	return end, stamp, err
}

// Unchanged reports whether the log is still the file, of the size, that
// s saw: one stat of its name, no lock. Nothing was appended since (an
// append grows the file before it releases the lock; one still being
// written is ordered after the read s stamps), and no Compact replaced it
// (the replaced file stays open in this process, so its identity cannot
// pass to the new one). A zero Stamp is never unchanged.
func (j *Journal) Unchanged(s Stamp) bool {
	if s.info == nil {
		return false
	}
	named, err := j.root.Stat(logName)
	return err == nil && named.Size() == s.info.Size() && named.ModTime().Equal(s.info.ModTime()) && os.SameFile(named, s.info)
}

func (j *Journal) sessionFrom(id string, from int64, stamp *Stamp, fn func(r Record, off int64) error) (end int64, err error) {
	name := sessionFile(id)
	idx, err := j.openIndex(id)
	if idx.f != nil {
		defer idx.f.Close()
	}
	if err != nil {
		return 0, fmt.Errorf("journal: session %q: %w", id, err)
	}
	*stamp = idx.stamp
	f, size := idx.f, idx.size
	off := from
	if size > from {
		// Every line is checked before fn sees any, as in Scan. Up to
		// keptMax bytes of lines, the check keeps the records it decoded
		// and fn gets those: one read and one decode of each line.
		// Beyond that, the lines are read and decoded again.
		var kept []keptRecord
		keep := size-from <= j.keptMax
		if err := checkIndex(id, name, f, from, size, &logLines{f: idx.log, end: idx.logEnd}, keep, &kept); err != nil {
			return 0, err
		}
		for _, k := range kept {
			at := off
			off += int64(k.lineLen) + 1
			if err := fn(k.r, at); err != nil {
				return 0, err
			}
		}
		if !keep {
			_, err = eachLine(io.NewSectionReader(f, from, size-from), func(n int64, line []byte) error {
				at := off
				off += int64(len(line)) + 1
				var r Record
				if err := json.Unmarshal(line, &r); err != nil {
					return &lineError{file: name, line: n, err: err}
				}
				return fn(r, at)
			})
			if err != nil {
				return 0, err
			}
		}
	}
	// This handle's lines not yet written, at the offsets they will have
	// (pending.go); they are its own encodings of its log lines.
	at := size
	for _, l := range idx.pending {
		if at >= from {
			var r Record
			if err := json.Unmarshal(l.line, &r); err != nil {
				return 0, fmt.Errorf("journal: session %q: seq %d: %w", id, l.seq, err)
			}
			if err := fn(r, at); err != nil {
				return 0, err
			}
		}
		at += int64(len(l.line)) + 1
	}
	return max(at, size), nil
}

// sessionIndex is a session's index file opened with the log of the same
// generation: f is nil (size 0) when the session has no index. pending are
// this handle's lines of the session that follow the file's, not yet
// written (pending.go).
type sessionIndex struct {
	f       *os.File
	size    int64
	log     *os.File
	logEnd  int64
	pending []indexLine
	stamp   Stamp // the log as the lock's holder saw it when the index was opened
}

// openIndex opens the index file of session id and the log it copies,
// completing the index first (under the exclusive lock) if it is behind
// the log. The caller closes the returned file, even with an error.
func (j *Journal) openIndex(id string) (sessionIndex, error) {
	var idx sessionIndex
	name := sessionFile(id)
	// snapshot opens the index and the log under the lock, so both are of
	// one generation even if Compact replaces them while they are read.
	snapshot := func() error {
		idx.log = j.log
		idx.stamp = Stamp{info: j.logInfo}
		file, err := j.root.Open(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			idx.size = 0
		case err != nil:
			return err
		default:
			info, err := file.Stat()
			if err != nil {
				file.Close()
				return err
			}
			idx.f, idx.size = file, info.Size()
		}
		return nil
	}
	// lacking adds the lines the file lacks (unwritten); ok is false when
	// the index must be completed first.
	lacking := func(t tail) (bool, error) {
		lines, ok, err := j.unwritten(id, idx.f, t)
		idx.pending = lines
		return ok, err
	}
	ok := false
	err := j.withLock(false, func() error {
		t, err := readTail(j.log)
		if err != nil {
			return err
		}
		idx.logEnd = t.end
		if err := snapshot(); err != nil {
			return err
		}
		ok, err = lacking(t)
		if !ok && idx.f != nil {
			idx.f.Close()
			idx.f, idx.size = nil, 0
		}
		return err
	})
	if err == nil && !ok {
		err = j.withLock(true, func() error {
			t, err := readTail(j.log)
			if err != nil {
				return err
			}
			if !j.indexCurrent(t) {
				if err := j.completeIndex(t); err != nil {
					return err
				}
			}
			idx.logEnd = t.end
			if err := snapshot(); err != nil {
				return err
			}
			_, err = lacking(t)
			return err
		})
	}
	return idx, err
}

// keptMax is how many bytes of a session's index lines SessionFrom keeps
// decoded between its check and its calls of fn (a snapshot and what
// followed it are usually far smaller); a longer stretch is decoded twice instead.
// A Journal's keptMax is this one unless a test lowered it.
const keptMax = 8 << 20

// keptRecord is an index line's record decoded by checkIndex, with the
// line's length (without "\n").
type keptRecord struct {
	r       Record
	lineLen int
}

// checkIndex checks the lines of the index file name of session id in f,
// from offset from to size, against the log: each names the session, seqs
// rise, and each is the log's line of that seq. With keep, it decodes
// each line as a whole Record and appends it to *kept once checked (the
// session, seq and prev it checks are that decode's); else it decodes
// only what it checks.
func checkIndex(id, name string, f *os.File, from, size int64, log *logLines, keep bool, kept *[]keptRecord) error {
	var prevSeq int64
	var prevHash string
	_, err := eachLine(io.NewSectionReader(f, from, size-from), func(n int64, line []byte) error {
		var r chainHead
		var rec Record
		if keep {
			if err := json.Unmarshal(line, &rec); err != nil {
				return &lineError{file: name, line: n, err: err}
			}
			r = chainHead{Seq: rec.Seq, Prev: rec.Prev, Session: rec.Session}
		} else if err := json.Unmarshal(line, &r); err != nil {
			return &lineError{file: name, line: n, err: err}
		}
		if err := sameHead(line, r.Seq, r.Prev); err != nil {
			return &lineError{file: name, line: n, err: err}
		}
		switch {
		case r.Session != id:
			return &lineError{file: name, line: n, err: fmt.Errorf("record of session %q", r.Session)}
		case r.Seq <= prevSeq:
			return &lineError{file: name, line: n, err: fmt.Errorf("seq %d after seq %d", r.Seq, prevSeq)}
		}
		hash, err := checkInLog(log, r, line, prevSeq, prevHash)
		if err != nil {
			return &lineError{file: name, line: n, err: err}
		}
		prevSeq, prevHash = r.Seq, hash
		if keep {
			*kept = append(*kept, keptRecord{r: rec, lineLen: len(line)})
		}
		return nil
	})
	return err
}

// chainHead is what the chain checks read of a line.
type chainHead struct {
	Seq     int64  `json:"seq"`
	Prev    string `json:"prev"`
	Session string `json:"session"`
}

// checkInLog checks an index line (r, decoded from line) against the log:
// the log's line with r's seq must be the same bytes, and chained to the
// line before it. prevSeq and prevHash describe the index line before,
// already checked, which spares reading the log line before when the two
// are neighbours there. It returns the line's hash.
func checkInLog(log *logLines, r chainHead, line []byte, prevSeq int64, prevHash string) (string, error) {
	start, logged, err := log.find(r.Seq)
	if err != nil {
		return "", err
	}
	if !bytes.Equal(logged, line) {
		return "", fmt.Errorf("seq %d differs from the log's line", r.Seq)
	}
	hash := hashName(logged) // the same bytes as line
	// The line after it in the log must chain to it: otherwise a line
	// changed in place (in the log and in the index alike) would pass.
	if next := start + int64(len(logged)) + 1; next < log.end {
		after, err := log.headAt(next)
		if err != nil {
			return "", err
		}
		if after.Seq != r.Seq+1 || after.Prev != hash {
			return "", fmt.Errorf("seq %d: the log's next line does not chain to it", r.Seq)
		}
	}
	if r.Seq == prevSeq+1 {
		if r.Prev != prevHash {
			return "", fmt.Errorf("seq %d does not chain to seq %d", r.Seq, prevSeq)
		}
		return hash, nil
	}
	before, err := log.lineBefore(start)
	if err != nil {
		return "", err
	}
	if before == nil {
		if r.Seq != 1 || r.Prev != "" {
			return "", fmt.Errorf("seq %d is the log's first line", r.Seq)
		}
		return hash, nil
	}
	seq, err := leadingSeq(before)
	if err != nil {
		return "", err
	}
	if seq != r.Seq-1 {
		return "", fmt.Errorf("seq %d follows seq %d in the log: a gap", r.Seq, seq)
	}
	if r.Prev != hashName(before) {
		return "", fmt.Errorf("seq %d does not chain to seq %d", r.Seq, seq)
	}
	return hash, nil
}

// lineError is a line of a journal file that is not what it should be. It
// matches ErrCorrupt.
type lineError struct {
	file string
	line int64
	err  error
}

func (e *lineError) Error() string {
	return fmt.Sprintf("journal: %s line %d: corrupt: %v", e.file, e.line, e.err)
}

func (e *lineError) Unwrap() []error { return []error{ErrCorrupt, e.err} }

// linkLine checks that line n of the log, whose record gives seq and prev,
// is the n-th line and chains to the line before it (whose hash *prevHash
// holds), and moves *prevHash on to this line. Every reader of the whole
// log checks the chain here.
func linkLine(n, seq int64, prev string, line []byte, prevHash *string) error {
	switch {
	case seq != n:
		return &lineError{file: logName, line: n, err: fmt.Errorf("seq %d on line %d: a gap or a reordering", seq, n)}
	case prev != *prevHash:
		return &lineError{file: logName, line: n, err: fmt.Errorf("seq %d does not chain to the line before it", seq)}
	}
	*prevHash = hashName(line)
	return nil
}

// sameHead checks that a line's decoded seq and prev (JSON keeps the last
// of a key given twice) are the ones at its start (headOf: what the fast
// chain checks read). A line that gives either twice with different values
// would pass one reader's check and be used by another as a record that
// was never checked: every reader refuses it.
func sameHead(line []byte, seq int64, prev string) error {
	if h, err := headOf(line); err != nil || h.Seq != seq || h.Prev != prev {
		return errors.New("seq or prev given twice, with different values")
	}
	return nil
}
