package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/tools"
)

// The commit sequence (SPEC sections 5 and 6). Every change of bytes or
// names, whatever its tool, takes these steps in this order; what a step
// does for a kind of change (create, replace, delete, move of a file or of
// a directory) is that kind's plan (plan.go). The caller holds the locks of
// every name the change touches.
//
//	1 receipt   the planned receipt: before state, notes       newReceipt
//	2 dry run   stop there with the receipt and the diff
//	3 sweep     leftover temp files of the target's directory  Workspace.sweep
//	4 save      what the change takes away, as a blob      ┐   saveStep
//	  intent    the write-ahead intent line and its fsync  ├─ prepare: concurrent;
//	  temp      the new bytes in a temp file, fsynced      ┘   the swap waits for all
//	5 swap      compare-and-swap, the handover of the          plan.land
//	            displaced file to the journal (plan.keep,
//	            instead of the save of step 4), directory fsync
//	6 readback  the result read back, the receipt verified     plan.check
//	7 receipt   receipt, observation, done: no fsync           Session.record
//
// The temp file is written beside step 4 where the plan overlaps (create,
// replace): the provider calls Expected.Ready, which waits for the save and
// the intent, once the temp file is durable and before the swap. Step 7
// needs no fsync of its own: the intent of step 4 holds the whole planned
// receipt and its undo data, so a receipt lost in a crash is rolled forward
// from it at the next Open (completeReceipts); see docs/design.md.
//
// A sequence of changes (commitSeq: a multi-file patch, an undo set, the
// undo of a move over a file) writes one intent for all of them first and
// then runs each change through the same steps, without an intent of its
// own.
func (s *Session) Commit(ctx context.Context, c *Change) (*tools.MutationResult, error) {
	k := s.WS.Clock
	t0 := k.Start()
	pl := c.plan()
	r := s.NewReceipt(c)
	// The receipt's after state is hashed from the new bytes while they are
	// written (see checkContent).
	after := c.AfterState()
	if c.DryRun {
		r.After = c.plannedAfter(r, after)
		r.DryRun = true
		return &tools.MutationResult{Message: "dry run, nothing written: " + c.Message, Receipt: r, Diff: c.Diff()}, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	s.WS.sweep(c.T)
	data, it, ready := s.prepare(c, &r, after)
	defer func() {
		t := k.Start()
		c.release()
		k.Done(stepRelease, t)
	}()
	// Only the result shows the diff: it is rendered beside the swap.
	diff := make(chan string, 1)
	go func() { diff <- c.Diff() }()
	if err := ctx.Err(); err != nil {
		s.settle(ready, it, false)
		return nil, err
	}
	cm, err := s.land(pl, c, ready)
	r.After = c.plannedAfter(r, after)
	if err != nil {
		s.settle(ready, it, !refusedBeforeSwap(err))
		return nil, s.WS.FileErr(c.Tool, c.T, err)
	}
	if pl.diskMode && c.mode == 0 && r.After != nil {
		// A new file's mode is what the umask left; every other change keeps
		// the mode plannedAfter names (the provider keeps the old one).
		if fi, err := c.T.Stat(); err == nil {
			r.After.Mode = receipt.FormatMode(fi.Mode)
		}
	}
	r.Notes = append(r.Notes, cm.Notes...)
	if h := s.WS.Opts.Hooks.BeforeReadback; h != nil {
		h(c.T.Rel)
	}
	t := k.Start()
	verr, err := pl.check(s, c, &r)
	k.Done(stepReadback, t)
	if err != nil {
		s.settle(ready, it, true)
		return nil, err
	}
	r.Verified = verr == nil
	data.Receipt = r
	t = k.Start()
	err = s.Record(c, data)
	k.Done(stepReceipt, t)
	if err != nil {
		s.settle(ready, it, true)
		return nil, err
	}
	if verr != nil {
		return nil, &VerifyError{Receipt: r, Err: verr}
	}
	msg := c.Message
	if !c.Warned {
		msg += "; receipt " + r.ID + " (verified)"
	}
	res := &tools.MutationResult{Message: msg, Receipt: r, Diff: <-diff}
	k.Done(stepCommit, t0)
	return res, nil
}

// prepare starts step 4: what undo needs is made durable before anything
// moves. The save (the bytes a whole-file replace, a delete or an
// overwriting move takes away, as a blob; an edit keeps only the regions it
// replaced, in the intent) and the write-ahead intent run at once: the
// intent names the blob by the hash of its bytes, so it need not wait for
// it, and recovery drops an intent whose change never moved, blob or not.
// ready waits for both and returns the error, every time it is called; a
// failure aborts the change with nothing moved. it is the planned intent
// once ready returned nil.
func (s *Session) prepare(c *Change, r *receipt.Receipt, after func() *receipt.State) (data *ReceiptData, it *IntentData, ready func() error) {
	pl := c.plan()
	data = undoData(c)
	s.WS.planTemp(c)
	it = &IntentData{ID: c.Intent}
	saved := s.saveStep(c)
	logged := make(chan error, 1)
	if c.Intent != "" {
		logged <- nil // part of a sequence: its intent is already durable
	} else {
		// The intent's copy of data is taken here, before the save's blob
		// name is filled in (plannedFile names it by its hash).
		go func(d ReceiptData) {
			k := s.WS.Clock
			t := k.Start()
			planned := *r
			planned.After = c.plannedAfter(*r, after)
			*it = IntentData{ID: r.ID, Session: s.id, Files: []IntentFile{plannedFile(c, planned, &d)}}
			// The swap may go on once the intent is durable (in the log and
			// its index, by a sync shared with concurrent appends).
			done := false
			err := s.writeIntentThen(it.ID, it.Files, func() { done = true; k.Done(stepIntent, t); logged <- nil })
			if !done {
				logged <- err
			}
		}(*data)
	}
	var once sync.Once
	var serr error
	return data, it, func() error {
		once.Do(func() {
			lerr, blob := <-logged, <-saved
			err := lerr
			if err == nil {
				err = blob.err
			}
			if err != nil {
				if lerr == nil && c.Intent == "" {
					// The intent is durable but the save failed: nothing
					// will move, so the intent is closed as dropped.
					s.WS.Journal.AppendLazy(DoneRecord(it.ID, DoneDropped, ""))
					it.ID = ""
				}
				serr = fmt.Errorf("%s %s: %w", c.Tool, c.T.Spelled, err)
				return
			}
			switch {
			case blob.name == "":
			case pl.over:
				data.Over = blob.name
			default:
				data.Pre = blob.name
			}
		})
		return serr
	}
}

// savedBlob is the outcome of the save step.
type savedBlob struct {
	name string
	err  error
}

// saveStep starts the save of what c takes away whole (its plan's take)
// and returns where its outcome arrives: the blob's name, or "" when the
// change saves nothing. Where the plan keeps and the provider can, the
// displaced file itself becomes that blob within step 5 (land), so nothing
// is copied here: the blob is named by the version the change read, and
// the receipt that names it is written only once the swap has landed.
func (s *Session) saveStep(c *Change) <-chan savedBlob {
	out := make(chan savedBlob, 1)
	pl := c.plan()
	if pl.keep {
		if _, ok := c.keeper(pl.take); ok {
			c.handover = s.startHandover(c)
			ver, _ := c.taken()
			out <- savedBlob{name: string(ver)}
			return out
		}
	}
	var b []byte
	if pl.saves(c) {
		b, _ = pl.take(c)
	}
	if b == nil {
		out <- savedBlob{}
		return out
	}
	go func() {
		k := s.WS.Clock
		t := k.Start()
		name, err := s.WS.Journal.Put(b)
		k.Done(stepSave, t)
		if err != nil {
			err = fmt.Errorf("saving the previous content (nothing was changed): %w", err)
		}
		out <- savedBlob{name: name, err: err}
	}()
	return out
}

// land is step 5: the plan's provider call, by compare-and-swap, so that
// nothing changes unless every name holds what the change was planned on.
// Where the plan overlaps, the provider waits for ready after the new
// bytes are durable in their temp file; otherwise ready is waited for
// before the call.
func (s *Session) land(pl *plan, c *Change, ready func() error) (fsys.Commit, error) {
	k := s.WS.Clock
	var wait time.Duration
	wready := ready
	if k != nil {
		wready = func() error {
			t := time.Now()
			err := ready()
			wait += time.Since(t)
			return err
		}
	}
	t := k.Start()
	if !pl.overlap {
		if err := wready(); err != nil {
			return fsys.Commit{}, err
		}
	}
	cm, err := pl.land(s, c, fsys.Expected{Version: c.PreVer, Bytes: c.Pre, Ready: wready, Temp: c.temp, Discard: c.discard})
	k.provider(t, wait)
	if rerr := ready(); rerr != nil && err == nil {
		err = rerr // a provider that ignored Ready: the save must still have landed
	}
	return cm, err
}

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
func (s *Session) CommitSeq(ctx context.Context, tool string, seq []*Change, before func(c *Change)) ([]*tools.MutationResult, error) {
	var intent string
	var steps []IntentFile
	if len(seq) > 1 && !seq[0].DryRun {
		intent = s.WS.newID("p_")
		steps = make([]IntentFile, len(seq))
		for i, c := range seq {
			c.id, c.Intent = s.WS.newID("r_"), intent
			s.WS.planTemp(c)
			r := s.NewReceipt(c)
			r.After = c.plannedAfter(r, c.AfterState())
			steps[i] = plannedFile(c, r, undoData(c))
		}
		if err := s.writeIntent(intent, steps); err != nil {
			return nil, err
		}
	}
	var out []*tools.MutationResult
	fail := func(err error) ([]*tools.MutationResult, error) {
		for i := len(out) - 1; i >= 0; i-- {
			c := seq[i]
			d := plannedFile(c, out[i].Receipt, undoData(c)).Data
			s.Revert(ctx, c.T, &d, tool)
		}
		if intent != "" {
			// The disk decides how the intent closes: a step that failed
			// after its swap, or a change the rollback could not take back,
			// is rolled back now or reported, never recorded as rolled back
			// unseen.
			s.WS.resolveIntent(ctx, IntentData{ID: intent, Session: s.id, Files: steps})
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
		res, err := s.Commit(ctx, c)
		if err != nil {
			return fail(err)
		}
		out = append(out, res)
	}
	if intent != "" {
		if _, err := s.WS.Journal.AppendLazy(DoneRecord(intent, DoneCommitted, "")); err != nil {
			return out, fmt.Errorf("landed, but the journal could not close its intent %s: %w", intent, err)
		}
	}
	return out, nil
}

// handover is the journal's side of handing a displaced file to its object
// store (Workspace.keepFor: the blob's directory made durable, the store
// opened), started beside the intent and the temp file rather than ahead of
// them; the provider waits for it (fsys.Keep.Open) only once the new bytes
// are durable.
type handover struct {
	wait func() openedKeep
}

type openedKeep struct {
	keep fsys.Keep
	done func()
	err  error
}

// startHandover starts c's handover.
func (s *Session) startHandover(c *Change) *handover {
	ch := make(chan openedKeep, 1)
	ver, old := c.taken()
	go func() {
		k, done, err := s.WS.KeepFor(c.T.Root.P, ver, old)
		ch <- openedKeep{keep: k, done: done, err: err}
	}()
	return &handover{wait: sync.OnceValue(func() openedKeep { return <-ch })}
}

// keep is the fsys.Keep the provider takes: the store comes late (Open),
// and the copy (Save) needs nothing from the handover.
func (h *handover) keep(s *Session, c *Change) fsys.Keep {
	_, old := c.taken()
	return fsys.Keep{
		Save: func() error {
			_, err := s.WS.Journal.Put(old)
			return err
		},
		Open: func() (fsys.Keep, error) {
			o := h.wait()
			return o.keep, o.err
		},
	}
}

// discard is the change's fsys.Expected.Discard: the old file the swap
// displaced is removed in the background, beside the readback and the
// receipt, and waited for at the end of the commit (release).
func (c *Change) discard(remove func()) {
	done := make(chan struct{})
	c.discarded = done
	go func() {
		defer close(done)
		remove()
	}()
}

// release waits for the work a commit left running beside its last steps:
// the removal of the displaced file, and the handover's store, closed.
func (c *Change) release() {
	if c.discarded != nil {
		<-c.discarded
		c.discarded = nil
	}
	if h := c.handover; h != nil {
		c.handover = nil
		if o := h.wait(); o.done != nil {
			o.done()
		}
	}
}
