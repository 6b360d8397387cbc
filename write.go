package stet

import (
	"context"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// Write creates a file, or replaces one the session has read whole.
func (s *Session) Write(ctx context.Context, a WriteArgs) (*MutationResult, error) {
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	if ref := checkArgs("write", a); ref != nil {
		return nil, ref
	}
	k := s.e.WS.Clock
	t0 := k.Start()
	t, unlock, err := s.e.Claim(ctx, "write", a.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if int64(len(a.Content)) > s.e.WS.Opts.MaxFileBytes {
		return nil, engine.Refuse(KindTooLarge, t.Spelled, "content for %s is %s bytes, over the %s-byte file limit; write a smaller file",
			t.Spelled, policy.Thousands(len(a.Content)), policy.Thousands(int(s.e.WS.Opts.MaxFileBytes)))
	}
	// The new bytes and the current ones are in memory the workspace lends
	// (bufPool), handed back once the call has succeeded (lendBack).
	post := append(s.e.WS.Bufs.Get(len(a.Content)), a.Content...)
	cur, err := t.ReadInto(s.e.WS.Opts.MaxFileBytes, s.e.WS.Bufs.Get)
	k.Done(engine.StepRead, t0)
	t0 = k.Start()
	if errors.Is(err, fsys.ErrNotFound) {
		res, err := s.create(ctx, t, post, a)
		return s.lendBack(res, err, post)
	}
	if err != nil {
		return nil, s.e.WS.FileErr("write", t, err)
	}
	c, ref := s.planReplace(ctx, "write", t, cur, post, a.ExpectedVersion, a.Overwrite, a.DryRun)
	if ref != nil {
		return nil, ref
	}
	k.Done(engine.StepPlan, t0)
	res, err := s.e.Commit(ctx, c)
	return s.lendBack(res, err, post, cur)
}

// lendBack hands the slices a whole-file write was made from (bufs) back
// to the workspace's bufPool when the write succeeded, and returns its
// outcome. By then the commit has waited for every goroutine that read
// them; the receipt's matches, which held them whole, are cleared (Old and
// New are optional, and not part of the JSON). A failed call leaves them
// to the garbage collector: a goroutine of it may still read them.
func (s *Session) lendBack(res *MutationResult, err error, bufs ...[]byte) (*MutationResult, error) {
	if err != nil {
		return res, err
	}
	for i := range res.Receipt.Matches {
		res.Receipt.Matches[i].Old, res.Receipt.Matches[i].New = nil, nil
	}
	for _, b := range bufs {
		s.e.WS.Bufs.Put(b)
	}
	return res, nil
}

// planReplace checks a whole-file replace of t (which holds cur) by post
// against the rules and builds its change, as write does it: the session
// must have seen the whole current version, a declared input is never
// replaced, the input guard holds unless overwrite, and the result warns
// and saves (rule 9).
func (s *Session) planReplace(ctx context.Context, tool string, t engine.Target, cur, post []byte, expectedVersion string, overwrite, dryRun bool) (*engine.Change, *Refusal) {
	// The new bytes' lines are counted beside cur's hash on large files;
	// their hash then runs beside the rest of the call (stateOf), as the
	// intent is the first to need it.
	var postLines int
	counted := make(chan struct{})
	if len(post) >= 256<<10 {
		go func() { postLines = receipt.Lines(post); close(counted) }()
	} else {
		postLines = receipt.Lines(post)
		close(counted)
	}
	ver, preLines := fsys.VersionOf(cur), receipt.Lines(cur)
	<-counted
	after := engine.StateOf(post, postLines, dryRun, nil)
	f, o := s.e.Existing(policy.OpReplace, t, cur, ver, expectedVersion)
	f.Overwrite = overwrite
	counts := policy.Counts(len(cur), preLines, len(post), postLines)
	if ref := s.e.Decide(ctx, engine.Ask{Tool: tool, T: t, F: f, Cur: cur, Ver: ver, O: o, What: "replace it", Counts: counts, RuleText: true}); ref != nil {
		return nil, ref
	}
	key := t.Key()
	mine := f.Created
	c := &engine.Change{
		Tool: tool, T: t, Key: key, Pre: cur, PreVer: ver, Post: post, DryRun: dryRun, Seen: &o,
		Matches: []receipt.Match{{Offset: 0, OldBytes: len(cur), NewBytes: len(post), Line: 1, Old: cur, New: post}},
		Eol:     textedit.DetectEOL(post),
		Save:    true, PreLines: preLines, PostLines: postLines, After: after,
	}
	if mine {
		c.Message = fmt.Sprintf("replaced %s (%s), a file this session created", t.Shown(), counts)
	} else {
		c.Message, c.Warned = policy.ReplacedMessage(engine.ShownName(t.Spelled), counts, policy.Alarm(t.Rel, cur, post)), true
	}
	return c, nil
}

// create writes a new file: its parent directory (or the nearest existing
// ancestor) must have been observed.
func (s *Session) create(ctx context.Context, t engine.Target, post []byte, a WriteArgs) (*MutationResult, error) {
	f, dir, counts, ref := s.e.Creating("write", t, post, false)
	if ref != nil {
		return nil, ref
	}
	f.ExpectedVersion, f.Overwrite = a.ExpectedVersion, a.Overwrite
	if ref := s.e.Decide(ctx, engine.Ask{Tool: "write", T: t, F: f, Dir: dir, What: "recreate it", Counts: counts}); ref != nil {
		return nil, ref
	}
	c := &engine.Change{
		Tool: "write", T: t, Key: t.Key(), Post: post, Create: true, DryRun: a.DryRun,
		Matches: []receipt.Match{{Offset: 0, OldBytes: 0, NewBytes: len(post), Line: 1, Old: []byte{}, New: post}},
		Eol:     textedit.DetectEOL(post),
	}
	c.Message = fmt.Sprintf("created %s (%s, %s)", t.Shown(), engine.LinesWord(receipt.Lines(post)), count(len(post), "byte", "bytes"))
	return s.e.Commit(ctx, c)
}
