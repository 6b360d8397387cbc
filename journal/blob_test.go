package journal_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

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
