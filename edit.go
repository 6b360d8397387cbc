package stet

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/stet-dev/stet/brief"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// claim maps a path about to change into the workspace, applies the rules
// that need no file content (confinement, effects, protected paths) and
// takes the file's lock, held until the caller's unlock.
func (s *Session) claim(ctx context.Context, tool, p string) (target, func(), error) {
	t, ref := s.ws.resolve(tool, p)
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

// editOps checks rule 1 for an edit call and returns its replacements.
func editOps(a EditArgs) ([]textedit.Edit, *Refusal) {
	bad := func(format string, args ...any) *Refusal {
		return refuse(KindInvalid, a.Path, format, args...)
	}
	if a.Path == "" {
		return nil, bad("edit needs a path")
	}
	if a.ExpectedVersion != "" && !fsys.Version(a.ExpectedVersion).Valid() {
		return nil, bad("expected_version %q is not a version; pass the version a read returned (sha256:<64 hex>)", a.ExpectedVersion)
	}
	single := a.OldString != nil || a.NewString != nil
	switch {
	case single && len(a.Edits) > 0:
		return nil, bad("give either old_string/new_string or edits, not both")
	case !single && len(a.Edits) == 0:
		return nil, bad("edit needs old_string and new_string (or edits: [{old_string, new_string}])")
	case single && a.OldString == nil:
		return nil, bad("edit needs old_string")
	case single && a.NewString == nil:
		return nil, bad("edit needs new_string (an empty string deletes old_string)")
	}
	ops := a.Edits
	if single {
		ops = []EditOp{{OldString: *a.OldString, NewString: *a.NewString, ReplaceAll: a.ReplaceAll}}
	}
	out := make([]textedit.Edit, len(ops))
	for i, op := range ops {
		where := "old_string"
		if !single {
			where = fmt.Sprintf("edits[%d].old_string", i)
		}
		if op.OldString == "" {
			return nil, bad("%s is empty; give the exact text to replace (to create a file use write)", where)
		}
		if op.OldString == op.NewString {
			return nil, bad("%s equals its new_string; nothing would change", where)
		}
		out[i] = textedit.Edit{Old: op.OldString, New: op.NewString, ReplaceAll: op.ReplaceAll}
	}
	return out, nil
}

// Edit applies literal replacements to a file the session has read: all of
// them or none, atomically, verified by reading the file back.
func (s *Session) Edit(ctx context.Context, a EditArgs) (*MutationResult, error) {
	edits, ref := editOps(a)
	if ref != nil {
		return nil, ref
	}
	t, unlock, err := s.claim(ctx, "edit", a.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	cur, err := t.root.p.ReadFile(t.rel)
	if err != nil {
		return nil, s.ws.fileErr("edit", t, err)
	}
	ver, ref := s.editableVersion(t, cur)
	if ref != nil {
		return nil, ref
	}
	o, ref := s.checkFresh("edit", t, cur, ver, a.ExpectedVersion)
	if ref != nil {
		return nil, ref
	}
	res, err := textedit.Apply(cur, edits)
	if err != nil {
		return nil, editRefusal(t, err, len(edits) > 1)
	}
	if ref := s.checkBinding(t, o, cur, ver, regions(res.Matches), false); ref != nil {
		return nil, ref
	}
	c := &change{
		tool: "edit", t: t, key: t.key(), pre: cur, preVer: ver, post: res.Text,
		matches: res.Matches, eol: res.EOL, dryRun: a.DryRun, seen: &o,
	}
	if res.EOL == "crlf-adapted" {
		c.notes = append(c.notes, "old_string and new_string were adapted to the file's CRLF line endings")
	}
	c.message = fmt.Sprintf("edited %s: %s at %s (%s → %s)", t.display(), plural(res.Count, "replacement"),
		lineList(res.Matches), linesWord(receipt.Lines(cur)), linesWord(receipt.Lines(res.Text)))
	return s.commit(ctx, c)
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

// editRefusal turns a textedit error into a no_match, ambiguous or invalid refusal.
func editRefusal(t target, err error, several bool) *Refusal {
	var nm *textedit.NoMatchError
	var am *textedit.AmbiguousError
	var ee *textedit.EditError
	prefix := func(i int) string {
		if several {
			return fmt.Sprintf("edits[%d]: ", i)
		}
		return ""
	}
	switch {
	case errors.As(err, &nm):
		msg := fmt.Sprintf("%s: %s%s", t.spelled, prefix(nm.Index), nm.Error())
		r := refuse(KindNoMatch, t.spelled, "%s", msg).with("edit", nm.Index)
		if nm.Near != nil {
			r.Message += "\n" + strings.TrimRight(nm.Near.Text, "\n") + "\nread those lines again and copy old_string exactly from them"
			r.with("near", map[string]any{"start_line": nm.Near.StartLine, "end_line": nm.Near.EndLine, "differences": nm.Near.Differences})
		} else {
			r.Message += "; read the file again and copy old_string exactly from it"
		}
		return r
	case errors.As(err, &am):
		return refuse(KindAmbiguous, t.spelled, "%s: %s%s", t.spelled, prefix(am.Index), am.Error()).with("edit", am.Index, "count", am.Count, "lines", am.Lines)
	case errors.As(err, &ee):
		return refuse(KindInvalid, t.spelled, "%s: %s%v", t.spelled, prefix(ee.Index), ee.Err)
	}
	return refuse(KindInvalid, t.spelled, "%s: %v", t.spelled, err)
}

func regions(ms []receipt.Match) []policy.Range {
	out := make([]policy.Range, len(ms))
	for i, m := range ms {
		out[i] = policy.Range{Start: m.Offset, End: m.Offset + m.OldBytes}
	}
	return out
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func lineList(ms []receipt.Match) string {
	var b strings.Builder
	b.WriteString("line")
	if len(ms) > 1 {
		b.WriteString("s")
	}
	for i, m := range ms {
		if i == 5 {
			fmt.Fprintf(&b, ", … (%d in all)", len(ms))
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d", m.Line)
	}
	return b.String()
}

// Write creates a file, or replaces one the session has read whole.
func (s *Session) Write(ctx context.Context, a WriteArgs) (*MutationResult, error) {
	if a.Path == "" {
		return nil, refuse(KindInvalid, "", "write needs a path")
	}
	if a.ExpectedVersion != "" && !fsys.Version(a.ExpectedVersion).Valid() {
		return nil, refuse(KindInvalid, a.Path, "expected_version %q is not a version; pass the version a read returned (sha256:<64 hex>)", a.ExpectedVersion)
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
	cur, err := t.root.p.ReadFile(t.rel)
	if errors.Is(err, fsys.ErrNotFound) {
		return s.create(ctx, t, post, a)
	}
	if err != nil {
		return nil, s.ws.fileErr("write", t, err)
	}
	ver := fsys.VersionOf(cur)
	o, ref := s.checkFresh("write", t, cur, ver, a.ExpectedVersion)
	if ref != nil {
		return nil, ref
	}
	if ref := s.checkBinding(t, o, cur, ver, nil, true); ref != nil {
		return nil, ref
	}
	key := t.key()
	mine := s.wasCreated(key)
	counts := policy.Counts(len(cur), receipt.Lines(cur), len(post), receipt.Lines(post))
	if len(cur) > 0 && !mine && !s.ws.opts.NoGate {
		if ref := s.inputGuard(t, counts, a.Overwrite); ref != nil {
			return nil, ref
		}
	}
	c := &change{
		tool: "write", t: t, key: key, pre: cur, preVer: ver, post: post, dryRun: a.DryRun, seen: &o,
		matches: []receipt.Match{{Offset: 0, OldBytes: len(cur), NewBytes: len(post), Line: 1, Old: cur, New: post}},
		eol:     textedit.DetectEOL(post),
		save:    true,
	}
	if mine {
		c.message = fmt.Sprintf("replaced %s (%s), a file this session created", t.display(), counts)
	} else {
		c.message, c.warned = policy.ReplacedMessage(t.spelled, counts, policy.Alarm(t.rel, cur, post)), true
	}
	return s.commit(ctx, c)
}

// inputGuard applies rule 8 to a whole-file replace of an existing
// non-empty file the session did not create.
func (s *Session) inputGuard(t target, counts string, overwrite bool) *Refusal {
	request, inputs := s.Request()
	for _, in := range inputs {
		it, ref := s.ws.resolve("write", in)
		if ref == nil && it.key() == t.key() {
			return &Refusal{Kind: KindInput, Path: t.spelled, Message: policy.InputRefusal(t.spelled, counts)}
		}
	}
	if q, ok := brief.QuotedRequest(request); ok {
		request = q // a worker's request is only the ORIGINAL REQUEST block of its brief
	}
	if request != "" && policy.NamesFile(request, t.rel) && !overwrite && !policy.AsksToReplace(request, t.rel) {
		return &Refusal{Kind: KindInput, Path: t.spelled, Message: policy.RequestRefusal(t.spelled, counts)}
	}
	return nil
}

// create writes a new file: its parent directory (or the nearest existing
// ancestor) must have been observed.
func (s *Session) create(ctx context.Context, t target, post []byte, a WriteArgs) (*MutationResult, error) {
	if a.ExpectedVersion != "" && !s.ws.opts.NoGate {
		return nil, refuse(KindChanged, t.spelled, "%s does not exist, but expected_version %s was given; check the path (list its directory), then retry", t.spelled, fsys.Version(a.ExpectedVersion).Short())
	}
	if ref := s.checkParentObserved("write", t); ref != nil {
		return nil, ref
	}
	c := &change{
		tool: "write", t: t, key: t.key(), post: post, create: true, dryRun: a.DryRun,
		matches: []receipt.Match{{Offset: 0, OldBytes: 0, NewBytes: len(post), Line: 1, Old: []byte{}, New: post}},
		eol:     textedit.DetectEOL(post),
	}
	c.message = fmt.Sprintf("created %s (%s, %s bytes)", t.display(), linesWord(receipt.Lines(post)), policy.Thousands(len(post)))
	return s.commit(ctx, c)
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
