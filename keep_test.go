//go:build unix

package stet

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
)

// A replace through keepFor leaves the old bytes in the journal without a
// copy: the blob is the old file itself.
func TestKeepForAdoptsTheReplacedFile(t *testing.T) {
	old, next := []byte("one\n"), []byte("two\n")
	ws, _, root, _ := openIntentWS(t, map[string]string{"a.txt": string(old)})
	fi, err := os.Stat(filepath.Join(root, "a.txt"))
	if err != nil {
		t.Fatal(err)
	}
	p := ws.roots[0].p
	keep, done, err := ws.keepFor(p, fsys.VersionOf(old), old)
	if err != nil {
		t.Fatal(err)
	}
	_, kept, err := fsys.ReplaceKeeping(p, "a.txt", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, keep)
	done()
	if err != nil || !kept.Adopted {
		t.Fatalf("ReplaceKeeping = %+v, %v", kept, err)
	}
	if got, err := ws.journal.Get(string(fsys.VersionOf(old))); err != nil || !bytes.Equal(got, old) {
		t.Fatalf("the journal holds %q, %v", got, err)
	}
	h := strings.TrimPrefix(string(fsys.VersionOf(old)), "sha256:")
	bi, err := os.Stat(filepath.Join(ws.journal.Dir(), "objects", h[:2], h[2:]))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(fi, bi) {
		t.Error("the blob is a copy, not the replaced file")
	}
}

// Recovery adopts a displaced file holding the bytes the intent recorded,
// and leaves one holding anything else.
func TestAdoptDisplaced(t *testing.T) {
	old := []byte("one\n")
	ws, s, root, _ := openIntentWS(t, map[string]string{"a.txt": "two\n"})
	p := ws.roots[0].p
	displaced, other := fsys.TempName(p), fsys.TempName(p)
	for name, data := range map[string][]byte{displaced: old, other: []byte("two\n")} {
		if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tgt, ref := ws.resolve("edit", "a.txt")
	if ref != nil {
		t.Fatal(ref)
	}
	it := intentData{ID: "r_gone", Session: s.id, PID: 1 << 30, Files: []intentFile{{Key: tgt.key(), Temp: displaced}, {Key: tgt.key(), Temp: other}}}
	appendIntent(t, ws, it)
	held, err := ws.heldTemps()
	if err != nil {
		t.Fatal(err)
	}
	if !held[0][displaced] || !held[0][other] {
		t.Fatalf("heldTemps = %v, want both temp files of the open intent", held)
	}

	want := string(fsys.VersionOf(old))
	note, err := ws.adoptDisplaced(ws.roots[0].p, displaced, want)
	if err != nil || !strings.Contains(note, "kept from") {
		t.Fatalf("adoptDisplaced = %q, %v", note, err)
	}
	if got, err := ws.journal.Get(want); err != nil || !bytes.Equal(got, old) {
		t.Fatalf("the journal holds %q, %v", got, err)
	}
	if _, err := os.Lstat(filepath.Join(root, displaced)); !os.IsNotExist(err) {
		t.Errorf("the adopted temp file is still beside the file: %v", err)
	}
	note, err = ws.adoptDisplaced(ws.roots[0].p, other, want)
	if err != nil || !strings.Contains(note, "left in place") {
		t.Fatalf("adoptDisplaced of other bytes = %q, %v", note, err)
	}
	if _, err := os.Lstat(filepath.Join(root, other)); err != nil {
		t.Errorf("a temp file holding other bytes was not left: %v", err)
	}
	if note, err := ws.adoptDisplaced(ws.roots[0].p, displaced, want); note != "" || err != nil {
		t.Errorf("adoptDisplaced of a gone file = %q, %v", note, err)
	}

	if _, err := ws.journal.Append(doneRecord(it.ID, doneDropped, "")); err != nil {
		t.Fatal(err)
	}
	if held, err := ws.heldTemps(); err != nil || len(held[0]) != 0 {
		t.Errorf("heldTemps after the done record = %v, %v", held, err)
	}
}
