package stet

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
)

// Write-ahead intents (SPEC section 5). Before the first byte of a change
// moves, an intent record holding everything undo needs (the planned
// receipt, the old regions or the saved blob of the old bytes, both names of
// a move) is durable in the journal; after verification the receipt and a
// done record follow. A multi-file patch is one intent. At Open, every intent
// without its done record whose process is gone is resolved against the
// disk: all old bytes (dropped), all new bytes (completed, its receipts
// verified and journaled), a patch half applied (the new files rolled back),
// or anything else (reported as unresolved; nothing is changed).
//
// Intent and done records live in their own journal session, intentSession,
// whose index is read from a cursor, so an Open with nothing pending costs a
// stat.
const (
	intentSession = "stet:intents"
	intentCursor  = "intents"
	recIntent     = "intent"
	recDone       = "done"
)

// Outcomes of an intent, in its done record.
const (
	doneCommitted  = "committed"   // landed and recorded by the process that made it
	doneDropped    = "dropped"     // nothing moved
	doneCompleted  = "completed"   // landed; its receipts were completed at open
	doneRolledBack = "rolled_back" // part of a patch landed; it was taken back
	doneUnresolved = "unresolved"  // the disk holds neither state: reported, not touched
)

// intentFile is one file of an intent: the receipt it plans and the data
// undo needs.
type intentFile struct {
	Key  string      `json:"key"`
	Data receiptData `json:"data"`
	Dir  bool        `json:"dir,omitempty"` // a directory move
}

// intentData is the payload of an intent record.
type intentData struct {
	ID      string       `json:"id"`
	Session string       `json:"session"`
	PID     int          `json:"pid"`
	Start   string       `json:"start,omitempty"` // the process's start time, to tell a reused pid
	Files   []intentFile `json:"files"`
}

// doneData is the payload of a done record.
type doneData struct {
	ID     string `json:"id"`
	State  string `json:"state"`
	Detail string `json:"detail,omitempty"`
}

// plannedFile is the intent entry of c, whose receipt r has its after state.
func plannedFile(c *change, r receipt.Receipt, data *receiptData) intentFile {
	d := *data
	d.Receipt = r
	if c.save && c.over == nil && !c.create && d.Pre == "" {
		d.Pre = string(c.preVer) // blobs are named by the sha256 of their bytes
	}
	if c.over != nil && d.Over == "" {
		d.Over = string(c.overVer)
	}
	return intentFile{Key: c.key, Data: d, Dir: c.dir}
}

// writeIntent makes the intent of files durable in the journal.
func (s *Session) writeIntent(id string, files []intentFile) error {
	return s.writeIntentThen(id, files, nil)
}

// writeIntentThen is writeIntent that calls durable (if not nil) as soon as
// the intent is durable in the journal's log, while the journal's index of
// intents catches up (journal.AppendThen).
func (s *Session) writeIntentThen(id string, files []intentFile, durable func()) error {
	if h := s.ws.opts.Hooks.BeforeIntent; h != nil {
		if err := h(id); err != nil {
			return fmt.Errorf("recording the intent of the change (nothing was changed): %w", err)
		}
	}
	it := intentData{ID: id, Session: s.id, PID: os.Getpid(), Start: selfStart(), Files: files}
	b, err := json.Marshal(it)
	if err != nil {
		return err
	}
	_, err = s.ws.journal.AppendThen(durable, journal.Record{Type: recIntent, Session: intentSession, Data: b})
	if err != nil {
		return fmt.Errorf("recording the intent of the change (nothing was changed): %w", err)
	}
	return nil
}

// doneRecord is the record that closes intent id.
func doneRecord(id, state, detail string) journal.Record {
	b, _ := json.Marshal(doneData{ID: id, State: state, Detail: detail})
	return journal.Record{Type: recDone, Session: intentSession, Data: b}
}

// selfStart is procStart of this process, read once: it does not change.
var selfStart = sync.OnceValue(func() string { return procStart(os.Getpid()) })

// procStart returns the start time of process pid (clock ticks since boot,
// from /proc), or "" where that cannot be read.
func procStart(pid int) string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat") // procfs: not a workspace path
	if err != nil {
		return ""
	}
	// The command name (field 2) may hold spaces; the fields after it do not.
	s := string(b)
	if i := strings.LastIndexByte(s, ')'); i >= 0 {
		s = s[i+1:]
	}
	f := strings.Fields(s)
	if len(f) < 20 {
		return ""
	}
	return f[19] // field 22 of the whole line
}

// alive reports whether the process that wrote it is still running (and is
// the same process, not a reused pid).
func (it intentData) alive() bool {
	if it.PID <= 0 {
		return false
	}
	now := procStart(it.PID)
	if now == "" {
		if _, err := os.Stat("/proc/self/stat"); err == nil {
			return false // /proc works here and has no such process
		}
		p, err := os.FindProcess(it.PID)
		return err == nil && p.Signal(syscall.Signal(0)) == nil
	}
	return it.Start == "" || now == it.Start
}

// recoverIntents resolves, at Open, the intents of processes that died
// before closing them. It reads only the part of the intent index past the
// cursor, and leaves the cursor at the first intent still in flight.
func (ws *Workspace) recoverIntents(ctx context.Context) error {
	dead, err := ws.scanIntents(ctx, false)
	if err != nil || !dead {
		return err
	}
	// Something is to be resolved: one process at a time, reading again
	// under the lock (another process may have resolved it meanwhile).
	return ws.journal.Exclusive(intentCursor, func() error {
		_, err := ws.scanIntents(ctx, true)
		return err
	})
}

// scanIntents reads the intents past the cursor. Without resolve it only
// reports whether one of a dead process is open; with resolve it resolves
// those and moves the cursor.
func (ws *Workspace) scanIntents(ctx context.Context, resolve bool) (dead bool, err error) {
	from := ws.journal.Cursor(intentCursor)
	type pending struct {
		it  intentData
		off int64
	}
	var open []pending
	done := map[string]bool{}
	end, err := ws.journal.SessionFrom(intentSession, from, func(r journal.Record, off int64) error {
		switch r.Type {
		case recIntent:
			var it intentData
			if err := json.Unmarshal(r.Data, &it); err != nil {
				return fmt.Errorf("journal line %d: %w", r.Seq, err)
			}
			open = append(open, pending{it, off})
		case recDone:
			var d doneData
			if err := json.Unmarshal(r.Data, &d); err == nil {
				done[d.ID] = true
			}
		}
		return nil
	})
	if err != nil {
		return false, err
	}
	cursor := end
	for _, p := range open {
		if done[p.it.ID] {
			continue
		}
		if p.it.alive() {
			cursor = min(cursor, p.off)
			continue
		}
		dead = true
		ws.crashed.Store(true) // its temp files may lie anywhere: sweep the tree
		if !resolve {
			continue
		}
		if _, err := ws.resolveIntent(ctx, p.it); err != nil {
			// Left pending: stet verify --all reports it, and the next
			// Open tries again.
			cursor = min(cursor, p.off)
		}
	}
	if cursor != from && (resolve || !dead) {
		ws.journal.SetCursor(intentCursor, cursor) // derived data: a lost update only rereads
	}
	return dead, nil
}

// targetOfKey maps a file key back to a target in its root.
func (ws *Workspace) targetOfKey(key string) (target, error) {
	i := strings.IndexByte(key, ':')
	if i < 0 {
		return target{}, fmt.Errorf("bad file key %q", key)
	}
	ri, err := strconv.Atoi(key[:i])
	if err != nil || ri < 0 || ri >= len(ws.roots) {
		return target{}, fmt.Errorf("bad file key %q", key)
	}
	t := target{root: ws.roots[ri], ri: ri, rel: key[i+1:]}
	t.spelled = t.display()
	return t.resolved(), nil
}

// fileState is where one file of an intent stands on disk.
type fileState int

const (
	stateOld fileState = iota
	stateNew
	stateNeither
)

// versionAt returns the version of the regular file at t, or "" when
// nothing is there.
func versionAt(t target) (string, bool, error) {
	b, err := t.root.p.ReadFile(t.rel)
	switch {
	case err == nil:
		return string(fsys.VersionOf(b)), true, nil
	case errors.Is(err, fsys.ErrNotFound):
		return "", false, nil
	case errors.Is(err, fsys.ErrIsDir):
		return "", true, nil
	}
	return "", false, err
}

// classify tells whether f's file holds its old state, its new one, or
// neither.
func (ws *Workspace) classify(f intentFile) (fileState, error) {
	r := f.Data.Receipt
	t, err := ws.targetOfKey(f.Key)
	if err != nil {
		return stateNeither, err
	}
	cur, there, err := versionAt(t)
	if err != nil {
		return stateNeither, err
	}
	if f.Data.FromKey != "" {
		from, err := ws.targetOfKey(f.Data.FromKey)
		if err != nil {
			return stateNeither, err
		}
		old, oldThere, err := versionAt(from)
		if err != nil {
			return stateNeither, err
		}
		moved := r.After == nil || cur == r.After.Version
		kept := r.Before == nil || old == r.Before.Version
		over := ""
		if f.Data.Over != "" {
			over = f.Data.Over
		}
		switch {
		case there && moved && !oldThere:
			return stateNew, nil
		case there && moved && over != "" && old == over:
			// Stopped between the exchange and the unlink of the swapped-out
			// target (saved in the journal as Over): finish the move.
			if _, err := from.root.p.Remove(from.rel, fsys.Expected{Version: fsys.Version(old)}); err != nil {
				return stateNeither, err
			}
			return stateNew, nil
		case oldThere && kept && (!there && over == "" || there && over != "" && cur == over):
			return stateOld, nil
		}
		return stateNeither, nil
	}
	switch {
	case r.After != nil && there && cur == r.After.Version:
		return stateNew, nil
	case r.After == nil && !there:
		return stateNew, nil
	case r.Before != nil && there && cur == r.Before.Version:
		return stateOld, nil
	case r.Before == nil && !there:
		return stateOld, nil
	}
	return stateNeither, nil
}

// classifyAll classifies every file of an intent. Several changes of one
// file in one intent (an undo set that takes back two edits of a file) form
// a chain, applied in order: the file holds the chain's old bytes (all
// old), its last new bytes (all new), or the new bytes of one link (that
// link and the ones before it new, the rest old); anything else is neither.
func (ws *Workspace) classifyAll(files []intentFile) ([]fileState, error) {
	states := make([]fileState, len(files))
	chains := map[string][]int{}
	for i, f := range files {
		if f.Data.FromKey == "" && !f.Dir {
			chains[f.Key] = append(chains[f.Key], i)
		}
	}
	for i, f := range files {
		if idx := chains[f.Key]; len(idx) > 1 && f.Data.FromKey == "" && !f.Dir {
			continue // classified with its chain below
		}
		st, err := ws.classify(f)
		if err != nil {
			return nil, err
		}
		states[i] = st
	}
	for key, idx := range chains {
		if len(idx) < 2 {
			continue
		}
		t, err := ws.targetOfKey(key)
		if err != nil {
			return nil, err
		}
		cur, there, err := versionAt(t)
		if err != nil {
			return nil, err
		}
		version := func(st *receipt.State) (string, bool) {
			if st == nil {
				return "", false
			}
			return st.Version, true
		}
		// landed is how many links of the chain the disk shows applied.
		landed := -1
		if v, ok := version(files[idx[0]].Data.Receipt.Before); ok == there && (!ok || v == cur) {
			landed = 0
		}
		for k, i := range idx {
			if v, ok := version(files[i].Data.Receipt.After); ok == there && (!ok || v == cur) {
				landed = k + 1
			}
		}
		for k, i := range idx {
			switch {
			case landed < 0:
				states[i] = stateNeither
			case k < landed:
				states[i] = stateNew
			default:
				states[i] = stateOld
			}
		}
	}
	return states, nil
}

// resolveIntent settles an intent against the disk and closes it with a
// done record; it returns the outcome.
func (ws *Workspace) resolveIntent(ctx context.Context, it intentData) (string, error) {
	states, err := ws.classifyAll(it.Files)
	if err != nil {
		return "", err
	}
	var nOld, nNew int
	for _, st := range states {
		switch st {
		case stateOld:
			nOld++
		case stateNew:
			nNew++
		}
	}
	s, err := ws.Session(it.Session)
	if err != nil {
		return "", err
	}
	var outcome, detail string
	switch {
	case nOld == len(states):
		outcome = doneDropped
	case nNew == len(states):
		if err := s.completeReceipts(it); err != nil {
			return "", err
		}
		outcome = doneCompleted
	case nOld+nNew == len(states):
		// Half a patch landed: take back the files that moved, newest first.
		for i := len(it.Files) - 1; i >= 0; i-- {
			if states[i] != stateNew {
				continue
			}
			f := it.Files[i]
			t, err := ws.targetOfKey(f.Key)
			if err != nil {
				return "", err
			}
			d := f.Data
			if _, err := s.revert(ctx, t, &d, "rollback"); err != nil {
				detail = fmt.Sprintf("%s could not be rolled back: %v", d.Receipt.Path, err)
				break
			}
		}
		outcome = doneRolledBack
		if detail != "" {
			outcome = doneUnresolved
		}
	default:
		var names []string
		for i, st := range states {
			if st == stateNeither {
				names = append(names, it.Files[i].Data.Receipt.Path)
			}
		}
		outcome = doneUnresolved
		detail = "neither the old nor the new bytes are in " + strings.Join(names, ", ") + "; the previous content is in the journal"
	}
	if _, err := ws.journal.Append(doneRecord(it.ID, outcome, detail)); err != nil {
		return "", err
	}
	return outcome, nil
}

// completeReceipts journals, verified against the disk, the receipts of an
// intent whose files all hold their new bytes and that its process did not
// get to record.
func (s *Session) completeReceipts(it intentData) error {
	have := map[string]bool{}
	err := s.ws.journal.Session(s.id, func(r journal.Record) error {
		if r.Type == recReceipt {
			var d receiptData
			if json.Unmarshal(r.Data, &d) == nil {
				have[d.Receipt.ID] = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// A link of a chain (several changes of one file) that a later link
	// follows is proven by that link, which starts from its result; the
	// last link is checked against the disk.
	next := map[int]int{}
	last := map[string]int{}
	for i, f := range it.Files {
		if f.Data.FromKey != "" || f.Dir {
			continue
		}
		if j, ok := last[f.Key]; ok {
			next[j] = i
		}
		last[f.Key] = i
	}
	atRest := make(map[int]bool, len(it.Files))
	for i, f := range it.Files {
		if _, chained := next[i]; !chained {
			atRest[i] = s.verifyAtRest(f) == nil
		}
	}
	var verified func(i int) bool
	verified = func(i int) bool {
		j, chained := next[i]
		if !chained {
			return atRest[i]
		}
		a, b := it.Files[i].Data.Receipt.After, it.Files[j].Data.Receipt.Before
		return a != nil && b != nil && a.Version == b.Version && verified(j)
	}
	var recs []journal.Record
	for i, f := range it.Files {
		d := f.Data
		if have[d.Receipt.ID] {
			continue
		}
		d.Receipt.Verified = verified(i)
		d.Receipt.Notes = append(d.Receipt.Notes, "recorded at the next start: the process that made this change stopped before recording it")
		recs = append(recs, s.rec(recReceipt, f.Key, &d))
		if d.Undoes != "" {
			recs = append(recs, s.rec(recUndo, f.Key, map[string]string{"receipt": d.Undoes, "by": d.Receipt.ID}))
		}
	}
	if len(recs) == 0 {
		return nil
	}
	_, err = s.ws.journal.Append(recs...)
	return err
}

// verifyAtRest checks a landed file of an intent against its receipt.
func (s *Session) verifyAtRest(f intentFile) error {
	r := f.Data.Receipt
	if f.Dir {
		return nil
	}
	t, err := s.ws.targetOfKey(f.Key)
	if err != nil {
		return err
	}
	cur, err := t.root.p.ReadFile(t.rel)
	if err != nil && !errors.Is(err, fsys.ErrNotFound) {
		return err
	}
	switch {
	case r.Before == nil:
		return receipt.Verify(nil, cur, r)
	case r.After == nil:
		if f.Data.Pre == "" {
			return errors.New("no saved preimage")
		}
		pre, err := s.ws.journal.Get(f.Data.Pre)
		if err != nil {
			return err
		}
		return receipt.Verify(pre, cur, r)
	case f.Data.FromKey != "":
		return receipt.Verify(cur, cur, r)
	}
	pre, err := s.preimage(&f.Data, cur)
	if err != nil {
		return err
	}
	return receipt.Verify(pre, cur, r)
}
