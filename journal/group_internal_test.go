package journal

import (
	"os"
	"path/filepath"
	"testing"
)

// A failed fdatasync of the log is reported to every append it covered,
// and is not retried: after a failed fsync the kernel may have dropped the
// pages, and a second fsync could then succeed over lost data.
func TestFailedLogSyncIsReportedNotRetried(t *testing.T) {
	dir := t.TempDir()
	syncs := 0
	j, err := Open(dir, Options{OnSync: func(string) { syncs++ }})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	// A log whose fdatasync fails: a closed file stands in for a disk error.
	bad, err := os.Create(filepath.Join(t.TempDir(), "bad"))
	if err != nil {
		t.Fatal(err)
	}
	bad.Close()
	gen := j.group.added(bad, nil)
	if err := j.waitSynced(gen); err == nil {
		t.Fatal("a failed fdatasync of the log was not reported")
	}
	before := syncs
	if err := j.waitSynced(gen); err == nil {
		t.Error("a second wait for the same generation succeeded after its sync failed")
	}
	if syncs != before {
		t.Errorf("the failed sync was retried (%d more fsyncs)", syncs-before)
	}
}

// A failed fsync of the state directory's entries fails the group sync.
func TestFailedDirSyncFailsTheGroup(t *testing.T) {
	j, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer j.Close()
	j.root.Close() // the directory can no longer be opened: its fsync fails
	if err := j.syncGroup(nil, map[string]bool{".": true}); err == nil {
		t.Error("a failed fsync of the state directory was not reported")
	}
}
