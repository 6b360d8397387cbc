package stet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/patch"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// A client's own tools (SPEC section 10). A client such as Claude Code
// edits with its built-in tools; its hooks tell stet before and after each
// call. Before, PrepareClient decides the change by stet's rules (the tool
// input turned into stet's edit, write or patch, planned as a dry run) and
// saves what it will replace in the journal, with a client intent that
// names it, durably, before the client moves a byte. After, FinishClient
// reads the files back, compares them with what the plan said they would
// hold, and writes the receipts: verified only when a file holds exactly
// that. The client writes the bytes, so no compare-and-swap at the swap and
// no atomic replace are claimed for such a change.

// ClientCall names one call of a client's own tool.
type ClientCall struct {
	// ID is the client's id of the call (Claude Code's tool_use_id): the
	// event after the call names the same one.
	ID string
	// Tool is the client's name of the tool (Edit, Write, apply_patch),
	// as its receipts record it.
	Tool string
}

// ClientRewrite is a change of one file whose result stet cannot work out
// from the tool's input (a notebook cell edit): it is checked as a
// whole-file replace of Path that the caller asked for (the input guard's
// request rule does not apply; a declared input is still refused), and its
// receipt records what the file holds afterwards, unverified.
type ClientRewrite struct {
	Path string
}

// ClientPlan is what PrepareClient decided: the receipts the call should
// leave, as a dry run plans them.
type ClientPlan struct {
	Receipts []receipt.Receipt
	Diff     string
}

// PrepareClient checks the changes a client's own tool is about to make
// (one call may change several files) and, when the rules let every one
// through, saves the bytes they will replace and records one client intent
// for call, durably, before returning. Each change is an EditArgs, a
// WriteArgs, a PatchArgs (their DryRun is ignored) or a ClientRewrite. A
// refusal is a *Refusal, worded as the same call of stet's own tool is,
// and journaled for review under call.Tool; then nothing is saved.
func (s *Session) PrepareClient(ctx context.Context, call ClientCall, changes ...any) (*ClientPlan, error) {
	if call.ID == "" {
		return nil, engine.Refuse(KindInvalid, "", "the client named no id for its tool call; nothing was checked")
	}
	// A call of the same file whose outcome never came (the client
	// stopped, its permission prompt was declined, or its tool failed
	// where the client sends no event for that) is settled first, against
	// the disk as it is: open intents stay as few as the files in flight.
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	for _, id := range s.openOn(s.changeKeys(changes)) {
		// As a failed call: recorded only if its files hold exactly what
		// it planned (Codex sends nothing after a patch it failed to apply,
		// and another writer's bytes are not the call's).
		if err := s.FailClient(ctx, id); err != nil {
			return nil, err
		}
	}
	plan := &ClientPlan{}
	unknown := false
	for _, ch := range changes {
		p, u, err := s.planClient(ctx, ch)
		if err != nil {
			if r, ok := AsRefusal(err); ok {
				s.NoteRefusal(call.Tool, r)
			}
			return nil, err
		}
		plan.Receipts = append(plan.Receipts, p.Receipts...)
		plan.Diff += p.Diff
		unknown = unknown || u
	}
	files := make([]engine.IntentFile, 0, len(plan.Receipts))
	for _, r := range plan.Receipts {
		r.DryRun, r.Tool = false, call.Tool
		f, err := s.saveClientFile(ctx, r)
		if err != nil {
			return nil, err
		}
		files = append(files, f)
	}
	it := history.ClientIntent{ID: call.ID, Tool: call.Tool, Files: files, Unknown: unknown}
	if err := s.e.Log(true, engine.RecClientIntent, "", it); err != nil {
		return nil, fmt.Errorf("%s: the journal could not record what the change replaces, so it must not run: %w", call.Tool, err)
	}
	return plan, nil
}

// changeKeys returns the keys of the files the changes name (a patch's
// every path); a path that does not resolve is left out (its change is
// refused when planned).
func (s *Session) changeKeys(changes []any) map[string]bool {
	var paths []string
	for _, ch := range changes {
		switch a := ch.(type) {
		case EditArgs:
			paths = append(paths, a.Path)
		case WriteArgs:
			paths = append(paths, a.Path)
		case ClientRewrite:
			paths = append(paths, a.Path)
		case PatchArgs:
			if files, err := patch.Parse(a.Patch); err == nil {
				for _, f := range files {
					paths = append(paths, f.Path, f.MoveTo)
				}
			}
		}
	}
	keys := map[string]bool{}
	for _, p := range paths {
		if p == "" {
			continue
		}
		if t, ref := s.e.Resolve("edit", p); ref == nil {
			keys[t.Key()] = true
		}
	}
	return keys
}

// openOn returns the ids of the open client intents that name one of the
// keys, in the order of their ids.
func (s *Session) openOn(names map[string]bool) []string {
	s.e.Mu.Lock()
	defer s.e.Mu.Unlock()
	var ids []string
	for id, it := range s.e.Clients {
		for _, f := range it.Files {
			if names[f.Key] || (f.Data.FromKey != "" && names[f.Data.FromKey]) {
				ids = append(ids, id)
				break
			}
		}
	}
	slices.Sort(ids)
	return ids
}

// planClient plans change as a dry run of stet's own tool.
func (s *Session) planClient(ctx context.Context, change any) (plan *ClientPlan, unknown bool, err error) {
	one := func(res *MutationResult, err error) (*ClientPlan, bool, error) {
		if err != nil {
			return nil, false, err
		}
		return &ClientPlan{Receipts: []receipt.Receipt{res.Receipt}, Diff: res.Diff}, false, nil
	}
	switch a := change.(type) {
	case EditArgs:
		a.DryRun = true
		return one(s.Edit(ctx, a))
	case WriteArgs:
		a.DryRun = true
		return one(s.Write(ctx, a))
	case PatchArgs:
		a.DryRun = true
		res, err := s.Patch(ctx, a)
		if err != nil {
			return nil, false, err
		}
		return &ClientPlan{Receipts: res.Receipts, Diff: res.Diff}, false, nil
	case ClientRewrite:
		if err := s.e.CatchUp(); err != nil {
			return nil, false, err
		}
		t, unlock, err := s.e.Claim(ctx, "write", a.Path)
		if err != nil {
			return nil, false, err
		}
		defer unlock()
		cur, err := t.ReadMax(s.e.WS.Opts.MaxFileBytes)
		if err != nil {
			return nil, false, s.e.WS.FileErr("write", t, err)
		}
		c, ref := s.planReplace(ctx, "write", t, cur, cur, "", true, true)
		if ref != nil {
			return nil, false, ref
		}
		res, err := s.e.Commit(ctx, c)
		p, _, err := one(res, err)
		return p, true, err
	}
	return nil, false, fmt.Errorf("stet: PrepareClient: %T is not a change (EditArgs, WriteArgs, PatchArgs or ClientRewrite)", change)
}

// saveClientFile saves the bytes r's change will replace (those of its
// source, for a move) as a blob, after checking they are still the ones the
// plan was made from, and returns the intent's entry for it.
func (s *Session) saveClientFile(ctx context.Context, r receipt.Receipt) (engine.IntentFile, error) {
	t, ref := s.e.Resolve(r.Tool, r.Path)
	if ref != nil {
		return engine.IntentFile{}, ref
	}
	f := engine.IntentFile{Key: t.Key(), Data: engine.ReceiptData{Receipt: r}}
	src := t
	if r.From != "" {
		if src, ref = s.e.Resolve(r.Tool, r.From); ref != nil {
			return engine.IntentFile{}, ref
		}
		f.Data.FromKey = src.Key()
	}
	if r.Before == nil {
		return f, nil
	}
	unlock, err := s.e.WS.LockAll(ctx, src)
	if err != nil {
		return engine.IntentFile{}, err
	}
	defer unlock()
	cur, err := src.ReadMax(s.e.WS.Opts.MaxFileBytes)
	if err != nil {
		return engine.IntentFile{}, s.e.WS.FileErr(r.Tool, src, err)
	}
	if v := string(fsys.VersionOf(cur)); v != r.Before.Version {
		return engine.IntentFile{}, engine.Refuse(KindChanged, src.Spelled, "%s changed while stet checked the change (%s, was %s); read it again, then make the change",
			src.Spelled, v, r.Before.Version)
	}
	if f.Data.Pre, err = s.e.WS.Journal.Put(cur); err != nil {
		return engine.IntentFile{}, fmt.Errorf("%s %s: the journal could not save the bytes the change replaces, so it must not run: %w", r.Tool, src.Spelled, err)
	}
	return f, nil
}

// FinishClient closes the client intent of call id, once the client's tool
// has run (or failed): each file is read back and compared with the plan.
// A file that holds exactly what the plan said gets a verified receipt, and
// the session observes it as after its own change; one that still holds
// its old bytes gets none; one that holds anything else (a formatter,
// another writer, a result stet did not work out) gets a receipt that is
// not verified, naming what it holds now. It returns the receipts written
// (none when id names no open intent: its check refused, or it was closed).
func (s *Session) FinishClient(ctx context.Context, id string) ([]*MutationResult, error) {
	it, ok, err := s.openClient(id)
	if err != nil || !ok {
		return nil, err
	}
	var out []*MutationResult
	for _, f := range it.Files {
		if err := ctx.Err(); err != nil {
			return out, err
		}
		res, err := s.finishClientFile(ctx, it, f)
		if err != nil {
			return out, err
		}
		if res != nil {
			out = append(out, res)
		}
	}
	state := history.ClientLanded
	if len(out) == 0 {
		state = history.ClientUnchanged
	}
	return out, s.closeClient(id, state)
}

// openClient returns the open client intent of call id, after catching up
// with what other processes appended (a hook's events are processes of
// their own); ok is false when none is open.
func (s *Session) openClient(id string) (it history.ClientIntent, ok bool, err error) {
	if err := s.e.CatchUp(); err != nil {
		return it, false, err
	}
	s.e.Mu.Lock()
	defer s.e.Mu.Unlock()
	it, ok = s.e.Clients[id]
	return it, ok, nil
}

// closeClient closes the client intent of call id with its outcome.
func (s *Session) closeClient(id, state string) error {
	return s.e.Log(false, engine.RecClientDone, "", history.ClientDone{ID: id, State: state})
}

// FailClient closes the client intent of call id when the client's tool
// failed (Claude Code's PostToolUseFailure): no receipt is written, as the
// tool changed nothing; bytes that differ from the saved ones were changed
// by something else, and the review shows them as changed outside. Only a
// call whose files hold exactly what it planned (it landed and then
// reported an error) is recorded as FinishClient records it.
func (s *Session) FailClient(ctx context.Context, id string) error {
	it, ok, err := s.openClient(id)
	if err != nil || !ok {
		return err
	}
	landed := len(it.Files) > 0 && !it.Unknown
	for _, f := range it.Files {
		t, err := s.e.WS.TargetOfKey(f.Key)
		if err != nil {
			return err
		}
		now, err := s.readHeld(t)
		if err != nil {
			return err
		}
		r := f.Data.Receipt
		if (r.After == nil) == now.exists || (r.After != nil && now.version() != r.After.Version) {
			landed = false
		}
	}
	if landed {
		_, err := s.FinishClient(ctx, id)
		return err
	}
	return s.closeClient(id, history.ClientFailed)
}

// held is what one name holds: its bytes, or nothing.
type held struct {
	b      []byte
	exists bool
}

func (h held) version() string {
	if !h.exists {
		return ""
	}
	return string(fsys.VersionOf(h.b))
}

// readHeld reads what t holds now.
func (s *Session) readHeld(t engine.Target) (held, error) {
	b, err := t.ReadMax(s.e.WS.Opts.MaxFileBytes)
	switch {
	case errors.Is(err, fsys.ErrNotFound):
		return held{}, nil
	case err != nil:
		return held{}, s.e.WS.FileErr("read", t, err)
	}
	return held{b: b, exists: true}, nil
}

// finishClientFile writes the receipt of one file of a client intent, or
// nothing when the file was left as it was.
func (s *Session) finishClientFile(ctx context.Context, it history.ClientIntent, f engine.IntentFile) (*MutationResult, error) {
	r := f.Data.Receipt
	t, err := s.e.WS.TargetOfKey(f.Key)
	if err != nil {
		return nil, err
	}
	src := t
	if f.Data.FromKey != "" {
		if src, err = s.e.WS.TargetOfKey(f.Data.FromKey); err != nil {
			return nil, err
		}
	}
	unlock, err := s.e.WS.LockAll(ctx, t, src)
	if err != nil {
		return nil, err
	}
	defer unlock()
	now, err := s.readHeld(t)
	if err != nil {
		return nil, err
	}
	from := now
	if f.Data.FromKey != "" {
		if from, err = s.readHeld(src); err != nil {
			return nil, err
		}
	}
	var pre []byte
	if r.Before != nil {
		if pre, err = history.Preimage(s.e.WS.Journal, &f.Data, nil); err != nil {
			return nil, fmt.Errorf("%s %s: %w", it.Tool, r.Path, err)
		}
	}
	before := r.Before != nil && from.exists && from.version() == r.Before.Version
	untouched := (r.Before == nil && !now.exists) || (f.Data.FromKey == "" && before) || (f.Data.FromKey != "" && before && !now.exists)
	if untouched {
		return nil, nil
	}
	c := &engine.Change{
		Tool: it.Tool, T: t, Key: f.Key, Pre: pre, Post: now.b, Matches: r.Matches,
		Create: r.Before == nil, Delete: r.After == nil && f.Data.FromKey == "",
		Intent: it.ID, // closed by the client_done record, not by a done record
	}
	if r.Before != nil {
		c.PreVer = fsys.Version(r.Before.Version)
	}
	if f.Data.FromKey != "" {
		c.Src = &src
	}
	if o, ok := s.e.Observed(src.Key()); ok {
		c.Seen = &o
	}
	r.Time = s.e.WS.Now()
	landed := !it.Unknown && s.holdsPlan(r, f.Data.FromKey != "", pre, now, from)
	if landed {
		r.Verified = true
	} else {
		r = s.unplanned(it, r, pre, now)
		c.Matches = r.Matches
	}
	data := f.Data
	data.Receipt = r
	if err := s.e.Record(c, &data); err != nil {
		return nil, err
	}
	msg := fmt.Sprintf("%s %s: receipt %s (verified)", it.Tool, t.Shown(), r.ID)
	if !landed {
		msg = fmt.Sprintf("%s %s: receipt %s (not verified: %s)", it.Tool, t.Shown(), r.ID, r.Notes[len(r.Notes)-1])
	}
	var diff string
	if now.exists {
		c.Post = now.b
		diff = c.Diff()
	}
	return &MutationResult{Message: msg, Receipt: r, Diff: diff}, nil
}

// holdsPlan reports whether the disk holds exactly what the planned
// receipt r says: the new name the after state (proven against the
// preimage region by region), a deleted or moved-away name nothing.
func (s *Session) holdsPlan(r receipt.Receipt, move bool, pre []byte, now, from held) bool {
	if r.After == nil {
		return !now.exists
	}
	if !now.exists || now.version() != r.After.Version {
		return false
	}
	if move && from.exists {
		return false
	}
	if len(r.Matches) == 0 {
		return true // a move of unchanged bytes: the versions prove it
	}
	return receipt.Verify(pre, now.b, r) == nil
}

// unplanned is the receipt of a client change whose file does not hold
// what the plan said: the after state is what it holds now, the match the
// whole file, and a note says so, with both versions.
func (s *Session) unplanned(it history.ClientIntent, r receipt.Receipt, pre []byte, now held) receipt.Receipt {
	planned := "(none)"
	if r.After != nil {
		planned = r.After.Version
	}
	r.Verified = false
	r.After = nil
	if now.exists {
		r.After = receipt.StateOf(now.b)
	}
	r.Matches = []receipt.Match{{Offset: 0, OldBytes: len(pre), NewBytes: len(now.b), Line: 1}}
	var why string
	switch {
	case it.Unknown:
		why = fmt.Sprintf("stet does not work out what %s writes, so it records what %s holds now", it.Tool, r.Path)
	case !now.exists:
		why = fmt.Sprintf("%s is gone, but %s said it would hold %s", r.Path, it.Tool, planned)
	default:
		why = fmt.Sprintf("%s holds %s, not what %s said it would (%s): a formatter or another writer changed it", r.Path, r.After.Version, it.Tool, planned)
	}
	r.Notes = append(r.Notes, why+"; the bytes before are saved in the journal")
	return r
}

// ClientRead is a read by a client's own tool, as the client reports it.
type ClientRead struct {
	Tool   string // the client's name of the tool
	Path   string
	Offset int // the first line shown (1-based; 0: the first)
	Limit  int // how many lines were shown (0: to the end)
	// Shown, when the client reports it, is the text the tool returned:
	// the lines are observed only if the file holds it there now (a line
	// end or a carriage return aside), so a file changed between the read
	// and its report is not taken as seen.
	Shown *string
}

// ObserveClient records that a client's own tool showed the model lines
// [Offset, Offset+Limit) of a file, at the version the file holds now, as a
// read by stet would. It refuses a path outside the workspace, a deny-read
// file and one it cannot read, as read does, and observes nothing then; a
// file that does not hold the Shown text is not observed either.
func (s *Session) ObserveClient(ctx context.Context, r ClientRead) error {
	if err := s.e.CatchUp(); err != nil {
		return err
	}
	t, ref := s.e.Resolve("read", r.Path)
	if ref != nil {
		return ref
	}
	if ref := s.e.WS.Denied(t); ref != nil {
		return ref
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	b, err := t.ReadMax(s.e.WS.Opts.MaxFileBytes)
	if err != nil {
		return s.e.WS.FileErr("read", t, err)
	}
	lines := receipt.Lines(b)
	from := max(r.Offset, 1)
	to := lines
	if r.Limit > 0 {
		to = min(lines, from+r.Limit-1)
	}
	seen := lineSpan(b, from, to)
	if r.Shown != nil && !sameText(b[seen.Start:seen.End], *r.Shown) {
		return nil
	}
	whole := seen.Start == 0 && seen.End == len(b)
	return s.e.ObserveFile(t, string(fsys.VersionOf(b)), len(b), lines, seen, whole)
}

// sameText reports whether a span of a file holds the text a client's
// tool showed of it: equal once carriage returns and a final line end are
// set aside on both.
func sameText(span []byte, shown string) bool {
	a := bytes.TrimSuffix(bytes.ReplaceAll(span, []byte("\r"), nil), []byte("\n"))
	b := strings.TrimSuffix(strings.ReplaceAll(shown, "\r", ""), "\n")
	return string(a) == b
}

// lineSpan is the byte range of lines from..to (1-based, inclusive) of b,
// each with its newline; empty when from is past the last line.
func lineSpan(b []byte, from, to int) policy.Range {
	start := frame.LineStart(b, from)
	if start < 0 {
		return policy.Range{Start: len(b), End: len(b)}
	}
	end := frame.LineStart(b, to+1)
	if end < 0 {
		end = len(b)
	}
	return policy.Range{Start: start, End: end}
}

// CheckClientRead refuses a read of path by a client's own tool (tool,
// as the client names it) where stet would refuse it: outside the
// workspace, or a deny-read file (or the state directory). It reads
// nothing. A deny-read refusal is journaled for review.
func (s *Session) CheckClientRead(tool, path string) error {
	t, ref := s.e.Resolve("read", path)
	if ref != nil {
		return ref
	}
	if ref := s.e.WS.Denied(t); ref != nil {
		s.NoteRefusal(tool, ref)
		return ref
	}
	return nil
}

// RecordClientEdits records a change a client's own tool has already made
// and told of only afterwards (Cursor's afterFileEdit): the literal
// replacements edits, applied in order, left path as it is now. Stet's
// rules did not check such a change, and nothing was saved before it ran:
// the bytes before are worked out by taking the replacements back, last
// first, each new string found exactly once, and proven by applying them
// again. The receipt is verified when they give the file exactly; when
// they cannot be taken back it is a *Refusal, and nothing is recorded.
func (s *Session) RecordClientEdits(ctx context.Context, call ClientCall, path string, edits []EditOp) (*MutationResult, error) {
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	t, unlock, err := s.e.Claim(ctx, "edit", path)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if ref := s.e.WS.Denied(t); ref != nil {
		return nil, ref
	}
	cur, err := t.ReadMax(s.e.WS.Opts.MaxFileBytes)
	if err != nil {
		return nil, s.e.WS.FileErr("edit", t, err)
	}
	pre := cur
	for i := len(edits) - 1; i >= 0; i-- {
		e := edits[i]
		if e.NewString == "" || bytes.Count(pre, []byte(e.NewString)) != 1 {
			return nil, engine.Refuse(KindAmbiguous, t.Spelled, "%s's edit %d of %s cannot be taken back to find the bytes before it (its new text is not in the file exactly once); nothing was recorded; `stet review` shows %s as changed outside",
				call.Tool, i+1, t.Spelled, t.Spelled)
		}
		pre = bytes.Replace(pre, []byte(e.NewString), []byte(e.OldString), 1)
	}
	ops := make([]textedit.Edit, len(edits))
	for i, e := range edits {
		ops[i] = textedit.Edit{Old: e.OldString, New: e.NewString}
	}
	res, err := textedit.ApplyContext(ctx, pre, ops, int(s.e.WS.Opts.MaxFileBytes))
	if err != nil || !bytes.Equal(res.Text, cur) {
		return nil, engine.Refuse(KindAmbiguous, t.Spelled, "%s's edits of %s do not give the file as it is when applied to the bytes worked out before them; nothing was recorded; `stet review` shows %s as changed outside",
			call.Tool, t.Spelled, t.Spelled)
	}
	blob, err := s.e.WS.Journal.Put(pre)
	if err != nil {
		return nil, fmt.Errorf("%s %s: the journal could not save the bytes before the change: %w", call.Tool, t.Spelled, err)
	}
	c := &engine.Change{Tool: call.Tool, T: t, Key: t.Key(), Pre: pre, PreVer: fsys.VersionOf(pre), Post: cur, Matches: res.Matches, Eol: res.EOL, Intent: call.ID}
	if o, ok := s.e.Observed(c.Key); ok {
		c.Seen = &o
	}
	r := s.e.NewReceipt(c)
	r.After = receipt.StateOf(cur)
	r.After.Mode = r.Before.Mode
	r.Verified = receipt.Verify(pre, cur, r) == nil
	r.Notes = append(r.Notes, call.Tool+" told stet of this change only after it landed: stet's rules did not check it, and the bytes before were worked out from the edits")
	data := &engine.ReceiptData{Receipt: r, Pre: blob}
	if err := s.e.Record(c, data); err != nil {
		return nil, err
	}
	return &MutationResult{Message: fmt.Sprintf("%s %s: receipt %s, recorded after the fact", call.Tool, t.Shown(), r.ID), Receipt: r, Diff: c.Diff()}, nil
}
