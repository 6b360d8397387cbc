package journal

import (
	"crypto/rand"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// ErrRefused: a file offered to the object store (Adoption.Take) is not
// what it was said to be: not a regular file, another size, or another file
// than the one the caller saw. It stays where it is, under its staging
// name, and is not a blob.
var ErrRefused = errors.New("journal: adoption refused")

// An Adoption takes one existing file into the object store by rename
// instead of by copy: the bytes of a user's file that a replace or delete
// displaced, which already lie durable on the same filesystem. Journal.Adopt
// prepares it; the caller renames the file into Dir under Name (a staging
// name, which is not a blob); Take checks it, makes it the blob and makes
// that durable. An Adoption is used once, by one goroutine; Close releases
// it.
//
// What is trusted: the caller's word that the file's bytes hash to the
// version (it knows them: the provider compared the displaced file with the
// bytes the session read and hashed, or recovery hashed it). Take does not
// read the file again. It checks only what is cheap and catches a mix-up:
// a regular file, the size the version had, and, when the caller passes
// what it saw before the rename, the same file (os.SameFile). A wrong
// adoption cannot be served silently: Get hashes every blob it returns
// (ErrCorrupt), and Verify re-hashes them all.
type Adoption struct {
	j       *Journal
	version string
	size    int64
	dirName string   // objects/<2 hex>, the blob's directory
	dir     *os.File // open on objects/, where the file is staged
	stage   string   // base name of the staging file in objects/
	final   string   // path of the blob
}

// Adopt prepares the adoption of a file holding size bytes that hash to
// version ("sha256:<hex>"): it checks that the blob's directory exists
// and is durable (one of the fan-out made once for the state directory; a
// handle's first blob write may fsync objects/ for it, once) and opens
// objects/, where the file is staged as a Put stages its temp file. Adopting a blob that is already stored is allowed and
// changes nothing but the file behind the name (same bytes), so a retried
// adoption is harmless.
func (j *Journal) Adopt(version string, size int64) (*Adoption, error) {
	h, ok := strings.CutPrefix(version, "sha256:")
	if !ok || !isHex(h, 64) || size < 0 {
		return nil, fmt.Errorf("journal: adopt %q (%d bytes): not a sha256 name and a size: %w", version, size, ErrRefused)
	}
	if err := j.fanoutReady(); err != nil {
		return nil, fmt.Errorf("journal: adopt %s: %w", short(version), err)
	}
	// The fan-out made dir already (fanout.go); it is made again here,
	// durably, only if something removed it since.
	dir, name := blobPath(h)
	if err := j.root.Mkdir(dir, 0o700); err == nil {
		if err := j.syncDir(objectsDir); err != nil {
			return nil, fmt.Errorf("journal: adopt %s: %w", short(version), err)
		}
	} else if !errors.Is(err, fs.ErrExist) {
		return nil, fmt.Errorf("journal: adopt %s: %w", short(version), err)
	}
	d, err := j.root.Open(objectsDir)
	if err != nil {
		return nil, fmt.Errorf("journal: adopt %s: %w", short(version), err)
	}
	// The staging name is a temp name of the object store that names the
	// version: a file left there by a crash between the rename in and Take
	// becomes its blob at the next Open if it hashes to it
	// (finishStaged), and is removed as a stale temp file otherwise.
	stage := stagePrefix + h + "-" + rand.Text()
	return &Adoption{j: j, version: version, size: size, dirName: dir, dir: d, stage: stage, final: name}, nil
}

// Dir is the open directory the caller renames the file into.
func (a *Adoption) Dir() *os.File { return a.dir }

// Name is the base name the file takes in Dir before Take.
func (a *Adoption) Name() string { return a.stage }

// Take makes the file staged in Dir under Name the blob: it checks that it
// is a regular file of the adoption's size and, when seen is not nil, the
// very file the caller saw (os.SameFile); otherwise ErrRefused and the file
// stays staged. It then gives it the mode of every blob (read-only) and a
// fresh modification time (Compact keeps young blobs: the record that names
// it may not be written yet), renames it to the blob's name (over a copy
// already stored: the same bytes) and fsyncs the directory before it
// returns.
func (a *Adoption) Take(seen fs.FileInfo) error {
	staged := objectsDir + "/" + a.stage
	info, err := a.j.root.Lstat(staged)
	if err != nil {
		return fmt.Errorf("journal: adopt %s: %w", short(a.version), err)
	}
	switch {
	case !info.Mode().IsRegular():
		return fmt.Errorf("journal: adopt %s: %s is not a regular file: %w", short(a.version), staged, ErrRefused)
	case info.Size() != a.size:
		return fmt.Errorf("journal: adopt %s: %s holds %d bytes, the version %d: %w", short(a.version), staged, info.Size(), a.size, ErrRefused)
	case seen != nil && !os.SameFile(seen, info):
		return fmt.Errorf("journal: adopt %s: %s is not the file that was offered: %w", short(a.version), staged, ErrRefused)
	}
	if err := a.j.root.Chmod(staged, 0o400); err != nil {
		return fmt.Errorf("journal: adopt %s: %w", short(a.version), err)
	}
	now := a.j.now()
	if err := a.j.root.Chtimes(staged, now, now); err != nil {
		return fmt.Errorf("journal: adopt %s: %w", short(a.version), err)
	}
	if err := a.j.root.Rename(staged, a.final); err != nil {
		return fmt.Errorf("journal: adopt %s: %w", short(a.version), err)
	}
	if err := a.j.syncDir(a.dirName); err != nil {
		return fmt.Errorf("journal: adopt %s: %w", short(a.version), err)
	}
	return nil
}

// Close releases the directory. A file still staged (Take refused it or was
// not called) is left for Open's removal of stale temp files (after an
// hour), as a crashed Put's temp file is.
func (a *Adoption) Close() error { return a.dir.Close() }

// stagePrefix starts the name of a staged adoption in objects/.
const stagePrefix = tempPrefix + "adopt-"

// finishStaged completes, at Open, an adoption that a crash interrupted
// between the rename into objects/ and Take: the staged file name (in
// objects/) becomes the blob its bytes hash to, named in its staging name,
// if they do (it is read once: a crash left it, no caller vouches for it).
// It reports whether it did; a file that does not hash to its name is left
// for the removal of stale temp files.
func (j *Journal) finishStaged(name string) bool {
	rest, ok := strings.CutPrefix(name, stagePrefix)
	h, _, _ := strings.Cut(rest, "-")
	if !ok || !isHex(h, 64) {
		return false
	}
	staged := objectsDir + "/" + name
	data, err := j.root.ReadFile(staged)
	if err != nil || hashName(data) != "sha256:"+h {
		return false
	}
	a, err := j.Adopt("sha256:"+h, int64(len(data)))
	if err != nil {
		return false
	}
	defer a.Close()
	a.stage = name
	return a.Take(nil) == nil
}
