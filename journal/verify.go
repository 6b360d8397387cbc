package journal

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"strings"
)

// Report is the outcome of Verify.
type Report struct {
	Lines    int       // complete lines in journal.jsonl
	Blobs    int       // blobs checked
	Problems []Problem // damage: changed, missing or reordered lines, bad blobs, index copies that disagree
	Warnings []Problem // not damage: a torn last line, leftover temp files, stray files
	// Checkpoint is the checkpoint on line 1 of a compacted log (nil if
	// the log was never compacted). Verify checked it: see Compact for
	// what that proves and what it cannot.
	Checkpoint *Checkpoint
}

// OK reports whether Verify found no damage. Warnings do not count.
func (r Report) OK() bool { return len(r.Problems) == 0 }

// Problem is one finding of Verify. Line is the 1-based line of
// journal.jsonl it concerns (0 if none); Blob is the blob's name, if it is
// about a blob.
type Problem struct {
	Line int64
	Blob string
	Msg  string
}

// String formats p for people: "journal.jsonl line 6: ...", "blob sha256:...: ...".
func (p Problem) String() string {
	switch {
	case p.Blob != "":
		return fmt.Sprintf("blob %s: %s", p.Blob, p.Msg)
	case p.Line > 0:
		return fmt.Sprintf("%s line %d: %s", logName, p.Line, p.Msg)
	}
	return p.Msg
}

// Verify checks the whole state directory: that every line of the log is a
// record chained to the line before it with the next seq; that every session
// index line is a byte-exact copy of a log line of that session and every
// session line has its copy; and that every blob hashes to its name. It
// returns an error only when it could not read; what it found is in the
// Report.
//
// Verify first completes the session index if a crash left it behind (that
// is derived data; it never changes the log), then holds a shared lock while
// it reads the log and the indexes, so appends wait for it.
func (j *Journal) Verify() (Report, error) {
	var rep Report
	err := j.withLock(true, func() error {
		t, err := readTail(j.log)
		if err != nil {
			return err
		}
		j.settle(t)
		if !j.indexCurrent(t) {
			return j.completeIndex(t)
		}
		if len(j.pend.entries) > 0 {
			// This handle's lines that wait for the log's sync: sync it
			// and write them, so the files hold what is checked.
			if err := j.syncData(j.log, logName); err != nil {
				return err
			}
			j.drain(true)
		}
		return nil
	})
	if err == nil {
		err = j.withLock(false, func() error { return j.verifyLog(&rep) })
	}
	if err == nil {
		err = j.verifyBlobs(&rep)
	}
	if err != nil {
		return rep, fmt.Errorf("journal: verify: %w", err)
	}
	return rep, nil
}

// logLine is what Verify remembers of a line of the log.
type logLine struct {
	hash    [sha256.Size]byte
	session string // "" if none, or if the line is not a record
	indexed bool   // its copy was found in its session's index
}

// verifyLog checks the chain and the session index; the caller holds the lock.
func (j *Journal) verifyLog(rep *Report) error {
	t, err := readTail(j.log)
	if err != nil {
		return err
	}
	if n := t.torn(); n > 0 {
		rep.Warnings = append(rep.Warnings, Problem{
			Msg: fmt.Sprintf("%s ends in a torn line (%d bytes without a newline, from an interrupted append): skipped by readers, cut off by the next append", logName, n),
		})
	}

	var lines []logLine // lines[n-1] is line n
	lineOfSeq := map[int64]int64{}
	var lastSeq int64
	_, err = eachLine(io.NewSectionReader(j.log, 0, t.end), func(n int64, line []byte) error {
		l := logLine{hash: sha256.Sum256(line)}
		var msgs []string
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			msgs = append(msgs, fmt.Sprintf("not a record: %v", err))
		} else {
			if err := sameHead(line, r.Seq, r.Prev); err != nil {
				msgs = append(msgs, err.Error())
			}
			l.session = r.Session
			want := ""
			if n > 1 {
				want = "sha256:" + hex.EncodeToString(lines[n-2].hash[:])
			}
			if r.Prev != want {
				if n == 1 {
					msgs = append(msgs, "the first line has a prev hash: lines before it were removed")
				} else {
					msgs = append(msgs, fmt.Sprintf("prev does not match the hash of line %d: line %d was changed, or lines were removed or reordered here", n-1, n-1))
				}
			}
			if r.Seq != lastSeq+1 {
				msgs = append(msgs, fmt.Sprintf("seq %d follows seq %d", r.Seq, lastSeq))
			}
			if r.Type == RecCheckpoint {
				msgs = append(msgs, j.checkCheckpoint(n, r, rep)...)
			}
			lastSeq = r.Seq
			if _, dup := lineOfSeq[r.Seq]; !dup {
				lineOfSeq[r.Seq] = n
			}
		}
		if msgs != nil {
			rep.Problems = append(rep.Problems, Problem{Line: n, Msg: strings.Join(msgs, "; ")})
		}
		lines = append(lines, l)
		return nil
	})
	if err != nil {
		return err
	}
	rep.Lines = len(lines)
	if cp := rep.Checkpoint; cp != nil && cp.Kept > int64(len(lines)-1) {
		rep.Problems = append(rep.Problems, Problem{Line: 1, Msg: fmt.Sprintf("the checkpoint says %d records were kept, but only %d lines follow it: lines were removed", cp.Kept, len(lines)-1)})
	}

	if err := j.verifyIndexes(rep, lines, lineOfSeq); err != nil {
		return err
	}
	for i, l := range lines {
		if l.session != "" && !l.indexed {
			rep.Problems = append(rep.Problems, Problem{Line: int64(i + 1), Msg: fmt.Sprintf("missing from its session index %s", sessionFile(l.session))})
		}
	}
	return nil
}

// verifyIndexes cross-checks every session index line against the log.
func (j *Journal) verifyIndexes(rep *Report, lines []logLine, lineOfSeq map[int64]int64) error {
	d, err := j.root.Open(sessionsDir)
	if err != nil {
		return err
	}
	ents, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, e := range ents {
		base, ok := strings.CutSuffix(e.Name(), ".jsonl")
		if !ok || !isHex(base, 64) || !e.Type().IsRegular() {
			rep.Warnings = append(rep.Warnings, Problem{Msg: fmt.Sprintf("unexpected %s/%s", sessionsDir, e.Name())})
			continue
		}
		name := sessionsDir + "/" + e.Name()
		data, err := j.root.ReadFile(name)
		if err != nil {
			return err
		}
		var lastSeq int64
		torn, err := eachLine(bytes.NewReader(data), func(k int64, line []byte) error {
			bad := func(logLine int64, format string, args ...any) {
				rep.Problems = append(rep.Problems, Problem{Line: logLine, Msg: fmt.Sprintf("%s line %d: ", name, k) + fmt.Sprintf(format, args...)})
			}
			var r Record
			if err := json.Unmarshal(line, &r); err != nil {
				bad(0, "not a record: %v", err)
				return nil
			}
			if sessionFile(r.Session) != name {
				bad(0, "record of session %q in the index of another session", r.Session)
			}
			if r.Seq <= lastSeq {
				bad(0, "seq %d after seq %d", r.Seq, lastSeq)
			}
			lastSeq = r.Seq
			n, ok := lineOfSeq[r.Seq]
			if !ok {
				bad(0, "seq %d is in no line of %s: its line was removed or is no longer a record", r.Seq, logName)
				return nil
			}
			lines[n-1].indexed = true
			if lines[n-1].hash != sha256.Sum256(line) {
				bad(n, "copy of seq %d differs from line %d of %s: one of them was changed", r.Seq, n, logName)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if torn > 0 {
			rep.Warnings = append(rep.Warnings, Problem{Msg: fmt.Sprintf("%s ends in a torn line (%d bytes)", name, torn)})
		}
	}
	return nil
}

// verifyBlobs re-hashes every blob.
func (j *Journal) verifyBlobs(rep *Report) error {
	return j.eachBlob(func(path, version string, _ fs.DirEntry) error {
		rep.Blobs++
		data, err := j.root.ReadFile(path)
		if err != nil {
			rep.Problems = append(rep.Problems, Problem{Blob: version, Msg: fmt.Sprintf("unreadable: %v", err)})
			return nil
		}
		if got := hashName(data); got != version {
			rep.Problems = append(rep.Problems, Problem{Blob: version, Msg: fmt.Sprintf("content hashes to %s: the file was changed", got)})
		}
		return nil
	}, func(path string) {
		rep.Warnings = append(rep.Warnings, Problem{Msg: fmt.Sprintf("unexpected %s (a leftover temp file of an interrupted Put, or a stray file)", path)})
	})
}

// checkCheckpoint checks a checkpoint record found on line n and, when it
// is sound, puts it in rep. It returns what is wrong with it.
func (j *Journal) checkCheckpoint(n int64, r Record, rep *Report) []string {
	if n != 1 {
		return []string{"a checkpoint record after the first line: only a compaction writes one, as line 1"}
	}
	var cp Checkpoint
	if err := json.Unmarshal(r.Data, &cp); err != nil {
		return []string{fmt.Sprintf("a malformed checkpoint: %v", err)}
	}
	isHash := func(h string) bool {
		rest, ok := strings.CutPrefix(h, "sha256:")
		return ok && isHex(rest, 64)
	}
	var msgs []string
	switch {
	case r.Session != "" || r.Path != "":
		msgs = append(msgs, "a checkpoint of a session or a path")
	case cp.Generation < 1 || cp.Kept < 0 || cp.Dropped < 0 || cp.DroppedTotal < cp.Dropped:
		msgs = append(msgs, "a checkpoint with impossible counts")
	case cp.Dropped+cp.Kept != cp.OldLines:
		msgs = append(msgs, fmt.Sprintf("a checkpoint whose counts disagree: %d dropped and %d kept of %d lines", cp.Dropped, cp.Kept, cp.OldLines))
	case cp.OldLines > 0 && !isHash(cp.OldHead), cp.OldLines == 0 && cp.OldHead != "":
		msgs = append(msgs, "a checkpoint with a malformed old head hash")
	case cp.Dropped > 0 && !isHash(cp.LastDropped), cp.Dropped == 0 && cp.LastDropped != "":
		msgs = append(msgs, "a checkpoint with a malformed last dropped hash")
	}
	if msgs == nil {
		rep.Checkpoint = &cp
	}
	return msgs
}
