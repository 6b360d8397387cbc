package stet

import (
	"context"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// Write creates a file, or replaces one the session has read whole.
func (s *Session) Write(ctx context.Context, a WriteArgs) (*MutationResult, error) {
	if err := s.catchUp(); err != nil {
		return nil, err
	}
	if ref := checkArgs("write", a); ref != nil {
		return nil, ref
	}
	k := s.ws.clock
	t0 := k.start()
	t, unlock, err := s.claim(ctx, "write", a.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if int64(len(a.Content)) > s.ws.opts.MaxFileBytes {
		return nil, refuse(KindTooLarge, t.spelled, "content for %s is %s bytes, over the %s-byte file limit; write a smaller file",
			t.spelled, policy.Thousands(len(a.Content)), policy.Thousands(int(s.ws.opts.MaxFileBytes)))
	}
	// The new bytes and the current ones are in memory the workspace lends
	// (bufPool), handed back once the call has succeeded (lendBack).
	post := append(s.ws.bufs.Get(len(a.Content)), a.Content...)
	cur, err := t.readInto(s.ws.opts.MaxFileBytes, s.ws.bufs.Get)
	k.done(stepRead, t0)
	t0 = k.start()
	if errors.Is(err, fsys.ErrNotFound) {
		res, err := s.create(ctx, t, post, a)
		return s.lendBack(res, err, post)
	}
	if err != nil {
		return nil, s.ws.fileErr("write", t, err)
	}
	c, ref := s.planReplace(ctx, "write", t, cur, post, a.ExpectedVersion, a.Overwrite, a.DryRun)
	if ref != nil {
		return nil, ref
	}
	k.done(stepPlan, t0)
	res, err := s.commit(ctx, c)
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
		s.ws.bufs.Put(b)
	}
	return res, nil
}

// planReplace checks a whole-file replace of t (which holds cur) by post
// against the rules and builds its change, as write does it: the session
// must have seen the whole current version, a declared input is never
// replaced, the input guard holds unless overwrite, and the result warns
// and saves (rule 9).
func (s *Session) planReplace(ctx context.Context, tool string, t target, cur, post []byte, expectedVersion string, overwrite, dryRun bool) (*change, *Refusal) {
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
	after := stateOf(post, postLines, dryRun, nil)
	f, o := s.existing(policy.OpReplace, t, cur, ver, expectedVersion)
	f.Overwrite = overwrite
	counts := policy.Counts(len(cur), preLines, len(post), postLines)
	if ref := s.decide(ctx, ask{tool: tool, t: t, f: f, cur: cur, ver: ver, o: o, what: "replace it", counts: counts, ruleText: true}); ref != nil {
		return nil, ref
	}
	key := t.key()
	mine := f.Created
	c := &change{
		tool: tool, t: t, key: key, pre: cur, preVer: ver, post: post, dryRun: dryRun, seen: &o,
		matches: []receipt.Match{{Offset: 0, OldBytes: len(cur), NewBytes: len(post), Line: 1, Old: cur, New: post}},
		eol:     textedit.DetectEOL(post),
		save:    true, preLines: preLines, postLines: postLines, after: after,
	}
	if mine {
		c.message = fmt.Sprintf("replaced %s (%s), a file this session created", t.shown(), counts)
	} else {
		c.message, c.warned = policy.ReplacedMessage(shownName(t.spelled), counts, policy.Alarm(t.rel, cur, post)), true
	}
	return c, nil
}

// create writes a new file: its parent directory (or the nearest existing
// ancestor) must have been observed.
func (s *Session) create(ctx context.Context, t target, post []byte, a WriteArgs) (*MutationResult, error) {
	f, dir, counts, ref := s.creating("write", t, post, false)
	if ref != nil {
		return nil, ref
	}
	f.ExpectedVersion, f.Overwrite = a.ExpectedVersion, a.Overwrite
	if ref := s.decide(ctx, ask{tool: "write", t: t, f: f, dir: dir, what: "recreate it", counts: counts}); ref != nil {
		return nil, ref
	}
	c := &change{
		tool: "write", t: t, key: t.key(), post: post, create: true, dryRun: a.DryRun,
		matches: []receipt.Match{{Offset: 0, OldBytes: 0, NewBytes: len(post), Line: 1, Old: []byte{}, New: post}},
		eol:     textedit.DetectEOL(post),
	}
	c.message = fmt.Sprintf("created %s (%s, %s)", t.shown(), linesWord(receipt.Lines(post)), count(len(post), "byte", "bytes"))
	return s.commit(ctx, c)
}
