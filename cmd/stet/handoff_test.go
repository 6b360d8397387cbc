package main

import (
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
)

// stet review --open hands the address to the browser without putting its
// token on any command line: the opener gets a file:// address that holds
// no secret, naming a page only this user can read, which sends the
// browser on to the address with its token.
func TestReviewOpenKeepsTheTokenOffTheCommandLine(t *testing.T) {
	const target = "http://127.0.0.1:4321/?t=SECRET-TOKEN-123"
	page, cleanup, err := handOff(target)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(page, "SECRET") {
		t.Fatalf("the opener's argument %q holds the token", page)
	}
	u, err := url.Parse(page)
	if err != nil || u.Scheme != "file" {
		t.Fatalf("hand-off address %q: %v", page, err)
	}
	name := filepath.FromSlash(u.Path)
	b, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `content="0;url=http://127.0.0.1:4321/?t=SECRET-TOKEN-123"`) {
		t.Fatalf("hand-off page does not send the browser on: %s", b)
	}
	if runtime.GOOS != "windows" {
		for p, want := range map[string]os.FileMode{name: 0o600, filepath.Dir(name): 0o700} {
			if fi, err := os.Stat(p); err != nil || fi.Mode().Perm() != want {
				t.Errorf("%s: mode %v, want %v (%v)", p, fi.Mode().Perm(), want, err)
			}
		}
	}
	cleanup()
	if _, err := os.Stat(filepath.Dir(name)); !os.IsNotExist(err) {
		t.Errorf("hand-off directory left behind: %v", err)
	}
}
