package engine

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"sync"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/history"
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

// Error returns the message, as the error interface asks.
func (e *VerifyError) Error() string {
	return fmt.Sprintf("%s %s: the file read back does not match the receipt %s: %v; the previous content is in the journal (stet show %s)",
		e.Receipt.Tool, e.Receipt.Path, e.Receipt.ID, e.Err, e.Receipt.ID)
}

// Unwrap returns the verification failure.
func (e *VerifyError) Unwrap() error { return e.Err }

// change is one planned mutation of one file (or one rename), checked by
// the gate and ready for the one commit sequence.
type Change struct {
	Tool    string
	T       Target // the file changed; for a move, the new name
	Key     string
	Pre     []byte // current bytes; nil when the file does not exist
	PreVer  fsys.Version
	Post    []byte // new bytes; ignored for a delete
	Matches []receipt.Match
	Eol     string
	Create  bool        // the file does not exist yet
	mode    fs.FileMode // a create's exact mode (a restore); 0: a new file's default
	Delete  bool
	Save    bool // keep the bytes this change takes away in the journal
	DryRun  bool
	Notes   []string
	Message string
	undoes  string                // the receipt id an undo reverts
	Intent  string                // the patch's intent, already durable; "" for a change's own
	id      string                // the receipt id, when planned ahead (a patch's intent names it)
	After   func() *receipt.State // the new bytes' state, hashed once (afterState)
	Seen    *Observation
	Warned  bool   // message is the exact warn-and-save text of rule 9
	temp    string // the temp file's name, recorded in the intent (planTemp)

	// A move renames src to t; pre and post are the moved bytes (nil for a
	// directory: dir). over holds the bytes of a file the move replaces.
	Src      *Target
	Dir      bool
	Over     []byte
	OverVer  fsys.Version
	OverMode fs.FileMode

	// preMode, when not 0, is the mode of the file before the change as
	// the tool already found it (under the change's lock), so the receipt
	// does not walk to it again.
	PreMode fs.FileMode

	// handover is the journal's side of a displaced file's handover,
	// started beside the intent (saveStep); discarded is closed once the
	// old file a swap displaced is removed (land). Both are waited for at
	// the end of the commit.
	handover  *handover
	discarded chan struct{}

	// preLines and postLines, when not 0, are the line counts of pre and
	// post as the tool already has them, so they are not counted again.
	PreLines, PostLines int
}

// receiptData is the journal payload of a receipt record.
type ReceiptData = history.Receipt

// newReceipt starts the receipt of c: everything but the after state and
// the verification.
func (s *Session) NewReceipt(c *Change) receipt.Receipt {
	r := receipt.Receipt{
		ID: c.id, Session: s.id, Tool: c.Tool, Path: c.T.Display(),
		Matches: c.Matches, EOL: c.Eol, Notes: c.Notes, Time: s.WS.Now(),
	}
	if r.ID == "" {
		r.ID = s.WS.newID("r_")
	}
	if c.Src != nil {
		r.From = c.Src.Display()
	}
	if r.Matches == nil {
		r.Matches = []receipt.Match{}
	}
	if c.plan().before {
		lines := c.PreLines
		if lines == 0 {
			lines = receipt.Lines(c.Pre)
		}
		r.Before = &receipt.State{Version: string(c.PreVer), Bytes: len(c.Pre), Lines: lines}
		t := c.T
		if c.Src != nil {
			t = *c.Src
		}
		if c.PreMode != 0 {
			r.Before.Mode = receipt.FormatMode(c.PreMode)
		} else if fi, err := t.Stat(); err == nil {
			r.Before.Mode = receipt.FormatMode(fi.Mode)
		}
	}
	if c.Over != nil {
		r.Notes = append(r.Notes, fmt.Sprintf("replaced %s (%s); its previous content is saved in the journal", c.T.Display(), LinesWord(receipt.Lines(c.Over))))
	}
	return r
}

// afterState hashes the new bytes, beside the write for large files; the
// returned func waits for the hash.
// It is made once per change: a patch that plans its intent ahead and then
// commits the change hashes the new bytes once.
func (c *Change) AfterState() func() *receipt.State {
	if c.After != nil {
		return c.After
	}
	if !c.plan().after {
		c.After = func() *receipt.State { return nil }
		return c.After
	}
	c.After = StateOf(c.Post, c.PostLines, c.DryRun, nil)
	return c.After
}

// stateOf returns a func that waits for the state of post (its hash, by
// version, or fsys.VersionOf when nil; lines, when not 0, is its line
// count, already known), hashed from now on beside the caller's work when
// post is large and the change is no dry run.
func StateOf(post []byte, lines int, dryRun bool, version func([]byte) fsys.Version) func() *receipt.State {
	if version == nil {
		version = fsys.VersionOf
	}
	after := sync.OnceValue(func() *receipt.State {
		if lines == 0 {
			lines = receipt.Lines(post)
		}
		return &receipt.State{Version: string(version(post)), Bytes: len(post), Lines: lines}
	})
	if len(post) >= 256<<10 && !dryRun {
		go after()
	}
	return after
}

// plannedAfter is the after state c should leave: the new bytes' state,
// with the mode the file keeps (or a restore's exact mode).
func (c *Change) plannedAfter(r receipt.Receipt, after func() *receipt.State) *receipt.State {
	a := after()
	if a == nil {
		return nil
	}
	cp := *a
	switch {
	case r.Before != nil:
		cp.Mode = r.Before.Mode
	case c.mode != 0:
		cp.Mode = receipt.FormatMode(c.mode)
	}
	return &cp
}

// undoData is the journal payload of c's receipt before the swap: the
// regions an edit replaces (a whole-file change saves a blob instead).
func undoData(c *Change) *ReceiptData {
	data := &ReceiptData{Undoes: c.undoes}
	if c.Src != nil {
		data.FromKey = c.Src.Key()
	}
	if c.Over != nil && c.OverMode != 0 {
		data.OverMode = receipt.FormatMode(c.OverMode)
	}
	if pl := c.plan(); pl.regions && !pl.saves(c) {
		for _, m := range c.Matches {
			data.Old = append(data.Old, string(c.Pre[m.Offset:m.Offset+m.OldBytes]))
		}
	}
	return data
}

// record journals the receipt with the session's new view of the files,
// then updates the session through the record table, as a replay of those
// records would.
func (s *Session) Record(c *Change, data *ReceiptData) error {
	pl := c.plan()
	r := data.Receipt
	type entry struct {
		typ, key string
		payload  any
	}
	es := []entry{{RecReceipt, c.Key, data}}
	if pl.after && r.Verified {
		es = append(es, entry{RecObserve, c.Key, c.nextObservation(r)})
	}
	created := c.Create && c.undoes == ""
	if pl.carriesFrom {
		created = s.WasCreated(c.Src.Key())
	}
	if created && r.Verified {
		// The session made the file, so it has seen its directory too.
		es = append(es, entry{RecCreated, c.Key, nil})
	}
	if r.Verified && pl.names {
		es = append(es, entry{recDir, c.T.Parent().Key(), nil})
	}
	if r.Verified && c.Dir {
		// A directory the session moved is one it knows.
		es = append(es, entry{recDir, c.Key, nil})
	}
	if c.undoes != "" {
		es = append(es, entry{RecUndo, c.Key, history.Undo{Receipt: c.undoes, By: r.ID}})
	}
	recs := make([]journal.Record, 0, len(es)+1)
	for _, e := range es {
		recs = append(recs, s.Rec(e.typ, e.key, e.payload))
	}
	if c.Intent == "" {
		recs = append(recs, DoneRecord(r.ID, DoneCommitted, ""))
	}
	// The intent is durable: if these lines are lost in a crash, the next
	// Open completes the receipt from it.
	if err := s.Append(false, recs...); err != nil {
		return fmt.Errorf("%s %s: landed, but the journal could not record receipt %s: %w", c.Tool, c.T.Spelled, r.ID, err)
	}
	s.Mu.Lock()
	defer s.Mu.Unlock()
	for _, e := range es {
		history.ApplyPayload(&s.State, e.typ, e.key, e.payload)
	}
	return nil
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
func (c *Change) nextObservation(r receipt.Receipt) *Observation {
	n := &Observation{Version: r.After.Version, Size: r.After.Bytes, Lines: r.After.Lines}
	whole := c.Create || (len(c.Matches) == 1 && c.Matches[0].Offset == 0 && c.Matches[0].OldBytes == len(c.Pre))
	var prev policy.Ranges
	switch {
	case whole:
		prev = policy.Ranges{}.Add(policy.Range{Start: 0, End: len(c.Post)})
	case c.Seen != nil && c.Seen.Version == string(c.PreVer):
		prev = c.Seen.Seen.Carry(c.Matches, len(c.Post))
	default:
		// No view of the old version (an undo, a move): only the new bytes are seen.
		prev = policy.Ranges{}.Carry(c.Matches, len(c.Post))
	}
	n.Seen = prev
	n.Whole = whole || prev.Covers(policy.Range{Start: 0, End: len(c.Post)})
	return n
}

// Bounds of the diff a result carries: a model needs to see what changed,
// not megabytes of it; `stet show` rebuilds the whole diff from the journal.
const (
	maxDiffBytes      = 64 << 10  // a longer diff is cut at a line boundary
	maxWholeDiffInput = 512 << 10 // a whole-file replace this large is summarized, not diffed
)

// diff renders the unified diff of the change for the model, bounded.
func (c *Change) Diff() string {
	name := c.T.Display()
	var d, more string
	shown := func(b []byte) []byte {
		h := head(b, maxDiffBytes)
		if len(h) < len(b) {
			more = fmt.Sprintf("(%s more bytes not shown: `stet show` with this receipt's id prints all of it)\n", policy.Thousands(len(b)-len(h)))
		}
		return h
	}
	switch {
	case c.Create:
		d = textedit.DiffCreate(name, shown(c.Post))
	case c.Delete:
		d = textedit.DiffDelete(name, shown(c.Pre))
	case len(c.Matches) == 1 && c.Matches[0].OldBytes == len(c.Pre) && len(c.Pre)+len(c.Post) > maxWholeDiffInput:
		return fmt.Sprintf("--- %s\n+++ %s\n(the whole file was replaced: %s → %s; a diff this large is not shown here: `stet show` with this receipt's id prints it)\n",
			textedit.Label("a/", name), textedit.Label("b/", name), LinesWord(receipt.Lines(c.Pre)), LinesWord(receipt.Lines(c.Post)))
	default:
		d = textedit.Diff(name, c.Pre, c.Post)
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

// settle closes the intent of a change that failed after its intent may
// have become durable. When the provider refused before anything moved (its
// compare-and-swap saw another writer's bytes, the name was taken, ...), the
// intent is dropped: the file holds someone else's bytes, which are neither
// this change's old nor its new ones. Otherwise it is resolved against the
// disk at once, as the next Open would.
func (s *Session) settle(ready func() error, it *IntentData, moved bool) {
	if ready() != nil || it.ID == "" || it.Session == "" {
		return // no intent was written, or it belongs to a patch
	}
	if !moved && len(it.Files) == 1 {
		// Trust the disk over the error's kind: only a file that does not
		// hold the change's new bytes makes the intent dropped.
		if at, err := s.WS.landed(it.Files); err == nil && at.steps != len(it.Files) {
			s.WS.Journal.AppendLazy(DoneRecord(it.ID, DoneDropped, ""))
			return
		}
	}
	s.WS.resolveIntent(context.Background(), *it)
}

// refusedBeforeSwap reports whether a provider error means nothing moved:
// the compare-and-swap refused, or the name was not there to change.
func refusedBeforeSwap(err error) bool {
	for _, k := range []error{fsys.ErrConflict, fsys.ErrExists, fsys.ErrNotFound, fsys.ErrNotRegular,
		fsys.ErrIsDir, fsys.ErrNotDir, fsys.ErrNotEmpty, fsys.ErrOutside, fsys.ErrBusy, fsys.ErrTooLarge, fsys.ErrInvalid, fsys.ErrOpenWriter, fsys.ErrMoved} {
		if errors.Is(err, k) {
			return true
		}
	}
	return false
}
