package engine

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/history"
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
	IntentSession = "stet:intents"
	intentCursor  = "intents"
	RecIntent     = history.TypeIntent
	RecDone       = history.TypeDone
)

// Outcomes of an intent, in its done record.
const (
	DoneCommitted  = "committed"            // landed and recorded by the process that made it
	DoneDropped    = "dropped"              // nothing moved
	DoneCompleted  = "completed"            // landed; its receipts were completed at open
	DoneRolledBack = "rolled_back"          // part of a patch landed; it was taken back
	DoneUnresolved = history.DoneUnresolved // the disk holds neither state: reported, not touched
)

// intentFile is one file of an intent: the receipt it plans and the data
// undo needs; its Temp is the temp file of planTemp.
type IntentFile = history.IntentFile

// intentData is the payload of an intent record.
type IntentData = history.Intent

// doneData is the payload of a done record.
type DoneData = history.Done

// plannedFile is the intent entry of c, whose receipt r has its after state.
func plannedFile(c *Change, r receipt.Receipt, data *ReceiptData) IntentFile {
	d := *data
	d.Receipt = r
	// Blobs are named by the sha256 of their bytes: the intent names the
	// blob its save step is writing.
	if pl := c.plan(); pl.saves(c) {
		switch {
		case pl.over && d.Over == "":
			d.Over = string(c.OverVer)
		case !pl.over && d.Pre == "":
			d.Pre = string(c.PreVer)
		}
	}
	f := IntentFile{Key: c.Key, Data: d, Dir: c.Dir}
	if c.temp != "" {
		f.Temp = path.Join(path.Dir(c.T.ResolvedRel()), c.temp)
	}
	return f
}

// planTemp names the temp file c writes through, once, before its intent
// is planned: a create, a replace or a delete on a provider that has temp
// files. A move renames in place and has none.
func (ws *Workspace) planTemp(c *Change) {
	if c.temp != "" || !c.plan().temp || c.DryRun {
		return
	}
	c.temp = fsys.TempName(c.T.Root.P) // "": the provider has no temp files (fsys.TempFiler)
}

// removeTemps removes the temp files the changes of it recorded, where a process
// that died left them; one already gone is fine. The names are exact (a
// random part each), so nothing else can be hit; a failure leaves clutter
// for the sweep, never a reason to stop.
func (ws *Workspace) removeTemps(it IntentData) (saved []string) {
	for _, f := range it.Files {
		if f.Temp == "" {
			continue
		}
		t, err := ws.TargetOfKey(f.Key)
		if err != nil {
			continue
		}
		dir := path.Dir(f.Temp)
		_, protected := t.Root.Rules.Protected(dir)
		_, denied := t.Root.Rules.Denied(dir)
		if protected || denied {
			continue // no change lands there; the sweep stays out too
		}
		if _, ok := t.Root.P.(fsys.TempFiler); !ok {
			continue
		}
		// Killed between an exchange and its compare, the temp file holds
		// what was at the name: the old bytes, or another writer's, which
		// the compare would have swapped back. Bytes that are neither this
		// change's old nor its new ones are saved before the file goes.
		if b, err := fsys.ReadFileMax(t.Root.P, f.Temp, ws.Opts.MaxFileBytes); err == nil {
			v := string(fsys.VersionOf(b))
			r := f.Data.Receipt
			known := r.Before != nil && v == r.Before.Version || r.After != nil && v == r.After.Version
			if !known {
				blob, err := ws.Journal.Put(b)
				if err != nil {
					continue // kept: the only copy
				}
				saved = append(saved, fmt.Sprintf("%s held other bytes than the change's (another writer's?), saved as %s", f.Temp, blob))
			}
		}
		fsys.RemoveTemp(t.Root.P, f.Temp)
	}
	return saved
}

// writeIntent makes the intent of files durable in the journal.
func (s *Session) writeIntent(id string, files []IntentFile) error {
	return s.writeIntentThen(id, files, nil)
}

// writeIntentThen is writeIntent that calls durable (if not nil) once the
// intent is durable in the journal's log (journal.AppendThen: one
// fdatasync of the log, shared with concurrent appends). Its line in the
// index of intents is derived data, written and synced later; a reader
// that finds the index behind takes the line from the log, so recovery
// sees every durable intent.
func (s *Session) writeIntentThen(id string, files []IntentFile, durable func()) error {
	if h := s.WS.Opts.Hooks.BeforeIntent; h != nil {
		if err := h(id); err != nil {
			return fmt.Errorf("recording the intent of the change (nothing was changed): %w", err)
		}
	}
	live, err := s.WS.Journal.Live()
	if err != nil {
		return fmt.Errorf("recording the intent of the change (nothing was changed): %w", err)
	}
	it := IntentData{ID: id, Session: s.id, PID: os.Getpid(), Start: selfStart(), Live: live, Files: files}
	b, err := json.Marshal(it)
	if err != nil {
		return err
	}
	_, err = s.WS.Journal.AppendThen(durable, journal.Record{Type: RecIntent, Session: IntentSession, Data: b})
	if err != nil {
		return fmt.Errorf("recording the intent of the change (nothing was changed): %w", err)
	}
	return nil
}

// doneRecord is the record that closes intent id.
func DoneRecord(id, state, detail string) journal.Record {
	b, _ := json.Marshal(DoneData{ID: id, State: state, Detail: detail})
	return journal.Record{Type: RecDone, Session: IntentSession, Data: b}
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

// alive reports whether the process that wrote it is still at work: it
// holds the liveness lock the intent names (journal.Live), which the kernel
// releases when the process dies, in whatever PID namespace it runs. An
// intent without one (written before liveness locks) falls back to the
// process id and start time.
func (ws *Workspace) Alive(it IntentData) bool {
	if it.Live != "" {
		return ws.Journal.Alive(it.Live)
	}
	if it.PID <= 0 {
		return false
	}
	now := procStart(it.PID)
	if now == "" {
		if _, err := os.Stat("/proc/self/stat"); err == nil { // procfs: not a workspace path
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
	dead, err := ws.ScanIntents(ctx, false)
	if err != nil || !dead {
		return err
	}
	// Something is to be resolved: one process at a time, reading again
	// under the lock (another process may have resolved it meanwhile).
	return ws.Journal.Exclusive(intentCursor, func() error {
		_, err := ws.ScanIntents(ctx, true)
		return err
	})
}

// scanIntents reads the intents past the cursor. Without resolve it only
// reports whether one of a dead process is open; with resolve it resolves
// those and moves the cursor.
func (ws *Workspace) ScanIntents(ctx context.Context, resolve bool) (dead bool, err error) {
	from := ws.Journal.Cursor(intentCursor)
	intents, end, err := ws.ReadIntents(from, true)
	if err != nil {
		return false, err
	}
	cursor := end
	// Newest first: a rollback that recovery itself started and did not
	// finish (a process killed while resolving) is an intent nested in the
	// one it rolls back, and is settled before it, so the outer intent sees
	// the disk the inner one left and takes back only what still stands.
	open := intents.Pending()
	slices.Reverse(open)
	for _, p := range open {
		if ws.Alive(p.Data) {
			cursor = min(cursor, p.At)
			continue
		}
		dead = true
		ws.crashed.Store(true) // its temp files may lie anywhere: sweep the tree
		if !resolve {
			continue
		}
		if _, err := ws.resolveLocked(ctx, p.Data); err != nil {
			// Left pending: stet verify --all reports it, and the next
			// Open tries again.
			cursor = min(cursor, p.At)
		}
	}
	if cursor != from && (resolve || !dead) {
		ws.Journal.SetCursor(intentCursor, cursor) // derived data: a lost update only rereads
	}
	return dead, nil
}

// ReadIntents is the one reading of which intents are open: the records
// of the intents' pseudo-session from index offset from (0: all of them),
// with end, the offset read up to. The sweep's list of temp files to keep
// (HeldTemps), the recovery at Open (ScanIntents) and verify's report
// read it here; gc builds the same history.Intents from the records it
// compacts. Strict, an intent whose payload does not decode is an error;
// otherwise it is passed over.
func (ws *Workspace) ReadIntents(from int64, strict bool) (history.Intents, int64, error) {
	var x history.Intents
	end, err := ws.Journal.SessionFrom(IntentSession, from, func(r journal.Record, off int64) error {
		if err := x.Add(r, off); err != nil && strict {
			return err
		}
		return nil
	})
	return x, end, err
}

// resolveLocked resolves it holding the per-file locks of every name it
// touches, as a change does, so no other call of this process changes those
// files under the resolution. (Another process's in-flight change is told
// apart by its liveness lock, Workspace.alive, and never resolved.)
func (ws *Workspace) resolveLocked(ctx context.Context, it IntentData) (string, error) {
	var ts []Target
	for _, f := range it.Files {
		for _, key := range []string{f.Key, f.Data.FromKey} {
			if key == "" {
				continue
			}
			t, err := ws.TargetOfKey(key)
			if err != nil {
				return "", err
			}
			ts = append(ts, t)
		}
	}
	unlock, err := ws.LockAll(ctx, ts...)
	if err != nil {
		return "", err
	}
	defer unlock()
	return ws.resolveIntent(ctx, it)
}

// targetOfKey maps a file key back to a target in its root.
func (ws *Workspace) TargetOfKey(key string) (Target, error) {
	i := strings.IndexByte(key, ':')
	if i < 0 {
		return Target{}, fmt.Errorf("bad file key %q", key)
	}
	ri, err := strconv.Atoi(key[:i])
	if err != nil || ri < 0 || ri >= len(ws.RootList) {
		return Target{}, fmt.Errorf("bad file key %q", key)
	}
	t := Target{Root: ws.RootList[ri], Ri: ri, Rel: key[i+1:]}
	t.Spelled = t.Display()
	return t.resolved(), nil
}

// slot is what one name holds in the model of an intent: nothing (there
// false), or an entry whose version is ver; an empty ver with there matches
// any entry (a directory, whose move the receipt proves by name only).
type slot struct {
	there bool
	ver   string
}

// slotOf is the slot a receipt state describes (nil: no file).
func slotOf(st *receipt.State) slot {
	if st == nil {
		return slot{}
	}
	return slot{there: true, ver: st.Version}
}

// step is one file of an intent as a transition over names: what each name
// it touches holds before and after it, and, for a move over a file, the
// state between the exchange and the unlink of the replaced file (mid).
type step struct {
	pre, post, mid map[string]slot
}

// stepOf models f.
func stepOf(f IntentFile) step {
	r := f.Data.Receipt
	if f.Data.FromKey == "" {
		return step{pre: map[string]slot{f.Key: slotOf(r.Before)}, post: map[string]slot{f.Key: slotOf(r.After)}}
	}
	src, dst := slot{there: true}, slot{there: true}
	if r.Before != nil {
		src.ver = r.Before.Version
	}
	if r.After != nil {
		dst.ver = r.After.Version
	}
	st := step{pre: map[string]slot{f.Data.FromKey: src, f.Key: {}}, post: map[string]slot{f.Data.FromKey: {}, f.Key: dst}}
	if f.Data.Over != "" {
		over := slot{there: true, ver: f.Data.Over}
		st.pre[f.Key] = over
		st.mid = map[string]slot{f.Data.FromKey: over, f.Key: dst}
	}
	return st
}

// landing is where the disk stands in an intent's sequence of steps.
type landing struct {
	// steps is how many steps, in order, the disk shows applied; -1 when
	// it shows no point of the sequence.
	steps int
	// finish, when not nil, completes the last of those steps: a move over
	// a file stopped between its exchange and the unlink of the file it
	// replaced (saved in the journal) is finished by that unlink.
	finish func() error
	// stray names the files that hold neither their state before the
	// sequence nor after it, when steps is -1.
	stray []string
}

// landed finds the point of files' sequence the disk shows. The steps are
// applied in order (a patch's update, then the move of that file; an undo
// set's links one after another), each from the state the ones before it
// left: after k steps every name the intent touches holds what the k-th
// prefix leaves, and nothing else counts as a point of the sequence. When
// several points match (a chain that comes back to its start), the latest
// one wins.
func (ws *Workspace) landed(files []IntentFile) (landing, error) {
	steps := make([]step, len(files))
	var names []string
	initial := map[string]slot{}
	for i, f := range files {
		steps[i] = stepOf(f)
		for _, name := range sortedKeys(steps[i].pre) {
			if _, ok := initial[name]; !ok {
				initial[name] = steps[i].pre[name]
				names = append(names, name)
			}
		}
	}
	disk := make(map[string]slot, len(names))
	for _, name := range names {
		t, err := ws.TargetOfKey(name)
		if err != nil {
			return landing{}, err
		}
		cur, there, err := versionAt(t)
		if err != nil {
			return landing{}, err
		}
		disk[name] = slot{there: there, ver: cur}
	}
	holds := func(name string, want slot) bool {
		got := disk[name]
		return got.there == want.there && (want.ver == "" || got.ver == want.ver)
	}
	// models[k] is what the first k steps leave.
	models := make([]map[string]slot, len(steps)+1)
	models[0] = initial
	for k, st := range steps {
		m := make(map[string]slot, len(names))
		maps.Copy(m, models[k])
		maps.Copy(m, st.post)
		models[k+1] = m
	}
	shows := func(m map[string]slot) bool {
		for _, name := range names {
			if !holds(name, m[name]) {
				return false
			}
		}
		return true
	}
	for k := len(steps); k >= 0; k-- {
		if shows(models[k]) {
			return landing{steps: k}, nil
		}
	}
	for k := len(steps); k >= 1; k-- {
		st := steps[k-1]
		if st.mid == nil {
			continue
		}
		m := make(map[string]slot, len(names))
		maps.Copy(m, models[k-1])
		maps.Copy(m, st.mid)
		if !shows(m) {
			continue
		}
		f := files[k-1]
		return landing{steps: k, finish: func() error { return ws.finishMove(f) }}, nil
	}
	var stray []string
	for _, name := range names {
		if !holds(name, models[0][name]) && !holds(name, models[len(steps)][name]) {
			stray = append(stray, ws.displayKey(name))
		}
	}
	return landing{steps: -1, stray: stray}, nil
}

// finishMove removes the replaced file that a move over it left under the
// move's old name after the exchange, once its bytes are proven saved in
// the journal (the move's receipt names them for undo): adopted from there
// when the move was to keep it without a copy.
func (ws *Workspace) finishMove(f IntentFile) error {
	from, err := ws.TargetOfKey(f.Data.FromKey)
	if err != nil {
		return err
	}
	saved, err := ws.Journal.Get(f.Data.Over)
	if errors.Is(err, journal.ErrNotFound) {
		// A move that keeps the replaced file stopped before the handover:
		// the file under the old name is the only copy (move.go).
		var adopted bool
		if saved, adopted, err = ws.adoptMoved(from, f.Data.Over); adopted {
			return nil
		}
	}
	if err == nil && string(fsys.VersionOf(saved)) != f.Data.Over {
		err = errors.New("the saved bytes do not match their name")
	}
	if err != nil {
		return fmt.Errorf("the replaced %s is not saved in the journal, so it is left in place: %w", from.Display(), err)
	}
	_, err = from.Root.P.Remove(from.Rel, fsys.Expected{Version: fsys.Version(f.Data.Over), Bytes: saved})
	return err
}

// displayKey is how a file key is shown: its path in its root.
func (ws *Workspace) displayKey(key string) string {
	if t, err := ws.TargetOfKey(key); err == nil {
		return t.Display()
	}
	return key
}

// versionAt returns the version of the regular file at t, or "" when
// nothing is there; a directory is there with an empty version.
func versionAt(t Target) (string, bool, error) {
	b, err := t.Root.P.ReadFile(t.Rel)
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

// sortedKeys returns m's keys in order.
func sortedKeys(m map[string]slot) []string {
	return slices.Sorted(maps.Keys(m))
}

// resolveIntent settles an intent against the disk and closes it with a
// done record; it returns the outcome. The disk shows how many of the
// intent's steps landed (Workspace.landed): none (dropped), all (completed:
// the receipts are verified and journaled), some (those are taken back,
// newest first: rolled back), or no point of the sequence (unresolved:
// reported, nothing touched).
func (ws *Workspace) resolveIntent(ctx context.Context, it IntentData) (string, error) {
	// A replace or delete stopped between its swap and the handover of the
	// displaced file leaves the old bytes under the temp name: they become
	// the blob the receipt names before anything reads it.
	var adopted []string
	for _, f := range it.Files {
		if f.Temp == "" || f.Data.Pre == "" || f.Data.FromKey != "" {
			continue
		}
		t, err := ws.TargetOfKey(f.Key)
		if err != nil {
			return "", err
		}
		note, err := ws.AdoptDisplaced(t.Root.P, f.Temp, f.Data.Pre)
		if err != nil {
			return "", err
		}
		if note != "" {
			adopted = append(adopted, note)
		}
	}
	at, err := ws.landed(it.Files)
	if err != nil {
		return "", err
	}
	s, err := ws.SessionOf(it.Session)
	if err != nil {
		return "", err
	}
	var outcome, detail string
	if at.finish != nil || (at.steps > 0 && at.steps < len(it.Files)) {
		// Recovery is about to change files: the same floor as every change
		// (a damaged or forged journal must not reach a protected or hidden
		// file through it).
		if name, ok := s.intentGated(it); !ok {
			at = landing{steps: -1}
			detail = name + " is protected or hidden; recovery leaves it alone"
		}
	}
	if at.finish != nil {
		if err := at.finish(); err != nil {
			at = landing{steps: -1}
			detail = err.Error()
		}
	}
	switch {
	case at.steps == 0:
		outcome = DoneDropped
	case at.steps == len(it.Files):
		if err := s.completeReceipts(it); err != nil {
			return "", err
		}
		outcome = DoneCompleted
	case at.steps > 0:
		outcome = DoneRolledBack
		for i := at.steps - 1; i >= 0; i-- {
			f := it.Files[i]
			t, err := ws.TargetOfKey(f.Key)
			if err != nil {
				return "", err
			}
			d := f.Data
			if _, err := s.Revert(ctx, t, &d, "rollback"); err != nil {
				outcome = DoneUnresolved
				detail = fmt.Sprintf("%s could not be rolled back: %v", d.Receipt.Path, err)
				break
			}
		}
	default:
		outcome = DoneUnresolved
		if detail == "" {
			detail = "neither the old nor the new bytes are in " + strings.Join(at.stray, ", ") + "; the previous content is in the journal"
		}
	}
	if len(adopted) > 0 {
		detail = strings.TrimPrefix(detail+"; "+strings.Join(adopted, "; "), "; ")
	}
	if saved := ws.removeTemps(it); len(saved) > 0 {
		detail = strings.TrimPrefix(detail+"; "+strings.Join(saved, "; "), "; ")
	}
	if _, err := ws.Journal.Append(DoneRecord(it.ID, outcome, detail)); err != nil {
		return "", err
	}
	return outcome, nil
}

// intentGated reports whether every name it touches passes the floor of
// every change (rule 4: protected and deny-read paths, on every name the
// path goes by); if not, it returns the first that does not.
func (s *Session) intentGated(it IntentData) (string, bool) {
	for _, f := range it.Files {
		for _, key := range []string{f.Key, f.Data.FromKey} {
			if key == "" {
				continue
			}
			t, err := s.WS.TargetOfKey(key)
			if err != nil {
				return key, false
			}
			if s.WS.Denied(t) != nil || s.WS.protected(t) != nil {
				return t.Display(), false
			}
		}
	}
	return "", true
}

// completeReceipts journals, verified against the disk, the receipts of an
// intent whose files all hold their new bytes and that its process did not
// get to record.
func (s *Session) completeReceipts(it IntentData) error {
	have := map[string]bool{}
	err := s.WS.Journal.Session(s.id, func(r journal.Record) error {
		if r.Type == RecReceipt {
			var d ReceiptData
			if json.Unmarshal(r.Data, &d) == nil {
				have[d.Receipt.ID] = true
			}
		}
		return nil
	})
	if err != nil {
		return err
	}
	// A step whose result a later step starts from (a second change of the
	// same file, or the move of the file an update changed) is proven by
	// that step, whose before state must be its after state; the last step
	// on each name is checked against the disk.
	next := map[int]int{}
	last := map[string]int{}
	for i, f := range it.Files {
		if f.Dir {
			continue
		}
		from := f.Key
		if f.Data.FromKey != "" {
			from = f.Data.FromKey
		}
		if j, ok := last[from]; ok {
			next[j] = i
		}
		delete(last, from)
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
		recs = append(recs, s.Rec(RecReceipt, f.Key, &d))
		if d.Undoes != "" {
			recs = append(recs, s.Rec(RecUndo, f.Key, history.Undo{Receipt: d.Undoes, By: d.Receipt.ID}))
		}
	}
	if len(recs) == 0 {
		return nil
	}
	_, err = s.WS.Journal.Append(recs...)
	return err
}

// verifyAtRest checks a landed file of an intent against its receipt.
func (s *Session) verifyAtRest(f IntentFile) error {
	r := f.Data.Receipt
	if f.Dir {
		return nil
	}
	t, err := s.WS.TargetOfKey(f.Key)
	if err != nil {
		return err
	}
	cur, err := t.Root.P.ReadFile(t.Rel)
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
		pre, err := s.WS.Journal.Get(f.Data.Pre)
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

// adoptMoved saves, for intent recovery, the file at from that a move over
// a file stopped by a crash left under its old name after the exchange and
// before it handed the file to the journal: it must hold want, the
// replaced version, which the receipt names. Adopted by rename where the
// provider can (the name is then gone: adopted true), copied otherwise
// (journal.Put), in which case saved holds the bytes and the caller
// removes the file by compare. A file holding other bytes is an error: it
// stays where it is.
func (ws *Workspace) adoptMoved(from Target, want string) (saved []byte, adopted bool, err error) {
	p := from.Root.P
	read := func() ([]byte, error) {
		b, err := fsys.ReadFileMax(p, from.Rel, ws.Opts.MaxFileBytes)
		if err != nil {
			return nil, err
		}
		if string(fsys.VersionOf(b)) != want {
			return nil, fmt.Errorf("%s does not hold the replaced bytes, so it is left in place", from.Display())
		}
		if _, err := ws.Journal.Put(b); err != nil {
			return nil, err
		}
		return b, nil
	}
	ma, ok := p.(movedAdopter)
	if !ok {
		saved, err = read()
		return saved, false, err
	}
	info, err := p.Stat(from.Rel)
	if err != nil {
		return nil, false, err
	}
	a, err := ws.Journal.Adopt(want, info.Size)
	if err != nil {
		return nil, false, err
	}
	defer a.Close()
	save := func() (err error) {
		saved, err = read()
		return err
	}
	kept, err := ma.AdoptMoved(from.Rel, fsys.Expected{Version: fsys.Version(want)}, fsys.Keep{Dir: a.Dir(), Name: a.Name(), Adopt: a.Take, Save: save})
	switch {
	case errors.Is(err, fsys.ErrConflict):
		return nil, false, fmt.Errorf("%s does not hold the replaced bytes, so it is left in place", from.Display())
	case err != nil:
		return nil, false, err
	}
	return saved, kept.Adopted, nil
}

// movedAdopter is a provider that can hand the file a crashed move over a
// file left under the move's old name to the journal (fsys/local on Unix).
type movedAdopter interface {
	AdoptMoved(name string, expect fsys.Expected, keep fsys.Keep) (fsys.Kept, error)
}
