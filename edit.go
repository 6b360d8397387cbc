package stet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
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
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	edits, ref := editOps(a)
	if ref != nil {
		return nil, ref
	}
	k := s.e.WS.Clock
	t0 := k.Start()
	t, unlock, err := s.e.Claim(ctx, "edit", a.Path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	// cur and the new text are built in memory the workspace lends
	// (bufPool), handed back once the call has succeeded: by then nothing
	// refers to them (the result's matches and diff are copies, and the
	// commit waited for every goroutine that reads them). A call that
	// fails leaves them to the garbage collector.
	cur, err := t.ReadInto(s.e.WS.Opts.MaxFileBytes, s.e.WS.Bufs.Get)
	if err != nil {
		return nil, s.e.WS.FileErr("edit", t, err)
	}
	k.Done(engine.StepRead, t0)
	t0 = k.Start()
	// The replacements are worked out beside the hash of cur (they do not
	// need its version); their failure counts only once cur is known fresh,
	// so the refusals keep their order.
	var res textedit.Result
	var preLines int
	ver, ph, ref := s.e.EditableVersion(t, cur, func() {
		res, err = textedit.ApplyBuffers(ctx, cur, edits, int(s.e.WS.Opts.MaxFileBytes), s.e.WS.Bufs)
		preLines = receipt.Lines(cur) // counted once, beside the hash
	})
	if ref != nil {
		return nil, ref
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return nil, err
	}
	f, o := s.e.Existing(policy.OpEdit, t, cur, ver, a.ExpectedVersion)
	f.Unmatched, f.Regions = err != nil, regions(res.Matches)
	q := engine.Ask{Tool: "edit", T: t, F: f, Cur: cur, Ver: ver, O: o,
		Unmatched: func() *Refusal { return editRefusal(t, err, edits) }}
	if ref := s.e.Decide(ctx, q); ref != nil {
		return nil, ref
	}
	c := &engine.Change{
		Tool: "edit", T: t, Key: t.Key(), Pre: cur, PreVer: ver, Post: res.Text,
		Matches: res.Matches, Eol: res.EOL, DryRun: a.DryRun, Seen: &o,
		PreLines: preLines, PostLines: linesAfter(preLines, res.Matches),
	}
	if ph != nil && len(res.Matches) > 0 {
		// The new bytes share cur's up to the first match: their hash
		// resumes from cur's there.
		first := res.Matches[0].Offset
		c.After = engine.StateOf(c.Post, c.PostLines, c.DryRun, func(b []byte) fsys.Version { return ph.VersionOf(b, first) })
	}
	c.AfterState() // the new bytes are hashed from now on, beside the rest of the call
	if res.EOL == "crlf-adapted" {
		c.Notes = append(c.Notes, "old_string and new_string were adapted to the file's CRLF line endings")
	}
	c.Message = fmt.Sprintf("edited %s: %s at %s (%s → %s)", t.Shown(), engine.Plural(res.Count, "replacement"),
		engine.LineList(res.Matches), engine.LinesWord(c.PreLines), engine.LinesWord(c.PostLines))
	k.Done(engine.StepPlan, t0)
	out, err := s.e.Commit(ctx, c)
	if err == nil {
		s.e.WS.Bufs.Put(res.Text)
		s.e.WS.Bufs.Put(cur)
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
func editRefusal(t engine.Target, err error, ops []textedit.Edit) *Refusal {
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
				return engine.Refuse(KindNoMatch, t.Spelled, "%s: %s", engine.ShownName(t.Spelled), hint).With("edit", nm.Index)
			}
		}
		msg := fmt.Sprintf("%s: %s%s", engine.ShownName(t.Spelled), prefix(nm.Index), nm.Error())
		r := engine.Refuse(KindNoMatch, t.Spelled, "%s", msg).With("edit", nm.Index)
		if nm.Near != nil {
			r.Message += "\n" + strings.TrimRight(nm.Near.Text, "\n") + "\ncopy old_string exactly from the lines above"
			r.With("near", map[string]any{"start_line": nm.Near.StartLine, "end_line": nm.Near.EndLine, "differences": nm.Near.Differences})
		} else {
			r.Message += "; read the file again and copy old_string exactly from it"
		}
		return r
	case errors.As(err, &am):
		return engine.Refuse(KindAmbiguous, t.Spelled, "%s: %s%s", t.Spelled, prefix(am.Index), am.Error()).With("edit", am.Index, "count", am.Count, "lines", engine.FirstLines(am.Lines))
	case errors.As(err, &tl):
		return engine.Refuse(KindTooLarge, t.Spelled, "%s: %s%s", t.Spelled, prefix(tl.Index), tl.Error()).With("edit", tl.Index, "count", tl.Count, "bytes", tl.Size, "max_bytes", tl.Max)
	case errors.As(err, &ee):
		return engine.Refuse(KindInvalid, t.Spelled, "%s: %s%v", t.Spelled, prefix(ee.Index), ee.Err)
	}
	return engine.Refuse(KindInvalid, t.Spelled, "%s: %v", t.Spelled, err)
}

func regions(ms []receipt.Match) []policy.Range {
	out := make([]policy.Range, len(ms))
	for i, m := range ms {
		out[i] = policy.Range{Start: m.Offset, End: m.Offset + m.OldBytes}
	}
	return out
}
