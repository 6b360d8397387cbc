package journal

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// Record is one line of the journal. Append assigns Seq and Prev and fills a
// zero Time; the caller sets Type and, as needed, Session, Path and Data.
type Record struct {
	Seq     int64           `json:"seq"`               // 1-based position in the log, assigned by Append
	Prev    string          `json:"prev"`              // "sha256:<hex>" of the previous line's exact bytes (without "\n"); "" for the first
	Time    time.Time       `json:"time"`              // UTC; set by Append from Options.Now if zero
	Type    string          `json:"type"`              // what the record is: "session", "turn", "observe", "receipt", ...
	Session string          `json:"session,omitempty"` // the session it belongs to; indexed for Journal.Session
	Path    string          `json:"path,omitempty"`    // the workspace path it is about, if any
	Data    json.RawMessage `json:"data,omitempty"`    // the caller's payload, stored as compact JSON
}

// Options configure Open.
type Options struct {
	// Now is the journal's clock: Record.Time, the age of leftover temp
	// files and liveness locks, the time a reused blob is touched to, and
	// Compact's safety margin. time.Now if nil.
	Now func() time.Time
	// NoSync skips every fsync. For tests and benchmarks only: a power loss
	// may then lose or tear recent records and blobs.
	NoSync bool
	// OnSync, if set, is called with the name (relative to the state
	// directory) of each file or directory just before it is fsynced, so
	// tests can check which calls pay for durability.
	OnSync func(name string)
}

// File and directory names inside the state directory.
const (
	logName     = "journal.jsonl"
	lockName    = "journal.lock"
	objectsDir  = "objects"
	sessionsDir = "sessions"
	tempPrefix  = ".tmp-"
)

// staleTemp is the age after which a temp file in objects/ is taken for the
// leftover of a crashed Put and removed by Open. Younger ones may belong to a
// Put still running in another process.
const staleTemp = time.Hour

// A Journal is an open state directory. It is safe for concurrent use by
// goroutines, and several processes may have the same directory open.
type Journal struct {
	dir    string
	root   *os.Root
	now    func() time.Time
	noSync bool
	onSync func(name string)
	rand   io.Reader // the source of this handle's random names; tests replace it (export_test.go)
	// keptMax: see SessionFrom (read.go); tests lower it (export_test.go).
	keptMax int64

	// mu serializes this process's use of the flock on lock (a flock belongs
	// to the open file, so two goroutines would otherwise share one lock) and
	// guards closed.
	mu  sync.Mutex
	log *os.File // journal.jsonl, O_APPEND
	// logInfo is the stat of journal.jsonl's name taken by the last
	// follow, under the flock: what a Stamp holds (read.go).
	logInfo os.FileInfo
	// retired are logs that Compact replaced, kept open for readers.
	retired []*os.File
	lock    *os.File // journal.lock
	closed  bool
	// live is this handle's liveness lock (Live), made on first use.
	live     *os.File
	liveName string
	// newDir: this handle created journal.jsonl, so the state directory's
	// entries are made durable by its first durable append.
	newDir bool
	// group batches the fsyncs of durable appends (group.go).
	group groupCommit
	// pend holds this handle's index lines until they may be written, and
	// what is written until it is synced (pending.go); guarded by mu.
	pend pendingIndex
	// closing: Close has begun; no background flush starts (guarded by mu).
	closing bool
	// behind counts appends made while the index was behind another
	// handle's lines, left for a flush to complete (guarded by mu).
	behind int
	// durable: this handle made a durable append (guarded by mu).
	durable bool
	// bg counts the background flushes running.
	bg sync.WaitGroup
	// fanMu guards fanReady: the object store's fan-out directories are
	// known to exist and be durable (fanout.go).
	fanMu    sync.Mutex
	fanReady bool
}

// Open opens the journal in dir, creating dir (mode 0700) and its files if
// needed. Every later file access goes through an os.Root opened on dir.
func Open(dir string, o Options) (*Journal, error) {
	if err := checkLockingSupported(); err != nil {
		return nil, fmt.Errorf("journal: open %s: %w", dir, err)
	}
	// Named absolutely, so that a later change of the working directory
	// does not make checkHome look elsewhere.
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	// The state directory is not a workspace path: it is stet's own.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("journal: open: %w", err)
	}
	root, err := os.OpenRoot(dir) // the state directory: not a workspace path
	if err != nil {
		return nil, fmt.Errorf("journal: open: %w", err)
	}
	j := &Journal{dir: dir, root: root, now: o.Now, noSync: o.NoSync, onSync: o.OnSync, rand: rand.Reader, keptMax: keptMax}
	if j.now == nil {
		j.now = time.Now
	}
	if err := j.init(); err != nil {
		root.Close()
		if j.log != nil {
			j.log.Close()
		}
		return nil, fmt.Errorf("journal: open %s: %w", dir, err)
	}
	return j, nil
}

func (j *Journal) init() error {
	for _, d := range []string{objectsDir, sessionsDir} {
		if err := j.root.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	j.openFanout()
	var err error
	j.log, err = j.root.OpenFile(logName, os.O_RDWR|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err == nil {
		j.newDir = true
	} else if j.log, err = j.root.OpenFile(logName, os.O_RDWR|os.O_APPEND, 0o600); err != nil {
		return err
	}
	if j.lock, err = j.root.OpenFile(lockName, os.O_RDWR|os.O_CREATE, 0o600); err != nil {
		return err
	}
	// A new state directory's entries are made durable by the first durable
	// append (see append), not here: opening to read must not fsync.
	j.removeStaleTemps()
	return nil
}

// removeStaleTemps deletes temp files a crashed Put left in objects/. It is
// best effort: a failure leaves litter, not damage, and Verify lists it.
// Compact's temp logs in the state directory itself are removed the same way.
func (j *Journal) removeStaleTemps() {
	for _, dir := range []string{objectsDir, "."} {
		d, err := j.root.Open(dir)
		if err != nil {
			continue
		}
		ents, err := d.ReadDir(-1)
		d.Close()
		if err != nil {
			continue
		}
		cutoff := j.now().Add(-staleTemp)
		for _, e := range ents {
			if !strings.HasPrefix(e.Name(), tempPrefix) {
				continue
			}
			if dir == objectsDir && j.finishStaged(e.Name()) {
				continue
			}
			if info, err := e.Info(); err == nil && info.ModTime().Before(cutoff) {
				j.root.Remove(dir + "/" + e.Name())
			}
		}
	}
}

// Close releases the journal's files. Calls after Close fail with
// os.ErrClosed. It flushes no index for a change while the index lags the
// log by less than closeLagBytes: the lines this handle leaves unwritten,
// readers take from the log until a later flush or completion indexes
// them (pending.go), so most processes that make one change (a CLI call, a
// hook) pay no fsync of the index for it, and a reader never takes more
// than about closeLagBytes of lines from the log. A handle that made a
// durable append and finds the lag past that, or that leaves many lazy
// lines (closeSyncBytes), flushes.
func (j *Journal) Close() error {
	j.mu.Lock()
	if j.closed {
		j.mu.Unlock()
		return nil
	}
	j.closing = true
	j.mu.Unlock()
	j.bg.Wait()
	j.mu.Lock()
	waiting := j.pend.to - j.pend.drained
	durable := j.durable
	j.mu.Unlock()
	switch {
	case waiting >= closeSyncBytes:
		// Many lazy lines (a grep's observations): the next process
		// would have to complete the index from the log before its first
		// answer. One sync of the log here lets them be written now.
		j.flushWith(true)
	case durable && j.lagBytes() >= closeLagBytes:
		// The lines a sync covered, and the index completed where it is
		// behind other handles' lines. Below the bound, a change's lines
		// (its intent, receipt and done record) are left: the index is
		// derived data, and they cost the next reader a look at the log's
		// tail, not an fsync.
		j.flushWith(false)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return nil
	}
	j.closed = true
	errs := []error{j.closeLive(), j.log.Close(), j.lock.Close(), j.root.Close()}
	for _, f := range j.retired {
		errs = append(errs, f.Close())
	}
	return errors.Join(errs...)
}

// Dir returns the state directory as given to Open.
func (j *Journal) Dir() string { return j.dir }

// hashName returns "sha256:<hex>" of b: the form of Prev and of blob names.
func hashName(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// sessionFile names the index file of session id.
func sessionFile(id string) string {
	sum := sha256.Sum256([]byte(id))
	return sessionsDir + "/" + hex.EncodeToString(sum[:]) + ".jsonl"
}

// withLock runs fn holding j.mu and a flock on journal.lock (exclusive or
// shared). fn must not call back into user code.
func (j *Journal) withLock(exclusive bool, fn func() error) error {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return os.ErrClosed
	}
	if err := lockFile(j.lock, exclusive); err != nil {
		return fmt.Errorf("lock %s: %w", lockName, err)
	}
	err := j.follow()
	if err == nil {
		err = fn()
	}
	if uerr := unlockFile(j.lock); uerr != nil && err == nil {
		err = fmt.Errorf("unlock %s: %w", lockName, uerr)
	}
	return err
}

// sync makes f durable; name is f's name in the state directory.
// follow reopens journal.jsonl when another process (or handle) replaced
// it, as Compact does, so that no record goes to, or is read from, a log
// that is no longer the journal. The caller holds j.mu and the flock. The
// replaced file stays open until Close: a reader of this process may still
// be reading the lines it saw there.
func (j *Journal) follow() error {
	cur, err := j.log.Stat()
	if err != nil {
		return err
	}
	named, err := j.root.Stat(logName)
	if err != nil {
		return fmt.Errorf("%s: %w", logName, err)
	}
	j.logInfo = named
	if os.SameFile(cur, named) {
		return nil
	}
	f, err := j.root.OpenFile(logName, os.O_RDWR|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	j.retired = append(j.retired, j.log)
	j.log = f
	j.invalidatePending() // its lines were of the replaced log, which the new one holds
	return nil
}

func (j *Journal) sync(f *os.File, name string) error {
	if j.noSync {
		return nil
	}
	if j.onSync != nil {
		j.onSync(name)
	}
	return f.Sync()
}

// syncDir makes a rename or create in the directory name durable.
func (j *Journal) syncDir(name string) error {
	if j.noSync {
		return nil
	}
	if j.onSync != nil {
		j.onSync(name + "/")
	}
	d, err := j.root.Open(name)
	if err != nil {
		return err
	}
	defer d.Close()
	return syncDirFile(d)
}
