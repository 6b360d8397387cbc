package stet

import (
	"context"
	"fmt"
)

// commitSeq lands seq (the files of a patch, the steps of an undo set, the
// rename back and the restore of an undone move over a file) as one
// write-ahead intent: it is planned and made durable before the first
// change moves a byte, so the next start after a crash rolls the whole
// sequence forward or back (resolveIntent), never leaves half of it. Each
// change is committed in order, before (when not nil) being called just
// ahead of it. When one fails, the ones that landed are taken back, newest
// first, as tool, and the disk then decides how the intent closes. It
// returns the results of the changes that landed; on failure, those are the
// ones that were taken back.
func (s *Session) commitSeq(ctx context.Context, tool string, seq []*change, before func(c *change)) ([]*MutationResult, error) {
	var intent string
	var steps []intentFile
	if len(seq) > 1 && !seq[0].dryRun {
		intent = s.ws.newID("p_")
		steps = make([]intentFile, len(seq))
		for i, c := range seq {
			c.id, c.intent = s.ws.newID("r_"), intent
			s.ws.planTemp(c)
			r := s.newReceipt(c)
			r.After = c.plannedAfter(r, c.afterState())
			steps[i] = plannedFile(c, r, undoData(c))
		}
		if err := s.writeIntent(intent, steps); err != nil {
			return nil, err
		}
	}
	var out []*MutationResult
	fail := func(err error) ([]*MutationResult, error) {
		for i := len(out) - 1; i >= 0; i-- {
			c := seq[i]
			d := plannedFile(c, out[i].Receipt, undoData(c)).Data
			s.revert(ctx, c.t, &d, tool)
		}
		if intent != "" {
			// The disk decides how the intent closes: a step that failed
			// after its swap, or a change the rollback could not take back,
			// is rolled back now or reported, never recorded as rolled back
			// unseen.
			s.ws.resolveIntent(ctx, intentData{ID: intent, Session: s.id, Files: steps})
		}
		return out, err
	}
	for _, c := range seq {
		if err := ctx.Err(); err != nil {
			return fail(err)
		}
		if before != nil {
			before(c)
		}
		res, err := s.commit(ctx, c)
		if err != nil {
			return fail(err)
		}
		out = append(out, res)
	}
	if intent != "" {
		if _, err := s.ws.journal.AppendLazy(doneRecord(intent, doneCommitted, "")); err != nil {
			return out, fmt.Errorf("landed, but the journal could not close its intent %s: %w", intent, err)
		}
	}
	return out, nil
}
