package stet

import (
	"context"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

// Delete removes a file the session has read (never a directory). Its bytes
// go to the journal first; undo brings them back.
func (s *Session) Delete(ctx context.Context, a DeleteArgs) (*MutationResult, error) {
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	if ref := checkArgs("delete", a); ref != nil {
		return nil, ref
	}
	t, unlock, err := s.e.Claim(ctx, "delete", a.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, err := t.ReadMax(s.e.WS.Opts.MaxFileBytes)
	if err != nil {
		if errors.Is(err, fsys.ErrIsDir) {
			return nil, engine.Refuse(KindNotRegular, t.Spelled, "%s is a directory; delete removes single files only (never a directory tree); delete its files one by one if that is really the task", t.Spelled)
		}
		return nil, s.e.WS.FileErr("delete", t, err)
	}
	ver := fsys.VersionOf(cur)
	f, o := s.e.Existing(policy.OpDelete, t, cur, ver, "")
	if ref := s.e.Decide(ctx, engine.Ask{Tool: "delete", T: t, F: f, Cur: cur, Ver: ver, O: o, What: "delete it"}); ref != nil {
		return nil, ref
	}
	key := t.Key()
	counts := policy.Count(len(cur), receipt.Lines(cur))
	c := &engine.Change{
		Tool: "delete", T: t, Key: key, Pre: cur, PreVer: ver, Delete: true, Save: true, Seen: &o,
		Matches: []receipt.Match{{Offset: 0, OldBytes: len(cur), NewBytes: 0, Line: 1, Old: cur, New: []byte{}}},
		Eol:     "none",
	}
	if s.e.WasCreated(key) {
		c.Message = fmt.Sprintf("deleted %s (%s), a file this session created; its content is saved — undo brings it back", t.Shown(), engine.LinesWord(receipt.Lines(cur)))
	} else {
		c.Message, c.Warned = policy.DeletedMessage(t.Spelled, counts), true
	}
	return s.e.Commit(ctx, c)
}
