package journal

import (
	"bytes"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"strings"
)

// Put stores data as a blob and returns its name, "sha256:<hex>" of data.
// The blob is written to a temp file in objects/, fsynced, and renamed to
// objects/<first 2 hex>/<other 62 hex>, so a reader never sees part of it;
// that directory is one of the fan-out made once for the state directory
// (fanout.go), so only it is fsynced after the rename.
// Putting bytes already stored is cheap and changes nothing; if the stored
// file no longer holds them (damage), Put replaces it.
func (j *Journal) Put(data []byte) (string, error) {
	sum := sha256.Sum256(data)
	h := hex.EncodeToString(sum[:])
	version := "sha256:" + h
	dir, name := blobPath(h)
	if j.has(name, data) {
		// Stored already, and needed again now: Compact keeps blobs
		// younger than its safety margin, so a record about to name it
		// must not find it dropped for an old mtime.
		now := j.now()
		j.root.Chtimes(name, now, now)
		return version, nil
	}
	if err := j.writeBlob(dir, name, data); err != nil {
		return "", fmt.Errorf("journal: put %s: %w", short(version), err)
	}
	return version, nil
}

// has reports whether name already holds exactly data.
func (j *Journal) has(name string, data []byte) bool {
	info, err := j.root.Stat(name)
	if err != nil || info.Size() != int64(len(data)) || !info.Mode().IsRegular() {
		return false
	}
	stored, err := j.root.ReadFile(name)
	return err == nil && bytes.Equal(stored, data)
}

func (j *Journal) writeBlob(dir, name string, data []byte) error {
	if err := j.fanoutReady(); err != nil {
		return err
	}
	// The fan-out made dir already; it is made again here only if
	// something removed it since.
	newDir := false
	if err := j.root.Mkdir(dir, 0o700); err == nil {
		newDir = true
	} else if !errors.Is(err, fs.ErrExist) {
		return err
	}
	tmp := objectsDir + "/" + tempPrefix + rand.Text()
	f, err := j.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o400)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err == nil {
		err = j.sync(f, tmp)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = j.root.Rename(tmp, name)
	}
	if err != nil {
		j.root.Remove(tmp)
		return err
	}
	if err := j.syncDir(dir); err != nil {
		return err
	}
	if newDir {
		return j.syncDir(objectsDir)
	}
	return nil
}

// Get returns the bytes of the blob named version. A blob that does not hash
// to its name fails with ErrCorrupt; a missing one (or a malformed name) with
// ErrNotFound.
func (j *Journal) Get(version string) ([]byte, error) {
	h, ok := strings.CutPrefix(version, "sha256:")
	if !ok || !isHex(h, 64) {
		return nil, fmt.Errorf("journal: get %q: not a sha256 name: %w", version, ErrNotFound)
	}
	_, name := blobPath(h)
	data, err := j.root.ReadFile(name)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("journal: get %s: %w", short(version), ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("journal: get %s: %w", short(version), err)
	}
	if got := hashName(data); got != version {
		return nil, fmt.Errorf("journal: get %s: content hashes to %s: %w", short(version), short(got), ErrCorrupt)
	}
	return data, nil
}

// blobPath returns the directory and file name of the blob with hex name h.
func blobPath(h string) (dir, name string) {
	dir = objectsDir + "/" + h[:2]
	return dir, dir + "/" + h[2:]
}

// isHex reports whether s is n lowercase hex digits.
func isHex(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// short abbreviates a "sha256:<hex>" name for messages.
func short(version string) string {
	if len(version) > len("sha256:")+12 {
		return version[:len("sha256:")+12]
	}
	return version
}

// eachBlob walks objects/: fn gets each blob file (its path in the state
// directory, its version "sha256:<hex>" and its entry); stray gets the path
// of anything else found there (a leftover temp file, a stray file).
func (j *Journal) eachBlob(fn func(path, version string, e fs.DirEntry) error, stray func(path string)) error {
	d, err := j.root.Open(objectsDir)
	if err != nil {
		return err
	}
	dirs, err := d.ReadDir(-1)
	d.Close()
	if err != nil {
		return err
	}
	for _, de := range dirs {
		if !de.IsDir() || !isHex(de.Name(), 2) {
			stray(objectsDir + "/" + de.Name())
			continue
		}
		dir := objectsDir + "/" + de.Name()
		sub, err := j.root.Open(dir)
		if err != nil {
			return err
		}
		files, err := sub.ReadDir(-1)
		sub.Close()
		if err != nil {
			return err
		}
		for _, fe := range files {
			if !fe.Type().IsRegular() || !isHex(fe.Name(), 62) {
				stray(dir + "/" + fe.Name())
				continue
			}
			if err := fn(dir+"/"+fe.Name(), "sha256:"+de.Name()+fe.Name(), fe); err != nil {
				return err
			}
		}
	}
	return nil
}
