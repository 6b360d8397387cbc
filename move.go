package stet

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

// Move renames a file (or a directory the session listed) inside one root.
// It is a change like any other: rules 1–9 apply to both names, an
// overwritten target must have been read whole and its bytes are kept in
// the journal (the replaced file itself, handed over after the exchange
// where the provider can, fsys.Keeper; otherwise a copy saved before the
// swap), the swap proves both names (fsys.Provider Rename), and undo
// restores both.
func (s *Session) Move(ctx context.Context, a MoveArgs) (*MutationResult, error) {
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	if ref := checkArgs("move", a); ref != nil {
		return nil, ref
	}
	from, ref := s.e.ResolveHeld("move", a.From)
	if ref != nil {
		return nil, ref
	}
	defer from.H.Close()
	to, ref := s.e.ResolveHeld("move", a.To)
	if ref != nil {
		return nil, ref
	}
	defer to.H.Close()
	if from.Ri != to.Ri {
		return nil, engine.Refuse(KindInvalid, a.From, "%s and %s are in different workspace roots; move within one root (write a copy and delete the original instead)", a.From, a.To)
	}
	if from.Rel == "." || to.Rel == "." {
		return nil, engine.Refuse(KindInvalid, a.From, "the workspace root cannot be moved")
	}
	for _, t := range []engine.Target{from, to} {
		if ref := s.e.GateWrite("move", t); ref != nil {
			return nil, ref
		}
	}
	if from.Key() == to.Key() {
		return nil, engine.Refuse(KindInvalid, a.From, "%s and %s are the same file; nothing to move", a.From, a.To)
	}
	// A symlink moves by name, and the move is planned and proven on what
	// it leads to: within its directory the link leads to the same place
	// after the rename; moved elsewhere, a relative link would lead
	// elsewhere, and a link over which a move lands would be replaced, not
	// its target.
	if link, ok := finalLink(from); ok && path.Dir(from.Rel) != path.Dir(to.Rel) {
		return nil, engine.Refuse(KindNotRegular, from.Spelled, "%s is a symlink (to %s); a link moves only within its directory (elsewhere a relative link would lead elsewhere); move %s itself, or make a new link", from.Spelled, link, link)
	}
	if link, ok := finalLink(to); ok {
		return nil, engine.Refuse(KindNotRegular, to.Spelled, "%s is a symlink (to %s); a move does not land on a link; choose another name, or move onto %s itself", to.Spelled, link, link)
	}
	unlock, err := s.e.WS.LockAll(ctx, from, to)
	if err != nil {
		return nil, err
	}
	defer unlock()
	info, err := from.Stat()
	if err != nil {
		return nil, s.e.WS.FileErr("move", from, err)
	}
	var c *engine.Change
	if info.Type == fsys.TypeDir {
		c, err = s.planMoveDir(ctx, from, to)
		if err != nil {
			return nil, err
		}
	} else {
		c, err = s.planMove(ctx, from, to, a.Overwrite)
		if err != nil {
			return nil, err
		}
		c.PreMode = info.Mode // the receipt's before mode: no second walk
	}
	return s.e.Commit(ctx, c)
}

// finalLink reports whether t's last name is a symlink (inside the root:
// links that leave it are refused earlier), and where it leads.
func finalLink(t engine.Target) (string, bool) {
	res := t.ResolvedRel()
	if res == t.Rel {
		return "", false
	}
	dir := t.Parent()
	if path.Join(dir.ResolvedRel(), path.Base(t.Rel)) == res {
		return "", false // a link in a parent directory only
	}
	return res, true
}

// planMove checks a file move against rules 5–9 on both names and builds
// its change. The caller holds both locks.
func (s *Session) planMove(ctx context.Context, from, to engine.Target, overwrite bool) (*engine.Change, error) {
	cur, err := from.ReadMax(s.e.WS.Opts.MaxFileBytes)
	if err != nil {
		return nil, s.e.WS.FileErr("move", from, err)
	}
	ver := fsys.VersionOf(cur)
	f, o := s.e.Existing(policy.OpMoveFrom, from, cur, ver, "")
	if ref := s.e.Decide(ctx, engine.Ask{Tool: "move", T: from, F: f, Cur: cur, Ver: ver, O: o, What: "move it away"}); ref != nil {
		return nil, ref
	}
	c := &engine.Change{
		Tool: "move", T: to, Key: to.Key(), Src: &from, Pre: cur, PreVer: ver, Post: cur,
		Matches: []receipt.Match{}, Eol: "none", Seen: &o,
	}
	c.Message = fmt.Sprintf("moved %s to %s", from.Shown(), to.Shown())
	old, err := to.ReadMax(s.e.WS.Opts.MaxFileBytes)
	switch {
	case errors.Is(err, fsys.ErrNotFound):
		// The new name is a create: overwrite is no sign the user asked
		// for a file the session removed from there to be replaced.
		ft, dir, counts, ref := s.e.Creating("move", to, cur, to.Parent().Key() == from.Parent().Key())
		if ref != nil {
			return nil, ref
		}
		if ref := s.e.Decide(ctx, engine.Ask{Tool: "move", T: to, F: ft, Dir: dir, What: "put another file at its name", Counts: counts}); ref != nil {
			return nil, ref
		}
		return c, nil
	case errors.Is(err, fsys.ErrIsDir):
		return nil, engine.Refuse(KindExists, to.Spelled, "%s is a directory; a move never replaces a directory; choose another name (to move into it, give the full new path: %s/%s)", to.Spelled, to.Spelled, from.Display())
	case err != nil:
		return nil, s.e.WS.FileErr("move", to, err)
	}
	if !overwrite {
		return nil, engine.Refuse(KindExists, to.Spelled, "%s already exists (%s); pass overwrite: true to replace it (its content is saved), or choose another name", to.Spelled, engine.LinesWord(receipt.Lines(old)))
	}
	oldVer := fsys.VersionOf(old)
	// overwrite is what any move over a file needs, so it is no sign that
	// the user asked for this file to be replaced: only the request itself
	// lifts the guard here (Facts.Overwrite stays false).
	ft, oo := s.e.Existing(policy.OpReplace, to, old, oldVer, "")
	counts := policy.Counts(len(old), receipt.Lines(old), len(cur), receipt.Lines(cur))
	if ref := s.e.Decide(ctx, engine.Ask{Tool: "move", T: to, F: ft, Cur: old, Ver: oldVer, O: oo, What: "replace it", Counts: counts}); ref != nil {
		return nil, ref
	}
	mine := ft.Created
	c.Over, c.OverVer, c.Save = old, oldVer, true
	if fi, err := to.Stat(); err == nil {
		c.OverMode = fi.Mode
	}
	if mine {
		c.Message += fmt.Sprintf(", replacing %s (%s), a file this session created; its content is saved", to.Display(), counts)
	} else {
		c.Message = policy.ReplacedMessage(engine.ShownName(to.Spelled), counts, policy.Alarm(to.Rel, old, cur)) + fmt.Sprintf(" (moved %s over it)", from.Shown())
		c.Warned = true
	}
	return c, nil
}

// planMoveDir checks a directory move and builds its change: the session
// must have listed the directory, and nothing may be at the new name.
func (s *Session) planMoveDir(ctx context.Context, from, to engine.Target) (*engine.Change, error) {
	// Rule 4 on everything under the directory comes before rule 5.
	if err := s.e.GateTree(ctx, "move", from, to); err != nil {
		return nil, err
	}
	f := s.e.Facts(policy.OpMoveDir, from)
	f.Observed, f.DeclaredUnder = s.e.DirObserved(from.Key()), s.e.DeclaredUnder(from)
	if ref := s.e.Decide(ctx, engine.Ask{Tool: "move", T: from, F: f, What: "move it away"}); ref != nil {
		return nil, ref
	}
	if _, err := to.Stat(); err == nil {
		return nil, engine.Refuse(KindExists, to.Spelled, "%s already exists; a directory is never moved over something else; choose another name", to.Spelled)
	}
	ft, dir, _, ref := s.e.Creating("move", to, nil, to.Parent().Key() == from.Parent().Key())
	if ref != nil {
		return nil, ref
	}
	ft.Removed = false // a directory puts no bytes where a removed file stood
	if ref := s.e.Decide(ctx, engine.Ask{Tool: "move", T: to, F: ft, Dir: dir, What: "put another file at its name"}); ref != nil {
		return nil, ref
	}
	c := &engine.Change{
		Tool: "move", T: to, Key: to.Key(), Src: &from, Dir: true,
		Matches: []receipt.Match{}, Eol: "none", Notes: []string{"moved a directory"},
	}
	c.Message = fmt.Sprintf("moved directory %s to %s", from.Shown(), to.Shown())
	return c, nil
}
