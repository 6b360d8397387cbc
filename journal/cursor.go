package journal

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strconv"
	"strings"
)

const cursorsDir = "cursors"

// Cursor returns the value last stored under name by SetCursor, or 0.
// Cursors are derived data that let a reader skip what it has already
// handled (such as an index offset); they are not synced, so a lost update
// only makes the next reader start earlier. A cursor that cannot be read
// counts as 0.
func (j *Journal) Cursor(name string) int64 {
	b, err := j.root.ReadFile(cursorsDir + "/" + cursorName(name))
	if err != nil {
		return 0
	}
	v, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64)
	if err != nil || v < 0 {
		return 0
	}
	return v
}

// SetCursor stores v under name (see Cursor).
func (j *Journal) SetCursor(name string, v int64) error {
	if err := j.root.Mkdir(cursorsDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	var rnd [8]byte
	rand.Read(rnd[:])
	tmp := cursorsDir + "/." + cursorName(name) + "." + hex.EncodeToString(rnd[:]) + ".tmp"
	if err := j.root.WriteFile(tmp, []byte(strconv.FormatInt(v, 10)+"\n"), 0o600); err != nil {
		return err
	}
	return j.root.Rename(tmp, cursorsDir+"/"+cursorName(name))
}

func cursorName(name string) string { return hashName([]byte(name))[len("sha256:"):][:16] }

// Exclusive runs fn holding an exclusive lock of its own named name, taken
// by every process on this state directory that asks for the same name (a
// lock file under cursors/), so that work such as resolving an interrupted
// change is done by one process at a time. fn may append to the journal.
func (j *Journal) Exclusive(name string, fn func() error) error {
	if err := j.root.Mkdir(cursorsDir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	f, err := j.root.OpenFile(cursorsDir+"/"+cursorName(name)+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	defer f.Close()
	if err := lockFile(f, true); err != nil {
		return fmt.Errorf("lock %s: %w", name, err)
	}
	defer unlockFile(f)
	return fn()
}
