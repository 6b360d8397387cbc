package journal

import (
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"
)

// liveDir holds the liveness locks (Live).
const liveDir = "live"

// Live returns the name of this handle's liveness lock, making it on the
// first call: a file under live/ on which the handle holds an exclusive
// flock until Close. The kernel drops that lock when the process dies,
// however it dies and whatever PID namespace it runs in, so a writer that
// records the name with work it leaves in flight (a write-ahead intent) lets
// any other handle tell, by Alive, whether that work is still in progress;
// a process id and start time cannot tell that across PID namespaces.
func (j *Journal) Live() (string, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.closed {
		return "", os.ErrClosed
	}
	if j.live != nil {
		return j.liveName, nil
	}
	if err := j.root.Mkdir(liveDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return "", fmt.Errorf("journal: liveness lock: %w", err)
	}
	var b [12]byte
	if _, err := io.ReadFull(j.rand, b[:]); err != nil {
		return "", fmt.Errorf("journal: liveness lock: %w", err)
	}
	name := hex.EncodeToString(b[:])
	// The file is locked under a name Alive never looks at, then renamed
	// into place: a lock file is never seen free while its holder lives.
	tmp, final := liveDir+"/"+name+".new", liveDir+"/"+name+".lock"
	f, err := j.root.OpenFile(tmp, os.O_RDWR|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return "", fmt.Errorf("journal: liveness lock: %w", err)
	}
	err = lockFile(f, true)
	if err == nil {
		err = j.root.Rename(tmp, final)
	}
	if err != nil {
		f.Close()
		j.root.Remove(tmp)
		return "", fmt.Errorf("journal: liveness lock: %w", err)
	}
	j.live, j.liveName = f, name
	return name, nil
}

// Alive reports whether the handle whose Live returned name still holds its
// lock: its process is running and has not closed it. A name that is not
// one Live makes, or whose file is gone, is not alive. A lock found free is
// removed (its holder is gone for good).
func (j *Journal) Alive(name string) bool {
	if len(name) != 24 || strings.Trim(name, "0123456789abcdef") != "" {
		return false
	}
	f, err := j.root.OpenFile(liveDir+"/"+name+".lock", os.O_RDWR, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return false // its holder closed it, or died and it was swept
	}
	if err != nil {
		return true // cannot tell (out of descriptors, no access): leave its work alone
	}
	defer f.Close()
	busy, err := tryLock(f)
	if err != nil {
		// Cannot tell: count it as alive, so its work is left alone (and
		// looked at again by the next Open) rather than taken over.
		return true
	}
	if !busy {
		j.root.Remove(liveDir + "/" + name + ".lock")
	}
	return busy
}

// closeLive releases and removes this handle's liveness lock.
func (j *Journal) closeLive() error {
	if j.live == nil {
		return nil
	}
	err := j.live.Close()
	j.root.Remove(liveDir + "/" + j.liveName + ".lock")
	j.live = nil
	return err
}

// sweepLive removes the liveness locks whose holders are gone (a process
// killed before it could close its handle leaves its lock file behind).
func (j *Journal) sweepLive() {
	ents, err := fs.ReadDir(j.root.FS(), liveDir)
	if err != nil {
		return
	}
	for _, e := range ents {
		if !e.Type().IsRegular() {
			continue
		}
		if name, ok := strings.CutSuffix(e.Name(), ".lock"); ok {
			j.Alive(name) // removes the file when its lock is free
			continue
		}
		if _, ok := strings.CutSuffix(e.Name(), ".new"); ok {
			// A holder killed between making its lock and renaming it;
			// a young one may be a live holder about to lock it.
			if info, err := e.Info(); err != nil || j.now().Sub(info.ModTime()) < time.Minute {
				continue
			}
			if f, err := j.root.OpenFile(liveDir+"/"+e.Name(), os.O_RDWR, 0); err == nil {
				if busy, err := tryLock(f); err == nil && !busy {
					j.root.Remove(liveDir + "/" + e.Name())
				}
				f.Close()
			}
		}
	}
}
