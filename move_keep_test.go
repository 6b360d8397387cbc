//go:build unix

package stet

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/receipt"
)

// blobFile is the path of the blob holding data in ws's journal.
func blobFile(ws *Workspace, data []byte) string {
	h := strings.TrimPrefix(string(fsys.VersionOf(data)), "sha256:")
	return filepath.Join(ws.e.Journal.Dir(), "objects", h[:2], h[2:])
}

func statOf(t *testing.T, name string) os.FileInfo {
	t.Helper()
	fi, err := os.Lstat(name)
	if err != nil {
		t.Fatal(err)
	}
	return fi
}

// A move over a file keeps the file it replaces without a copy: the blob
// the receipt names is that very file (its inode), and undo brings both
// names back byte for byte.
func TestMoveOverAdoptsTheReplacedFile(t *testing.T) {
	moved, replaced := "the moved notes\n", "the user's notes\nline 2\n"
	ws, s, root, _ := openIntentWS(t, map[string]string{"a.txt": moved, "b.txt": replaced})
	was := statOf(t, filepath.Join(root, "b.txt"))
	ctx := context.Background()
	for _, p := range []string{"a.txt", "b.txt"} {
		if _, err := s.Read(ctx, ReadArgs{Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Move(ctx, MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if !os.SameFile(was, statOf(t, blobFile(ws, []byte(replaced)))) {
		t.Error("the replaced file was copied into the journal, not adopted: the blob is another inode")
	}
	onlyNames(t, root, "b.txt")
	if _, err := s.Undo(ctx, UndoArgs{Path: "b.txt"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": moved, "b.txt": replaced} {
		if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != want {
			t.Errorf("after undo %s = %q, want %q", name, got, want)
		}
	}
}

// A replaced file with another hard link is copied, not adopted (the link
// keeps it), and the link keeps its bytes; undo still restores both.
func TestMoveOverCopiesAFileWithHardLinks(t *testing.T) {
	moved, replaced := "the moved notes\n", "the user's notes\n"
	ws, s, root, _ := openIntentWS(t, map[string]string{"a.txt": moved, "b.txt": replaced})
	if err := os.Link(filepath.Join(root, "b.txt"), filepath.Join(root, "b-link.txt")); err != nil {
		t.Skip("no hard links here:", err)
	}
	ctx := context.Background()
	for _, p := range []string{"a.txt", "b.txt"} {
		if _, err := s.Read(ctx, ReadArgs{Path: p}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.Move(ctx, MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true}); err != nil {
		t.Fatal(err)
	}
	if os.SameFile(statOf(t, filepath.Join(root, "b-link.txt")), statOf(t, blobFile(ws, []byte(replaced)))) {
		t.Error("a file with another hard link was adopted: the blob is the link's inode")
	}
	if got, _ := os.ReadFile(filepath.Join(root, "b-link.txt")); string(got) != replaced {
		t.Errorf("the other link holds %q", got)
	}
	if _, err := s.Undo(ctx, UndoArgs{Path: "b.txt"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"a.txt": moved, "b.txt": replaced} {
		if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != want {
			t.Errorf("after undo %s = %q, want %q", name, got, want)
		}
	}
}

// onlyNames fails unless dir holds exactly names.
func onlyNames(t *testing.T, dir string, names ...string) {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, e := range ents {
		got = append(got, e.Name())
	}
	if strings.Join(got, " ") != strings.Join(names, " ") {
		t.Fatalf("%s holds %q, want %q", dir, got, names)
	}
}

// The same stop, but the replaced bytes are not in the journal: a move
// that keeps the replaced file (fsys.Keeper) hands it over only after the
// exchange, so the file under the old name is the only copy. Recovery
// adopts it (the blob is that very file, not a copy) and the move is
// completed; undo then brings both back byte for byte. A file holding
// other bytes there is left in place and the intent reported.
func TestMoveStoppedBeforeItsHandoverAdoptsTheReplacedFile(t *testing.T) {
	for _, other := range []bool{false, true} {
		moved, replaced := []byte("the moved notes\n"), []byte("the user's notes\n")
		at := replaced
		if other {
			at = []byte("another writer's bytes\n")
		}
		ws, s, root, state := openIntentWS(t, map[string]string{"b.txt": string(moved), "a.txt": string(at)})
		was := statOf(t, filepath.Join(root, "a.txt"))
		from, _ := ws.e.Resolve("move", "a.txt")
		to, _ := ws.e.Resolve("move", "b.txt")
		r := receipt.Receipt{ID: "r_move", Session: s.e.ID(), Tool: "move", Path: "b.txt", From: "a.txt",
			Before: receipt.StateOf(moved), After: receipt.StateOf(moved), Matches: []receipt.Match{}, EOL: "none"}
		over := string(receipt.StateOf(replaced).Version)
		it := engine.IntentData{ID: "r_move", Session: s.e.ID(), PID: 1 << 30, Files: []engine.IntentFile{{Key: to.Key(),
			Data: engine.ReceiptData{Receipt: r, FromKey: from.Key(), Over: over}}}}
		appendIntent(t, ws, it)
		ws2 := reopen(t, ws, root, Options{State: state})
		if other {
			if got, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(got) != string(at) {
				t.Errorf("a.txt = %q: a file that is not the replaced one was taken", got)
			}
			rep, err := ws2.Verify("")
			if err != nil || rep.OK() {
				t.Errorf("verify --all: %v %+v; want the unresolved move reported", err, rep)
			}
			continue
		}
		if _, err := os.Lstat(filepath.Join(root, "a.txt")); !os.IsNotExist(err) {
			t.Errorf("the old name still holds the replaced file: %v", err)
		}
		h := strings.TrimPrefix(over, "sha256:")
		if !os.SameFile(statOf(t, filepath.Join(state, "objects", h[:2], h[2:])), was) {
			t.Error("the blob is not the replaced file: copied, not adopted")
		}
		s2, _ := ws2.Session(s.e.ID())
		if _, err := s2.Undo(context.Background(), UndoArgs{Path: "b.txt"}); err != nil {
			t.Fatalf("undo of the finished move: %v", err)
		}
		for name, want := range map[string][]byte{"a.txt": moved, "b.txt": replaced} {
			if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != string(want) {
				t.Errorf("after undo %s = %q, want %q", name, got, want)
			}
		}
	}
}
