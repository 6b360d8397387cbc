package engine

import (
	"context"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/brief"
	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

// Rules 5-8 of SPEC section 4 are decided in one place, policy.Decide, from
// the facts this file gathers for one target of one call; every mutating
// tool asks it, in the order of the call's names (a move: the old name,
// then the new). This file keeps the IO (the session's observations, the
// pinned request, a rule-5 refusal's frame or listing) and the words of
// each refusal; the order of the rules is policy's alone.

// ask is one question to policy.Decide and what the facade needs to word
// its answer.
type Ask struct {
	Tool string
	T    Target
	F    policy.Facts
	Cur  []byte       // the existing file's bytes now (not for a create)
	O    Observation  // the session's observation of them (zero: none)
	Ver  fsys.Version // their version
	Dir  Target       // a create: the nearest existing ancestor directory
	// what says what the call would do to a declared input ("delete it");
	// counts words a request-named file's refusal (policy.Counts), and a
	// declared input's too when ruleText is set: that refusal then is the
	// rule's own text (policy.InputRefusal), as write words it.
	What     string
	Counts   string
	RuleText bool
	// unmatched words the refusal of edits or hunks that did not apply.
	Unmatched func() *Refusal
}

// existing gathers the facts of an existing file t holding cur (version
// ver) for op, and returns the session's observation of it (the zero
// observation when there is none).
func (s *Session) Existing(op policy.Op, t Target, cur []byte, ver fsys.Version, expected string) (policy.Facts, Observation) {
	o, ok := s.Observed(t.Key())
	f := s.Facts(op, t)
	f.Observed = ok
	f.Version = string(ver)
	f.ExpectedVersion = expected
	f.Empty = len(cur) == 0
	f.Created = s.WasCreated(t.Key())
	if ok && !f.NoGate {
		f.Observation = policy.Observation{Version: o.Version, Seen: o.Seen, Whole: o.Whole, Size: len(cur)}
		if op == policy.OpEdit || op == policy.OpReplace {
			// Only binding reads it, and it costs a pass over the bytes.
			f.Observation.Windowed = f.Binding == policy.BindFull && !s.fitsOneWindow(cur, FrameLines(cur))
		}
	}
	return f, o
}

// creating gathers the facts of a create at t (a file, or the new name of
// a move, that holds post) and finds the nearest existing ancestor
// directory, which must be a directory (refused otherwise, gate or no
// gate). sameDir says the call's other name is in t's directory, which its
// observation then covers. counts, for rule 8, is what the create does to
// a user's file the session removed from t ("" when none).
func (s *Session) Creating(tool string, t Target, post []byte, sameDir bool) (policy.Facts, Target, string, *Refusal) {
	f := s.Facts(policy.OpCreate, t)
	dir, ref := s.nearestDir(tool, t)
	if ref != nil {
		return f, dir, "", ref
	}
	f.Observed = sameDir || s.DirObserved(dir.Key())
	counts := ""
	if was, ok := s.removedFile(t.Key()); ok && was.Bytes > 0 {
		f.Removed = true
		counts = policy.Counts(was.Bytes, was.Lines, len(post), receipt.Lines(post))
	}
	return f, dir, counts, nil
}

// facts fills what every target shares: the gate switch, the binding
// mode, whether t is declared, the pinned request.
func (s *Session) Facts(op policy.Op, t Target) policy.Facts {
	f := policy.Facts{Op: op, NoGate: s.WS.Opts.NoGate, Binding: s.WS.Opts.Binding, Path: t.Spelled}
	if f.NoGate {
		return f // Decide reads no more: nothing to gather
	}
	request, _ := s.pinned()
	if q, ok := brief.QuotedRequest(request); ok {
		request = q // a worker's request is only the ORIGINAL REQUEST block of its brief
	}
	f.Request = request
	f.Declared = s.isDeclared(t)
	return f
}

// decide asks policy.Decide about a and words the first rule that
// refuses; nil when the target may change. A rule-5 refusal shows what
// the session must see (the file's frame, the directory's listing) and
// records it as observed.
func (s *Session) Decide(ctx context.Context, a Ask) *Refusal {
	d := policy.Decide(a.F)
	if d == nil {
		return nil
	}
	t := a.T
	switch d.Reason {
	case policy.NotObserved:
		if shown := s.showFile(t, a.Cur, a.Ver); shown != nil {
			return Refuse(KindNotRead, t.Spelled, "%s had not been read in this session (it has %s); its frame follows and now counts as read at this version: check the %s against it, then retry the %s",
				t.Spelled, LinesWord(shown.Lines), a.Tool, a.Tool).With(ShownFrame, shown)
		}
		return Refuse(KindNotRead, t.Spelled, "%s has not been read in this session (it has %s); read it first (read path=%s), then retry the %s",
			t.Spelled, LinesWord(FrameLines(a.Cur)), t.Spelled, a.Tool)
	case policy.ParentNotListed:
		return s.notListed(ctx, a.Tool, t, a.Dir)
	case policy.DirNotListed:
		if listing, text := s.showDir(ctx, t); listing != nil {
			return Refuse(KindNotRead, t.Spelled, "%s is a directory this session had not listed; its listing follows and now counts as listed: check that it is the directory to move, then retry the move", t.Spelled).showing(listing, text)
		}
		return Refuse(KindNotRead, t.Spelled, "%s is a directory this session has not listed; list it first (list path=%s), then retry the move", t.Spelled, t.Spelled)
	case policy.ExpectedMissing:
		return Refuse(KindChanged, t.Spelled, "%s does not exist, but expected_version %s was given; check the path (list its directory), then retry", t.Spelled, fsys.Version(a.F.ExpectedVersion).Short())
	case policy.ExpectedNotObserved:
		// expected_version binds only to a version this session observed: a
		// version named by a refusal was never shown as text, and taking it
		// would replace bytes the model never saw.
		o := a.O
		return Refuse(KindChanged, t.Spelled, "%s: expected_version %s is not the version this session observed (%s; a version named in a refusal is not an observation); read it again, then retry the %s",
			t.Spelled, fsys.Version(a.F.ExpectedVersion).Short(), fsys.Version(o.Version).Short(), a.Tool).With(
			"before", map[string]any{"version": o.Version, "bytes": o.Size, "lines": o.Lines})
	case policy.Stale:
		o, cur := a.O, a.Cur
		ref := Refuse(KindChanged, t.Spelled, "%s changed since you read it (then %s bytes, %s; now %s bytes, %s); read it again, then retry the %s",
			t.Spelled, policy.Thousands(o.Size), LinesWord(o.Lines), policy.Thousands(len(cur)), LinesWord(FrameLines(cur)), a.Tool)
		return ref.With("before", map[string]any{"version": o.Version, "bytes": o.Size, "lines": o.Lines},
			"now", map[string]any{"version": string(a.Ver), "bytes": len(cur), "lines": FrameLines(cur)})
	case policy.Unmatched:
		return a.Unmatched()
	case policy.Unseen:
		return s.unseen(t, a.Cur, a.F.Observation.Windowed, d.Gap, a.F.Op == policy.OpReplace)
	case policy.Declared:
		if a.RuleText {
			return &Refusal{Kind: KindInput, Path: t.Spelled, Message: policy.InputRefusal(ShownName(t.Spelled), a.Counts)}
		}
		return Refuse(KindInput, t.Spelled, "%s is an input this fan-out declared; a worker edits it in place (edit / patch) and cannot %s; if the task needs that, say so in your reply so the orchestrator can redeclare it", t.Spelled, a.What)
	case policy.DeclaredUnder:
		return Refuse(KindInput, t.Spelled, "%s holds %s, an input this fan-out declared; a worker edits it in place (edit / patch) and cannot %s; move the other files one by one, or say so in your reply so the orchestrator can redeclare it", t.Spelled, a.F.DeclaredUnder, a.What)
	case policy.Requested:
		ref := &Refusal{Kind: KindInput, Path: t.Spelled, Message: policy.RequestRefusal(t.Spelled, a.Counts)}
		if a.Tool == "patch" {
			// A patch has no overwrite argument: say where there is one.
			if a.F.Op == policy.OpReplace {
				ref.Message += " (a patch cannot: update the file with @@ hunks instead of *** Add File:, or use write with overwrite: true)"
			} else {
				ref.Message += " (a patch cannot: use write with overwrite: true)"
			}
		}
		return ref
	}
	return Refuse(KindInvalid, t.Spelled, "%s: the rules refused this call (%s rule %d); report this to the user", t.Spelled, d.Kind, d.Rule)
}

// notListed words rule 5 for a create at t in dir, a directory the
// session has not observed. The refusal carries dir's listing (bounded as
// list), which now counts as listed: the same call retried can land.
func (s *Session) notListed(ctx context.Context, tool string, t, dir Target) *Refusal {
	shown := dir.Display()
	if shown == "." {
		shown = ". (the workspace root)"
	}
	if listing, text := s.showDir(ctx, dir); listing != nil {
		return Refuse(KindNotRead, t.Spelled, "%s would be created in %s, which had not been listed in this session; its listing follows and now counts as listed: check that what you create is not there under another name, then retry the %s",
			t.Spelled, shown, tool).With("dir", dir.Display()).showing(listing, text)
	}
	return Refuse(KindNotRead, t.Spelled, "%s would be created in %s, which has not been listed in this session; list it first (list path=%s) to see what is there, then retry",
		t.Spelled, shown, dir.Display()).With("dir", dir.Display())
}

// nearestDir returns the nearest existing ancestor of t, which must be a
// directory: a create or move below a file could only fail once it is under
// way, so it is refused before anything moves, gate or no gate.
func (s *Session) nearestDir(tool string, t Target) (Target, *Refusal) {
	dir := t.Parent()
	if t.held() {
		return dir, nil // the held directory: it exists
	}
	for {
		info, err := dir.Root.P.Stat(dir.Rel)
		if err == nil {
			if info.Type != fsys.TypeDir {
				return Target{}, Refuse(KindNotFound, t.Spelled, "cannot create %s: %s is a file, not a directory; choose another path", t.Spelled, dir.Display())
			}
			break
		}
		if errors.Is(err, fsys.ErrOutside) {
			return Target{}, ToRefusal(s.WS.FileErr(tool, dir, err))
		}
		if dir.Rel == "." {
			break
		}
		dir = dir.Parent()
	}
	return dir, nil
}

// unseen words rule 7: the regions a change replaces must have been shown
// to the model at this version (mode seen), or the file read whole (full).
// gap is the first byte range the call needed and was not shown.
func (s *Session) unseen(t Target, cur []byte, windowed bool, gap policy.Range, whole bool) *Refusal {
	n := FrameLines(cur)
	if s.WS.Opts.Binding == policy.BindFull {
		if !windowed {
			return Refuse(KindNotSeen, t.Spelled, "%s must be read whole before it is changed (--binding full); read it without offset or limit, then retry", t.Spelled).With("offset", 1, "limit", n)
		}
		from := frame.LineOf(cur, gap.Start)
		return Refuse(KindNotSeen, t.Spelled, "%s must be read whole at this version before it is changed (--binding full), and it is larger than one read: read it window by window from line %d (offset %d; each read names the next offset) to the end, then retry",
			t.Spelled, from, from).With("offset", from)
	}
	from := frame.LineOf(cur, gap.Start)
	end := gap.End - 1
	if end < gap.Start {
		end = gap.Start
	}
	to := frame.LineOf(cur, end)
	if to < from {
		to = from
	}
	what, were, them := fmt.Sprintf("lines %d-%d", from, to), "were", "them"
	if from == to {
		what, were, them = fmt.Sprintf("line %d", from), "was", "it"
	}
	if whole {
		// A whole-file replace needs the whole file seen: show it whole.
		if shown := s.showFile(t, cur, fsys.VersionOf(cur)); shown != nil {
			return Refuse(KindNotSeen, t.Spelled, "%s was not shown to you whole at this version (%s %s not), and the change replaces all of it; its frame follows and now counts as seen at this version: check the change against it, then retry",
				t.Spelled, what, were).With("offset", 1, "limit", shown.Lines, ShownFrame, shown)
		}
	} else if shown := s.showLines(t, cur, from, to); shown != nil {
		return Refuse(KindNotSeen, t.Spelled, "%s %s %s not shown to you at this version, and the change touches %s; %s now, and count%s as seen at this version: check the change against %s, then retry",
			t.Spelled, what, were, them, map[bool]string{true: "it follows", false: "they follow"}[from == to], map[bool]string{true: "s", false: ""}[from == to], them).With("offset", from, "limit", to-from+1, ShownFrame, shown)
	}
	return Refuse(KindNotSeen, t.Spelled, "%s %s %s not shown to you at this version, and the change touches %s; read %s (offset %d, limit %d), then retry",
		t.Spelled, what, were, them, them, from, to-from+1).With("offset", from, "limit", to-from+1)
}
