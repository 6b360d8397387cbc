package journal_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet/journal"
)

// stage puts a file holding data where the adoption a takes it from, as a
// provider's rename would, and returns what was seen of it before.
func stage(t *testing.T, a *journal.Adoption, data []byte) os.FileInfo {
	t.Helper()
	src := filepath.Join(t.TempDir(), "displaced")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	seen, err := os.Lstat(src)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(src, filepath.Join(a.Dir().Name(), a.Name())); err != nil {
		t.Skipf("the test's temp directory and the journal are on different filesystems: %v", err)
	}
	return seen
}

// blobFile is the path of the blob named version in the state directory dir.
func blobFile(dir, version string) string {
	h := strings.TrimPrefix(version, "sha256:")
	return filepath.Join(dir, "objects", h[:2], h[2:])
}

func adopt(t *testing.T, j *journal.Journal, data []byte) (version string, seen os.FileInfo, err error) {
	t.Helper()
	version = versionOf(data)
	a, err := j.Adopt(version, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	seen = stage(t, a, data)
	return version, seen, a.Take(seen)
}

func TestAdoptTakesTheFileItself(t *testing.T) {
	dir := t.TempDir()
	var synced []string
	j := openWith(t, dir, journal.Options{Now: clock(), OnSync: func(name string) { synced = append(synced, name) }})
	data := []byte("the displaced bytes\n")
	version, seen, err := adopt(t, j, data)
	if err != nil {
		t.Fatal(err)
	}
	got, err := j.Get(version)
	if err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get after Adopt = %q, %v", got, err)
	}
	info, err := os.Lstat(blobFile(dir, version))
	if err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(seen, info) {
		t.Error("the blob is a copy, not the adopted file")
	}
	if info.Mode().Perm() != 0o400 {
		t.Errorf("blob mode %v, want 0400 like every blob", info.Mode().Perm())
	}
	if !info.ModTime().Equal(testTime) {
		t.Errorf("blob mtime %v, want the journal's now %v (Compact keeps young blobs)", info.ModTime(), testTime)
	}
	h := strings.TrimPrefix(version, "sha256:")
	if !slices.Contains(synced, "objects/"+h[:2]+"/") {
		t.Errorf("the blob's directory was not fsynced before Take returned: synced %q", synced)
	}
	rep, err := j.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Blobs != 1 || len(rep.Problems) != 0 || len(rep.Warnings) != 0 {
		t.Errorf("Verify after an adoption: %d blobs, problems %v, warnings %v", rep.Blobs, rep.Problems, rep.Warnings)
	}
}

func TestAdoptIsIdempotent(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	data := bytes.Repeat([]byte("x"), 5000)
	if _, err := j.Put(data); err != nil {
		t.Fatal(err)
	}
	for range 2 {
		if _, _, err := adopt(t, j, data); err != nil {
			t.Fatal(err)
		}
	}
	version := versionOf(data)
	if got, err := j.Get(version); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("Get = %d bytes, %v", len(got), err)
	}
	ents, err := os.ReadDir(filepath.Dir(blobFile(dir, version)))
	if err != nil {
		t.Fatal(err)
	}
	if len(ents) != 1 {
		t.Errorf("the blob's directory holds %d entries, want 1", len(ents))
	}
	ents, _ = os.ReadDir(filepath.Join(dir, "objects"))
	for _, e := range ents {
		if !e.IsDir() {
			t.Errorf("objects/ holds %s, want only the fan-out directories (no staged file left)", e.Name())
		}
	}
}

func TestAdoptRefusesAWrongFile(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	data := []byte("twelve bytes")
	version := versionOf(data)

	a, err := j.Adopt(version, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	seen := stage(t, a, []byte("eleven byte"))
	if err := a.Take(seen); !errors.Is(err, journal.ErrRefused) {
		t.Fatalf("Take of a file of another size: %v, want ErrRefused", err)
	}
	if _, err := j.Get(version); !errors.Is(err, journal.ErrNotFound) {
		t.Errorf("Get after a refused adoption: %v, want ErrNotFound", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "objects", a.Name())); err != nil {
		t.Errorf("the refused file is not left staged: %v", err)
	}

	b, err := j.Adopt(version, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	stage(t, b, data)
	other, err := os.Lstat(filepath.Join(dir, "objects"))
	if err != nil {
		t.Fatal(err)
	}
	if err := b.Take(other); !errors.Is(err, journal.ErrRefused) {
		t.Fatalf("Take of another file than the one seen: %v, want ErrRefused", err)
	}
	if _, err := j.Adopt("sha256:abc", 1); !errors.Is(err, journal.ErrRefused) {
		t.Errorf("Adopt of a malformed version: %v, want ErrRefused", err)
	}
}

// A crash between the rename into objects/ and Take leaves a staged file;
// the next Open makes it the blob it hashes to, and never one it does not.
func TestOpenFinishesAStagedAdoption(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	data := []byte("staged, then the process died\n")
	a, err := j.Adopt(versionOf(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	stage(t, a, data)
	a.Close()
	forged := []byte("not what the name says")
	b, err := j.Adopt(versionOf(data), int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	stage(t, b, forged)
	b.Close()
	j.Close()

	j2 := open(t, dir)
	if got, err := j2.Get(versionOf(data)); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("after reopening, Get = %q, %v", got, err)
	}
	if _, err := j2.Get(versionOf(forged)); !errors.Is(err, journal.ErrNotFound) {
		t.Errorf("a staged file that does not hash to its name became a blob: %v", err)
	}
	if _, err := os.Lstat(filepath.Join(dir, "objects", b.Name())); err != nil {
		t.Errorf("the forged staged file is gone before it is stale: %v", err)
	}
}

// An adopted file keeps no trace of its age: gc's age rule sees it as new.
func TestAdoptedBlobIsYoungForCompact(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	data := []byte("an old file, displaced today\n")
	version := versionOf(data)
	a, err := j.Adopt(version, int64(len(data)))
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	seen := stage(t, a, data)
	old := testTime.Add(-365 * 24 * time.Hour)
	if err := os.Chtimes(filepath.Join(dir, "objects", a.Name()), old, old); err != nil {
		t.Fatal(err)
	}
	if err := a.Take(seen); err != nil {
		t.Fatal(err)
	}
	rep, err := j.Compact(journal.CompactOptions{BlobsBefore: testTime.Add(-time.Minute)})
	if err != nil {
		t.Fatal(err)
	}
	if rep.BlobsDropped != 0 {
		t.Errorf("Compact dropped %d blobs: the adopted file's old mtime counted", rep.BlobsDropped)
	}
	if _, err := j.Get(version); err != nil {
		t.Error(err)
	}
}

// versionOf is the blob name of data.
func versionOf(data []byte) string {
	sum := sha256.Sum256(data)
	return "sha256:" + hex.EncodeToString(sum[:])
}
