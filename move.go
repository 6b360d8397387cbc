package stet

import (
	"context"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
)

// Move renames a file (or a directory the session listed) inside one root.
// The target must not exist unless overwrite; an overwritten file must have
// been read, and its bytes go to the journal.
func (s *Session) Move(ctx context.Context, a MoveArgs) (*MutationResult, error) {
	if ref := checkArgs("move", a); ref != nil {
		return nil, ref
	}
	from, ref := s.resolve("move", a.From)
	if ref != nil {
		return nil, ref
	}
	to, ref := s.resolve("move", a.To)
	if ref != nil {
		return nil, ref
	}
	if from.ri != to.ri {
		return nil, refuse(KindInvalid, a.From, "%s and %s are in different workspace roots; move within one root (write a copy and delete the original instead)", a.From, a.To)
	}
	for _, t := range []target{from, to} {
		if ref := s.gateWrite("move", t); ref != nil {
			return nil, ref
		}
	}
	if from.rel == "." || to.rel == "." {
		return nil, refuse(KindInvalid, a.From, "the workspace root cannot be moved")
	}
	unlockFrom, err := s.ws.lock(ctx, from)
	if err != nil {
		return nil, err
	}
	defer unlockFrom()
	if from.key() != to.key() {
		unlockTo, err := s.ws.lock(ctx, to)
		if err != nil {
			return nil, err
		}
		defer unlockTo()
	}
	p := from.root.p
	info, err := p.Stat(from.rel)
	if err != nil {
		return nil, s.ws.fileErr("move", from, err)
	}
	if info.Type == fsys.TypeDir {
		return s.moveDir(ctx, from, to, a)
	}
	cur, err := p.ReadFile(from.rel)
	if err != nil {
		return nil, s.ws.fileErr("move", from, err)
	}
	ver := fsys.VersionOf(cur)
	o, ref := s.checkFresh("move", from, cur, ver, "")
	if ref != nil {
		return nil, ref
	}
	var notes []string
	if toCur, err := p.ReadFile(to.rel); err == nil {
		if !a.Overwrite {
			return nil, refuse(KindExists, to.spelled, "%s already exists (%s); pass overwrite: true to replace it (its content is saved), or choose another name", to.spelled, linesWord(receipt.Lines(toCur)))
		}
		if _, ref := s.checkFresh("move", to, toCur, fsys.VersionOf(toCur), ""); ref != nil {
			return nil, ref
		}
		blob, err := s.ws.journal.Put(toCur)
		if err != nil {
			return nil, fmt.Errorf("move: saving %s: %w", to.spelled, err)
		}
		notes = append(notes, fmt.Sprintf("replaced %s (%s); previous content saved as %s", to.display(), linesWord(receipt.Lines(toCur)), blob))
	} else if !errors.Is(err, fsys.ErrNotFound) {
		return nil, s.ws.fileErr("move", to, err)
	} else if ref := s.checkParentObserved("move", to); ref != nil && to.parent().key() != from.parent().key() {
		return nil, ref
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return s.landMove(ctx, from, to, cur, ver, &o, notes, a.Overwrite)
}

// landMove renames a checked file and proves the target holds the bytes the
// session read.
func (s *Session) landMove(ctx context.Context, from, to target, cur []byte, ver fsys.Version, o *observation, notes []string, overwrite bool) (*MutationResult, error) {
	p := from.root.p
	if err := p.Rename(from.rel, to.rel, overwrite); err != nil {
		return nil, s.ws.fileErr("move", to, err)
	}
	r := receipt.Receipt{
		ID: s.ws.newID("r_"), Session: s.id, Tool: "move", Path: to.display(), From: from.display(),
		Before: receipt.StateOf(cur), After: receipt.StateOf(cur), Matches: []receipt.Match{}, EOL: "none", Notes: notes, Time: s.ws.now(),
	}
	readback, err := p.ReadFile(to.rel)
	if err != nil && !errors.Is(err, fsys.ErrNotFound) {
		return nil, fmt.Errorf("move %s: reading back: %w", to.spelled, err)
	}
	verr := receipt.Verify(cur, readback, r)
	if _, err := p.Stat(from.rel); err == nil && verr == nil {
		verr = fmt.Errorf("%s still exists after the move", from.spelled)
	}
	r.Verified = verr == nil
	return s.finishMove(from, to, r, o, verr)
}

// finishMove journals a move and carries the observation to the new name.
func (s *Session) finishMove(from, to target, r receipt.Receipt, o *observation, verr error) (*MutationResult, error) {
	fromKey, toKey := from.key(), to.key()
	recs := []journal.Record{s.rec(recReceipt, toKey, receiptData{Receipt: r, FromKey: fromKey})}
	if o != nil && r.Verified {
		recs = append(recs, s.rec(recObserve, toKey, o))
	}
	if _, err := s.ws.journal.Append(recs...); err != nil {
		return nil, fmt.Errorf("move %s: landed, but the journal could not record receipt %s: %w", to.spelled, r.ID, err)
	}
	if verr != nil {
		return nil, &VerifyError{Receipt: r, Err: verr}
	}
	s.mu.Lock()
	if o != nil {
		delete(s.files, fromKey)
		cp := *o
		s.files[toKey] = &cp
	}
	if s.created[fromKey] {
		delete(s.created, fromKey)
		s.created[toKey] = true
	}
	s.dirs[to.parent().key()] = true
	s.mu.Unlock()
	msg := fmt.Sprintf("moved %s to %s; receipt %s (verified)", from.display(), to.display(), r.ID)
	return &MutationResult{Message: msg, Receipt: r, Diff: ""}, nil
}

// moveDir renames a directory the session listed.
func (s *Session) moveDir(ctx context.Context, from, to target, a MoveArgs) (*MutationResult, error) {
	if !s.ws.opts.NoGate && !s.dirObserved(from.key()) {
		return nil, refuse(KindNotRead, from.spelled, "%s is a directory this session has not listed; list it first (list path=%s), then retry the move", from.spelled, from.spelled)
	}
	if _, err := from.root.p.Stat(to.rel); err == nil {
		return nil, refuse(KindExists, to.spelled, "%s already exists; a directory is never moved over something else; choose another name", to.spelled)
	}
	if ref := s.checkParentObserved("move", to); ref != nil && to.parent().key() != from.parent().key() {
		return nil, ref
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := from.root.p.Rename(from.rel, to.rel, false); err != nil {
		return nil, s.ws.fileErr("move", to, err)
	}
	r := receipt.Receipt{
		ID: s.ws.newID("r_"), Session: s.id, Tool: "move", Path: to.display(), From: from.display(),
		Matches: []receipt.Match{}, EOL: "none", Notes: []string{"moved a directory"}, Time: s.ws.now(),
	}
	var verr error
	if info, err := from.root.p.Stat(to.rel); err != nil || info.Type != fsys.TypeDir {
		verr = fmt.Errorf("%s is not a directory after the move", to.spelled)
	}
	r.Verified = verr == nil
	if err := s.observeDirs(to); err != nil {
		return nil, err
	}
	return s.finishMove(from, to, r, nil, verr)
}
