package memfs_test

import (
	"bytes"
	"errors"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/memfs"
)

func TestKeepCopies(t *testing.T) {
	m := memfs.New()
	old := []byte("old\n")
	if err := m.WriteFile("f", old, 0o644); err != nil {
		t.Fatal(err)
	}
	var saved [][]byte
	keep := fsys.Keep{Save: func() error { saved = append(saved, old); return nil }}
	exp := fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}
	_, kept, err := fsys.ReplaceKeeping(m, "f", []byte("new\n"), exp, keep)
	if err != nil || kept.Adopted || !kept.Saved || len(saved) != 1 {
		t.Fatalf("ReplaceKeeping: %+v, %v, %d copies", kept, err, len(saved))
	}
	keep.Save = func() error { return errors.New("disk full") }
	now := []byte("new\n")
	_, _, err = fsys.RemoveKeeping(m, "f", fsys.Expected{Version: fsys.VersionOf(now), Bytes: now}, keep)
	if err == nil {
		t.Fatal("a remove whose copy failed went on")
	}
	if got, _ := m.ReadFile("f"); !bytes.Equal(got, now) {
		t.Errorf("f holds %q after a refused remove", got)
	}
}
