package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
)

// Scan calls fn with every complete record of the log, in order, and stops
// at fn's first error, which it returns. A torn last line is skipped.
//
// Scan sees the log as it was when it started: records appended meanwhile
// are not included. It holds no lock while fn runs, so fn may Append. A line
// that is not a record fails with ErrCorrupt naming the line; Scan does not
// check the hash chain (Verify does).
func (j *Journal) Scan(fn func(Record) error) error {
	var end int64
	err := j.withLock(false, func() error {
		t, err := readTail(j.log)
		end = t.end
		return err
	})
	if err != nil {
		return fmt.Errorf("journal: scan: %w", err)
	}
	// Bytes before end are complete lines, and complete lines are never
	// changed: reading them needs no lock.
	_, err = eachLine(io.NewSectionReader(j.log, 0, end), func(n int64, line []byte) error {
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
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
// Each line is checked where that is cheap: it must be a record of this
// session, seqs must rise, and a record that directly follows the previous
// one in the log must carry that line's hash. A failed check is ErrCorrupt.
// As with Scan, no lock is held while fn runs.
func (j *Journal) Session(id string, fn func(Record) error) error {
	_, err := j.SessionFrom(id, 0, func(r Record, _ int64) error { return fn(r) })
	return err
}

// SessionFrom is Session for the records of id whose index line starts at
// or after the byte offset from of the session's index (0: all of them); fn
// also gets that offset. It returns the index's end offset, the from of a
// later call that wants only what was appended since.
func (j *Journal) SessionFrom(id string, from int64, fn func(r Record, off int64) error) (end int64, err error) {
	if id == "" {
		return 0, errors.New("journal: session: empty session id")
	}
	name := sessionFile(id)
	var size int64
	snapshot := func() error {
		info, err := j.root.Stat(name)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			size = 0
			return nil
		case err != nil:
			return err
		}
		size = info.Size()
		return nil
	}
	current := false
	err = j.withLock(false, func() error {
		t, err := readTail(j.log)
		if err != nil {
			return err
		}
		if current = j.indexCurrent(t); current {
			return snapshot()
		}
		return nil
	})
	if err == nil && !current {
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
			return snapshot()
		})
	}
	if err != nil {
		return 0, fmt.Errorf("journal: session %q: %w", id, err)
	}
	if size <= from {
		return size, nil
	}

	f, err := j.root.Open(name)
	if err != nil {
		return 0, fmt.Errorf("journal: session %q: %w", id, err)
	}
	defer f.Close()
	var prevSeq int64
	var prevHash string
	off := from
	_, err = eachLine(io.NewSectionReader(f, from, size-from), func(n int64, line []byte) error {
		at := off
		off += int64(len(line)) + 1
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return &lineError{file: name, line: n, err: err}
		}
		switch {
		case r.Session != id:
			return &lineError{file: name, line: n, err: fmt.Errorf("record of session %q", r.Session)}
		case r.Seq <= prevSeq:
			return &lineError{file: name, line: n, err: fmt.Errorf("seq %d after seq %d", r.Seq, prevSeq)}
		case r.Seq == prevSeq+1 && r.Prev != prevHash:
			return &lineError{file: name, line: n, err: fmt.Errorf("seq %d does not chain to seq %d", r.Seq, prevSeq)}
		}
		prevSeq, prevHash = r.Seq, hashName(line)
		return fn(r, at)
	})
	return size, err
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
