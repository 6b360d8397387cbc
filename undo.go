package stet

import (
	"context"

	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
)

// lastChange finds this session's last mutation of key that has not been
// undone (undo receipts themselves are skipped, so undo walks back).
func (s *Session) lastChange(key string) (*engine.ReceiptData, error) {
	var x history.Index
	err := s.e.WS.Journal.Session(s.e.ID(), func(r journal.Record) error {
		if r.Type == engine.RecReceipt && r.Path != key {
			// Only key's receipts are kept; a move away from key names it
			// as its source.
			if d, err := history.Decode[engine.ReceiptData](r); err != nil || d.FromKey != key {
				return err
			}
		}
		return x.Add(r)
	})
	if err == nil && s.e.ID() != engine.ReviewSession && len(x.Changes(key)) > 0 {
		// A change a person took back on the review page is undone too.
		err = s.e.WS.Journal.Session(engine.ReviewSession, func(r journal.Record) error {
			x.Undos.Add(r)
			return nil
		})
	}
	if err != nil {
		return nil, err
	}
	if c := x.LastChange(key); c != nil {
		return &c.Data, nil
	}
	return nil, nil
}

// lastUnverified returns the id of this session's newest receipt of key
// when it is not verified (a client's change whose file did not hold what
// its tool said), or "".
func (s *Session) lastUnverified(key string) string {
	var last *engine.ReceiptData
	s.e.WS.Journal.Session(s.e.ID(), func(r journal.Record) error {
		if r.Type == engine.RecReceipt && r.Path == key {
			if d, err := history.Decode[engine.ReceiptData](r); err == nil {
				last = &d
			}
		}
		return nil
	})
	if last == nil || last.Receipt.Verified {
		return ""
	}
	return last.Receipt.ID
}

// Undo reverts this session's last mutation of a path, if the file still
// holds that mutation's result. It is itself a verified mutation with a
// receipt; a second undo reverts the mutation before. The undo of a move
// takes both names back: the file returns to its old name and a file the
// move replaced returns to the new one, byte for byte.
func (s *Session) Undo(ctx context.Context, a UndoArgs) (*MutationResult, error) {
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	if ref := checkArgs("undo", a); ref != nil {
		return nil, ref
	}
	t, ref := s.e.Resolve("undo", a.Path)
	if ref != nil {
		return nil, ref
	}
	if ref := s.e.GateWrite("undo", t); ref != nil {
		return nil, ref
	}
	for range 3 {
		d, err := s.lastChange(t.Key())
		if err != nil {
			return nil, engine.JournalRefusal("undo", t, err)
		}
		if d == nil {
			if id := s.lastUnverified(t.Key()); id != "" {
				return nil, engine.Refuse(KindNotFound, t.Spelled, "this session's last change of %s, receipt %s, is not verified (the file did not hold what the change said it would), and undo takes back only verified changes; stet show %s prints it with the bytes before it",
					t.Spelled, id, id).With("receipt", id)
			}
			return nil, engine.Refuse(KindNotFound, t.Spelled, "this session has no change of %s to undo: undo takes back only this session's own changes", t.Spelled)
		}
		names, ref := s.undoTargets(t, d)
		if ref != nil {
			return nil, ref
		}
		unlock, err := s.e.WS.LockAll(ctx, names...)
		if err != nil {
			return nil, err
		}
		// Another call of this session may have undone it while this one
		// waited for the locks.
		again, err := s.lastChange(t.Key())
		if err != nil || again == nil || again.Receipt.ID != d.Receipt.ID {
			unlock()
			if err != nil {
				return nil, engine.JournalRefusal("undo", t, err)
			}
			continue
		}
		res, err := s.e.Revert(ctx, t, d, "undo")
		unlock()
		return res, err
	}
	return nil, engine.Refuse(KindConflict, t.Spelled, "%s keeps being changed by other calls of this session; retry the undo when they are done", t.Spelled)
}

// undoTargets returns every name the revert of d touches, gated like any
// change: the file, and for a move both of its names.
func (s *Session) undoTargets(t engine.Target, d *engine.ReceiptData) ([]engine.Target, *Refusal) {
	if d.FromKey == "" {
		return []engine.Target{t}, nil
	}
	var out []engine.Target
	for _, p := range []string{d.Receipt.Path, d.Receipt.From} {
		n, ref := s.e.Resolve("undo", p)
		if ref != nil {
			return nil, ref
		}
		if ref := s.e.GateWrite("undo", n); ref != nil {
			return nil, ref
		}
		out = append(out, n)
	}
	return out, nil
}
