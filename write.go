package stet

import (
	"context"
	"errors"
	"fmt"
	"strings"

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
	cur, err := fsys.ReadFileMax(t.root.p, t.rel, s.ws.opts.MaxFileBytes)
	if errors.Is(err, fsys.ErrNotFound) {
		if ref := s.declaredInput(t, "recreate it", ""); ref != nil {
			return nil, ref
		}
		if ref := s.recreateGuard(t, post, a.Overwrite); ref != nil {
			return nil, ref
		}
		return s.create(ctx, t, post, a)
	}
	if err != nil {
		return nil, s.ws.fileErr("write", t, err)
	}
	c, ref := s.planReplace("write", t, cur, post, a.ExpectedVersion, a.Overwrite, a.DryRun)
	if ref != nil {
		return nil, ref
	}
	return s.commit(ctx, c)
}

// planReplace checks a whole-file replace of t (which holds cur) by post
// and builds its change, as write does it: the session must have seen the
// whole current version, a declared input is never replaced, the input
// guard holds unless overwrite, and the result warns and saves (rule 9).
func (s *Session) planReplace(tool string, t target, cur, post []byte, expectedVersion string, overwrite, dryRun bool) (*change, *Refusal) {
	ver := fsys.VersionOf(cur)
	o, ref := s.checkFresh(tool, t, cur, ver, expectedVersion)
	if ref != nil {
		return nil, ref
	}
	if ref := s.checkBinding(t, o, cur, ver, nil, true); ref != nil {
		return nil, ref
	}
	key := t.key()
	mine := s.wasCreated(key)
	counts := policy.Counts(len(cur), receipt.Lines(cur), len(post), receipt.Lines(post))
	if ref := s.declaredInput(t, "replace it", counts); ref != nil {
		return nil, ref
	}
	if len(cur) > 0 && !mine && !s.ws.opts.NoGate {
		if ref := s.inputGuard(t, counts, overwrite); ref != nil {
			if tool == "patch" && strings.Contains(ref.Message, "overwrite: true") {
				// A patch has no overwrite argument: say where there is one.
				ref.Message += " (a patch cannot: update the file with @@ hunks instead of *** Add File:, or use write with overwrite: true)"
			}
			return nil, ref
		}
	}
	c := &change{
		tool: tool, t: t, key: key, pre: cur, preVer: ver, post: post, dryRun: dryRun, seen: &o,
		matches: []receipt.Match{{Offset: 0, OldBytes: len(cur), NewBytes: len(post), Line: 1, Old: cur, New: post}},
		eol:     textedit.DetectEOL(post),
		save:    true,
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
	if a.ExpectedVersion != "" && !s.ws.opts.NoGate {
		return nil, refuse(KindChanged, t.spelled, "%s does not exist, but expected_version %s was given; check the path (list its directory), then retry", t.spelled, fsys.Version(a.ExpectedVersion).Short())
	}
	if ref := s.checkParentObserved(ctx, "write", t); ref != nil {
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
