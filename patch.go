package stet

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/patch"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// planned is one file of a patch, checked and ready to land.
type planned struct {
	c    *change
	move *target // an update that also moves the file
	verb string
}

// Patch applies a Codex "*** Begin Patch" envelope or a unified diff: it adds,
// updates, deletes and moves several files, all or nothing. Every file passes
// the same rules as edit, write and delete (an add over an existing file is a
// replace under write's rules; a move makes its missing directories), and
// every step is proven possible before the first byte moves; a failure while
// landing (another writer, the disk) rolls the files already changed back.
func (s *Session) Patch(ctx context.Context, a PatchArgs) (*PatchResult, error) {
	if err := s.catchUp(); err != nil {
		return nil, err
	}
	if ref := checkArgs("patch", a); ref != nil {
		return nil, ref
	}
	files, err := patch.Parse(a.Patch)
	if err != nil {
		return nil, &Refusal{Kind: KindInvalid, Tool: "patch", Message: "refused: the patch does not parse: " + err.Error() + "; fix that line and send the whole patch again", Err: err}
	}
	if len(files) == 0 {
		return nil, refuse(KindInvalid, "", "the patch names no file; nothing to do")
	}
	targets, moves, all, ref := s.patchTargets(files)
	if ref != nil {
		return nil, ref
	}
	unlock, err := s.ws.lockAll(ctx, all...)
	if err != nil {
		return nil, err
	}
	defer unlock()
	plans := make([]planned, len(files))
	// Every file the patch needs seen is shown at once: one retry clears
	// them all, where refusing at the first would take a call per file.
	var unread []*Refusal
	for i, f := range files {
		pl, ref := s.planFile(ctx, targets[i], moves[i], f, a.DryRun)
		if ref != nil && ref.Kind == KindNotRead && len(files) > 1 && ref.Shown() != "" {
			unread = append(unread, ref)
			continue
		}
		if ref != nil {
			if len(unread) > 0 {
				return nil, unreadRefusal(unread, len(files)) // the earlier files' refusal comes first
			}
			if len(files) > 1 {
				ref.Message += fmt.Sprintf(" (nothing in the patch was applied: %d files)", len(files))
			}
			return nil, ref
		}
		plans[i] = pl
	}
	if len(unread) > 0 {
		return nil, unreadRefusal(unread, len(files))
	}
	seq := patchSeq(plans, a.DryRun)
	outs, err := s.commitSeq(ctx, "patch", seq, func(c *change) {
		if c.src != nil {
			// The move of an updated file starts from the update's result.
			o, _ := s.observed(c.src.key())
			c.seen = &o
		}
	})
	if err != nil {
		if len(outs) == len(seq) {
			return nil, fmt.Errorf("patch: %w", err)
		}
		return nil, err
	}
	return patchResult(plans, outs, a.DryRun), nil
}

// unreadRefusal is one not_read refusal for the files of a patch that the
// session had not read (or whose directories it had not listed): each one's
// refusal, with what it shows, follows the message, and all of them now
// count as seen.
func unreadRefusal(each []*Refusal, files int) *Refusal {
	names := make([]string, len(each))
	for i, r := range each {
		names[i] = shownName(r.Path)
	}
	ref := refuse(KindNotRead, each[0].Path, "the patch needs %d files seen that this session had not read or listed (%s); each follows and now counts as seen at its version: check the patch against them, then retry the patch (nothing in the patch was applied: %d files)",
		len(each), strings.Join(names, ", "), files)
	return ref.with(ShownEach, each)
}

// patchTargets resolves and gates every path of a patch, before anything
// is locked: a file named twice, a name in another root than the file it
// moves, or a name below a file the patch makes is refused.
func (s *Session) patchTargets(files []patch.File) (targets []target, moves []*target, all []target, ref *Refusal) {
	// Resolve and gate every path first, and refuse a file named twice.
	targets = make([]target, len(files))
	moves = make([]*target, len(files))
	seen := map[string]string{}
	for i, f := range files {
		t, ref := s.resolve("patch", f.Path)
		if ref != nil {
			return nil, nil, nil, ref
		}
		targets[i] = t
		all = append(all, t)
		if f.MoveTo != "" {
			m, ref := s.resolve("patch", f.MoveTo)
			if ref != nil {
				return nil, nil, nil, ref
			}
			if m.ri != t.ri {
				return nil, nil, nil, refuse(KindInvalid, f.MoveTo, "%s and %s are in different workspace roots; move within one root", f.Path, f.MoveTo)
			}
			moves[i] = &m
			all = append(all, m)
		}
	}
	for _, t := range all {
		if prev, dup := seen[t.key()]; dup {
			return nil, nil, nil, refuse(KindInvalid, t.spelled, "the patch changes %s twice (also as %s); merge those parts into one file section", t.spelled, prev)
		}
		seen[t.key()] = t.spelled
		if ref := s.gateWrite("patch", t); ref != nil {
			return nil, nil, nil, ref
		}
	}
	// A file the patch adds or moves to is a file: no other name of the
	// patch may lie below it, or that step could only fail once the file
	// had landed.
	for i, f := range files {
		made := []*target{}
		if f.Kind == patch.Add {
			made = append(made, &targets[i])
		}
		if moves[i] != nil {
			made = append(made, moves[i])
		}
		for _, m := range made {
			for _, t := range all {
				if strings.HasPrefix(t.key(), m.key()+"/") {
					return nil, nil, nil, refuse(KindInvalid, t.spelled, "the patch makes %s a file and also puts %s below it; a name cannot be both: send them in two patches, or choose other names", m.spelled, t.spelled)
				}
			}
		}
	}
	return targets, moves, all, nil
}

// patchSeq is the patch's changes in landing order: each file, and after
// an update that moves its file, the move. They share one write-ahead
// intent (commitSeq).
func patchSeq(plans []planned, dryRun bool) []*change {
	var seq []*change
	for _, pl := range plans {
		seq = append(seq, pl.c)
		if pl.move != nil && !dryRun {
			from, after := pl.c.t, pl.c.post
			seq = append(seq, &change{tool: "move", t: *pl.move, key: pl.move.key(), src: &from, pre: after, preVer: fsys.VersionOf(after), post: after,
				matches: []receipt.Match{}, eol: "none", message: fmt.Sprintf("moved %s to %s", from.shown(), pl.move.shown())})
		}
	}
	return seq
}

// patchResult is the result of a patch whose changes landed as outs.
func patchResult(plans []planned, outs []*MutationResult, dryRun bool) *PatchResult {
	res := &PatchResult{Receipts: []receipt.Receipt{}}
	var diffs []string
	for _, out := range outs {
		res.Receipts = append(res.Receipts, out.Receipt)
		if out.Diff != "" {
			diffs = append(diffs, out.Diff)
		}
	}
	var done []string
	for _, pl := range plans {
		done = append(done, pl.verb)
	}
	prefix := ""
	if dryRun {
		prefix = "dry run, nothing written: "
	}
	res.Message = fmt.Sprintf("%spatched %s: %s", prefix, plural(len(plans), "file"), strings.Join(done, ", "))
	if !dryRun {
		ids := make([]string, len(res.Receipts))
		for i, r := range res.Receipts {
			ids[i] = r.ID
		}
		res.Message += "; receipts " + strings.Join(ids, ", ") + " (verified)"
	}
	res.Diff = strings.Join(diffs, "")
	return res
}

// planFile checks one file of a patch and builds its change.
func (s *Session) planFile(ctx context.Context, t target, move *target, f patch.File, dryRun bool) (planned, *Refusal) {
	p := t.root.p
	cur, err := fsys.ReadFileMax(p, t.rel, s.ws.opts.MaxFileBytes)
	exists := err == nil
	if err != nil && !errors.Is(err, fsys.ErrNotFound) {
		return planned{}, asRefusal(s.ws.fileErr("patch", t, err))
	}
	switch f.Kind {
	case patch.Add:
		if exists {
			// Adding a file that exists replaces it, under write's rules:
			// it must have been read whole, the input guard holds, and its
			// old bytes are saved.
			c, ref := s.planReplace(ctx, "patch", t, cur, f.Content, "", false, dryRun)
			if ref != nil {
				return planned{}, ref
			}
			return planned{c: c, verb: c.message}, nil
		}
		af, dir, counts, ref := s.creating("patch", t, f.Content, false)
		if ref != nil {
			return planned{}, ref
		}
		if ref := s.decide(ctx, ask{tool: "patch", t: t, f: af, dir: dir, what: "recreate it", counts: counts}); ref != nil {
			return planned{}, ref
		}
		c := &change{tool: "patch", t: t, key: t.key(), post: f.Content, create: true, dryRun: dryRun,
			matches: []receipt.Match{{Offset: 0, NewBytes: len(f.Content), Line: 1, Old: []byte{}, New: f.Content}},
			eol:     textedit.DetectEOL(f.Content)}
		c.message = "added " + t.display()
		return planned{c: c, verb: "added " + t.display()}, nil
	case patch.Delete:
		if !exists {
			return planned{}, refuse(KindNotFound, t.spelled, "%s does not exist, so the patch cannot delete it; drop that section", t.spelled)
		}
		ver := fsys.VersionOf(cur)
		df, o := s.existing(policy.OpDelete, t, cur, ver, "")
		if ref := s.decide(ctx, ask{tool: "patch", t: t, f: df, cur: cur, ver: ver, o: o, what: "delete it"}); ref != nil {
			return planned{}, ref
		}
		c := &change{tool: "patch", t: t, key: t.key(), pre: cur, preVer: ver, delete: true, save: true, dryRun: dryRun, seen: &o,
			matches: []receipt.Match{{Offset: 0, OldBytes: len(cur), Line: 1, Old: cur, New: []byte{}}}, eol: "none"}
		c.message = "deleted " + t.display()
		verb := c.message
		if !s.wasCreated(t.key()) {
			verb = policy.DeletedMessage(t.spelled, policy.Count(len(cur), receipt.Lines(cur)))
		}
		return planned{c: c, verb: verb}, nil
	}
	if !exists {
		return planned{}, refuse(KindNotFound, t.spelled, "%s does not exist, so the patch cannot update it; check the path (find or list), or add it as a new file", t.spelled)
	}
	if ref := s.checkEditable(t, cur); ref != nil {
		return planned{}, ref
	}
	ver := fsys.VersionOf(cur)
	ap, err := patch.Apply(cur, f.Hunks)
	var ms []receipt.Match
	if err == nil {
		ms = make([]receipt.Match, len(ap.Regions))
		for i, r := range ap.Regions {
			ms[i] = receipt.Match{Offset: r.Offset, OldBytes: r.OldBytes, NewBytes: len(r.New), Line: r.Line, Old: cur[r.Offset : r.Offset+r.OldBytes], New: r.New}
		}
	}
	uf, o := s.existing(policy.OpEdit, t, cur, ver, "")
	uf.Unmatched, uf.Regions, uf.MovesAway = err != nil, regions(ms), move != nil
	q := ask{tool: "patch", t: t, f: uf, cur: cur, ver: ver, o: o, what: "move it away",
		unmatched: func() *Refusal { return hunkRefusal(t, err, f.Hunks) }}
	if ref := s.decide(ctx, q); ref != nil {
		return planned{}, ref
	}
	eol := textedit.DetectEOL(cur)
	if ap.CRLFAdapted {
		eol = "crlf-adapted"
	}
	c := &change{tool: "patch", t: t, key: t.key(), pre: cur, preVer: ver, post: ap.Text, matches: ms, eol: eol, dryRun: dryRun, seen: &o}
	if len(ap.SpaceContext) > 0 {
		hunks := make([]string, len(ap.SpaceContext))
		for i, k := range ap.SpaceContext {
			hunks[i] = fmt.Sprint(k)
		}
		c.notes = append(c.notes, fmt.Sprintf("%s located with trailing spaces or tabs of context lines set aside (hunk %s); those lines keep the file's bytes, removed lines matched exactly",
			t.display(), strings.Join(hunks, ", ")))
	}
	verb := fmt.Sprintf("updated %s (%s)", t.display(), plural(len(f.Hunks), "hunk"))
	c.message = verb
	if move != nil {
		if _, err := p.Stat(move.rel); err == nil {
			return planned{}, refuse(KindExists, move.spelled, "%s already exists; the patch would move %s over it; choose another name or delete it first", move.spelled, t.spelled)
		}
		mf, dir, counts, ref := s.creating("patch", *move, ap.Text, move.parent().key() == t.parent().key())
		if ref != nil {
			return planned{}, ref
		}
		if ref := s.decide(ctx, ask{tool: "patch", t: *move, f: mf, dir: dir, what: "put another file at its name", counts: counts}); ref != nil {
			return planned{}, ref
		}
		verb += " and moved it to " + move.display()
	}
	return planned{c: c, move: move, verb: verb}, nil
}

// hunkRefusal turns a patch.Apply error into a no_match or ambiguous
// refusal. hunks are the file's.
func hunkRefusal(t target, err error, hunks []patch.Hunk) *Refusal {
	var he *patch.HunkError
	if errors.As(err, &he) && he.Kind != "ambiguous" && he.Index >= 0 && he.Index < len(hunks) {
		for _, l := range hunks[he.Index].Old {
			if hint := prefixHint(fmt.Sprintf("hunk %d has a line that", he.Index+1), l); hint != "" {
				return refuse(KindNoMatch, t.spelled, "%s: %s", shownName(t.spelled), hint).with("hunk", he.Index+1)
			}
		}
	}
	if errors.As(err, &he) {
		kind := KindNoMatch
		if he.Kind == "ambiguous" {
			kind = KindAmbiguous
		}
		msg := fmt.Sprintf("%s: hunk %d: %s", shownName(t.spelled), he.Index+1, he.Msg)
		if he.Near != "" {
			msg += "\n" + strings.TrimRight(he.Near, "\n")
		}
		if kind == KindNoMatch {
			msg += "\nread the file again and rebuild that hunk from the lines it holds now"
		}
		return refuse(kind, t.spelled, "%s", msg).with("hunk", he.Index+1, "lines", firstLines(he.Lines))
	}
	return refuse(KindInvalid, t.spelled, "%s: %v", t.spelled, err)
}

// PatchPaths returns the paths of the files a patch changes by hunks (its
// updates, not its adds or deletes), as the patch names them, the
// directory of a "cd DIR &&" wrapper applied. A hook counts those files as
// read when its client reads through a shell no hook shows: the hunks
// apply only where their context and removed lines match the file exactly.
func PatchPaths(text string) ([]string, error) {
	files, err := patch.Parse(text)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, f := range files {
		if f.Kind == patch.Update && len(f.Hunks) > 0 {
			out = append(out, f.Path)
		}
	}
	return out, nil
}
