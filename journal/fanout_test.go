package journal_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// fanoutCount counts the fan-out directories of objects/ that exist.
func fanoutCount(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	for i := range 256 {
		if info, err := os.Stat(filepath.Join(dir, "objects", fmt.Sprintf("%02x", i))); err == nil && info.IsDir() {
			n++
		}
	}
	return n
}

// blobsWithPrefixes returns n contents whose blobs fall into n different
// fan-out directories.
func blobsWithPrefixes(n int) [][]byte {
	var out [][]byte
	seen := map[string]bool{}
	for i := 0; len(out) < n; i++ {
		data := []byte(fmt.Sprintf("content %d\n", i))
		h := strings.TrimPrefix(versionOf(data), "sha256:")
		if !seen[h[:2]] {
			seen[h[:2]] = true
			out = append(out, data)
		}
	}
	return out
}

// A fresh state directory gets its 256 blob directories at the handle's
// first blob write, not at Open (which makes nothing and fsyncs nothing);
// that write fsyncs objects/ once, and no later
// Put or Adopt (of this handle or of one opened after) fsyncs objects/
// again: each pays only for the directory its blob lands in.
func TestFanoutMadeOnce(t *testing.T) {
	dir := t.TempDir()
	var rec syncRecorder
	j := openWith(t, dir, journal.Options{Now: clock(), OnSync: rec.onSync})
	if n := fanoutCount(t, dir); n != 0 {
		t.Fatalf("Open made %d fan-out directories, want none before a blob is stored", n)
	}
	if synced := rec.take(); len(synced) > 0 {
		t.Errorf("Open fsynced %v", synced)
	}
	contents := blobsWithPrefixes(4)
	if _, err := j.Put(contents[0]); err != nil {
		t.Fatal(err)
	}
	if n := fanoutCount(t, dir); n != 256 {
		t.Fatalf("the first Put made %d fan-out directories, want 256", n)
	}
	if synced := rec.take(); !hasSync(synced, "objects/") {
		t.Errorf("the first Put did not fsync objects/ for the fan-out (fsynced %v)", synced)
	}
	if _, err := os.Stat(filepath.Join(dir, "objects.layout")); err != nil {
		t.Errorf("no marker after the fan-out was made durable: %v", err)
	}
	if _, err := j.Put(contents[1]); err != nil {
		t.Fatal(err)
	}
	h := strings.TrimPrefix(versionOf(contents[1]), "sha256:")
	synced := rec.take()
	if hasSync(synced, "objects/") {
		t.Errorf("a Put into a new blob directory fsynced objects/ again (fsynced %v)", synced)
	}
	if !hasSync(synced, "objects/"+h[:2]+"/") {
		t.Errorf("Put did not fsync its blob's directory (fsynced %v)", synced)
	}

	var rec2 syncRecorder
	k := openWith(t, dir, journal.Options{Now: clock(), OnSync: rec2.onSync})
	if _, err := k.Put(contents[2]); err != nil {
		t.Fatal(err)
	}
	if _, _, err := adopt(t, k, contents[3]); err != nil {
		t.Fatal(err)
	}
	if synced := rec2.take(); hasSync(synced, "objects/") {
		t.Errorf("a handle opened on a ready fan-out fsynced objects/ (fsynced %v)", synced)
	}
	rep, err := k.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Blobs != 4 || len(rep.Problems) != 0 || len(rep.Warnings) != 0 {
		t.Errorf("Verify: %d blobs, problems %v, warnings %v", rep.Blobs, rep.Problems, rep.Warnings)
	}
}

// A state directory of an older stet (blob directories made on demand, no
// marker), or one a crash left between the fan-out's directories: the
// blobs already stored stay readable, and the first blob write makes the
// missing directories and fsyncs objects/ before the marker says so.
func TestFanoutCompletesAnOlderStateDirectory(t *testing.T) {
	for _, keep := range []int{0, 1, 0x80} {
		t.Run(fmt.Sprint("kept=", keep), func(t *testing.T) {
			dir := t.TempDir()
			j, err := journal.Open(dir, journal.Options{Now: clock()})
			if err != nil {
				t.Fatal(err)
			}
			old := blobsWithPrefixes(1)[0]
			v, err := j.Put(old)
			if err != nil {
				t.Fatal(err)
			}
			j.Close()
			h := strings.TrimPrefix(v, "sha256:")
			os.Remove(filepath.Join(dir, "objects.layout"))
			for i := keep; i < 256; i++ {
				if p := fmt.Sprintf("%02x", i); p != h[:2] {
					os.Remove(filepath.Join(dir, "objects", p))
				}
			}
			var rec syncRecorder
			k := openWith(t, dir, journal.Options{Now: clock(), OnSync: rec.onSync})
			if got, err := k.Get(v); err != nil || string(got) != string(old) {
				t.Fatalf("Get of a blob stored before = %q, %v", got, err)
			}
			if _, err := os.Stat(filepath.Join(dir, "objects.layout")); err == nil {
				t.Error("the marker is there before objects/ was fsynced")
			}
			if _, err := k.Put([]byte("new\n")); err != nil {
				t.Fatal(err)
			}
			if synced := rec.take(); !hasSync(synced, "objects/") {
				t.Errorf("the first Put after the fan-out was completed did not fsync objects/ (fsynced %v)", synced)
			}
			if n := fanoutCount(t, dir); n != 256 {
				t.Errorf("the first Put left %d fan-out directories, want 256", n)
			}
			if _, err := os.Stat(filepath.Join(dir, "objects.layout")); err != nil {
				t.Errorf("no marker: %v", err)
			}
		})
	}
}

// A blob directory removed after the fan-out was made (by hand, or an
// older stet) is made again by the Put or Adopt that needs it, durably.
func TestFanoutDirectoryRemovedLater(t *testing.T) {
	dir := t.TempDir()
	var rec syncRecorder
	j := openWith(t, dir, journal.Options{Now: clock(), OnSync: rec.onSync})
	contents := blobsWithPrefixes(3)
	if _, err := j.Put(contents[0]); err != nil {
		t.Fatal(err)
	}
	for _, data := range contents[1:] {
		h := strings.TrimPrefix(versionOf(data), "sha256:")
		if err := os.Remove(filepath.Join(dir, "objects", h[:2])); err != nil {
			t.Fatal(err)
		}
	}
	rec.take()
	if _, err := j.Put(contents[1]); err != nil {
		t.Fatal(err)
	}
	if synced := rec.take(); !hasSync(synced, "objects/") {
		t.Errorf("Put into a blob directory it had to make again did not fsync objects/ (fsynced %v)", synced)
	}
	if _, _, err := adopt(t, j, contents[2]); err != nil {
		t.Fatal(err)
	}
	if synced := rec.take(); !hasSync(synced, "objects/") {
		t.Errorf("Adopt into a blob directory it had to make again did not fsync objects/ (fsynced %v)", synced)
	}
	for _, data := range contents {
		if got, err := j.Get(versionOf(data)); err != nil || string(got) != string(data) {
			t.Errorf("Get = %q, %v", got, err)
		}
	}
}

// Processes opening one fresh state directory at once all get a complete
// fan-out, and each one's blobs are kept.
func TestFanoutConcurrentOpens(t *testing.T) {
	dir := t.TempDir()
	contents := blobsWithPrefixes(8)
	var wg sync.WaitGroup
	errs := make([]error, len(contents))
	for i, data := range contents {
		wg.Go(func() {
			j, err := journal.Open(dir, journal.Options{Now: clock()})
			if err != nil {
				errs[i] = err
				return
			}
			defer j.Close()
			_, errs[i] = j.Put(data)
		})
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := fanoutCount(t, dir); n != 256 {
		t.Fatalf("%d fan-out directories, want 256", n)
	}
	j := open(t, dir)
	for _, data := range contents {
		if got, err := j.Get(versionOf(data)); err != nil || string(got) != string(data) {
			t.Errorf("Get = %q, %v", got, err)
		}
	}
}

// A state directory this user may not write: Open and reading work, a blob
// write fails with an error that names the object store.
func TestFanoutReadOnlyStateDirectory(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root writes to read-only directories")
	}
	dir := t.TempDir()
	j, err := journal.Open(dir, journal.Options{Now: clock()})
	if err != nil {
		t.Fatal(err)
	}
	mustAppend(t, j, journal.Record{Type: "receipt", Session: "s"})
	j.Close()
	os.Remove(filepath.Join(dir, "objects.layout"))
	for i := 0x40; i < 256; i++ {
		os.Remove(filepath.Join(dir, "objects", fmt.Sprintf("%02x", i)))
	}
	for _, d := range []string{filepath.Join(dir, "objects"), dir} {
		if err := os.Chmod(d, 0o500); err != nil {
			t.Fatal(err)
		}
		defer os.Chmod(d, 0o700)
	}
	k, err := journal.Open(dir, journal.Options{Now: clock()})
	if err != nil {
		t.Fatalf("Open of a read-only state directory: %v", err)
	}
	defer k.Close()
	if n := len(sessionAll(t, k, "s")); n != 1 {
		t.Errorf("Session read %d records, want 1", n)
	}
	_, err = k.Put([]byte("x"))
	if err == nil || !strings.Contains(err.Error(), "objects") || !strings.Contains(err.Error(), "writable") {
		t.Errorf("Put into a read-only object store: %v, want an error naming objects/ and what to do", err)
	}
}
