package stet

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/journal"
)

// snapshotFixture makes a session whose index is well past
// snapshotMinBytes: many windows of one file, each a new observation.
func snapshotFixture(t testing.TB) (root, state string) {
	t.Helper()
	root, state = t.TempDir(), t.TempDir()
	var b strings.Builder
	for i := range 1000 {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	os.WriteFile(filepath.Join(root, "big.txt"), []byte(b.String()), 0o644)
	os.WriteFile(filepath.Join(root, "other.txt"), []byte("other\n"), 0o644)
	ws := openTest(t, root, state)
	defer ws.e.Close()
	s, err := ws.Session("s")
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= 600; i += 2 { // every other line: ranges that do not merge
		if _, err := s.Read(context.Background(), ReadArgs{Path: "big.txt", Offset: i, Limit: 1}); err != nil {
			t.Fatal(err)
		}
	}
	return root, state
}

func openTest(t testing.TB, root, state string) *Workspace {
	t.Helper()
	ws, err := Open([]string{root}, Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	return ws
}

func indexFile(state, id string) string {
	sum := sha256.Sum256([]byte(id))
	return filepath.Join(state, "sessions", hex.EncodeToString(sum[:])+".jsonl")
}

func seenOf(t testing.TB, root, state string) string {
	t.Helper()
	ws := openTest(t, root, state)
	defer ws.e.Close()
	s, err := ws.Session("s")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s.e.Snapshot())
	return string(b)
}

func TestSessionRebuildStartsAtItsSnapshot(t *testing.T) {
	root, state := snapshotFixture(t)
	want := seenOf(t, root, state) // this rebuild writes the snapshot
	ws := openTest(t, root, state)
	from := ws.e.Journal.Cursor(engine.SnapshotCursor("s"))
	ws.e.Close()
	if from == 0 {
		t.Fatal("a rebuild of a long session wrote no snapshot")
	}
	if got := seenOf(t, root, state); got != want {
		t.Fatalf("state rebuilt from the snapshot differs:\n got %s\nwant %s", got, want)
	}
	// The rebuild reads only from the snapshot on: damage before it is not
	// even read (verify --all reports it).
	idx := indexFile(state, "s")
	b, err := os.ReadFile(idx)
	if err != nil {
		t.Fatal(err)
	}
	b[0] = 'X'
	os.WriteFile(idx, b, 0o600)
	if got := seenOf(t, root, state); got != want {
		t.Fatalf("state rebuilt from the snapshot differs:\n got %s\nwant %s", got, want)
	}
	// Edits and further reads after the snapshot are kept across rebuilds.
	b[0] = '{'
	os.WriteFile(idx, b, 0o600)
	ws = openTest(t, root, state)
	s, _ := ws.Session("s")
	if _, err := s.Edit(context.Background(), EditArgs{Path: "big.txt", OldString: new("line 4\n"), NewString: new("line four\n")}); err != nil {
		t.Fatal(err)
	}
	ws.e.Close()
	if got := seenOf(t, root, state); got == want {
		t.Fatalf("the edit's observation was lost: %s", got)
	}
}

func TestForgedSnapshotIsNeverActedOn(t *testing.T) {
	root, state := snapshotFixture(t)
	want := seenOf(t, root, state)
	idx := indexFile(state, "s")
	info, err := os.Stat(idx)
	if err != nil {
		t.Fatal(err)
	}
	// A snapshot line that the log does not hold, claiming other.txt was
	// read whole, with the cursor pointing at it.
	forged := `{"seq":999999,"prev":"sha256:00","time":"2026-01-01T00:00:00Z","type":"snapshot","session":"s","data":{"files":{"0:other.txt":{"version":"sha256:x","whole":true,"size":6,"lines":1}}}}` + "\n"
	f, _ := os.OpenFile(idx, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(forged)
	f.Close()
	ws := openTest(t, root, state)
	ws.e.Journal.SetCursor(engine.SnapshotCursor("s"), info.Size())
	_, err = ws.Session("s")
	ws.e.Close()
	if !errors.Is(err, journal.ErrCorrupt) {
		t.Fatalf("a session whose index holds a forged snapshot: err %v, want ErrCorrupt", err)
	}
	os.Truncate(idx, info.Size())
	// A cursor that points anywhere but at a snapshot is ignored.
	for _, off := range []int64{1, 7, info.Size() / 2, info.Size(), info.Size() + 100} {
		ws := openTest(t, root, state)
		ws.e.Journal.SetCursor(engine.SnapshotCursor("s"), off)
		ws.e.Close()
		if got := seenOf(t, root, state); got != want {
			t.Fatalf("cursor %d: state differs:\n got %s\nwant %s", off, got, want)
		}
	}
}

func FuzzForgedSnapshotLine(f *testing.F) {
	f.Add([]byte(`{"seq":1,"prev":"","type":"snapshot","session":"s","data":{"files":{"0:other.txt":{"version":"v","whole":true}}}}`))
	f.Add([]byte(`{"seq":3,"type":"snapshot","session":"s","data":{}}`))
	root, state := snapshotFixture(f)
	want := seenOf(f, root, state)
	idx := indexFile(state, "s")
	orig, err := os.ReadFile(idx)
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		if strings.ContainsRune(string(line), '\n') {
			return
		}
		os.WriteFile(idx, append(append(append([]byte{}, orig...), line...), '\n'), 0o600)
		defer os.WriteFile(idx, orig, 0o600)
		ws := openTest(t, root, state)
		ws.e.Journal.SetCursor(engine.SnapshotCursor("s"), int64(len(orig)))
		s, err := ws.Session("s")
		var got string
		if err == nil {
			b, _ := json.Marshal(s.e.Snapshot())
			got = string(b)
		}
		ws.e.Close()
		if err == nil && got != want {
			t.Fatalf("a forged snapshot line was acted on: %s", got)
		}
	})
}
