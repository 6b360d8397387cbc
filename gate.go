package stet

import (
	"context"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/brief"
	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/policy"
)

// gateWrite applies rules 3 (effects) and 4 (protected paths) to a path
// about to change.
func (s *Session) gateWrite(tool string, t target) *Refusal {
	if s.ws.opts.NoGate {
		return nil
	}
	if s.ws.opts.Effects == policy.ReadOnly {
		return refuse(KindReadOnly, t.spelled, "%s was not changed: this workspace is read-only (--effects read-only); report the change you would make instead", t.spelled)
	}
	if ref := s.ws.denied(t); ref != nil {
		return ref
	}
	rels := []string{t.rel}
	if r, ok := t.root.p.(fsys.Resolver); ok {
		if res, err := r.Resolve(t.rel); err == nil && res != t.rel {
			rels = append(rels, res)
		}
	}
	for _, rel := range rels {
		if pat, ok := s.ws.rules.Protected(rel); ok {
			return refuse(KindProtected, t.spelled, "%s is protected (it matches %s); no tool may change it; leave it alone, or tell the user what should change there", t.spelled, pat).with("pattern", pat)
		}
	}
	return nil
}

// checkFresh applies rules 5 (observation) and 6 (freshness) to an existing
// file whose current bytes are cur.
func (s *Session) checkFresh(tool string, t target, cur []byte, ver fsys.Version, expected string) (observation, *Refusal) {
	o, ok := s.observed(t.key())
	if s.ws.opts.NoGate {
		return o, nil
	}
	if !ok {
		return o, refuse(KindNotRead, t.spelled, "%s has not been read in this session (it has %s); read it first (read path=%s), then retry the %s",
			t.spelled, linesWord(frameLines(cur)), t.spelled, tool)
	}
	want := o.Version
	if expected != "" {
		want = expected
	}
	if string(ver) != want {
		var ref *Refusal
		if expected != "" && expected != o.Version {
			ref = refuse(KindChanged, t.spelled, "%s does not hold expected_version %s (now %s, %s bytes, %s); read it again, then retry the %s",
				t.spelled, fsys.Version(expected).Short(), ver.Short(), policy.Thousands(len(cur)), linesWord(frameLines(cur)), tool)
		} else {
			ref = refuse(KindChanged, t.spelled, "%s changed since you read it (then %s bytes, %s; now %s bytes, %s); read it again, then retry the %s",
				t.spelled, policy.Thousands(o.Size), linesWord(o.Lines), policy.Thousands(len(cur)), linesWord(frameLines(cur)), tool)
		}
		return o, ref.with("before", map[string]any{"version": want, "bytes": o.Size, "lines": o.Lines},
			"now", map[string]any{"version": string(ver), "bytes": len(cur), "lines": frameLines(cur)})
	}
	return o, nil
}

// checkBinding applies rule 7: the regions an edit replaces must have been
// shown to the model at this version (mode seen), or the file observed at
// this version (read), or read whole (full).
func (s *Session) checkBinding(t target, o observation, cur []byte, ver fsys.Version, regions []policy.Range, whole bool) *Refusal {
	if s.ws.opts.NoGate {
		return nil
	}
	obs := policy.Observation{Version: o.Version, Seen: o.Seen, Whole: o.Whole, Size: len(cur)}
	if o.Version != string(ver) {
		obs = policy.Observation{Version: string(ver), Size: len(cur)}
	}
	ns := policy.CheckBinding(s.ws.opts.Binding, obs, regions, whole)
	if ns == nil {
		return nil
	}
	n := frameLines(cur)
	if s.ws.opts.Binding == policy.BindFull {
		return refuse(KindNotSeen, t.spelled, "%s must be read whole before it is changed (--binding full); read it without offset or limit, then retry", t.spelled).with("offset", 1, "limit", n)
	}
	from := frame.LineOf(cur, ns.Gap.Start)
	end := ns.Gap.End - 1
	if end < ns.Gap.Start {
		end = ns.Gap.Start
	}
	to := frame.LineOf(cur, end)
	if to < from {
		to = from
	}
	what := fmt.Sprintf("lines %d-%d", from, to)
	if from == to {
		what = fmt.Sprintf("line %d", from)
	}
	return refuse(KindNotSeen, t.spelled, "%s %s were not shown to you at this version, and the change touches them; read them (offset %d, limit %d), then retry",
		t.spelled, what, from, to-from+1).with("offset", from, "limit", to-from+1)
}

// claim maps a path about to change into the workspace, applies the rules
// that need no file content (confinement, effects, protected paths) and
// takes the file's lock, held until the caller's unlock.
func (s *Session) claim(ctx context.Context, tool, p string) (target, func(), error) {
	t, ref := s.resolve(tool, p)
	if ref != nil {
		return target{}, nil, ref
	}
	if ref := s.gateWrite(tool, t); ref != nil {
		return target{}, nil, ref
	}
	unlock, err := s.ws.lock(ctx, t)
	if err != nil {
		return target{}, nil, err
	}
	return t, unlock, nil
}

// checkEditable refuses what cannot be edited: binary, not UTF-8, too large.
func (s *Session) checkEditable(t target, cur []byte) *Refusal {
	if ref := checkText(t, cur); ref != nil {
		return ref
	}
	if int64(len(cur)) > s.ws.opts.MaxFileBytes {
		return refuse(KindTooLarge, t.spelled, "%s is %s bytes, over the %s-byte edit limit; it can be read in windows but not changed by stet",
			t.spelled, policy.Thousands(len(cur)), policy.Thousands(int(s.ws.opts.MaxFileBytes))).with("bytes", len(cur))
	}
	return nil
}

// editableVersion checks that cur can be edited and returns its version. On
// large files the hash runs beside the UTF-8 check: both are full passes.
func (s *Session) editableVersion(t target, cur []byte) (fsys.Version, *Refusal) {
	if len(cur) < 256<<10 {
		if ref := s.checkEditable(t, cur); ref != nil {
			return "", ref
		}
		return fsys.VersionOf(cur), nil
	}
	done := make(chan fsys.Version, 1)
	go func() { done <- fsys.VersionOf(cur) }()
	ref := s.checkEditable(t, cur)
	ver := <-done
	return ver, ref
}

// inputGuard applies rule 8 to a whole-file replace of an existing
// non-empty file the session did not create: the facade says whether the
// file is a declared input (by resolved identity) and which request is
// pinned; policy.GuardReplace decides and words the refusal.
func (s *Session) inputGuard(t target, counts string, overwrite bool) *Refusal {
	request, inputs := s.Request()
	declared := false
	for _, in := range inputs {
		if it, ref := s.ws.resolve("write", in); ref == nil && it.key() == t.key() {
			declared = true
			break
		}
	}
	if q, ok := brief.QuotedRequest(request); ok {
		request = q // a worker's request is only the ORIGINAL REQUEST block of its brief
	}
	if msg := policy.GuardReplace(t.spelled, counts, request, declared, overwrite); msg != "" {
		return &Refusal{Kind: KindInput, Path: t.spelled, Message: msg}
	}
	return nil
}

// checkParentObserved applies rule 5 to a file about to be created: the
// nearest existing ancestor directory must have been observed.
func (s *Session) checkParentObserved(tool string, t target) *Refusal {
	if s.ws.opts.NoGate {
		return nil
	}
	dir := t.parent()
	for {
		info, err := dir.root.p.Stat(dir.rel)
		if err == nil {
			if info.Type != fsys.TypeDir {
				return refuse(KindNotFound, t.spelled, "cannot create %s: %s is a file, not a directory; choose another path", t.spelled, dir.display())
			}
			break
		}
		if errors.Is(err, fsys.ErrOutside) {
			return s.ws.fileErr(tool, dir, err).(*Refusal)
		}
		if dir.rel == "." {
			break
		}
		dir = dir.parent()
	}
	if s.dirObserved(dir.key()) {
		return nil
	}
	shown := dir.display()
	if shown == "." {
		shown = ". (the workspace root)"
	}
	return refuse(KindNotRead, t.spelled, "%s would be created in %s, which has not been listed in this session; list it first (list path=%s) to see what is there, then retry",
		t.spelled, shown, dir.display()).with("dir", dir.display())
}

// denied hides files matching --deny-read globs from every tool.
func (ws *Workspace) denied(t target) *Refusal {
	if _, ok := ws.rules.Denied(t.rel); ok {
		return refuse(KindNotFound, t.spelled, "%s does not exist in this workspace; use list or find to see what does", t.spelled)
	}
	return nil
}
