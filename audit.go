package stet

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/textedit"
)

// LogEntry is one receipt as the journal holds it.
type LogEntry struct {
	Seq     int64           `json:"seq"`
	Receipt receipt.Receipt `json:"receipt"`
	Undoes  string          `json:"undoes,omitempty"`
	Undone  bool            `json:"undone,omitempty"`
	data    *engine.ReceiptData
	key     string
}

// Log lists receipts, oldest first: all sessions' when session is empty,
// and only those of path when path is not empty.
func (ws *Workspace) Log(session, path string) ([]LogEntry, error) {
	var key string
	if path != "" {
		t, ref := ws.e.Resolve("log", path)
		if ref != nil {
			return nil, ref
		}
		key = t.Key()
	}
	var out []LogEntry
	var undos history.Undos
	fn := func(r journal.Record) error {
		switch history.ShownOf(r.Type) {
		case history.ShownUndo:
			undos.Add(r)
		case history.ShownChange:
			if key != "" && r.Path != key {
				var d engine.ReceiptData
				if json.Unmarshal(r.Data, &d) != nil || d.FromKey != key {
					return nil
				}
			}
			var d engine.ReceiptData
			if err := json.Unmarshal(r.Data, &d); err != nil {
				return fmt.Errorf("journal line %d: %w", r.Seq, err)
			}
			out = append(out, LogEntry{Seq: r.Seq, Receipt: d.Receipt, Undoes: d.Undoes, data: &d, key: r.Path})
		}
		return nil
	}
	var err error
	if session != "" {
		err = ws.e.Journal.Session(session, fn)
		if err == nil && session != engine.ReviewSession {
			// What a person took back on the review page is undone too.
			err = ws.e.Journal.Session(engine.ReviewSession, func(r journal.Record) error {
				undos.Add(r)
				return nil
			})
		}
	} else {
		err = ws.e.Journal.Scan(fn)
	}
	if err != nil {
		return nil, err
	}
	for i := range out {
		out[i].Undone = undos.Undone(out[i].Receipt.ID)
	}
	return out, nil
}

// Show returns one receipt and a unified diff of its change (rebuilt from the
// journal and, when the file still holds its result, the file).
func (ws *Workspace) Show(id string) (LogEntry, string, error) {
	all, err := ws.Log("", "")
	if err != nil {
		return LogEntry{}, "", err
	}
	for _, e := range all {
		if e.Receipt.ID != id {
			continue
		}
		return e, ws.entryDiff(e), nil
	}
	return LogEntry{}, "", fmt.Errorf("no receipt %s in the journal (stet log lists them): %w", id, ErrNotFound)
}

// entryDiff rebuilds the diff of a receipt as well as the journal allows.
func (ws *Workspace) entryDiff(e LogEntry) string {
	r := e.Receipt
	if ws.e.Hides(r.Path) || ws.e.Hides(r.From) {
		return engine.HiddenDiff(r.Path)
	}
	var pre []byte
	if e.data.Pre != "" {
		if b, err := ws.e.Journal.Get(e.data.Pre); err == nil {
			pre = b
		}
	}
	cur, curOK := ws.currentBytes(r.Path)
	holds := curOK && r.After != nil && string(fsys.VersionOf(cur)) == r.After.Version
	switch {
	case r.Before == nil && holds:
		return textedit.DiffCreate(r.Path, cur)
	case r.After == nil && pre != nil:
		return textedit.DiffDelete(r.Path, pre)
	case holds && pre == nil && len(e.data.Old) == len(r.Matches):
		if b, err := history.Preimage(ws.e.Journal, e.data, cur); err == nil {
			pre = b
		}
	}
	if holds && pre != nil {
		return textedit.Diff(r.Path, pre, cur)
	}
	// Only the replaced regions are known.
	var b strings.Builder
	for i, m := range r.Matches {
		fmt.Fprintf(&b, "@@ line %d: %d bytes replaced by %d @@\n", m.Line, m.OldBytes, m.NewBytes)
		if i < len(e.data.Old) {
			for _, l := range strings.SplitAfter(e.data.Old[i], "\n") {
				if l != "" {
					b.WriteString("-" + strings.TrimSuffix(l, "\n") + "\n")
				}
			}
		}
	}
	if b.Len() > 0 {
		b.WriteString("(the file no longer holds this change's result; new bytes are known by size and hash only)\n")
	}
	return b.String()
}

func (ws *Workspace) currentBytes(p string) ([]byte, bool) {
	t, ref := ws.e.Resolve("show", p)
	if ref != nil {
		return nil, false
	}
	b, err := t.Root.P.ReadFile(t.Rel)
	return b, err == nil
}

// Problem is one finding of Verify.
type Problem struct {
	Receipt string `json:"receipt,omitempty"`
	Line    int64  `json:"line,omitempty"`
	Blob    string `json:"blob,omitempty"`
	Msg     string `json:"message"`
}

// VerifyReport is what Verify found.
type VerifyReport struct {
	Receipts int       `json:"receipts"`
	Checked  int       `json:"checked"` // receipts re-verified byte for byte against the file
	Lines    int       `json:"lines"`
	Blobs    int       `json:"blobs"`
	Problems []Problem `json:"problems"`
}

// OK reports whether nothing was wrong.
func (r VerifyReport) OK() bool { return len(r.Problems) == 0 }

// Verify re-checks receipts against the stored bytes and the journal's hash
// chain. With id empty it checks every receipt and the whole journal;
// otherwise only that receipt (and still the chain).
func (ws *Workspace) Verify(id string) (VerifyReport, error) {
	var rep VerifyReport
	jr, err := ws.e.Journal.Verify()
	if err != nil {
		return rep, err
	}
	rep.Lines, rep.Blobs = jr.Lines, jr.Blobs
	for _, p := range jr.Problems {
		rep.Problems = append(rep.Problems, Problem{Line: p.Line, Blob: p.Blob, Msg: p.Msg})
	}
	all, err := ws.Log("", "")
	if errors.Is(err, journal.ErrCorrupt) && !jr.OK() {
		// The chain is broken and its problems are reported above; no
		// receipt is checked against lines the chain does not vouch for.
		return rep, nil
	}
	if err != nil {
		return rep, err
	}
	last := map[string]int{} // key -> index of the newest receipt
	for i, e := range all {
		last[e.key] = i
	}
	found := id == ""
	for i, e := range all {
		if id != "" && e.Receipt.ID != id {
			continue
		}
		found = true
		rep.Receipts++
		for _, msg := range ws.checkEntry(e, last[e.key] == i, &rep) {
			rep.Problems = append(rep.Problems, Problem{Receipt: e.Receipt.ID, Line: e.Seq, Msg: msg})
		}
	}
	if !found {
		return rep, fmt.Errorf("no receipt %s in the journal (stet log lists them): %w", id, ErrNotFound)
	}
	if id == "" {
		probs, err := ws.intentProblems()
		if err != nil {
			return rep, err
		}
		rep.Problems = append(rep.Problems, probs...)
	}
	return rep, nil
}

// intentProblems reports every write-ahead intent that was not resolved: one
// closed as unresolved (the disk held neither its old nor its new bytes), and
// one still open whose process is gone (the next Open that may change files
// resolves it).
func (ws *Workspace) intentProblems() ([]Problem, error) {
	x, _, err := ws.e.ReadIntents(0, false)
	if err != nil {
		return nil, err
	}
	var out []Problem
	for _, p := range x.All() {
		d, closed := x.Closed(p.Data.ID)
		switch {
		case closed && d.State == engine.DoneUnresolved:
			out = append(out, Problem{Line: p.Seq, Msg: fmt.Sprintf("change %s was interrupted and could not be resolved: %s", p.Data.ID, d.Detail)})
		case !closed && !ws.e.Alive(p.Data):
			out = append(out, Problem{Line: p.Seq, Msg: fmt.Sprintf("change %s was interrupted and is not resolved yet; run any stet command that may change files to resolve it", p.Data.ID)})
		}
	}
	return out, nil
}

// checkEntry checks one receipt's own consistency, its saved preimage, and,
// when it is the newest change of a file that still holds its result, the
// whole receipt against the file.
func (ws *Workspace) checkEntry(e LogEntry, newest bool, rep *VerifyReport) []string {
	var out []string
	r := e.Receipt
	if r.Before != nil && r.After != nil && len(r.Matches) > 0 {
		size := r.Before.Bytes
		for _, m := range r.Matches {
			size += m.NewBytes - m.OldBytes
		}
		if size != r.After.Bytes {
			out = append(out, fmt.Sprintf("matches change %d bytes into %d, but the receipt says %d", r.Before.Bytes, size, r.After.Bytes))
		}
	}
	if e.data.Pre != "" {
		b, err := ws.e.Journal.Get(e.data.Pre)
		switch {
		case err != nil:
			out = append(out, fmt.Sprintf("saved previous content %s: %v", e.data.Pre, err))
		case r.Before != nil && string(fsys.VersionOf(b)) != r.Before.Version:
			out = append(out, "saved previous content does not match the before version")
		}
	}
	if !newest || !r.Verified || r.Tool == "move" {
		return out
	}
	cur, ok := ws.currentBytes(r.Path)
	if !ok || r.After == nil || r.Before == nil || string(fsys.VersionOf(cur)) != r.After.Version {
		return out
	}
	pre, err := history.Preimage(ws.e.Journal, e.data, cur)
	if err != nil {
		return append(out, err.Error())
	}
	full := r
	for i := range full.Matches {
		full.Matches[i].Old = pre[full.Matches[i].Offset : full.Matches[i].Offset+full.Matches[i].OldBytes]
	}
	if err := receipt.Verify(pre, cur, full); err != nil {
		out = append(out, "the file does not match its receipt: "+err.Error())
	}
	rep.Checked++
	return out
}
