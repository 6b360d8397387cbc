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
	post := []byte(a.Content)
	if int64(len(post)) > s.ws.opts.MaxFileBytes {
		return nil, refuse(KindTooLarge, t.spelled, "content for %s is %s bytes, over the %s-byte file limit; write a smaller file",
			t.spelled, policy.Thousands(len(post)), policy.Thousands(int(s.ws.opts.MaxFileBytes)))
	}
	cur, err := t.readMax(s.ws.opts.MaxFileBytes)
	k.done(stepRead, t0)
	t0 = k.start()
	if errors.Is(err, fsys.ErrNotFound) {
		return s.create(ctx, t, post, a)
	}
	if err != nil {
		return nil, s.ws.fileErr("write", t, err)
	}
	c, ref := s.planReplace(ctx, "write", t, cur, post, a.ExpectedVersion, a.Overwrite, a.DryRun)
	if ref != nil {
		return nil, ref
	}
	k.done(stepPlan, t0)
	return s.commit(ctx, c)
}

// planReplace checks a whole-file replace of t (which holds cur) by post
// against the rules and builds its change, as write does it: the session
// must have seen the whole current version, a declared input is never
// replaced, the input guard holds unless overwrite, and the result warns
// and saves (rule 9).
func (s *Session) planReplace(ctx context.Context, tool string, t target, cur, post []byte, expectedVersion string, overwrite, dryRun bool) (*change, *Refusal) {
	preLines, postLines := receipt.Lines(cur), receipt.Lines(post)
	// The new bytes are hashed for the intent beside the hash of cur.
	after := stateOf(post, postLines, dryRun, nil)
	ver := fsys.VersionOf(cur)
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
