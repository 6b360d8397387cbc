//go:build unix

package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSetupAsRootForAnotherUsersHome: setup --write run as root with
// another user's HOME (sudo -E) refuses before it writes anything, so no
// root-owned file or state directory lands in that home.
func TestSetupAsRootForAnotherUsersHome(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root, to run as root for another user's home")
	}
	h := newHome(t)
	if err := os.Chown(h.dir, 4242, 4242); err != nil {
		t.Skip("cannot give the home another owner:", err)
	}
	code, out, errOut := h.run("", "setup", "codex", "--root", h.proj, "--write")
	if code == 0 || !strings.Contains(errOut, "belongs to user id 4242") || !strings.Contains(errOut, "without sudo") {
		t.Fatalf("exit %d\n%s%s", code, out, errOut)
	}
	for _, p := range []string{filepath.Join(h.dir, ".codex"), filepath.Join(h.dir, ".local", "state", "stet")} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s was created", p)
		}
	}
	// The same for the user who owns it.
	os.Chown(h.dir, 0, 0)
	if code, out, errOut := h.run("", "setup", "codex", "--root", h.proj, "--write"); code != 0 {
		t.Errorf("setup in root's own home: exit %d\n%s%s", code, out, errOut)
	}
}
