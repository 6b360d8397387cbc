package stet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// VerifyError reports a mutation whose result, read back from disk, did not
// match its receipt. The receipt is kept, and the preimage stays in the
// journal.
type VerifyError struct {
	Receipt receipt.Receipt
	Err     error
}

func (e *VerifyError) Error() string {
	return fmt.Sprintf("%s %s: the file read back does not match the receipt %s: %v; the previous content is in the journal (stet show %s)",
		e.Receipt.Tool, e.Receipt.Path, e.Receipt.ID, e.Err, e.Receipt.ID)
}

// Unwrap returns the verification failure.
func (e *VerifyError) Unwrap() error { return e.Err }

// change is one planned mutation of one file, checked by the gate and ready
// for the one commit sequence.
type change struct {
	tool    string
	t       target
	key     string
	pre     []byte // current bytes; nil when the file does not exist
	preVer  fsys.Version
	post    []byte // new bytes; ignored for a delete
	matches []receipt.Match
	eol     string
	create  bool        // the file does not exist yet
	mode    fs.FileMode // a create's exact mode (a restore); 0: a new file's default
	delete  bool
	save    bool // keep the preimage in the journal as a blob
	dryRun  bool
	notes   []string
	message string
	undoes  string // the receipt id an undo reverts
	from    string // a move's source, for the receipt
	seen    *observation
	warned  bool // message is the exact warn-and-save text of rule 9
}

// receiptData is the journal payload of a receipt record.
type receiptData struct {
	Receipt receipt.Receipt `json:"receipt"`
	Pre     string          `json:"pre,omitempty"` // blob holding the whole preimage
	Old     []string        `json:"old,omitempty"` // each match's old bytes, when Pre is not kept
	FromKey string          `json:"from_key,omitempty"`
	Undoes  string          `json:"undoes,omitempty"`
}

// commit runs the one commit sequence: save the preimage if needed, swap the
// new bytes in by compare-and-swap, read back, verify the receipt, journal
// it, and update the session. The caller holds the file's lock.
func (s *Session) commit(ctx context.Context, c *change) (*MutationResult, error) {
	ws := s.ws
	r := receipt.Receipt{
		ID: ws.newID("r_"), Session: s.id, Tool: c.tool, Path: c.t.display(), From: c.from,
		Matches: c.matches, EOL: c.eol, Notes: c.notes, Time: ws.now(),
	}
	if r.Matches == nil {
		r.Matches = []receipt.Match{}
	}
	if !c.create {
		r.Before = &receipt.State{Version: string(c.preVer), Bytes: len(c.pre), Lines: receipt.Lines(c.pre)}
		if fi, err := c.t.root.p.Stat(c.t.rel); err == nil {
			r.Before.Mode = receipt.FormatMode(fi.Mode)
		}
	}
	// The receipt's after state, hashed from the new bytes while they are
	// written and fsynced. When the bytes read back equal the new bytes, their
	// hash is that same version, and receipt.VerifyShape proves, byte for
	// byte, that they are the preimage with exactly the receipt's regions
	// replaced: the readback is compared, not hashed again.
	shape := !c.dryRun && !c.delete && carriesBytes(c.matches)
	after := make(chan *receipt.State, 1)
	switch {
	case c.delete:
		after <- nil
	case len(c.post) >= 256<<10 && !c.dryRun:
		go func() { after <- receipt.StateOf(c.post) }()
	default:
		after <- receipt.StateOf(c.post)
	}
	diff := c.diff()
	if c.dryRun {
		r.After = <-after
		if r.After != nil && r.Before != nil {
			r.After.Mode = r.Before.Mode
		} else if r.After != nil && c.mode != 0 {
			r.After.Mode = receipt.FormatMode(c.mode)
		}
		r.DryRun = true
		return &MutationResult{Message: "dry run, nothing written: " + c.message, Receipt: r, Diff: diff}, nil
	}
	if err := ctx.Err(); err != nil {
		<-after
		return nil, err
	}
	ws.sweep()
	data := receiptData{Undoes: c.undoes}
	// The bytes a whole-file replace or a delete takes away are saved in
	// the journal, durably, before the swap. For a replace the save runs
	// while the new bytes are written and fsynced; the swap waits for it
	// (fsys.Expected.Ready), and a failed save aborts the replace.
	var saved chan error
	if c.save && !c.create {
		saved = make(chan error, 1)
		save := func() {
			blob, err := ws.journal.Put(c.pre)
			data.Pre = blob
			saved <- err
		}
		if c.delete {
			save()
		} else {
			go save()
		}
	} else if !c.create {
		for _, m := range c.matches {
			data.Old = append(data.Old, string(c.pre[m.Offset:m.Offset+m.OldBytes]))
		}
	}
	waitSaved := func() error {
		if saved == nil {
			return nil
		}
		err := <-saved
		saved = nil
		if err != nil {
			return fmt.Errorf("%s %s: saving the previous content: %w", c.tool, c.t.spelled, err)
		}
		return nil
	}
	if c.delete {
		if err := waitSaved(); err != nil {
			return nil, err
		}
	}
	if err := ctx.Err(); err != nil {
		waitSaved()
		return nil, err
	}
	p := c.t.root.p
	var (
		cm  fsys.Commit
		err error
	)
	exp := fsys.Expected{Version: c.preVer, Bytes: c.pre, Ready: waitSaved}
	switch {
	case c.create:
		if dir := path.Dir(c.t.rel); dir != "." {
			if err := p.MkdirAll(dir); err != nil {
				return nil, ws.fileErr(c.tool, c.t.parent(), err)
			}
		}
		cm, err = p.Create(c.t.rel, c.post, c.mode)
	case c.delete:
		cm, err = p.Remove(c.t.rel, exp)
	default:
		cm, err = p.Replace(c.t.rel, c.post, exp)
	}
	if serr := waitSaved(); serr != nil && err == nil {
		err = serr // a provider that ignored Ready: the save must still have landed
	}
	r.After = <-after
	if err != nil {
		return nil, ws.fileErr(c.tool, c.t, err)
	}
	r.Notes = append(r.Notes, cm.Notes...)
	if fi, err := p.Stat(c.t.rel); err == nil && r.After != nil {
		r.After.Mode = receipt.FormatMode(fi.Mode) // the mode that landed
	}
	if h := ws.opts.Hooks.BeforeReadback; h != nil {
		h(c.t.rel)
	}
	var readback []byte
	if c.delete {
		if _, err := p.Stat(c.t.rel); err == nil {
			readback = []byte{} // something is there again
		} else if !errors.Is(err, fsys.ErrNotFound) {
			return nil, fmt.Errorf("%s %s: reading back: %w", c.tool, c.t.spelled, err)
		}
	} else if shape {
		// Compare the file with the new bytes chunk by chunk, without a
		// buffer of its size; only a mismatch reads it whole, to report.
		same, err := fsys.Check(p, c.t.rel, fsys.Expected{Version: fsys.Version(r.After.Version), Bytes: c.post})
		if err != nil && !errors.Is(err, fsys.ErrNotFound) {
			return nil, fmt.Errorf("%s %s: reading back: %w", c.tool, c.t.spelled, err)
		}
		if same {
			readback = c.post
		} else if readback, err = p.ReadFile(c.t.rel); err != nil && !errors.Is(err, fsys.ErrNotFound) {
			return nil, fmt.Errorf("%s %s: reading back: %w", c.tool, c.t.spelled, err)
		}
	} else {
		readback, err = p.ReadFile(c.t.rel)
		if err != nil && !errors.Is(err, fsys.ErrNotFound) {
			return nil, fmt.Errorf("%s %s: reading back: %w", c.tool, c.t.spelled, err)
		}
	}
	pre := c.pre
	if c.create {
		pre = nil
	}
	var verr error
	switch {
	case !c.delete && readback == nil:
		r.After = receipt.StateOf(c.post)
		verr = errors.New("the file is gone right after the swap")
	case shape && bytes.Equal(readback, c.post): // the same slice when fsys.Check matched
		verr = receipt.VerifyShape(pre, readback, r)
	default:
		verr = receipt.Verify(pre, readback, r)
	}
	r.Verified = verr == nil
	data.Receipt = r
	recs := []journal.Record{s.rec(recReceipt, c.key, data)}
	// The session's new view of the file.
	var next *observation
	if !c.delete && r.Verified {
		next = c.nextObservation(r)
		recs = append(recs, s.rec(recObserve, c.key, next))
	}
	if c.create && r.Verified {
		// The session made the file, so it has seen its directory too.
		recs = append(recs, s.rec(recCreated, c.key, nil), s.rec(recDir, c.t.parent().key(), nil))
	}
	if c.undoes != "" {
		recs = append(recs, s.rec(recUndo, c.key, map[string]string{"receipt": c.undoes, "by": r.ID}))
	}
	if _, err := ws.journal.Append(recs...); err != nil {
		return nil, fmt.Errorf("%s %s: landed and verified, but the journal could not record receipt %s: %w", c.tool, c.t.spelled, r.ID, err)
	}
	if verr != nil {
		return nil, &VerifyError{Receipt: r, Err: verr}
	}
	s.mu.Lock()
	if c.delete {
		delete(s.files, c.key)
	} else {
		s.files[c.key] = next
	}
	if c.create {
		s.created[c.key] = true
		s.dirs[c.t.parent().key()] = true
	}
	s.mu.Unlock()
	msg := c.message
	if !c.warned {
		msg += "; receipt " + r.ID + " (verified)"
	}
	return &MutationResult{Message: msg, Receipt: r, Diff: diff}, nil
}

// carriesBytes reports whether every match records its old and new bytes,
// so that receipt.VerifyShape proves the readback byte for byte.
func carriesBytes(ms []receipt.Match) bool {
	for _, m := range ms {
		if m.Old == nil || m.New == nil {
			return false
		}
	}
	return len(ms) > 0
}

// nextObservation is what the session knows of the file after its own
// change: the seen ranges carried through the change, the new bytes seen.
func (c *change) nextObservation(r receipt.Receipt) *observation {
	n := &observation{Version: r.After.Version, Size: r.After.Bytes, Lines: r.After.Lines}
	whole := c.create || (len(c.matches) == 1 && c.matches[0].Offset == 0 && c.matches[0].OldBytes == len(c.pre))
	var prev policy.Ranges
	switch {
	case whole:
		prev = policy.Ranges{}.Add(policy.Range{Start: 0, End: len(c.post)})
	case c.seen != nil && c.seen.Version == string(c.preVer):
		prev = c.seen.Seen.Carry(c.matches, len(c.post))
	default:
		// No view of the old version (an undo, a move): only the new bytes are seen.
		prev = policy.Ranges{}.Carry(c.matches, len(c.post))
	}
	n.Seen = prev
	n.Whole = whole || prev.Covers(policy.Range{Start: 0, End: len(c.post)})
	return n
}

// Bounds of the diff a result carries: a model needs to see what changed,
// not megabytes of it; `stet show` rebuilds the whole diff from the journal.
const (
	maxDiffBytes      = 64 << 10  // a longer diff is cut at a line boundary
	maxWholeDiffInput = 512 << 10 // a whole-file replace this large is summarized, not diffed
)

// diff renders the unified diff of the change for the model, bounded.
func (c *change) diff() string {
	name := c.t.display()
	var d, more string
	shown := func(b []byte) []byte {
		h := head(b, maxDiffBytes)
		if len(h) < len(b) {
			more = fmt.Sprintf("(%s more bytes not shown: `stet show` with this receipt's id prints all of it)\n", policy.Thousands(len(b)-len(h)))
		}
		return h
	}
	switch {
	case c.create:
		d = textedit.DiffCreate(name, shown(c.post))
	case c.delete:
		d = textedit.DiffDelete(name, shown(c.pre))
	case len(c.matches) == 1 && c.matches[0].OldBytes == len(c.pre) && len(c.pre)+len(c.post) > maxWholeDiffInput:
		return fmt.Sprintf("--- a/%s\n+++ b/%s\n(the whole file was replaced: %s → %s; a diff this large is not shown here: `stet show` with this receipt's id prints it)\n",
			name, name, linesWord(receipt.Lines(c.pre)), linesWord(receipt.Lines(c.post)))
	default:
		d = textedit.Diff(name, c.pre, c.post)
	}
	if len(d) <= maxDiffBytes {
		return d + more
	}
	cut := strings.LastIndexByte(d[:maxDiffBytes], '\n') + 1
	return d[:cut] + fmt.Sprintf("(diff cut at %s of %s bytes: `stet show` with this receipt's id prints all of it)\n", policy.Thousands(cut), policy.Thousands(len(d)))
}

// head returns at most about n bytes of b, ending at a line boundary.
func head(b []byte, n int) []byte {
	if len(b) <= n {
		return b
	}
	if i := bytes.LastIndexByte(b[:n], '\n'); i >= 0 {
		return b[:i+1]
	}
	return b[:n]
}
