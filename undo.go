package stet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// lastChange finds this session's last mutation of key that has not been
// undone (undo receipts themselves are skipped, so undo walks back).
func (s *Session) lastChange(key string) (*receiptData, error) {
	var found []*receiptData
	undone := map[string]bool{}
	err := s.ws.journal.Session(s.id, func(r journal.Record) error {
		switch r.Type {
		case recReceipt:
			if r.Path != key {
				return nil
			}
			var d receiptData
			if err := json.Unmarshal(r.Data, &d); err != nil {
				return fmt.Errorf("journal line %d: %w", r.Seq, err)
			}
			if d.Undoes == "" && d.Receipt.Verified {
				found = append(found, &d)
			}
		case recUndo:
			var u map[string]string
			if err := json.Unmarshal(r.Data, &u); err == nil {
				undone[u["receipt"]] = true
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	for i := len(found) - 1; i >= 0; i-- {
		if !undone[found[i].Receipt.ID] {
			return found[i], nil
		}
	}
	return nil, nil
}

// Undo reverts this session's last mutation of a path, if the file still
// holds that mutation's result. It is itself a verified mutation with a
// receipt; a second undo reverts the mutation before.
func (s *Session) Undo(ctx context.Context, a UndoArgs) (*MutationResult, error) {
	if ref := checkArgs("undo", a); ref != nil {
		return nil, ref
	}
	t, unlock, err := s.claim(ctx, "undo", a.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	key := t.key()
	d, err := s.lastChange(key)
	if err != nil {
		return nil, err
	}
	if d == nil {
		return nil, refuse(KindNotFound, t.spelled, "this session has no change of %s to undo (stet log --path %s lists the receipts)", t.spelled, t.spelled)
	}
	return s.revert(ctx, t, d, "undo")
}

// revert turns t back to what it held before the receipt in d, if it still
// holds that receipt's result. The caller holds t's lock.
func (s *Session) revert(ctx context.Context, t target, d *receiptData, tool string) (*MutationResult, error) {
	key := t.key()
	r := d.Receipt
	p := t.root.p
	cur, err := p.ReadFile(t.rel)
	exists := err == nil
	if err != nil && !errors.Is(err, fsys.ErrNotFound) {
		return nil, s.ws.fileErr("undo", t, err)
	}
	stale := func(now string) *Refusal {
		return refuse(KindChanged, t.spelled, "%s no longer holds the result of %s %s (%s); undo would lose what changed since; read it and change it back by hand",
			t.spelled, r.Tool, r.ID, now).with("receipt", r.ID)
	}
	switch {
	case r.After == nil && exists:
		return nil, stale("a file exists there again")
	case r.After != nil && !exists:
		return nil, stale("the file is gone")
	case r.After != nil && string(fsys.VersionOf(cur)) != r.After.Version:
		return nil, stale("it was changed since")
	}
	if r.Tool == "move" {
		return s.undoMove(ctx, t, d)
	}
	var pre []byte
	if r.Before != nil {
		if pre, err = s.preimage(d, cur); err != nil {
			return nil, err
		}
	}
	c := &change{tool: tool, t: t, key: key, undoes: r.ID, eol: "none"}
	switch {
	case r.Before == nil: // undo a create: delete it, keeping its bytes
		c.pre, c.preVer, c.delete, c.save = cur, fsys.VersionOf(cur), true, true
		c.matches = []receipt.Match{{Offset: 0, OldBytes: len(cur), Line: 1, Old: cur, New: []byte{}}}
		c.message = fmt.Sprintf("undid %s %s: removed %s (its content is saved in the journal)", r.Tool, r.ID, t.display())
	case r.After == nil: // undo a delete: bring the file back
		c.post, c.create = pre, true
		c.matches = []receipt.Match{{Offset: 0, NewBytes: len(pre), Line: 1, Old: []byte{}, New: pre}}
		c.message = fmt.Sprintf("undid %s %s: restored %s (%s)", r.Tool, r.ID, t.display(), linesWord(receipt.Lines(pre)))
	default:
		inv, err := invert(cur, pre, r.Matches)
		if err != nil {
			return nil, fmt.Errorf("undo %s: %w", t.spelled, err)
		}
		c.pre, c.preVer, c.post, c.matches = cur, fsys.VersionOf(cur), inv.Text, inv.Matches
		c.eol = textedit.DetectEOL(inv.Text)
		c.message = fmt.Sprintf("undid %s %s: %s holds its previous bytes again (%s)", r.Tool, r.ID, t.display(), linesWord(receipt.Lines(pre)))
	}
	return s.commit(ctx, c)
}

// preimage returns the bytes a receipt's file held before: from the saved
// blob, or rebuilt from the current bytes and each match's old bytes. Either
// way the result must hash to the receipt's before version.
func (s *Session) preimage(d *receiptData, cur []byte) ([]byte, error) {
	r := d.Receipt
	var pre []byte
	if d.Pre != "" {
		b, err := s.ws.journal.Get(d.Pre)
		if err != nil {
			return nil, fmt.Errorf("undo %s: the saved content of %s is unreadable: %w", r.Path, r.ID, err)
		}
		pre = b
	} else {
		if len(d.Old) != len(r.Matches) {
			return nil, fmt.Errorf("undo %s: receipt %s does not record what it replaced", r.Path, r.ID)
		}
		out := make([]byte, 0, r.Before.Bytes)
		delta, last := 0, 0
		for i, m := range r.Matches {
			at := m.Offset + delta
			if at < last || at+m.NewBytes > len(cur) {
				return nil, fmt.Errorf("undo %s: receipt %s does not fit the file", r.Path, r.ID)
			}
			out = append(out, cur[last:at]...)
			out = append(out, d.Old[i]...)
			last = at + m.NewBytes
			delta += m.NewBytes - m.OldBytes
		}
		pre = append(out, cur[last:]...)
	}
	if string(fsys.VersionOf(pre)) != r.Before.Version {
		return nil, fmt.Errorf("undo %s: the rebuilt content of %s does not match its before version; the journal may be damaged (stet verify --all)", r.Path, r.ID)
	}
	return pre, nil
}

// invert builds the splice that turns cur (a receipt's after bytes) back
// into pre, region by region.
func invert(cur, pre []byte, ms []receipt.Match) (textedit.Result, error) {
	regions := make([]receipt.Match, 0, len(ms))
	delta := 0
	for _, m := range ms {
		at := m.Offset + delta
		regions = append(regions, receipt.Match{Offset: at, OldBytes: m.NewBytes, New: pre[m.Offset : m.Offset+m.OldBytes]})
		delta += m.NewBytes - m.OldBytes
	}
	res, err := textedit.Splice(cur, regions)
	if err != nil {
		return res, err
	}
	if string(res.Text) != string(pre) {
		return res, errors.New("inverse splice does not rebuild the previous bytes")
	}
	return res, nil
}

// undoMove renames a moved file back.
func (s *Session) undoMove(ctx context.Context, t target, d *receiptData) (*MutationResult, error) {
	r := d.Receipt
	from, ref := s.resolve("undo", r.From)
	if ref != nil {
		return nil, ref
	}
	if _, err := from.root.p.Stat(from.rel); err == nil {
		return nil, refuse(KindExists, t.spelled, "cannot undo move %s: %s exists again; move or delete it first", r.ID, r.From)
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := t.root.p.Rename(t.rel, from.rel, false); err != nil {
		return nil, s.ws.fileErr("undo", from, err)
	}
	back := receipt.Receipt{
		ID: s.ws.newID("r_"), Session: s.id, Tool: "undo", Path: from.display(), From: t.display(),
		Before: r.After, After: r.Before, Matches: []receipt.Match{}, EOL: "none", Time: s.ws.now(),
	}
	var verr error
	if r.After != nil {
		b, err := from.root.p.ReadFile(from.rel)
		if err != nil || string(fsys.VersionOf(b)) != r.After.Version {
			verr = fmt.Errorf("%s does not hold the moved bytes after the undo", r.From)
		}
	}
	back.Verified = verr == nil
	recs := []journal.Record{
		s.rec(recReceipt, from.key(), receiptData{Receipt: back, FromKey: t.key(), Undoes: r.ID}),
		s.rec(recUndo, t.key(), map[string]string{"receipt": r.ID, "by": back.ID}),
	}
	if _, err := s.ws.journal.Append(recs...); err != nil {
		return nil, err
	}
	if verr != nil {
		return nil, &VerifyError{Receipt: back, Err: verr}
	}
	s.mu.Lock()
	if o, ok := s.files[t.key()]; ok {
		delete(s.files, t.key())
		s.files[from.key()] = o
	}
	s.mu.Unlock()
	return &MutationResult{Message: fmt.Sprintf("undid move %s: %s is back at %s; receipt %s (verified)", r.ID, t.display(), from.display(), back.ID), Receipt: back}, nil
}
