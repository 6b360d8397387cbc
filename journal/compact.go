package journal

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"regexp"
	"strings"
	"time"
)

// Compaction. Compact rewrites the log without the records its caller
// lets go, behind a checkpoint record on line 1:
//
//	{"seq":1,"prev":"","time":...,"type":"checkpoint","data":{
//	  "generation":2,"old_lines":N,"old_head":"sha256:...",
//	  "dropped":D,"last_dropped":"sha256:...","kept":K,"dropped_total":T}}
//
// The kept records follow in their old order with new seqs (2, 3, ...) and
// new prev hashes, so the log is again one unbroken chain and every reader
// checks it as before; their times, types, sessions, paths and payloads are
// unchanged. The session indexes and cursors are derived data and are
// rebuilt (cursors dropped), and unreferenced old blobs are removed.
//
// What the checkpoint proves, once Verify has checked it (line 1, prev "",
// kept no more than the lines that follow it): the lines after it chain to
// it, as any line chains to the one before. It records what the compacted
// log was (its line count and the hash of its last line, old_head) and the
// hash of the last line dropped, so the log can be matched against a copy
// or a backup of the old one. What it cannot prove: that the dropped lines
// said anything in particular, or that the kept ones were carried over
// unchanged. The old log is gone, and the checkpoint is not a signature:
// whoever can write the state directory can write a checkpoint too (see the
// package's Limits).

// RecCheckpoint is the Type of the record that starts a compacted log.
// Only Compact writes it; Append refuses it.
const RecCheckpoint = "checkpoint"

// Checkpoint is the payload of the checkpoint record.
type Checkpoint struct {
	Generation   int64  `json:"generation"`    // 1 for the first compaction, +1 each time
	OldLines     int64  `json:"old_lines"`     // complete lines of the log before compaction
	OldHead      string `json:"old_head"`      // hash of the last of them
	Dropped      int64  `json:"dropped"`       // lines dropped (an old checkpoint included)
	LastDropped  string `json:"last_dropped"`  // hash of the last line dropped; "" if none
	Kept         int64  `json:"kept"`          // records carried over, after this line
	DroppedTotal int64  `json:"dropped_total"` // dropped by this and every earlier compaction
}

// CompactOptions say what Compact keeps.
type CompactOptions struct {
	// Prepare, if set, sees every record of the log in order, under the
	// lock, before Keep is asked about any.
	Prepare func(Record)
	// Keep reports whether a record is carried over. Records it does not
	// keep are dropped; nil keeps everything.
	Keep func(Record) bool
	// BlobsBefore: a blob no kept record names ("sha256:<hex>" anywhere in
	// its line) is removed if it was written before this time and more
	// than an hour ago (a younger one may belong to a change in flight).
	// The zero time removes none.
	BlobsBefore time.Time
}

// CompactReport is what Compact did.
type CompactReport struct {
	Checkpoint   Checkpoint
	BytesBefore  int64 // the state directory's files, before
	BytesAfter   int64 // and after
	LogBefore    int64 // journal.jsonl's size, before
	LogAfter     int64 // and after
	BlobsDropped int
	BlobBytes    int64 // bytes of the blobs removed
}

// errReservedType: Append was given a checkpoint record.
var errReservedType = errors.New("the checkpoint type is written only by Compact")

// blobRef matches a blob name in a line.
var blobRef = regexp.MustCompile(`sha256:[0-9a-f]{64}`)

// Compact rewrites the journal without the records opts.Keep lets go (see
// the comment above RecCheckpoint). It holds the exclusive lock throughout:
// appends and reads of every process wait, and then follow the new log
// (the log is swapped in by rename, and each process reopens it when the
// name no longer leads to the file it has open). It refuses a log whose
// chain is broken (ErrCorrupt): damage is reported, never compacted away.
//
// Crash safety: the new log is written to a temp file and fsynced before
// it is renamed over journal.jsonl; the indexes are removed (and the
// watermark invalidated) before the rename and rebuilt after it, so a crash
// leaves either log, whole, with indexes that the next reader rebuilds.
//
// It also removes the liveness locks (Live) of handles that are gone.
func (j *Journal) Compact(opts CompactOptions) (CompactReport, error) {
	var rep CompactReport
	var err error
	rep.BytesBefore, err = j.stateBytes()
	if err != nil {
		return rep, fmt.Errorf("journal: compact: %w", err)
	}
	var kept [][]byte
	err = j.withLock(true, func() error {
		if err := j.checkHome(); err != nil {
			return err
		}
		var err error
		kept, err = j.compact(opts, &rep)
		return err
	})
	if err != nil {
		return rep, fmt.Errorf("journal: compact: %w", err)
	}
	if !opts.BlobsBefore.IsZero() {
		if err := j.dropBlobs(kept, opts.BlobsBefore, &rep); err != nil {
			return rep, fmt.Errorf("journal: compact: blobs: %w", err)
		}
	}
	j.sweepLive()
	if rep.BytesAfter, err = j.stateBytes(); err != nil {
		return rep, fmt.Errorf("journal: compact: %w", err)
	}
	return rep, nil
}

// compact does the work of Compact under the exclusive lock; it returns
// the blob names the kept lines hold, as lines of text.
func (j *Journal) compact(opts CompactOptions, rep *CompactReport) ([][]byte, error) {
	t, err := readTail(j.log)
	if err != nil {
		return nil, err
	}
	if t.torn() > 0 {
		if err := j.log.Truncate(t.end); err != nil {
			return nil, fmt.Errorf("cut torn last line: %w", err)
		}
	}
	rep.LogBefore = t.end
	src := func() io.Reader { return io.NewSectionReader(j.log, 0, t.end) }
	// Pass 1: the chain, and the caller's Prepare.
	cp, err := j.compactCheck(src(), opts.Prepare)
	if err != nil {
		return nil, err
	}
	// Pass 2: decide.
	keep, err := compactDecide(src(), opts.Keep, &cp)
	if err != nil {
		return nil, err
	}
	rep.Checkpoint = cp
	// Pass 3: write the new log to a temp file, then swap it in.
	return j.compactWrite(src, cp, keep, rep)
}

// compactCheck checks the chain of the log in src, hands every record but
// a checkpoint to prepare, and returns the next checkpoint's start: its
// generation, the old head and the total dropped so far.
func (j *Journal) compactCheck(src io.Reader, prepare func(Record)) (Checkpoint, error) {
	var prevHash string
	var old Checkpoint
	var lines int64
	_, err := eachLine(src, func(n int64, line []byte) error {
		lines = n
		var r Record
		if err := json.Unmarshal(line, &r); err != nil {
			return &lineError{file: logName, line: n, err: err}
		}
		if err := sameHead(line, r.Seq, r.Prev); err != nil {
			return &lineError{file: logName, line: n, err: err}
		}
		if err := linkLine(n, r.Seq, r.Prev, line, &prevHash); err != nil {
			return err
		}
		if r.Type == RecCheckpoint {
			var vr Report
			if msgs := j.checkCheckpoint(n, r, &vr); msgs != nil {
				return &lineError{file: logName, line: n, err: errors.New(strings.Join(msgs, "; "))}
			}
			old = *vr.Checkpoint
			return nil
		}
		if prepare != nil {
			prepare(r)
		}
		return nil
	})
	if err != nil {
		return Checkpoint{}, err
	}
	if old.Generation > 0 && old.Kept > lines-1 {
		return Checkpoint{}, &lineError{file: logName, line: 1, err: fmt.Errorf("the checkpoint says %d records were kept, but only %d lines follow it", old.Kept, lines-1)}
	}
	return Checkpoint{Generation: old.Generation + 1, OldHead: prevHash, DroppedTotal: old.DroppedTotal}, nil
}

// compactDecide asks keep about every line of src (a checkpoint is never
// carried over) and counts the outcome into cp.
func compactDecide(src io.Reader, keepFn func(Record) bool, cp *Checkpoint) ([]bool, error) {
	var keep []bool
	_, err := eachLine(src, func(n int64, line []byte) error {
		cp.OldLines++
		var r Record
		json.Unmarshal(line, &r) // checked in pass 1
		k := r.Type != RecCheckpoint && (keepFn == nil || keepFn(r))
		keep = append(keep, k)
		if k {
			cp.Kept++
		} else {
			cp.Dropped++
			cp.LastDropped = hashName(line)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	cp.DroppedTotal += cp.Dropped
	return keep, nil
}

// compactWrite writes the checkpoint cp and the kept lines of src to a temp
// log and swaps it in for the log. It returns the blob names the kept
// lines hold.
func (j *Journal) compactWrite(src func() io.Reader, cp Checkpoint, keep []bool, rep *CompactReport) ([][]byte, error) {
	tmp := tempPrefix + logName + "-" + rand.Text()
	f, err := j.root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return nil, err
	}
	committed := false
	defer func() {
		if !committed {
			f.Close()
			j.root.Remove(tmp)
		}
	}()
	w := bufio.NewWriterSize(f, 64<<10)
	var refs [][]byte
	var line bytes.Buffer
	lenc := json.NewEncoder(&line)
	lenc.SetEscapeHTML(false)
	seq, prev := int64(0), ""
	put := func(r Record) error {
		seq++
		r.Seq, r.Prev = seq, prev
		line.Reset()
		if err := lenc.Encode(r); err != nil {
			return err
		}
		b := line.Bytes()[:line.Len()-1]
		prev = hashName(b)
		_, err := w.Write(line.Bytes())
		return err
	}
	cpData, err := json.Marshal(cp)
	if err != nil {
		return nil, err
	}
	if err := put(Record{Time: j.now().UTC(), Type: RecCheckpoint, Data: cpData}); err != nil {
		return nil, err
	}
	_, err = eachLine(src(), func(n int64, l []byte) error {
		if !keep[n-1] {
			return nil
		}
		var r Record
		json.Unmarshal(l, &r)
		if m := blobRef.FindAll(l, -1); m != nil {
			for _, b := range m {
				refs = append(refs, bytes.Clone(b))
			}
		}
		return put(r)
	})
	if err == nil {
		err = w.Flush()
	}
	if err == nil {
		err = j.sync(f, tmp)
	}
	if err != nil {
		return nil, err
	}

	// Swap: derived data first, so no index outlives the log it copies.
	if err := j.dropDerived(); err != nil {
		return nil, err
	}
	if err := j.root.Rename(tmp, logName); err != nil {
		return nil, err
	}
	committed = true
	f.Close()
	if err := j.syncDir("."); err != nil {
		return nil, err
	}
	if err := j.follow(); err != nil {
		return nil, err
	}
	nt, err := readTail(j.log)
	if err != nil {
		return nil, err
	}
	rep.LogAfter = nt.end
	if err := j.completeIndex(nt); err != nil {
		return nil, err
	}
	return refs, nil
}

// dropDerived invalidates the watermark and removes the session indexes
// and the cursors, which hold offsets into them. The caller holds the
// exclusive lock.
func (j *Journal) dropDerived() error {
	if _, err := j.lock.WriteAt(fmt.Appendf(nil, watermarkFormat, -1), 0); err != nil {
		return err
	}
	if err := j.sync(j.lock, lockName); err != nil {
		return err
	}
	for _, dir := range []string{sessionsDir, cursorsDir} {
		d, err := j.root.Open(dir)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return err
		}
		names, err := d.Readdirnames(-1)
		d.Close()
		if err != nil {
			return err
		}
		for _, n := range names {
			if strings.HasSuffix(n, ".lock") {
				// Exclusive's lock files: another process may hold one;
				// removing it would let a third lock a new file beside it.
				continue
			}
			if err := j.root.Remove(dir + "/" + n); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
		}
		if err := j.syncDir(dir); err != nil {
			return err
		}
	}
	return nil
}

// dropBlobs removes the blobs that no kept line names and that were written
// before before (and over an hour ago).
func (j *Journal) dropBlobs(refs [][]byte, before time.Time, rep *CompactReport) error {
	named := make(map[string]bool, len(refs))
	for _, r := range refs {
		named[string(r)] = true
	}
	if cut := j.now().Add(-staleTemp); cut.Before(before) {
		before = cut
	}
	return j.eachBlob(func(path, version string, fe fs.DirEntry) error {
		if named[version] {
			return nil
		}
		info, err := fe.Info()
		if err != nil || !info.ModTime().Before(before) {
			return nil
		}
		if err := j.root.Remove(path); err != nil {
			return err
		}
		rep.BlobsDropped++
		rep.BlobBytes += info.Size()
		return nil
	}, func(string) {})
}

// stateBytes is the total size of the regular files of the state directory.
func (j *Journal) stateBytes() (int64, error) {
	var n int64
	err := fs.WalkDir(j.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil // removed meanwhile
			}
			return err
		}
		if strings.HasPrefix(d.Name(), tempPrefix) {
			return nil
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	return n, err
}
