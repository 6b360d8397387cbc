package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"sync"
)

// Group commit: a durable append writes its lines under the lock and waits
// for their fsync outside it, so that one fsync covers every append whose
// write completed before that fsync began.
//
// Each durable write takes the next generation (under groupCommit.mu, after
// the write returned). A caller waiting for generation g returns once a
// sync has completed whose target (the last generation written when it
// began) is >= g; if none is running, the caller runs one for all that is
// pending. An fsync flushes every write made to the file before the call,
// by any handle or process, so a sync covers exactly what it saw.
//
// The session index lines of durable records are written with the log lines
// (under the lock) and fsynced by the same sync, so the watermark cannot
// move past them until that sync completed: the gap between the watermark
// and the end of the log is this handle's pending gap, which this handle's
// readers and appenders take as indexed (its lines are), and the first
// exclusive holder of the lock after the covering sync moves the watermark
// over it. Another handle or process sees the watermark behind and
// completes the index from the log, fsyncing every index file it touches.
type groupCommit struct {
	mu      sync.Mutex
	cond    sync.Cond // signalled when a sync ends; L is &mu
	written uint64    // generation of the last durable write
	synced  uint64    // every generation <= synced is durable
	failed  uint64    // generations <= failed were covered by a failed sync
	failErr error
	running bool
	// badIndex: a sync of an index file failed since the gap was last
	// settled.
	badIndex bool
	logs     map[*os.File]bool // logs with durable writes not yet synced
	files    map[string]bool   // index files not yet synced
	dirs     map[string]bool   // directories whose entries are not yet synced

	// The pending gap, guarded by Journal.mu: log lines [from, to) of log
	// were appended by this handle with their index lines; those of
	// generation <= gen must be synced before the watermark covers them.
	gapLog   *os.File
	gapFrom  int64
	gapTo    int64
	gapGen   uint64
	gapValid bool
}

// added records a durable write to log (and the index files and
// directories it touched) and returns its generation. The write has
// completed.
func (g *groupCommit) added(log *os.File, files, dirs []string) uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.logs == nil {
		g.logs, g.files, g.dirs = map[*os.File]bool{}, map[string]bool{}, map[string]bool{}
	}
	g.logs[log] = true
	for _, f := range files {
		g.files[f] = true
	}
	for _, d := range dirs {
		g.dirs[d] = true
	}
	g.written++
	return g.written
}

// gapState reports whether generation gen is durable, and whether an index
// sync failed (which it then forgets).
func (g *groupCommit) gapState(gen uint64) (synced, badIndex bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	synced, badIndex = g.synced >= gen, g.badIndex
	if synced {
		g.badIndex = false
	}
	return synced, badIndex
}

// waitSynced returns once generation gen is durable, running the sync
// itself if no other caller is. The caller must not hold Journal.mu.
func (j *Journal) waitSynced(gen uint64) error {
	g := &j.group
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.cond.L == nil {
		g.cond.L = &g.mu
	}
	for g.synced < gen {
		if gen <= g.failed {
			return g.failErr
		}
		if g.running {
			g.cond.Wait()
			continue
		}
		g.running = true
		target := g.written
		logs, files, dirs := g.logs, g.files, g.dirs
		g.logs, g.files, g.dirs = nil, nil, nil
		g.mu.Unlock()
		err := j.syncGroup(logs, files, dirs)
		g.mu.Lock()
		g.running = false
		if err != nil {
			// Not retried: after a failed fsync the kernel may have
			// dropped the pages, and a second fsync may then succeed.
			g.failed, g.failErr = target, err
		} else if target > g.synced {
			g.synced = target
		}
		g.cond.Broadcast()
	}
	return nil
}

// syncGroup fsyncs the logs (their data), then the index files, then the
// directories whose new entries they need. A failure to sync an index is
// not the append's: the log is the record. It sets badIndex instead, so
// that the watermark is not moved over the pending gap and the next holder
// of the lock completes the index from the log.
func (j *Journal) syncGroup(logs map[*os.File]bool, files, dirs map[string]bool) error {
	for f := range logs {
		if err := j.syncData(f, logName); err != nil {
			return fmt.Errorf("%s: %w", logName, err)
		}
	}
	if dirs["."] {
		if err := j.syncDir("."); err != nil {
			return err
		}
	}
	bad := false
	for _, name := range slices.Sorted(maps.Keys(files)) {
		if j.syncNamed(name) != nil {
			bad = true
		}
	}
	if dirs[sessionsDir] && j.syncDir(sessionsDir) != nil {
		bad = true
	}
	if bad {
		j.group.mu.Lock()
		j.group.badIndex = true
		j.group.mu.Unlock()
	}
	return nil
}

// syncNamed fsyncs the file name of the state directory.
func (j *Journal) syncNamed(name string) error {
	if j.noSync {
		return nil
	}
	f, err := j.root.OpenFile(name, os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return nil // replaced or removed since (Compact): its writer synced
	}
	if err != nil {
		return err
	}
	defer f.Close()
	return j.sync(f, name)
}

// syncData makes the data appended to f durable; name is f's name in the
// state directory.
func (j *Journal) syncData(f *os.File, name string) error {
	if j.noSync {
		return nil
	}
	if j.onSync != nil {
		j.onSync(name)
	}
	return fdatasync(f)
}

// inGap reports whether the log from the watermark wm to t.end is exactly
// this handle's pending gap: indexed, only waiting for a sync. The caller
// holds Journal.mu and the flock.
func (j *Journal) inGap(wm int64, t tail) bool {
	g := &j.group
	return g.gapValid && g.gapLog == j.log && g.gapFrom == wm && g.gapTo == t.end
}

// settleGap moves the watermark over the pending gap once its durable lines
// are synced, and forgets a gap that no longer matches the log (another
// handle appended or completed the index). The caller holds the exclusive
// lock.
func (j *Journal) settleGap(t tail) {
	g := &j.group
	if !g.gapValid {
		return
	}
	wm, ok := j.readWatermark()
	if !ok || !j.inGap(wm, t) {
		g.gapValid = false
		return
	}
	synced, bad := g.gapState(g.gapGen)
	switch {
	case !synced:
	case bad:
		g.gapValid = false // the next caller completes the index
	case j.writeWatermark(t.end) == nil:
		g.gapValid = false
	}
}

// extendGap records that the log lines [from, to) are indexed and, if gen
// is not 0, that they hold durable lines of generation gen. The caller
// holds the exclusive lock and called settleGap first, so a valid gap ends
// at from.
func (j *Journal) extendGap(from, to int64, gen uint64) {
	g := &j.group
	if !g.gapValid {
		if gen == 0 {
			j.writeWatermark(to)
			return
		}
		g.gapValid, g.gapLog, g.gapFrom, g.gapGen = true, j.log, from, 0
	}
	g.gapTo = to
	if gen > g.gapGen {
		g.gapGen = gen
	}
}
