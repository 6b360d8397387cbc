package journal_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet/journal"
)

func TestPutGet(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	for _, content := range [][]byte{nil, []byte("a\r\nb"), bytes.Repeat([]byte{0, 0xff}, 100_000)} {
		v, err := j.Put(content)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(content)
		if want := "sha256:" + hex.EncodeToString(sum[:]); v != want {
			t.Errorf("Put = %s, want %s", v, want)
		}
		got, err := j.Get(v)
		if err != nil || !bytes.Equal(got, content) {
			t.Errorf("Get(%s) = %d bytes, %v", v, len(got), err)
		}
		if _, err := os.Stat(filepath.Join(dir, "objects", v[7:9], v[9:])); err != nil {
			t.Errorf("blob not at objects/<2>/<62>: %v", err)
		}
		// Idempotent.
		if v2, err := j.Put(content); err != nil || v2 != v {
			t.Errorf("second Put = %s, %v", v2, err)
		}
	}
	// Nothing but the blobs: no temp files left over.
	ents, _ := os.ReadDir(filepath.Join(dir, "objects"))
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left over: %s", e.Name())
		}
	}
}

func TestGetErrors(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	absent := "sha256:" + strings.Repeat("ab", 32)
	for _, v := range []string{absent, "sha256:xyz", "md5:00", "", "sha256:" + strings.Repeat("AB", 32), "sha256:../../../etc/passwd"} {
		if _, err := j.Get(v); !errors.Is(err, journal.ErrNotFound) {
			t.Errorf("Get(%q): %v, want ErrNotFound", v, err)
		}
	}

	v, err := j.Put([]byte("original"))
	if err != nil {
		t.Fatal(err)
	}
	rewriteBlob(t, dir, v, []byte("tampered"))
	if _, err := j.Get(v); !errors.Is(err, journal.ErrCorrupt) {
		t.Fatalf("Get of a tampered blob: %v, want ErrCorrupt", err)
	}
	// Putting the right bytes again repairs it.
	if _, err := j.Put([]byte("original")); err != nil {
		t.Fatal(err)
	}
	if got, err := j.Get(v); err != nil || string(got) != "original" {
		t.Errorf("after repair Get = %q, %v", got, err)
	}
	mustVerifyOK(t, j)
}

// Temp files of a crashed Put are removed by Open once they are old, and
// reported by Verify meanwhile.
func TestLeftoverTempFiles(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	tmp := filepath.Join(dir, "objects", ".tmp-crashed")
	if err := os.WriteFile(tmp, []byte("half a blob"), 0o600); err != nil {
		t.Fatal(err)
	}
	rep := mustVerifyOK(t, j)
	if len(rep.Warnings) != 1 || !strings.Contains(rep.Warnings[0].Msg, ".tmp-crashed") {
		t.Errorf("Verify warnings = %v, want the temp file", rep.Warnings)
	}
	// Young: kept (another process may be writing it).
	open(t, dir)
	if _, err := os.Stat(tmp); err != nil {
		t.Fatal("a fresh temp file was removed")
	}
	old := testTime.Add(-2 * 60 * 60 * 1e9)
	if err := os.Chtimes(tmp, old, old); err != nil {
		t.Fatal(err)
	}
	j2, err := journal.Open(dir, journal.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	defer j2.Close()
	if _, err := os.Stat(tmp); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("stale temp file kept: %v", err)
	}
}

// Putting bytes already stored leaves the stored file as it is: no new
// file, no fsync.
func TestPutOfAStoredBlobChangesNothing(t *testing.T) {
	dir := t.TempDir()
	var rec syncRecorder
	j := openWith(t, dir, journal.Options{Now: clock(), OnSync: rec.onSync})
	for _, content := range [][]byte{[]byte("stored once"), nil} {
		v, err := j.Put(content)
		if err != nil {
			t.Fatal(err)
		}
		h := strings.TrimPrefix(v, "sha256:")
		name := filepath.Join(dir, "objects", h[:2], h[2:])
		before, err := os.Stat(name)
		if err != nil {
			t.Fatal(err)
		}
		rec.take()
		if v2, err := j.Put(content); err != nil || v2 != v {
			t.Fatalf("second Put = %s, %v", v2, err)
		}
		if synced := rec.take(); len(synced) != 0 {
			t.Errorf("second Put of %q fsynced %v", content, synced)
		}
		if after, err := os.Stat(name); err != nil || !os.SameFile(before, after) {
			t.Errorf("second Put of %q replaced the stored file (%v)", content, err)
		}
	}
}

// Files in objects/ that are not named like blobs (a name that is not
// lowercase hex, of a blob's length or not) are reported as strays, not
// checked as blobs.
func TestVerifyStrayFilesInObjects(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	if _, err := j.Put([]byte("a real blob")); err != nil {
		t.Fatal(err)
	}
	// Each stray, and what the warning names: a directory not named like
	// one of blobs is named as a whole.
	strays := map[string]string{
		"zz/" + strings.Repeat("z", 62):       "objects/zz",
		"AB/" + strings.Repeat("ab", 31):      "objects/AB",
		"ab/" + strings.Repeat("AB", 31):      "",
		"ab/" + strings.Repeat("a", 61) + "g": "",
		"ab/short":                            "",
	}
	for s := range strays {
		name := filepath.Join(dir, "objects", filepath.FromSlash(s))
		os.MkdirAll(filepath.Dir(name), 0o700)
		if err := os.WriteFile(name, []byte("not a blob"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	rep := mustVerifyOK(t, j)
	if rep.Blobs != 1 {
		t.Errorf("Verify checked %d blobs, want 1", rep.Blobs)
	}
	all := fmt.Sprint(rep.Warnings)
	for s, named := range strays {
		if named == "" {
			named = "objects/" + s
		}
		if !strings.Contains(all, "unexpected "+named+" ") {
			t.Errorf("no warning names %s: %v", named, rep.Warnings)
		}
	}
}

// Open removes every stale temp file, of Put in objects/ and of Compact in
// the state directory, and keeps those younger than an hour.
func TestOpenRemovesEveryStaleTempFile(t *testing.T) {
	dir := t.TempDir()
	open(t, dir)
	stale := []string{"objects/.tmp-a", "objects/.tmp-b", "objects/.tmp-c", ".tmp-journal.jsonl-x", ".tmp-journal.jsonl-y"}
	young := []string{"objects/.tmp-young", ".tmp-journal.jsonl-young"}
	for _, names := range [][]string{stale, young} {
		for _, n := range names {
			name := filepath.Join(dir, n)
			if err := os.WriteFile(name, []byte("partial"), 0o600); err != nil {
				t.Fatal(err)
			}
			at := testTime.Add(-2 * time.Hour)
			if names[0] == young[0] {
				at = testTime.Add(-10 * time.Minute)
			}
			if err := os.Chtimes(name, at, at); err != nil {
				t.Fatal(err)
			}
		}
	}
	open(t, dir)
	for _, n := range stale {
		if _, err := os.Stat(filepath.Join(dir, n)); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("stale %s kept: %v", n, err)
		}
	}
	for _, n := range young {
		if _, err := os.Stat(filepath.Join(dir, n)); err != nil {
			t.Errorf("young %s removed: %v", n, err)
		}
	}
}
