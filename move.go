package stet

import (
	"context"
	"errors"
	"fmt"
	"path"

	"github.com/stet-dev/stet/fsys"
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
	if err := s.catchUp(); err != nil {
		return nil, err
	}
	if ref := checkArgs("move", a); ref != nil {
		return nil, ref
	}
	from, ref := s.resolveHeld("move", a.From)
	if ref != nil {
		return nil, ref
	}
	defer from.h.Close()
	to, ref := s.resolveHeld("move", a.To)
	if ref != nil {
		return nil, ref
	}
	defer to.h.Close()
	if from.ri != to.ri {
		return nil, refuse(KindInvalid, a.From, "%s and %s are in different workspace roots; move within one root (write a copy and delete the original instead)", a.From, a.To)
	}
	if from.rel == "." || to.rel == "." {
		return nil, refuse(KindInvalid, a.From, "the workspace root cannot be moved")
	}
	for _, t := range []target{from, to} {
		if ref := s.gateWrite("move", t); ref != nil {
			return nil, ref
		}
	}
	if from.key() == to.key() {
		return nil, refuse(KindInvalid, a.From, "%s and %s are the same file; nothing to move", a.From, a.To)
	}
	// A symlink moves by name, and the move is planned and proven on what
	// it leads to: within its directory the link leads to the same place
	// after the rename; moved elsewhere, a relative link would lead
	// elsewhere, and a link over which a move lands would be replaced, not
	// its target.
	if link, ok := finalLink(from); ok && path.Dir(from.rel) != path.Dir(to.rel) {
		return nil, refuse(KindNotRegular, from.spelled, "%s is a symlink (to %s); a link moves only within its directory (elsewhere a relative link would lead elsewhere); move %s itself, or make a new link", from.spelled, link, link)
	}
	if link, ok := finalLink(to); ok {
		return nil, refuse(KindNotRegular, to.spelled, "%s is a symlink (to %s); a move does not land on a link; choose another name, or move onto %s itself", to.spelled, link, link)
	}
	unlock, err := s.ws.lockAll(ctx, from, to)
	if err != nil {
		return nil, err
	}
	defer unlock()
	info, err := from.stat()
	if err != nil {
		return nil, s.ws.fileErr("move", from, err)
	}
	var c *change
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
		c.preMode = info.Mode // the receipt's before mode: no second walk
	}
	return s.commit(ctx, c)
}

// finalLink reports whether t's last name is a symlink (inside the root:
// links that leave it are refused earlier), and where it leads.
func finalLink(t target) (string, bool) {
	res := t.resolvedRel()
	if res == t.rel {
		return "", false
	}
	dir := t.parent()
	if path.Join(dir.resolvedRel(), path.Base(t.rel)) == res {
		return "", false // a link in a parent directory only
	}
	return res, true
}

// planMove checks a file move against rules 5–9 on both names and builds
// its change. The caller holds both locks.
func (s *Session) planMove(ctx context.Context, from, to target, overwrite bool) (*change, error) {
	cur, err := from.readMax(s.ws.opts.MaxFileBytes)
	if err != nil {
		return nil, s.ws.fileErr("move", from, err)
	}
	ver := fsys.VersionOf(cur)
	f, o := s.existing(policy.OpMoveFrom, from, cur, ver, "")
	if ref := s.decide(ctx, ask{tool: "move", t: from, f: f, cur: cur, ver: ver, o: o, what: "move it away"}); ref != nil {
		return nil, ref
	}
	c := &change{
		tool: "move", t: to, key: to.key(), src: &from, pre: cur, preVer: ver, post: cur,
		matches: []receipt.Match{}, eol: "none", seen: &o,
	}
	c.message = fmt.Sprintf("moved %s to %s", from.shown(), to.shown())
	old, err := to.readMax(s.ws.opts.MaxFileBytes)
	switch {
	case errors.Is(err, fsys.ErrNotFound):
		// The new name is a create: overwrite is no sign the user asked
		// for a file the session removed from there to be replaced.
		ft, dir, counts, ref := s.creating("move", to, cur, to.parent().key() == from.parent().key())
		if ref != nil {
			return nil, ref
		}
		if ref := s.decide(ctx, ask{tool: "move", t: to, f: ft, dir: dir, what: "put another file at its name", counts: counts}); ref != nil {
			return nil, ref
		}
		return c, nil
	case errors.Is(err, fsys.ErrIsDir):
		return nil, refuse(KindExists, to.spelled, "%s is a directory; a move never replaces a directory; choose another name (to move into it, give the full new path: %s/%s)", to.spelled, to.spelled, from.display())
	case err != nil:
		return nil, s.ws.fileErr("move", to, err)
	}
	if !overwrite {
		return nil, refuse(KindExists, to.spelled, "%s already exists (%s); pass overwrite: true to replace it (its content is saved), or choose another name", to.spelled, linesWord(receipt.Lines(old)))
	}
	oldVer := fsys.VersionOf(old)
	// overwrite is what any move over a file needs, so it is no sign that
	// the user asked for this file to be replaced: only the request itself
	// lifts the guard here (Facts.Overwrite stays false).
	ft, oo := s.existing(policy.OpReplace, to, old, oldVer, "")
	counts := policy.Counts(len(old), receipt.Lines(old), len(cur), receipt.Lines(cur))
	if ref := s.decide(ctx, ask{tool: "move", t: to, f: ft, cur: old, ver: oldVer, o: oo, what: "replace it", counts: counts}); ref != nil {
		return nil, ref
	}
	mine := ft.Created
	c.over, c.overVer, c.save = old, oldVer, true
	if fi, err := to.stat(); err == nil {
		c.overMode = fi.Mode
	}
	if mine {
		c.message += fmt.Sprintf(", replacing %s (%s), a file this session created; its content is saved", to.display(), counts)
	} else {
		c.message = policy.ReplacedMessage(shownName(to.spelled), counts, policy.Alarm(to.rel, old, cur)) + fmt.Sprintf(" (moved %s over it)", from.shown())
		c.warned = true
	}
	return c, nil
}

// planMoveDir checks a directory move and builds its change: the session
// must have listed the directory, and nothing may be at the new name.
func (s *Session) planMoveDir(ctx context.Context, from, to target) (*change, error) {
	// Rule 4 on everything under the directory comes before rule 5.
	if err := s.gateTree(ctx, "move", from, to); err != nil {
		return nil, err
	}
	f := s.facts(policy.OpMoveDir, from)
	f.Observed, f.DeclaredUnder = s.dirObserved(from.key()), s.declaredUnder(from)
	if ref := s.decide(ctx, ask{tool: "move", t: from, f: f, what: "move it away"}); ref != nil {
		return nil, ref
	}
	if _, err := to.stat(); err == nil {
		return nil, refuse(KindExists, to.spelled, "%s already exists; a directory is never moved over something else; choose another name", to.spelled)
	}
	ft, dir, _, ref := s.creating("move", to, nil, to.parent().key() == from.parent().key())
	if ref != nil {
		return nil, ref
	}
	ft.Removed = false // a directory puts no bytes where a removed file stood
	if ref := s.decide(ctx, ask{tool: "move", t: to, f: ft, dir: dir, what: "put another file at its name"}); ref != nil {
		return nil, ref
	}
	c := &change{
		tool: "move", t: to, key: to.key(), src: &from, dir: true,
		matches: []receipt.Match{}, eol: "none", notes: []string{"moved a directory"},
	}
	c.message = fmt.Sprintf("moved directory %s to %s", from.shown(), to.shown())
	return c, nil
}
