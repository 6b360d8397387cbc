package stet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

// ReviewSession is the id of the session UndoChanges records its undo
// receipts in.
const ReviewSession = engine.ReviewSession

// UndoSpec selects the changes UndoChanges takes back: the receipts named,
// or those of a session (of one turn of it when Turn > 0, of one file when
// Path is set). DryRun only previews.
type UndoSpec struct {
	Receipts []string
	Session  string
	Turn     int
	Path     string
	DryRun   bool
	// Expect, when set, is the Set of the preview this undo confirms: the
	// undo lands only if it takes back exactly the receipts that preview
	// listed, and is refused (changed) when the set is another one now
	// (a change made after the preview, or one undone since).
	Expect string
}

// UndoStep is one receipt an undo set takes back, with the diff of its undo.
type UndoStep struct {
	Receipt string `json:"receipt"` // the receipt taken back
	Session string `json:"session"`
	Tool    string `json:"tool"`
	Path    string `json:"path"`
	From    string `json:"from,omitempty"`
	Diff    string `json:"diff"`
}

// UndoSkip is a receipt a session or turn holds that the undo leaves
// alone, and why.
type UndoSkip struct {
	Receipt string `json:"receipt"`
	Path    string `json:"path"`
	Reason  string `json:"reason"`
}

// UndoResult is what UndoChanges did, or would do (DryRun).
type UndoResult struct {
	DryRun   bool              `json:"dry_run"`
	Steps    []UndoStep        `json:"steps"`   // newest first, the order they land in
	Skipped  []UndoSkip        `json:"skipped"` // left alone, with the reason
	Files    []string          `json:"files"`   // every file the undo changes
	Receipts []receipt.Receipt `json:"receipts"`
	Message  string            `json:"message"`
	// Set names exactly the receipts the undo takes back, in order
	// (sha256 of their ids): pass it back as UndoSpec.Expect to perform
	// what a preview showed and nothing else.
	Set string `json:"set"`
}

// undoSetDigest names an ordered set of receipts.
func undoSetDigest(events []*event) string {
	h := sha256.New()
	for _, e := range events {
		h.Write([]byte(e.d.Receipt.ID))
		h.Write([]byte{'\n'})
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// simFile is what a name holds in the plan of an undo set.
type simFile struct {
	b      []byte
	exists bool
	dir    bool
}

// planStep is one receipt of an undo set and the changes that revert it.
type planStep struct {
	e       *event
	changes []*engine.Change
}

// UndoChanges takes back a set of changes exactly: the receipts named, or
// those of a session, a turn or a file (verified, not undone, not undos
// themselves), newest first. It is all or nothing: every file is checked
// before the first byte moves (several changes of one file must chain: the
// file holds the newest one's result, and each older one's result is what
// the newer one started from), the set is one write-ahead intent, and a
// failure while landing takes back what already landed. A change that no
// longer stands refuses the whole set, naming the file and the change in
// the way. Out of order, one receipt is taken back only while it still
// stands. Every undo is a receipt of its own in session ReviewSession, so
// an undo can be undone the same way (a redo), restoring the bytes exactly.
//
// It sees only stet's receipts: a file changed by a shell command or an
// editor refuses the undo of every change it holds (changed since).
func (ws *Workspace) UndoChanges(ctx context.Context, spec UndoSpec) (*UndoResult, error) {
	if ws.e.Opts.Effects == policy.ReadOnly {
		return nil, engine.Refuse(KindReadOnly, "", "nothing was undone: this workspace is read-only (--effects read-only)")
	}
	s, err := ws.session(engine.ReviewSession)
	if err != nil {
		return nil, err
	}
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	h, err := ws.readHistory()
	if err != nil {
		return nil, engine.JournalRefusal("undo", engine.Target{}, err)
	}
	res := &UndoResult{DryRun: spec.DryRun, Steps: []UndoStep{}, Skipped: []UndoSkip{}, Files: []string{}, Receipts: []receipt.Receipt{}}
	events, ref := h.undoSet(spec, res)
	if ref != nil {
		return nil, ref
	}
	res.Set = undoSetDigest(events)
	if spec.Expect != "" && spec.Expect != res.Set {
		return nil, staleSet(spec, res.Set, events)
	}
	if len(events) == 0 {
		res.Message = "nothing to undo"
		if len(res.Skipped) > 0 {
			res.Message += fmt.Sprintf(" (%s left alone: see skipped)", engine.Plural(len(res.Skipped), "change"))
		}
		return res, nil
	}
	// Resolve and gate every name first.
	all, names, ref := s.undoNames(events)
	if ref != nil {
		return nil, ref
	}
	unlock, err := ws.e.LockAll(ctx, all...)
	if err != nil {
		return nil, err
	}
	defer unlock()
	plan, ref := s.planUndoSet(ctx, h, events, names)
	if ref != nil {
		if len(events) > 1 {
			ref.Message += fmt.Sprintf(" (nothing was undone: %s checked)", engine.Plural(len(events), "change"))
		}
		return nil, ref
	}
	seq := undoSteps(plan, res)
	if spec.DryRun {
		res.Message = fmt.Sprintf("dry run, nothing written: would undo %s of %s", engine.Plural(len(plan), "change"), engine.Plural(len(res.Files), "file"))
		return res, nil
	}
	outs, err := s.e.CommitSeq(ctx, "undo", seq, nil)
	if err != nil {
		if len(outs) == len(seq) {
			return nil, fmt.Errorf("undo: %w", err)
		}
		return nil, fmt.Errorf("undo: nothing was undone (%d of %d steps had landed and were taken back): %w", len(outs), len(seq), err)
	}
	for _, out := range outs {
		res.Receipts = append(res.Receipts, out.Receipt)
	}
	ids := make([]string, len(res.Receipts))
	for i, r := range res.Receipts {
		ids[i] = r.ID
	}
	res.Message = fmt.Sprintf("undid %s of %s; receipts %s (verified, session %s)", engine.Plural(len(plan), "change"), engine.Plural(len(res.Files), "file"),
		strings.Join(ids, ", "), engine.ReviewSession)
	return res, nil
}

// staleSet is the refusal of a confirmed undo whose set of changes is not
// the one previewed (expected digest spec.Expect, now set): it names at
// most ten of the receipts it would take back now.
func staleSet(spec UndoSpec, set string, events []*event) *Refusal {
	ids := make([]string, len(events))
	for i, e := range events {
		ids[i] = e.d.Receipt.ID
	}
	named := strings.Join(ids[:min(len(ids), 10)], ", ")
	if len(ids) > 10 {
		named += fmt.Sprintf(" and %d more", len(ids)-10)
	}
	return engine.Refuse(KindChanged, spec.Path, "nothing was undone: the changes this undo would take back are not the ones previewed (now %s: %s); preview the undo again and confirm what it shows",
		engine.Plural(len(ids), "change"), named).With("set", set, "expected", spec.Expect)
}

// undoNames resolves and gates every name the undo of events touches (a
// file, and both names of a move), each once: all in first-seen order, and
// names by spelling.
func (s *Session) undoNames(events []*event) ([]engine.Target, map[string]engine.Target, *Refusal) {
	var all []engine.Target
	names := map[string]engine.Target{}
	name := func(p string) *Refusal {
		if _, ok := names[p]; ok {
			return nil
		}
		t, ref := s.e.Resolve("undo", p)
		if ref != nil {
			return ref
		}
		if ref := s.e.GateWrite("undo", t); ref != nil {
			return ref
		}
		names[p] = t
		all = append(all, t)
		return nil
	}
	for _, e := range events {
		if ref := name(e.d.Receipt.Path); ref != nil {
			return nil, nil, ref
		}
		if e.d.FromKey != "" {
			if ref := name(e.d.Receipt.From); ref != nil {
				return nil, nil, ref
			}
		}
	}
	return all, names, nil
}

// undoSteps fills res's steps (with their diffs) and files from plan and
// returns the changes to commit, in order.
func undoSteps(plan []planStep, res *UndoResult) []*engine.Change {
	files := map[string]bool{}
	var seq []*engine.Change
	for _, st := range plan {
		r := st.e.d.Receipt
		step := UndoStep{Receipt: r.ID, Session: st.e.session, Tool: r.Tool, Path: r.Path, From: r.From}
		for _, c := range st.changes {
			step.Diff += c.Diff()
			seq = append(seq, c)
			if !files[c.T.Display()] {
				files[c.T.Display()] = true
				res.Files = append(res.Files, c.T.Display())
			}
		}
		res.Steps = append(res.Steps, step)
	}
	return seq
}

// undoSet collects the receipts spec selects, newest first, and notes in
// res those a session or turn holds that are left alone.
func (h *reviewLog) undoSet(spec UndoSpec, res *UndoResult) ([]*event, *Refusal) {
	var out []*event
	if len(spec.Receipts) > 0 {
		if spec.Session != "" || spec.Turn != 0 || spec.Path != "" {
			return nil, engine.Refuse(KindInvalid, "", "name receipts, or a session (with a turn or a path), not both")
		}
		seen := map[string]bool{}
		for _, id := range spec.Receipts {
			e := h.byID[id]
			switch {
			case e == nil:
				return nil, engine.Refuse(KindNotFound, "", "no receipt %s in the journal (stet log lists them)", id)
			case seen[id]:
				continue
			case !e.d.Receipt.Verified:
				return nil, engine.Refuse(KindInvalid, e.d.Receipt.Path, "receipt %s was not verified, so stet cannot take it back exactly; read %s and change it back by hand", id, e.d.Receipt.Path)
			}
			if u := h.undoneBy(id); u != "" {
				return nil, engine.Refuse(KindInvalid, e.d.Receipt.Path, "receipt %s was already undone by %s; undo %s to bring it back", id, u, u).With("receipt", id)
			}
			seen[id] = true
			out = append(out, e)
		}
	} else {
		if spec.Session == "" {
			return nil, engine.Refuse(KindInvalid, "", "name the receipts or the session to undo")
		}
		events, err := h.selected(spec.Session, spec.Turn, spec.Path)
		if err != nil {
			return nil, engine.ToRefusal(err)
		}
		for _, e := range events {
			r := e.d.Receipt
			skip := ""
			switch {
			case !r.Verified:
				skip = "not verified: stet cannot take it back exactly"
			case e.d.Undoes != "":
				skip = "an undo itself: undo it by its receipt to redo"
			case h.undoneBy(r.ID) != "":
				skip = "already undone by " + h.undoneBy(r.ID)
			case !receiptAltered(r):
				skip = "it changed nothing"
			}
			if skip != "" {
				res.Skipped = append(res.Skipped, UndoSkip{Receipt: r.ID, Path: r.Path, Reason: skip})
				continue
			}
			out = append(out, e)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].seq > out[j].seq })
	return out, nil
}

// planUndoSet plans every undo of events (newest first) against what the
// files hold, each older change against what the newer ones' undos leave:
// nothing has moved when it refuses.
func (s *Session) planUndoSet(ctx context.Context, h *reviewLog, events []*event, names map[string]engine.Target) ([]planStep, *Refusal) {
	state := map[string]*simFile{}
	get := func(t engine.Target) (*simFile, *Refusal) {
		if f, ok := state[t.Key()]; ok {
			return f, nil
		}
		f := &simFile{}
		p := t.Root.P
		info, err := p.Stat(t.Rel)
		switch {
		case errors.Is(err, fsys.ErrNotFound):
		case err != nil:
			return nil, engine.ToRefusal(s.e.WS.FileErr("undo", t, err))
		case info.Type == fsys.TypeDir:
			f.exists, f.dir = true, true
		default:
			b, err := fsys.ReadFileMax(p, t.Rel, s.e.WS.Opts.MaxFileBytes)
			if err != nil {
				return nil, engine.ToRefusal(s.e.WS.FileErr("undo", t, err))
			}
			f.exists, f.b = true, b
		}
		state[t.Key()] = f
		return f, nil
	}
	var plan []planStep
	for _, e := range events {
		r := e.d.Receipt
		t := names[r.Path]
		to, ref := get(t)
		if ref != nil {
			return nil, ref
		}
		if e.d.FromKey == "" {
			c, err := s.e.PlanRevert(t, &e.d, "undo", to.b, to.exists && !to.dir)
			if err != nil {
				return nil, h.blocked(e, t, to, err)
			}
			if c.Create {
				if ref := s.dirFree(c.T, state); ref != nil {
					return nil, ref
				}
			}
			if c.Delete {
				state[t.Key()] = &simFile{}
			} else {
				state[t.Key()] = &simFile{b: c.Post, exists: true}
			}
			plan = append(plan, planStep{e: e, changes: []*engine.Change{c}})
			continue
		}
		ft := names[r.From]
		from, ref := get(ft)
		if ref != nil {
			return nil, ref
		}
		toExists := to.exists && !to.dir
		if r.Before == nil {
			toExists = to.dir
		}
		cs, err := s.e.PlanMoveBack(ctx, &e.d, "undo", ft, t, from.exists, to.b, toExists)
		if err != nil {
			return nil, h.blocked(e, t, to, err)
		}
		if ref := s.dirFree(ft, state); ref != nil {
			return nil, ref
		}
		state[ft.Key()] = &simFile{b: to.b, exists: true, dir: to.dir}
		state[t.Key()] = &simFile{}
		if len(cs) > 1 {
			state[t.Key()] = &simFile{b: cs[1].Post, exists: true}
		}
		plan = append(plan, planStep{e: e, changes: cs})
	}
	return plan, nil
}

// dirFree proves, before any step of the set moves, that t can be created
// when its turn comes: its nearest existing ancestor (as the steps planned
// before it leave the tree, else as the disk holds it) is a directory. A
// missing directory is made when the step lands.
func (s *Session) dirFree(t engine.Target, state map[string]*simFile) *Refusal {
	for dir := t.Parent(); ; dir = dir.Parent() {
		exists, isDir := false, false
		if f, ok := state[dir.Key()]; ok {
			exists, isDir = f.exists, f.dir
		} else if info, err := dir.Root.P.Stat(dir.Rel); err == nil {
			exists, isDir = true, info.Type == fsys.TypeDir
		} else if !errors.Is(err, fsys.ErrNotFound) && !errors.Is(err, fsys.ErrNotDir) {
			return engine.ToRefusal(s.e.WS.FileErr("undo", dir, err))
		}
		if exists && !isDir {
			return engine.Refuse(KindNotFound, t.Spelled, "cannot bring back %s: %s is a file now, not a directory; move or delete it first, then undo again", t.Spelled, dir.Display())
		}
		if exists || dir.Rel == "." {
			return nil
		}
	}
}

// blocked words the refusal of an undo set whose change e no longer
// stands: the file, the change, and what is in the way.
func (h *reviewLog) blocked(e *event, t engine.Target, now *simFile, err error) *Refusal {
	ref, ok := AsRefusal(err)
	if !ok {
		return engine.ToRefusal(err)
	}
	r := e.d.Receipt
	if ref.Kind != KindChanged {
		return ref
	}
	why := "the file is not there"
	switch {
	case now.dir:
		why = "a directory is there"
	case now.exists:
		st := receipt.StateOf(now.b)
		why = fmt.Sprintf("changed outside: something stet did not see (a shell command, an editor, a tool no hook covers) changed it since: %d bytes, %d lines now", st.Bytes, st.Lines)
		for i := len(h.events) - 1; i >= 0; i-- {
			l := h.events[i]
			if l.seq > e.seq && l.d.Receipt.After != nil && l.d.Receipt.After.Version == st.Version && (l.key == e.key || l.d.FromKey == e.key) {
				why = fmt.Sprintf("changed since by %s %s of session %s", l.d.Receipt.Tool, l.d.Receipt.ID, l.session)
				ref.With("blocked_by", l.d.Receipt.ID)
				break
			}
		}
		if r.After == nil {
			why = "a file exists there again"
		}
	}
	ref.Message = fmt.Sprintf("refused: %s blocks the undo: it no longer holds the result of %s %s (session %s), %s; undoing it would lose that; undo the later change first, or change it back by hand",
		t.Display(), r.Tool, r.ID, e.session, why)
	ref.Path = t.Display()
	return ref.With("receipt", r.ID, "path", t.Display())
}
