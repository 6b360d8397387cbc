package stet

import (
	"context"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/tools"
	"github.com/stet-dev/stet/textedit"
)

// Revert planning: the changes that take a receipt back (a file's previous
// bytes, a create removed, a delete restored, a move taken back), built from
// the receipt's journal data and what the file holds now, then committed
// like any change.

// revert turns t back to what it held before the receipt in d, if it still
// holds that receipt's result. The caller holds the locks of every name the
// revert touches (undoTargets).
func (s *Session) revert(ctx context.Context, t target, d *receiptData, tool string) (*tools.MutationResult, error) {
	if d.FromKey != "" {
		return s.revertMove(ctx, d, tool)
	}
	cur, err := fsys.ReadFileMax(t.root.p, t.rel, s.ws.opts.MaxFileBytes)
	exists := err == nil
	if err != nil && !errors.Is(err, fsys.ErrNotFound) {
		return nil, s.ws.fileErr("undo", t, err)
	}
	c, err := s.planRevert(t, d, tool, cur, exists)
	if err != nil {
		return nil, err
	}
	return s.commit(ctx, c)
}

// planRevert builds the change that turns t back to what it held before
// the receipt in d, given what t holds (cur; exists false when there is no
// file), or refuses when it no longer holds that receipt's result. It is not
// for moves (planMoveBack).
func (s *Session) planRevert(t target, d *receiptData, tool string, cur []byte, exists bool) (*change, error) {
	r := d.Receipt
	key := t.key()
	switch {
	case r.After == nil && exists:
		return nil, staleUndo(t, r, "a file exists there again")
	case r.After != nil && !exists:
		return nil, staleUndo(t, r, "the file is gone")
	case r.After != nil && string(fsys.VersionOf(cur)) != r.After.Version:
		return nil, staleUndo(t, r, "it was changed since")
	}
	var pre []byte
	var err error
	if r.Before != nil {
		if pre, err = history.Preimage(s.ws.journal, d, cur); err != nil {
			return nil, err
		}
	}
	c := &change{tool: tool, t: t, key: key, undoes: r.ID, eol: "none"}
	switch {
	case r.Before == nil: // undo a create: delete it, keeping its bytes
		c.pre, c.preVer, c.delete, c.save = cur, fsys.VersionOf(cur), true, true
		c.matches = []receipt.Match{{Offset: 0, OldBytes: len(cur), Line: 1, Old: cur, New: []byte{}}}
		c.message = fmt.Sprintf("undid %s %s: removed %s (its content is saved in the journal)", r.Tool, r.ID, t.shown())
	case r.After == nil: // undo a delete: bring the file back
		// Under the name it had: through a symlink, that is where the link
		// leads (the link itself was kept).
		if rt, err := s.ws.targetOfKey(key); err == nil {
			c.t = rt
		}
		c.post, c.create = pre, true
		if r.Before.Mode != "" {
			if c.mode, err = receipt.ParseMode(r.Before.Mode); err != nil {
				return nil, fmt.Errorf("undo %s: receipt %s: %w", t.spelled, r.ID, err)
			}
		}
		c.matches = []receipt.Match{{Offset: 0, NewBytes: len(pre), Line: 1, Old: []byte{}, New: pre}}
		c.message = fmt.Sprintf("undid %s %s: restored %s (%s)", r.Tool, r.ID, t.shown(), linesWord(receipt.Lines(pre)))
	default:
		inv, err := history.Invert(cur, pre, r.Matches)
		if err != nil {
			return nil, fmt.Errorf("undo %s: %w", t.spelled, err)
		}
		c.pre, c.preVer, c.post, c.matches = cur, fsys.VersionOf(cur), inv.Text, inv.Matches
		c.eol = textedit.DetectEOL(inv.Text)
		c.message = fmt.Sprintf("undid %s %s: %s holds its previous bytes again (%s)", r.Tool, r.ID, t.shown(), linesWord(receipt.Lines(pre)))
	}
	return c, nil
}

// staleUndo is the refusal for an undo whose file moved on.
func staleUndo(t target, r receipt.Receipt, now string) *Refusal {
	return refuse(KindChanged, t.spelled, "%s no longer holds the result of %s %s (%s); undo would lose what changed since; read it and change it back by hand",
		t.spelled, r.Tool, r.ID, now).with("receipt", r.ID)
}

// revertMove takes a move back: the file (or directory) returns from the new
// name to the old, by the same proven rename as the move, and a file the
// move replaced comes back at the new name from the journal. Everything is
// checked before anything moves; both steps are receipts of their own.
func (s *Session) revertMove(ctx context.Context, d *receiptData, tool string) (*tools.MutationResult, error) {
	r := d.Receipt
	to, ref := s.resolve("undo", r.Path)
	if ref != nil {
		return nil, ref
	}
	from, ref := s.resolve("undo", r.From)
	if ref != nil {
		return nil, ref
	}
	p := to.root.p
	fromExists := false
	if _, err := p.Stat(from.rel); err == nil {
		fromExists = true
	} else if !errors.Is(err, fsys.ErrNotFound) {
		return nil, s.ws.fileErr("undo", from, err)
	}
	var cur []byte
	toExists := true
	if r.Before == nil { // a directory
		info, err := p.Stat(to.rel)
		toExists = err == nil && info.Type == fsys.TypeDir
	} else {
		b, err := fsys.ReadFileMax(p, to.rel, s.ws.opts.MaxFileBytes)
		switch {
		case errors.Is(err, fsys.ErrNotFound):
			toExists = false
		case err != nil:
			return nil, s.ws.fileErr("undo", to, err)
		}
		cur = b
	}
	steps, err := s.planMoveBack(ctx, d, tool, from, to, fromExists, cur, toExists)
	if err != nil {
		return nil, err
	}
	if len(steps) == 1 {
		return s.commit(ctx, steps[0])
	}
	// The rename back and the restore of the file the move replaced are one
	// intent: a crash between them is rolled back at the next start, so the
	// replaced file is never left only in the journal.
	outs, err := s.commitSeq(ctx, tool, steps, nil)
	if err != nil {
		if len(outs) == len(steps) {
			return nil, fmt.Errorf("undo %s: %w", r.ID, err)
		}
		return nil, fmt.Errorf("undo %s: nothing was undone (the moved file stays at %s; the file it replaced stays in the journal): %w", r.ID, to.display(), err)
	}
	res := outs[0]
	res.Message += "; " + outs[1].Message
	res.Diff += outs[1].Diff
	return res, nil
}

// planMoveBack builds the changes that take the move in d back, given
// whether its old name from is free, what its new name to holds (cur;
// toExists false when nothing is there) : the rename back, and the restore
// of a file the move replaced, if any.
func (s *Session) planMoveBack(ctx context.Context, d *receiptData, tool string, from, to target, fromExists bool, cur []byte, toExists bool) ([]*change, error) {
	r := d.Receipt
	if fromExists {
		return nil, staleUndo(from, r, r.From+" exists again; move or delete it first")
	}
	back := &change{tool: tool, t: from, key: from.key(), src: &to, undoes: r.ID, matches: []receipt.Match{}, eol: "none"}
	if r.Before == nil { // a directory
		if !toExists {
			return nil, staleUndo(to, r, "the directory is no longer there")
		}
		back.dir = true
		// What lies under the directory now must be free to go back.
		if err := s.gateTree(ctx, "undo", to, from); err != nil {
			return nil, err
		}
	} else {
		switch {
		case !toExists:
			return nil, staleUndo(to, r, "the file is gone")
		case r.After == nil || string(fsys.VersionOf(cur)) != r.After.Version:
			return nil, staleUndo(to, r, "it was changed since")
		}
		back.pre, back.preVer, back.post = cur, fsys.VersionOf(cur), cur
	}
	back.message = fmt.Sprintf("undid move %s: %s is back at %s", r.ID, to.shown(), from.shown())
	if d.Over == "" {
		return []*change{back}, nil
	}
	over, err := s.ws.journal.Get(d.Over)
	if err != nil {
		return nil, fmt.Errorf("undo %s: the saved content of %s, which move %s replaced, is unreadable: %w", r.Path, r.Path, r.ID, err)
	}
	restore := &change{tool: tool, t: to, key: to.key(), post: over, create: true, undoes: r.ID,
		matches: []receipt.Match{{Offset: 0, NewBytes: len(over), Line: 1, Old: []byte{}, New: over}},
		eol:     textedit.DetectEOL(over)}
	if d.OverMode != "" {
		if restore.mode, err = receipt.ParseMode(d.OverMode); err != nil {
			return nil, fmt.Errorf("undo %s: receipt %s: %w", r.Path, r.ID, err)
		}
	}
	restore.message = fmt.Sprintf("restored %s (%s), which move %s had replaced", to.shown(), linesWord(receipt.Lines(over)), r.ID)
	return []*change{back, restore}, nil
}

// preimage returns the bytes a receipt's file held before (see
// history.Preimage).
func (s *Session) preimage(d *receiptData, cur []byte) ([]byte, error) {
	return history.Preimage(s.ws.journal, d, cur)
}
