package journal

import (
	"fmt"
	"os"
	"sync"
)

// Group commit: a durable append writes its log lines under the lock and
// waits for their fdatasync outside it, so that one sync covers every
// append whose write completed before that sync began.
//
// Each append (durable or lazy) takes the next generation (under
// groupCommit.mu, after the write returned). A caller waiting for
// generation g returns once a sync has completed whose target (the last
// generation written when it began) is >= g; if none is running, the
// caller runs one for all that is pending. An fdatasync flushes every write
// made to the file before the call, by any handle or process, so a sync
// covers exactly what it saw. Only the log is synced here (and the state
// directory's entries once, for a new one): the session index lines of the
// records are written after that sync and synced later (pending.go).
type groupCommit struct {
	mu      sync.Mutex
	cond    sync.Cond // signalled when a sync ends; L is &mu
	written uint64    // generation of the last write to the log
	synced  uint64    // every generation <= synced is durable in the log
	failed  uint64    // generations <= failed were covered by a failed sync
	failErr error
	running bool
	logs    map[*os.File]bool // logs with writes not yet synced
	dirs    map[string]bool   // directories whose entries are not yet synced
}

// added records a write to log (and the directories whose entries it
// needs) and returns its generation. The write has completed.
func (g *groupCommit) added(log *os.File, dirs []string) uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.logs == nil {
		g.logs, g.dirs = map[*os.File]bool{}, map[string]bool{}
	}
	g.logs[log] = true
	for _, d := range dirs {
		g.dirs[d] = true
	}
	g.written++
	return g.written
}

// isSynced reports whether generation gen is durable in the log.
func (g *groupCommit) isSynced(gen uint64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.synced >= gen
}

// last returns the generation of the last write.
func (g *groupCommit) last() uint64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.written
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
		logs, dirs := g.logs, g.dirs
		g.logs, g.dirs = nil, nil
		g.mu.Unlock()
		err := j.syncGroup(logs, dirs)
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

// syncGroup fdatasyncs the logs, then the directories whose new entries
// they need (the state directory's, once).
func (j *Journal) syncGroup(logs map[*os.File]bool, dirs map[string]bool) error {
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
	return nil
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
