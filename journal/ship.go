package journal

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
)

// The read side a shipper needs (a reader that copies the log elsewhere,
// such as to a database): the log's exact lines from a seq on, its
// generation, and the workspace that owns the state directory. Nothing
// here writes.

// Line is one complete line of the log as stored.
type Line struct {
	Seq   int64
	Prev  string // the previous line's hash ("" on line 1)
	Hash  string // "sha256:<hex>" of Bytes: what the next line's Prev holds
	Bytes []byte // the line's exact bytes, without "\n"
}

// LogHead describes the log a LogView reads.
type LogHead struct {
	// Generation is the checkpoint's on line 1 of a compacted log; 0 for a
	// log never compacted. Each generation is a chain of its own, seq 1 on.
	Generation int64
	// Kept is how many records the checkpoint carried over from the
	// generation before (lines 2 to Kept+1); 0 without a checkpoint.
	Kept int64
	// Seq is the last complete line's seq; 0 for an empty log.
	Seq int64
}

// LogView is the log as it was when View was called: its complete lines
// then, whatever is appended or compacted later.
type LogView struct {
	f    *os.File
	end  int64
	head LogHead
}

// View returns a view of the log's complete lines as they are now. The
// view stays readable while the journal is open, even if Compact replaces
// the log meanwhile (the replaced file is kept open until Close).
func (j *Journal) View() (*LogView, error) {
	v := &LogView{}
	err := j.withLock(false, func() error {
		t, err := readTail(j.log)
		if err != nil {
			return err
		}
		v.f, v.end = j.log, t.end
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("journal: view: %w", err)
	}
	if v.end == 0 {
		return v, nil
	}
	l := &logLines{f: v.f, end: v.end}
	first, err := l.lineAt(0)
	if err != nil {
		return nil, fmt.Errorf("journal: view: %w", err)
	}
	var r Record
	if err := json.Unmarshal(first, &r); err != nil {
		return nil, &lineError{file: logName, line: 1, err: err}
	}
	if r.Type == RecCheckpoint {
		var cp Checkpoint
		if err := json.Unmarshal(r.Data, &cp); err != nil {
			return nil, &lineError{file: logName, line: 1, err: err}
		}
		v.head.Generation, v.head.Kept = cp.Generation, cp.Kept
	}
	t, err := readTail(v.f)
	if err != nil {
		return nil, fmt.Errorf("journal: view: %w", err)
	}
	if t.end < v.end {
		return nil, fmt.Errorf("journal: view: %s shrank while read", logName)
	}
	last, err := l.lineBefore(v.end)
	if err != nil {
		return nil, fmt.Errorf("journal: view: %w", err)
	}
	if v.head.Seq, err = leadingSeq(last); err != nil {
		return nil, err
	}
	return v, nil
}

// Head describes the viewed log.
func (v *LogView) Head() LogHead { return v.head }

// LinesAfter calls fn with every line of the view whose seq is above
// after, in order, and stops at fn's first error, which it returns. Each
// line is checked before fn sees it: its seq follows the one before and,
// from the second line handed out on, its Prev is the hash of that line
// (the first one's Prev is for the caller to check against what it holds
// of line after). A line that fails is ErrCorrupt. Line.Bytes is valid
// only during the call.
func (v *LogView) LinesAfter(after int64, fn func(Line) error) error {
	if after >= v.head.Seq {
		return nil
	}
	l := &logLines{f: v.f, end: v.end}
	start := int64(0)
	if after > 0 {
		s, _, err := l.find(after + 1)
		if err != nil {
			return fmt.Errorf("journal: lines after %d: %w: %w", after, ErrCorrupt, err)
		}
		start = s
	}
	want := after + 1
	prevHash := ""
	_, err := eachLine(io.NewSectionReader(v.f, start, v.end-start), func(n int64, line []byte) error {
		h, err := headOf(line)
		if err != nil {
			return &lineError{file: logName, line: want, err: err}
		}
		if h.Seq != want {
			return &lineError{file: logName, line: want, err: fmt.Errorf("seq %d where seq %d belongs: a gap or a reordering", h.Seq, want)}
		}
		if want > after+1 && h.Prev != prevHash {
			return &lineError{file: logName, line: want, err: fmt.Errorf("seq %d does not chain to the line before it", h.Seq)}
		}
		if err := sameHead(line, h.Seq, h.Prev); err != nil {
			return &lineError{file: logName, line: want, err: err}
		}
		prevHash = hashName(line)
		want++
		return fn(Line{Seq: h.Seq, Prev: h.Prev, Hash: prevHash, Bytes: line})
	})
	return err
}

// HashLine returns the hash a line's successor holds in its Prev:
// "sha256:<hex>" of the line's bytes without "\n".
func HashLine(line []byte) string { return hashName(line) }

// Owner returns the workspace the state directory was claimed for (see
// Claim); ErrNotFound when it was never claimed.
func (j *Journal) Owner() (Owner, error) {
	o, err := j.owner()
	if errors.Is(err, os.ErrNotExist) {
		return o, fmt.Errorf("journal: %s: %w", ownerName, ErrNotFound)
	}
	return o, err
}

// ErrBusy is TryExclusive's answer when another holder has the lock.
var ErrBusy = errors.New("journal: the lock is held by another")

// TryExclusive is Exclusive without the wait: when another process or
// handle holds the lock named name, it returns ErrBusy at once and fn
// does not run.
func (j *Journal) TryExclusive(name string, fn func() error) error {
	if err := j.root.Mkdir(cursorsDir, 0o700); err != nil && !errors.Is(err, os.ErrExist) {
		return err
	}
	f, err := j.root.OpenFile(cursorsDir+"/"+cursorName(name)+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	busy, err := tryLock(f)
	if err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	if busy {
		return ErrBusy
	}
	defer unlockFile(f)
	return fn()
}
