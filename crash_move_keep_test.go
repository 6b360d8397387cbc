//go:build unix

package stet_test

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys"
)

// A move over a file killed after its exchange and before the journal has
// taken the file it replaced (under the move's old name, or staged in the
// object store) lands at the next start, with the replaced bytes kept
// without a copy: the blob is the replaced file itself. Undo then brings
// both names back byte for byte.
func TestCrashMoveOverKeepsTheReplacedFile(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Skip("no test executable to re-run:", err)
	}
	for _, killAt := range []string{"afterswap", "adopt"} {
		t.Run(killAt, func(t *testing.T) {
			root, state := crashSetup(t, "move-over")
			old := snapshot(root)
			was, err := os.Stat(filepath.Join(root, "b.txt"))
			if err != nil {
				t.Fatal(err)
			}
			cmd := exec.Command(exe, "-test.run=^$")
			cmd.Env = append(os.Environ(), crashEnv+"="+strings.Join([]string{"move-over", root, state, killAt, "0"}, "|"))
			var ee *exec.ExitError
			if err := cmd.Run(); !errors.As(err, &ee) || !strings.Contains(ee.String(), "killed") {
				t.Fatalf("the child did not end by the kill at %s: %v", killAt, err)
			}
			ws, err := stet.Open([]string{root}, stet.Options{State: state})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			got := snapshot(root)
			if got["a.txt"] != "<none>" || got["b.txt"] != old["a.txt"] {
				t.Fatalf("the move did not land whole:\n%s", treeDiff(got, old, old))
			}
			h := strings.TrimPrefix(string(fsys.VersionOf([]byte(old["b.txt"]))), "sha256:")
			blob, err := os.Stat(filepath.Join(state, "objects", h[:2], h[2:]))
			if err != nil {
				t.Fatalf("the replaced bytes are not in the journal: %v", err)
			}
			if !os.SameFile(was, blob) {
				t.Error("the replaced file was copied, not adopted")
			}
			if rep, err := ws.Verify(""); err != nil || !rep.OK() {
				t.Fatalf("verify --all: %v %+v", err, rep.Problems)
			}
			s, _ := ws.Session("crash")
			if _, err := s.Undo(ctx, stet.UndoArgs{Path: "b.txt"}); err != nil {
				t.Fatal(err)
			}
			if after := snapshot(root); !equalTrees(after, old) {
				t.Fatalf("undo did not restore both names:\n%s", treeDiff(after, old, old))
			}
		})
	}
}
