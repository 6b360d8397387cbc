package stet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// editOps checks rule 1 for an edit call (through package tools, as every
// surface does) and returns its replacements.
func editOps(a EditArgs) ([]textedit.Edit, *Refusal) {
	if ref := checkArgs("edit", a); ref != nil {
		return nil, ref
	}
	ops := a.Ops()
	out := make([]textedit.Edit, len(ops))
	for i, op := range ops {
		out[i] = textedit.Edit{Old: op.OldString, New: op.NewString, ReplaceAll: op.ReplaceAll}
	}
	return out, nil
}

// Edit applies literal replacements to a file the session has read: all of
// them or none, atomically, verified by reading the file back.
func (s *Session) Edit(ctx context.Context, a EditArgs) (*MutationResult, error) {
	if err := s.catchUp(); err != nil {
		return nil, err
	}
	edits, ref := editOps(a)
	if ref != nil {
		return nil, ref
	}
	k := s.ws.clock
	t0 := k.start()
	t, unlock, err := s.claim(ctx, "edit", a.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// cur and the new text are built in memory the workspace lends
	// (bufPool), handed back once the call has succeeded: by then nothing
	// refers to them (the result's matches and diff are copies, and the
	// commit waited for every goroutine that reads them). A call that
	// fails leaves them to the garbage collector.
	cur, err := t.readInto(s.ws.opts.MaxFileBytes, s.ws.bufs.Get)
	if err != nil {
		return nil, s.ws.fileErr("edit", t, err)
	}
	k.done(stepRead, t0)
	t0 = k.start()
	// The replacements are worked out beside the hash of cur (they do not
	// need its version); their failure counts only once cur is known fresh,
	// so the refusals keep their order.
	var res textedit.Result
	var preLines int
	ver, ph, ref := s.editableVersion(t, cur, func() {
		res, err = textedit.ApplyBuffers(ctx, cur, edits, int(s.ws.opts.MaxFileBytes), s.ws.bufs)
		preLines = receipt.Lines(cur) // counted once, beside the hash
	})
	if ref != nil {
		return nil, ref
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	f, o := s.existing(policy.OpEdit, t, cur, ver, a.ExpectedVersion)
	f.Unmatched, f.Regions = err != nil, regions(res.Matches)
	q := ask{tool: "edit", t: t, f: f, cur: cur, ver: ver, o: o,
		unmatched: func() *Refusal { return editRefusal(t, err, edits) }}
	if ref := s.decide(ctx, q); ref != nil {
		return nil, ref
	}
	c := &change{
		tool: "edit", t: t, key: t.key(), pre: cur, preVer: ver, post: res.Text,
		matches: res.Matches, eol: res.EOL, dryRun: a.DryRun, seen: &o,
		preLines: preLines, postLines: linesAfter(preLines, res.Matches),
	}
	if ph != nil && len(res.Matches) > 0 {
		// The new bytes share cur's up to the first match: their hash
		// resumes from cur's there.
		first := res.Matches[0].Offset
		c.after = stateOf(c.post, c.postLines, c.dryRun, func(b []byte) fsys.Version { return ph.versionOf(b, first) })
	}
	c.afterState() // the new bytes are hashed from now on, beside the rest of the call
	if res.EOL == "crlf-adapted" {
		c.notes = append(c.notes, "old_string and new_string were adapted to the file's CRLF line endings")
	}
	c.message = fmt.Sprintf("edited %s: %s at %s (%s → %s)", t.shown(), plural(res.Count, "replacement"),
		lineList(res.Matches), linesWord(c.preLines), linesWord(c.postLines))
	k.done(stepPlan, t0)
	out, err := s.commit(ctx, c)
	if err == nil {
		s.ws.bufs.Put(res.Text)
		s.ws.bufs.Put(cur)
	}
	return out, err
}

// linesAfter is the line count of the bytes an edit leaves, from the count
// before it (pre) and the regions it replaced: each region's old newlines
// go, its new ones come. 0 (unknown) when a match does not carry its bytes.
// The readback counts the result's lines again (receipt.VerifyShape).
func linesAfter(pre int, ms []receipt.Match) int {
	n := pre
	for _, m := range ms {
		if m.Old == nil || m.New == nil {
			return 0
		}
		n += bytes.Count(m.New, []byte{'\n'}) - bytes.Count(m.Old, []byte{'\n'})
	}
	return n
}

// framePrefix matches the read frame's line-number prefix at the start of
// a line ("00173|"), which a model sometimes copies into old_string.
var framePrefix = regexp.MustCompile(`(?m)^\d{5,}\|`)

// prefixHint names the frame's line-number prefix when old (an old_string,
// or a patch's line) starts with it: the bytes are not in the file, so no
// match can be found until it is dropped. "" when it does not.
func prefixHint(what, old string) string {
	p := framePrefix.FindString(old)
	if p == "" || !strings.HasPrefix(old, p) {
		return ""
	}
	return fmt.Sprintf("%s starts with the read frame's line-number prefix `%s`: drop it (and any other line's), the file does not hold it", what, p)
}

// editRefusal turns a textedit error into a no_match, ambiguous or invalid
// refusal. ops are the call's replacements.
func editRefusal(t target, err error, ops []textedit.Edit) *Refusal {
	several := len(ops) > 1
	var nm *textedit.NoMatchError
	var am *textedit.AmbiguousError
	var ee *textedit.EditError
	var tl *textedit.TooLargeError
	prefix := func(i int) string {
		if several {
			return fmt.Sprintf("edits[%d]: ", i)
		}
		return ""
	}
	switch {
	case errors.As(err, &nm):
		if nm.Index >= 0 && nm.Index < len(ops) {
			name := "old_string"
			if several {
				name = fmt.Sprintf("edits[%d].old_string", nm.Index)
			}
			if hint := prefixHint(name, ops[nm.Index].Old); hint != "" {
				return refuse(KindNoMatch, t.spelled, "%s: %s", shownName(t.spelled), hint).with("edit", nm.Index)
			}
		}
		msg := fmt.Sprintf("%s: %s%s", shownName(t.spelled), prefix(nm.Index), nm.Error())
		r := refuse(KindNoMatch, t.spelled, "%s", msg).with("edit", nm.Index)
		if nm.Near != nil {
			r.Message += "\n" + strings.TrimRight(nm.Near.Text, "\n") + "\ncopy old_string exactly from the lines above"
			r.with("near", map[string]any{"start_line": nm.Near.StartLine, "end_line": nm.Near.EndLine, "differences": nm.Near.Differences})
		} else {
			r.Message += "; read the file again and copy old_string exactly from it"
		}
		return r
	case errors.As(err, &am):
		return refuse(KindAmbiguous, t.spelled, "%s: %s%s", t.spelled, prefix(am.Index), am.Error()).with("edit", am.Index, "count", am.Count, "lines", firstLines(am.Lines))
	case errors.As(err, &tl):
		return refuse(KindTooLarge, t.spelled, "%s: %s%s", t.spelled, prefix(tl.Index), tl.Error()).with("edit", tl.Index, "count", tl.Count, "bytes", tl.Size, "max_bytes", tl.Max)
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
