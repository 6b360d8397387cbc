package stet

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/patch"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// planned is one file of a patch, checked and ready to land.
type planned struct {
	c    *engine.Change // nil: the section changes only a mode, which is not applied
	move *engine.Target // an update that also moves the file
	verb string
	// mode names a mode the section gives that is not applied ("" when
	// none): the result says so (see modeNote).
	mode string
}

// Patch applies a Codex "*** Begin Patch" envelope or a unified diff: it adds,
// updates, deletes and moves several files, all or nothing. Every file passes
// the same rules as edit, write and delete (an add over an existing file is a
// replace under write's rules; a move makes its missing directories), and
// every step is proven possible before the first byte moves; a failure while
// landing (another writer, the disk) rolls the files already changed back.
func (s *Session) Patch(ctx context.Context, a PatchArgs) (*PatchResult, error) {
	if err := s.e.CatchUp(); err != nil {
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
		return nil, engine.Refuse(KindInvalid, "", "the patch names no file; nothing to do")
	}
	if ref := notFiles(files); ref != nil {
		return nil, ref
	}
	targets, moves, all, ref := s.patchTargets(files)
	if ref != nil {
		return nil, ref
	}
	unlock, err := s.e.WS.LockAll(ctx, all...)
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
	outs, err := s.e.CommitSeq(ctx, "patch", seq, func(c *engine.Change) {
		if c.Src != nil {
			// The move of an updated file starts from the update's result.
			o, _ := s.e.Observed(c.Src.Key())
			c.Seen = &o
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
		names[i] = engine.ShownName(r.Path)
	}
	ref := engine.Refuse(KindNotRead, each[0].Path, "the patch needs %d files seen that this session had not read or listed (%s); each follows and now counts as seen at its version: check the patch against them, then retry the patch (nothing in the patch was applied: %d files)",
		len(each), strings.Join(names, ", "), files)
	return ref.With(ShownEach, each)
}

// patchTargets resolves and gates every path of a patch, before anything
// is locked: a file named twice, a name in another root than the file it
// moves, or a name below a file the patch makes is refused.
func (s *Session) patchTargets(files []patch.File) (targets []engine.Target, moves []*engine.Target, all []engine.Target, ref *Refusal) {
	// Resolve and gate every path first, and refuse a file named twice.
	targets = make([]engine.Target, len(files))
	moves = make([]*engine.Target, len(files))
	seen := map[string]string{}
	for i, f := range files {
		t, ref := s.e.Resolve("patch", f.Path)
		if ref != nil {
			return nil, nil, nil, ref
		}
		targets[i] = t
		all = append(all, t)
		if f.MoveTo != "" {
			m, ref := s.e.Resolve("patch", f.MoveTo)
			if ref != nil {
				return nil, nil, nil, ref
			}
			if m.Ri != t.Ri {
				return nil, nil, nil, engine.Refuse(KindInvalid, f.MoveTo, "%s and %s are in different workspace roots; move within one root", f.Path, f.MoveTo)
			}
			moves[i] = &m
			all = append(all, m)
		}
	}
	for _, t := range all {
		if prev, dup := seen[t.Key()]; dup {
			return nil, nil, nil, engine.Refuse(KindInvalid, t.Spelled, "the patch changes %s twice (also as %s); merge those parts into one file section", t.Spelled, prev)
		}
		seen[t.Key()] = t.Spelled
		if ref := s.e.GateWrite("patch", t); ref != nil {
			return nil, nil, nil, ref
		}
	}
	// A file the patch adds or moves to is a file: no other name of the
	// patch may lie below it, or that step could only fail once the file
	// had landed.
	for i, f := range files {
		made := []*engine.Target{}
		if f.Kind == patch.Add {
			made = append(made, &targets[i])
		}
		if moves[i] != nil {
			made = append(made, moves[i])
		}
		for _, m := range made {
			for _, t := range all {
				if strings.HasPrefix(t.Key(), m.Key()+"/") {
					return nil, nil, nil, engine.Refuse(KindInvalid, t.Spelled, "the patch makes %s a file and also puts %s below it; a name cannot be both: send them in two patches, or choose other names", m.Spelled, t.Spelled)
				}
			}
		}
	}
	return targets, moves, all, nil
}

// notFiles refuses a patch with a section whose git mode is not a regular
// file's: a symlink (120000) or a submodule (160000). stet's patch writes,
// changes and removes regular files only, and would otherwise write a
// link's target name as a file's content, or delete (through the link) the
// file it leads to. The refusal comes before anything is read.
func notFiles(files []patch.File) *Refusal {
	for _, f := range files {
		mode := ""
		for _, m := range []string{f.OldMode, f.NewMode} {
			if t := patch.ModeType(m); t != "" && t != patch.TypeFile {
				mode = m
				break
			}
		}
		if mode == "" {
			continue
		}
		typ, name := patch.ModeType(mode), engine.ShownName(f.Path)
		var what string
		switch {
		case typ == patch.TypeSubmodule:
			what = fmt.Sprintf("the patch changes the submodule %s (mode %s: a commit of another repository, not a file); stet's patch changes regular files only: drop that section", name, mode)
		case f.Kind == patch.Add:
			what = fmt.Sprintf("the patch makes %s a symlink to %q (new file mode %s); stet's patch creates no symlinks (nor a file holding the link's target): drop that section, or, if the link is needed, make it outside stet (ln -s TARGET %s)",
				name, clipText(strings.TrimSuffix(string(f.Content), "\n"), 80), mode, name)
		case f.Kind == patch.Delete:
			what = fmt.Sprintf("the patch deletes the symlink %s (deleted file mode %s); stet's patch removes no symlinks, and never the file a link leads to: drop that section (remove the link outside stet if it must go)", name, mode)
		default:
			what = fmt.Sprintf("the patch changes the symlink %s (mode %s); stet's patch changes no symlinks, and a link's hunks name its target, not a file's lines: drop that section", name, mode)
		}
		if len(files) > 1 {
			what += fmt.Sprintf(" (nothing in the patch was applied: %d files)", len(files))
		}
		return engine.Refuse(KindNotRegular, f.Path, "%s", what).With("line", f.Line)
	}
	return nil
}

// clipText is s cut to about n bytes, on a rune boundary, "…" marking the cut.
func clipText(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// patchSeq is the patch's changes in landing order: each file, and after
// an update that moves its file, the move. They share one write-ahead
// intent (commitSeq). A section that changes only a mode has no change.
func patchSeq(plans []planned, dryRun bool) []*engine.Change {
	var seq []*engine.Change
	for _, pl := range plans {
		if pl.c == nil {
			continue
		}
		seq = append(seq, pl.c)
		if pl.move != nil && !dryRun {
			from, after := pl.c.T, pl.c.Post
			seq = append(seq, &engine.Change{Tool: "move", T: *pl.move, Key: pl.move.Key(), Src: &from, Pre: after, PreVer: fsys.VersionOf(after), Post: after,
				Matches: []receipt.Match{}, Eol: "none", Message: fmt.Sprintf("moved %s to %s", from.Shown(), pl.move.Shown())})
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
	var done, modes []string
	for _, pl := range plans {
		if pl.c != nil {
			done = append(done, pl.verb)
		}
		if pl.mode != "" {
			modes = append(modes, pl.mode)
		}
	}
	prefix := ""
	if dryRun {
		prefix = "dry run, nothing written: "
	}
	if len(done) > 0 {
		res.Message = fmt.Sprintf("%spatched %s: %s", prefix, engine.Plural(len(done), "file"), strings.Join(done, ", "))
	} else {
		res.Message = prefix + "no file changed"
	}
	if len(modes) > 0 {
		res.Message += "; modes not applied (stet's patch sets no file modes): " + strings.Join(modes, ", ")
	}
	if !dryRun && len(res.Receipts) > 0 {
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
func (s *Session) planFile(ctx context.Context, t engine.Target, move *engine.Target, f patch.File, dryRun bool) (planned, *Refusal) {
	p := t.Root.P
	if f.Kind == patch.Update && len(f.Hunks) == 0 && move == nil {
		return s.planModeOnly(t, f)
	}
	cur, err := fsys.ReadFileMax(p, t.Rel, s.e.WS.Opts.MaxFileBytes)
	exists := err == nil
	if err != nil && !errors.Is(err, fsys.ErrNotFound) {
		return planned{}, engine.ToRefusal(s.e.WS.FileErr("patch", t, err))
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
			mode := modeNote(t, c, "", f.NewMode)
			return planned{c: c, verb: c.Message, mode: mode}, nil
		}
		af, dir, counts, ref := s.e.Creating("patch", t, f.Content, false)
		if ref != nil {
			return planned{}, ref
		}
		if ref := s.e.Decide(ctx, engine.Ask{Tool: "patch", T: t, F: af, Dir: dir, What: "recreate it", Counts: counts}); ref != nil {
			return planned{}, ref
		}
		c := &engine.Change{Tool: "patch", T: t, Key: t.Key(), Post: f.Content, Create: true, DryRun: dryRun,
			Matches: []receipt.Match{{Offset: 0, NewBytes: len(f.Content), Line: 1, Old: []byte{}, New: f.Content}},
			Eol:     textedit.DetectEOL(f.Content)}
		c.Message = "added " + t.Display()
		mode := modeNote(t, c, "", f.NewMode)
		return planned{c: c, verb: "added " + t.Display(), mode: mode}, nil
	case patch.Delete:
		// A symlink goes by its own name in git and Codex; stet's patch
		// removes no links, and never the file one leads to.
		if link, ok := finalLink(t); ok {
			also := ""
			if exists {
				also = fmt.Sprintf(", or delete %s itself if that file is what should go", engine.ShownName(link))
			}
			return planned{}, engine.Refuse(KindNotRegular, t.Spelled, "%s is a symlink (to %s); the patch would delete the link, and stet's patch removes no symlinks (nor, through one, the file it leads to): drop that section (remove the link outside stet if it must go)%s",
				engine.ShownName(t.Spelled), engine.ShownName(link), also)
		}
		if !exists {
			return planned{}, engine.Refuse(KindNotFound, t.Spelled, "%s does not exist, so the patch cannot delete it; drop that section", t.Spelled)
		}
		ver := fsys.VersionOf(cur)
		df, o := s.e.Existing(policy.OpDelete, t, cur, ver, "")
		if ref := s.e.Decide(ctx, engine.Ask{Tool: "patch", T: t, F: df, Cur: cur, Ver: ver, O: o, What: "delete it"}); ref != nil {
			return planned{}, ref
		}
		// A unified diff's deletion gives the file's lines: they must be
		// what it holds, as git apply checks, or the patch was made
		// against other bytes.
		if f.Exact {
			if err := patch.CheckDelete(cur, f.Hunks); err != nil {
				return planned{}, deleteRefusal(t, err, f.Hunks)
			}
		}
		c := &engine.Change{Tool: "patch", T: t, Key: t.Key(), Pre: cur, PreVer: ver, Delete: true, Save: true, DryRun: dryRun, Seen: &o,
			Matches: []receipt.Match{{Offset: 0, OldBytes: len(cur), Line: 1, Old: cur, New: []byte{}}}, Eol: "none"}
		c.Message = "deleted " + t.Display()
		verb := c.Message
		if !s.e.WasCreated(t.Key()) {
			verb = policy.DeletedMessage(t.Spelled, policy.Count(len(cur), receipt.Lines(cur)))
		}
		return planned{c: c, verb: verb}, nil
	}
	if !exists {
		return planned{}, engine.Refuse(KindNotFound, t.Spelled, "%s does not exist, so the patch cannot update it; check the path (find or list), or add it as a new file", t.Spelled)
	}
	if link, ok := finalLink(t); ok && move != nil && path.Dir(t.Rel) != path.Dir(move.Rel) {
		// As the move tool has it: a link moves by name, and moved to
		// another directory a relative link would lead elsewhere.
		return planned{}, engine.Refuse(KindNotRegular, t.Spelled, "%s is a symlink (to %s); a link moves only within its directory (elsewhere a relative link would lead elsewhere); update and move %s itself, or make a new link",
			engine.ShownName(t.Spelled), engine.ShownName(link), engine.ShownName(link))
	}
	if ref := s.e.CheckEditable(t, cur); ref != nil {
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
	uf, o := s.e.Existing(policy.OpEdit, t, cur, ver, "")
	uf.Unmatched, uf.Regions, uf.MovesAway = err != nil, regions(ms), move != nil
	q := engine.Ask{Tool: "patch", T: t, F: uf, Cur: cur, Ver: ver, O: o, What: "move it away",
		Unmatched: func() *Refusal { return hunkRefusal(t, err, f.Hunks) }}
	if ref := s.e.Decide(ctx, q); ref != nil {
		return planned{}, ref
	}
	eol := textedit.DetectEOL(cur)
	if ap.CRLFAdapted {
		eol = "crlf-adapted"
	}
	c := &engine.Change{Tool: "patch", T: t, Key: t.Key(), Pre: cur, PreVer: ver, Post: ap.Text, Matches: ms, Eol: eol, DryRun: dryRun, Seen: &o}
	if len(ap.SpaceContext) > 0 {
		hunks := make([]string, len(ap.SpaceContext))
		for i, k := range ap.SpaceContext {
			hunks[i] = fmt.Sprint(k)
		}
		c.Notes = append(c.Notes, fmt.Sprintf("%s located with trailing spaces or tabs of context lines set aside (hunk %s); those lines keep the file's bytes, removed lines matched exactly",
			t.Display(), strings.Join(hunks, ", ")))
	}
	verb := fmt.Sprintf("updated %s (%s)", t.Display(), engine.Plural(len(f.Hunks), "hunk"))
	c.Message = verb
	mode := modeNote(t, c, f.OldMode, f.NewMode)
	if move != nil {
		if _, err := p.Stat(move.Rel); err == nil {
			return planned{}, engine.Refuse(KindExists, move.Spelled, "%s already exists; the patch would move %s over it; choose another name or delete it first", move.Spelled, t.Spelled)
		}
		mf, dir, counts, ref := s.e.Creating("patch", *move, ap.Text, move.Parent().Key() == t.Parent().Key())
		if ref != nil {
			return planned{}, ref
		}
		if ref := s.e.Decide(ctx, engine.Ask{Tool: "patch", T: *move, F: mf, Dir: dir, What: "put another file at its name", Counts: counts}); ref != nil {
			return planned{}, ref
		}
		verb += " and moved it to " + move.Display()
	}
	return planned{c: c, move: move, verb: verb, mode: mode}, nil
}

// planModeOnly plans a section that only changes t's mode: nothing is
// applied, and the result says so (modeNote). The file must be there, as
// for an update, but its bytes are not read: a mode change of a large or
// binary file does not refuse the patch.
func (s *Session) planModeOnly(t engine.Target, f patch.File) (planned, *Refusal) {
	info, err := t.Stat()
	switch {
	case errors.Is(err, fsys.ErrNotFound):
		return planned{}, engine.Refuse(KindNotFound, t.Spelled, "%s does not exist, so the patch cannot change its mode; check the path (find or list), or drop that section", t.Spelled)
	case err != nil:
		return planned{}, engine.ToRefusal(s.e.WS.FileErr("patch", t, err))
	case info.Type == fsys.TypeDir:
		return planned{}, engine.Refuse(KindNotRegular, t.Spelled, "%s is a directory; a patch changes files only: drop that section", t.Spelled)
	}
	return planned{mode: modeNote(t, nil, f.OldMode, f.NewMode)}, nil
}

// modeNote is what the result says of a mode a section gives and stet does
// not apply (stet's patch sets no file modes: a new file gets a new file's
// default mode, a changed or moved file keeps its own), "" when there is
// none: a new file's executable mode, or a change of mode. c, when not
// nil, is the section's change, whose receipt then notes it too.
func modeNote(t engine.Target, c *engine.Change, from, to string) string {
	var note, hint string
	name := engine.ShownName(t.Display())
	switch {
	case from == "" && patch.Executable(to):
		note, hint = fmt.Sprintf("%s %s", name, to), "chmod +x "+name
	case from == "" || to == "" || from == to:
		return ""
	default:
		note = fmt.Sprintf("%s %s → %s", name, from, to)
		switch {
		case patch.Executable(to) && !patch.Executable(from):
			hint = "chmod +x " + name
		case !patch.Executable(to) && patch.Executable(from):
			hint = "chmod -x " + name
		}
	}
	if hint != "" {
		note += " (" + hint + ")"
	}
	if c != nil {
		c.Notes = append(c.Notes, fmt.Sprintf("the patch gives %s mode %s; not applied: stet's patch sets no file modes, so it keeps the mode it has (a new file, the default one)", t.Display(), to))
	}
	return note
}

// rebuildHunk is the next step of a no_match refusal of a hunk.
const rebuildHunk = "read the file again and rebuild that hunk from the lines it holds now"

// deleteRefusal turns a patch.CheckDelete error into a refusal: the
// deletion's lines are not what the file holds. hunks are the file's.
func deleteRefusal(t engine.Target, err error, hunks []patch.Hunk) *Refusal {
	rebuild := fmt.Sprintf("the patch deletes %s, so its removed lines must be exactly the lines the file holds: read the file again and rebuild the deletion from them (or delete it with \"*** Delete File: %s\" in a Codex envelope, which names the file only)",
		engine.ShownName(t.Spelled), engine.ShownName(t.Spelled))
	var he *patch.HunkError
	if !errors.As(err, &he) || he.Index >= 0 {
		ref := hunkRefusal(t, err, hunks)
		if strings.HasSuffix(ref.Message, rebuildHunk) {
			ref.Message = strings.TrimSuffix(ref.Message, rebuildHunk) + rebuild
		}
		return ref
	}
	msg := fmt.Sprintf("%s: %s", engine.ShownName(t.Spelled), he.Msg)
	if he.Near != "" {
		msg += "\n" + strings.TrimRight(he.Near, "\n")
	}
	return engine.Refuse(KindNoMatch, t.Spelled, "%s\n%s", msg, rebuild).With("lines", engine.FirstLines(he.Lines))
}

// hunkRefusal turns a patch.Apply error into a no_match or ambiguous
// refusal. hunks are the file's.
func hunkRefusal(t engine.Target, err error, hunks []patch.Hunk) *Refusal {
	var he *patch.HunkError
	if errors.As(err, &he) && he.Kind != "ambiguous" && he.Index >= 0 && he.Index < len(hunks) {
		for _, l := range hunks[he.Index].Old {
			if hint := prefixHint(fmt.Sprintf("hunk %d has a line that", he.Index+1), l); hint != "" {
				return engine.Refuse(KindNoMatch, t.Spelled, "%s: %s", engine.ShownName(t.Spelled), hint).With("hunk", he.Index+1)
			}
		}
	}
	if errors.As(err, &he) {
		kind := KindNoMatch
		if he.Kind == "ambiguous" {
			kind = KindAmbiguous
		}
		msg := fmt.Sprintf("%s: hunk %d: %s", engine.ShownName(t.Spelled), he.Index+1, he.Msg)
		if he.Near != "" {
			msg += "\n" + strings.TrimRight(he.Near, "\n")
		}
		if kind == KindNoMatch {
			msg += "\n" + rebuildHunk
		}
		return engine.Refuse(kind, t.Spelled, "%s", msg).With("hunk", he.Index+1, "lines", engine.FirstLines(he.Lines))
	}
	return engine.Refuse(KindInvalid, t.Spelled, "%s: %v", t.Spelled, err)
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

func patchText(r *PatchResult) string { return withDiff(r.Message, r.Diff) }

func patchChanged(r *PatchResult) bool {
	for _, rc := range r.Receipts {
		if receiptAltered(rc) {
			return true
		}
	}
	return false
}
