package stet

import (
	"context"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

// Delete removes a file the session has read (never a directory). Its bytes
// go to the journal first; undo brings them back.
func (s *Session) Delete(ctx context.Context, a DeleteArgs) (*MutationResult, error) {
	if err := s.catchUp(); err != nil {
		return nil, err
	}
	if ref := checkArgs("delete", a); ref != nil {
		return nil, ref
	}
	t, unlock, err := s.claim(ctx, "delete", a.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, err := t.readMax(s.ws.opts.MaxFileBytes)
	if err != nil {
		if errors.Is(err, fsys.ErrIsDir) {
			return nil, refuse(KindNotRegular, t.spelled, "%s is a directory; delete removes single files only (never a directory tree); delete its files one by one if that is really the task", t.spelled)
		}
		return nil, s.ws.fileErr("delete", t, err)
	}
	ver := fsys.VersionOf(cur)
	f, o := s.existing(policy.OpDelete, t, cur, ver, "")
	if ref := s.decide(ctx, ask{tool: "delete", t: t, f: f, cur: cur, ver: ver, o: o, what: "delete it"}); ref != nil {
		return nil, ref
	}
	key := t.key()
	counts := policy.Count(len(cur), receipt.Lines(cur))
	c := &change{
		tool: "delete", t: t, key: key, pre: cur, preVer: ver, delete: true, save: true, seen: &o,
		matches: []receipt.Match{{Offset: 0, OldBytes: len(cur), NewBytes: 0, Line: 1, Old: cur, New: []byte{}}},
		eol:     "none",
	}
	if s.wasCreated(key) {
		c.message = fmt.Sprintf("deleted %s (%s), a file this session created; its content is saved — undo brings it back", t.shown(), linesWord(receipt.Lines(cur)))
	} else {
		c.message, c.warned = policy.DeletedMessage(t.spelled, counts), true
	}
	return s.commit(ctx, c)
}
