package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
	"github.com/stet-dev/stet/tools"
)

// Revert planning: the changes that take a receipt back (a file's previous
// bytes, a create removed, a delete restored, a move taken back), built from
// the receipt's journal data and what the file holds now, then committed
// like any change.

// revert turns t back to what it held before the receipt in d, if it still
// holds that receipt's result. The caller holds the locks of every name the
// revert touches (undoTargets).
func (s *Session) Revert(ctx context.Context, t Target, d *ReceiptData, tool string) (*tools.MutationResult, error) {
	if d.FromKey != "" {
		return s.revertMove(ctx, d, tool)
	}
	cur, err := fsys.ReadFileMax(t.Root.P, t.Rel, s.WS.Opts.MaxFileBytes)
	exists := err == nil
	if err != nil && !errors.Is(err, fsys.ErrNotFound) {
		return nil, s.WS.FileErr("undo", t, err)
	}
	c, err := s.PlanRevert(t, d, tool, cur, exists)
	if err != nil {
		return nil, err
	}
	return s.Commit(ctx, c)
}

// planRevert builds the change that turns t back to what it held before
// the receipt in d, given what t holds (cur; exists false when there is no
// file), or refuses when it no longer holds that receipt's result. It is not
// for moves (planMoveBack).
func (s *Session) PlanRevert(t Target, d *ReceiptData, tool string, cur []byte, exists bool) (*Change, error) {
	r := d.Receipt
	key := t.Key()
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
		if pre, err = history.Preimage(s.WS.Journal, d, cur); err != nil {
			return nil, err
		}
	}
	c := &Change{Tool: tool, T: t, Key: key, undoes: r.ID, Eol: "none"}
	switch {
	case r.Before == nil: // undo a create: delete it, keeping its bytes
		c.Pre, c.PreVer, c.Delete, c.Save = cur, fsys.VersionOf(cur), true, true
		c.Matches = []receipt.Match{{Offset: 0, OldBytes: len(cur), Line: 1, Old: cur, New: []byte{}}}
		c.Message = fmt.Sprintf("undid %s %s: removed %s (its content is saved in the journal)", r.Tool, r.ID, t.Shown())
	case r.After == nil: // undo a delete: bring the file back
		// Under the name it had: through a symlink, that is where the link
		// leads (the link itself was kept).
		if rt, err := s.WS.TargetOfKey(key); err == nil {
			c.T = rt
		}
		c.Post, c.Create = pre, true
		if r.Before.Mode != "" {
			if c.mode, err = receipt.ParseMode(r.Before.Mode); err != nil {
				return nil, fmt.Errorf("undo %s: receipt %s: %w", t.Spelled, r.ID, err)
			}
		}
		c.Matches = []receipt.Match{{Offset: 0, NewBytes: len(pre), Line: 1, Old: []byte{}, New: pre}}
		c.Message = fmt.Sprintf("undid %s %s: restored %s (%s)", r.Tool, r.ID, t.Shown(), LinesWord(receipt.Lines(pre)))
	default:
		inv, err := history.Invert(cur, pre, r.Matches)
		if err != nil {
			return nil, fmt.Errorf("undo %s: %w", t.Spelled, err)
		}
		c.Pre, c.PreVer, c.Post, c.Matches = cur, fsys.VersionOf(cur), inv.Text, inv.Matches
		c.Eol = textedit.DetectEOL(inv.Text)
		c.Message = fmt.Sprintf("undid %s %s: %s holds its previous bytes again (%s)", r.Tool, r.ID, t.Shown(), LinesWord(receipt.Lines(pre)))
	}
	return c, nil
}

// staleUndo is the refusal for an undo whose file moved on.
func staleUndo(t Target, r receipt.Receipt, now string) *Refusal {
	return Refuse(KindChanged, t.Spelled, "%s no longer holds the result of %s %s (%s); undo would lose what changed since; read it and change it back by hand",
		t.Spelled, r.Tool, r.ID, now).With("receipt", r.ID)
}

// revertMove takes a move back: the file (or directory) returns from the new
// name to the old, by the same proven rename as the move, and a file the
// move replaced comes back at the new name from the journal. Everything is
// checked before anything moves; both steps are receipts of their own.
func (s *Session) revertMove(ctx context.Context, d *ReceiptData, tool string) (*tools.MutationResult, error) {
	r := d.Receipt
	to, ref := s.Resolve("undo", r.Path)
	if ref != nil {
		return nil, ref
	}
	from, ref := s.Resolve("undo", r.From)
	if ref != nil {
		return nil, ref
	}
	p := to.Root.P
	fromExists := false
	if _, err := p.Stat(from.Rel); err == nil {
		fromExists = true
	} else if !errors.Is(err, fsys.ErrNotFound) {
		return nil, s.WS.FileErr("undo", from, err)
	}
	var cur []byte
	toExists := true
	if r.Before == nil { // a directory
		info, err := p.Stat(to.Rel)
		toExists = err == nil && info.Type == fsys.TypeDir
	} else {
		b, err := fsys.ReadFileMax(p, to.Rel, s.WS.Opts.MaxFileBytes)
		switch {
		case errors.Is(err, fsys.ErrNotFound):
			toExists = false
		case err != nil:
			return nil, s.WS.FileErr("undo", to, err)
		}
		cur = b
	}
	steps, err := s.PlanMoveBack(ctx, d, tool, from, to, fromExists, cur, toExists)
	if err != nil {
		return nil, err
	}
	if len(steps) == 1 {
		return s.Commit(ctx, steps[0])
	}
	// The rename back and the restore of the file the move replaced are one
	// intent: a crash between them is rolled back at the next start, so the
	// replaced file is never left only in the journal.
	outs, err := s.CommitSeq(ctx, tool, steps, nil)
	if err != nil {
		if len(outs) == len(steps) {
			return nil, fmt.Errorf("undo %s: %w", r.ID, err)
		}
		return nil, fmt.Errorf("undo %s: nothing was undone (the moved file stays at %s; the file it replaced stays in the journal): %w", r.ID, to.Display(), err)
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
func (s *Session) PlanMoveBack(ctx context.Context, d *ReceiptData, tool string, from, to Target, fromExists bool, cur []byte, toExists bool) ([]*Change, error) {
	r := d.Receipt
	if fromExists {
		return nil, staleUndo(from, r, r.From+" exists again; move or delete it first")
	}
	back := &Change{Tool: tool, T: from, Key: from.Key(), Src: &to, undoes: r.ID, Matches: []receipt.Match{}, Eol: "none"}
	if r.Before == nil { // a directory
		if !toExists {
			return nil, staleUndo(to, r, "the directory is no longer there")
		}
		back.Dir = true
		// What lies under the directory now must be free to go back.
		if err := s.GateTree(ctx, "undo", to, from); err != nil {
			return nil, err
		}
	} else {
		switch {
		case !toExists:
			return nil, staleUndo(to, r, "the file is gone")
		case r.After == nil || string(fsys.VersionOf(cur)) != r.After.Version:
			return nil, staleUndo(to, r, "it was changed since")
		}
		back.Pre, back.PreVer, back.Post = cur, fsys.VersionOf(cur), cur
	}
	back.Message = fmt.Sprintf("undid move %s: %s is back at %s", r.ID, to.Shown(), from.Shown())
	if d.Over == "" {
		return []*Change{back}, nil
	}
	over, err := s.WS.Journal.Get(d.Over)
	if err != nil {
		return nil, fmt.Errorf("undo %s: the saved content of %s, which move %s replaced, is unreadable: %w", r.Path, r.Path, r.ID, err)
	}
	restore := &Change{Tool: tool, T: to, Key: to.Key(), Post: over, Create: true, undoes: r.ID,
		Matches: []receipt.Match{{Offset: 0, NewBytes: len(over), Line: 1, Old: []byte{}, New: over}},
		Eol:     textedit.DetectEOL(over)}
	if d.OverMode != "" {
		if restore.mode, err = receipt.ParseMode(d.OverMode); err != nil {
			return nil, fmt.Errorf("undo %s: receipt %s: %w", r.Path, r.ID, err)
		}
	}
	restore.Message = fmt.Sprintf("restored %s (%s), which move %s had replaced", to.Shown(), LinesWord(receipt.Lines(over)), r.ID)
	return []*Change{back, restore}, nil
}

// preimage returns the bytes a receipt's file held before (see
// history.Preimage).
func (s *Session) preimage(d *ReceiptData, cur []byte) ([]byte, error) {
	return history.Preimage(s.WS.Journal, d, cur)
}
