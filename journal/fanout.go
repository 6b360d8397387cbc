package journal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
)

// The object store's fan-out: objects/00 … objects/ff, the 256 directories
// a blob's name (objects/<2 hex>/<62 hex>) falls into. They are made all
// at once, once for the state directory, not one by one by the Put or Adopt
// of the blob that first needs each: a new directory must be made durable with an fsync of
// objects/ before a blob in it may count as kept, and that fsync on the
// path of nearly every call of a young state directory cost as much as the
// blob's own rename.
//
// The marker file objects.layout in the state directory says the fan-out is
// complete and durable: it is created only after all 256 directories exist
// and objects/ was fsynced. In a state directory without it (new, or made
// by an older stet, or left by a crash between the directories) the
// handle's first Put or Adopt makes the missing directories, fsyncs
// objects/ once and creates the marker; Open makes nothing (a call that
// only reads, or edits, never pays for them). A handle that sees the
// marker at Open pays nothing.
//
// Anything may still remove a fan-out directory later (by hand, an older
// stet's cleanup): Put and Adopt then make it again, durably, as before.
// Two processes opening one state directory at once both make what is
// missing (an existing directory is no error) and both may fsync objects/;
// whichever creates the marker, it is created after an fsync that covered
// every directory. A state directory this user may not write: Open and
// reading fail nothing (a reader), the first Put or Adopt fails naming
// objects/ (a writer).

// fanoutMarker is the name of the marker file, in the state directory.
const fanoutMarker = "objects.layout"

// fanoutNote is the marker's content, for a person who finds it.
const fanoutNote = "objects/00 to objects/ff exist and are durable\n"

// fanoutDirs returns the 256 fan-out directories, in order.
func fanoutDirs() []string {
	const hexDigits = "0123456789abcdef"
	dirs := make([]string, 0, 256)
	for _, a := range hexDigits {
		for _, b := range hexDigits {
			dirs = append(dirs, objectsDir+"/"+string(a)+string(b))
		}
	}
	return dirs
}

// openFanout is Open's part: it notes whether the marker is there. It
// makes nothing: 256 directories cost a first call more than all its other
// work (and a call that stores no blob never needs them), so the handle's
// first Put or Adopt makes them (fanoutReady).
func (j *Journal) openFanout() {
	if _, err := j.root.Lstat(fanoutMarker); err == nil {
		j.fanReady = true
	}
}

// makeFanout makes the fan-out directories that do not exist yet.
func (j *Journal) makeFanout() error {
	for _, d := range fanoutDirs() {
		if err := j.root.Mkdir(d, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return nil
}

// fanoutReady makes sure, before a blob is written or adopted, that the
// fan-out is durable: once per handle at most it makes what is missing,
// fsyncs objects/ and creates the marker. An error names objects/ and what
// to do.
func (j *Journal) fanoutReady() error {
	j.fanMu.Lock()
	defer j.fanMu.Unlock()
	if j.fanReady {
		return nil
	}
	err := j.makeFanout()
	if err == nil {
		err = j.syncDir(objectsDir)
	}
	if err != nil {
		return fmt.Errorf("the object store %s/%s cannot be prepared (%w); free space on its disk, or make the state directory writable by this user, then retry", j.dir, objectsDir, err)
	}
	// Created only now, after the fsync: its presence vouches for it. It is
	// not fsynced: a marker lost to a power cut only makes the next handle
	// fsync objects/ once more.
	// Its bytes say nothing the name does not: a marker left empty by a
	// crash vouches as well (the fsync ran before it was made).
	if f, err := j.root.OpenFile(fanoutMarker, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
		f.WriteString(fanoutNote)
		f.Close()
	}
	j.fanReady = true // this handle's fsync covered it, marker or not
	return nil
}
