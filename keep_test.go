//go:build unix

package stet

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
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
	p := ws.e.RootList[0].P
	keep, done, err := ws.e.KeepFor(p, fsys.VersionOf(old), old)
	if err != nil {
		t.Fatal(err)
	}
	_, kept, err := fsys.ReplaceKeeping(p, "a.txt", next, fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}, keep)
	done()
	if err != nil || !kept.Adopted {
		t.Fatalf("ReplaceKeeping = %+v, %v", kept, err)
	}
	if got, err := ws.e.Journal.Get(string(fsys.VersionOf(old))); err != nil || !bytes.Equal(got, old) {
		t.Fatalf("the journal holds %q, %v", got, err)
	}
	h := strings.TrimPrefix(string(fsys.VersionOf(old)), "sha256:")
	bi, err := os.Stat(filepath.Join(ws.e.Journal.Dir(), "objects", h[:2], h[2:]))
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
	p := ws.e.RootList[0].P
	displaced, other := fsys.TempName(p), fsys.TempName(p)
	for name, data := range map[string][]byte{displaced: old, other: []byte("two\n")} {
		if err := os.WriteFile(filepath.Join(root, name), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tgt, ref := ws.e.Resolve("edit", "a.txt")
	if ref != nil {
		t.Fatal(ref)
	}
	it := engine.IntentData{ID: "r_gone", Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{{Key: tgt.Key(), Temp: displaced}, {Key: tgt.Key(), Temp: other}}}
	appendIntent(t, ws, it)
	held, err := ws.e.HeldTemps()
	if err != nil {
		t.Fatal(err)
	}
	if !held[0][displaced] || !held[0][other] {
		t.Fatalf("heldTemps = %v, want both temp files of the open intent", held)
	}

	want := string(fsys.VersionOf(old))
	note, err := ws.e.AdoptDisplaced(ws.e.RootList[0].P, displaced, want)
	if err != nil || !strings.Contains(note, "kept from") {
		t.Fatalf("adoptDisplaced = %q, %v", note, err)
	}
	if got, err := ws.e.Journal.Get(want); err != nil || !bytes.Equal(got, old) {
		t.Fatalf("the journal holds %q, %v", got, err)
	}
	if _, err := os.Lstat(filepath.Join(root, displaced)); !os.IsNotExist(err) {
		t.Errorf("the adopted temp file is still beside the file: %v", err)
	}
	note, err = ws.e.AdoptDisplaced(ws.e.RootList[0].P, other, want)
	if err != nil || !strings.Contains(note, "left in place") {
		t.Fatalf("adoptDisplaced of other bytes = %q, %v", note, err)
	}
	if _, err := os.Lstat(filepath.Join(root, other)); err != nil {
		t.Errorf("a temp file holding other bytes was not left: %v", err)
	}
	if note, err := ws.e.AdoptDisplaced(ws.e.RootList[0].P, displaced, want); note != "" || err != nil {
		t.Errorf("adoptDisplaced of a gone file = %q, %v", note, err)
	}

	if _, err := ws.e.Journal.Append(engine.DoneRecord(it.ID, engine.DoneDropped, "")); err != nil {
		t.Fatal(err)
	}
	if held, err := ws.e.HeldTemps(); err != nil || len(held[0]) != 0 {
		t.Errorf("heldTemps after the done record = %v, %v", held, err)
	}
}
