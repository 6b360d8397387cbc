package confine

import (
	"errors"
	"testing"

	"github.com/stet-dev/stet/fsys"
)

// TestCleanWindows checks Clean's Windows rules (backslashes, drive
// letters, \\?\ and UNC prefixes, reserved names) on every system.
func TestCleanWindows(t *testing.T) {
	for name, want := range map[string]string{
		`a\b`:           "a/b",
		`src\..\go.mod`: "go.mod",
		`a\.\b\`:        "a/b",
		`Dir/File.TXT`:  "Dir/File.TXT", // case is kept: the rules fold it
	} {
		got, err := clean("op", name, true)
		if err != nil || got != want {
			t.Errorf("clean(%q, windows) = %q, %v; want %q", name, got, err, want)
		}
	}
	for name, kind := range map[string]error{
		`C:\Windows\win.ini`: fsys.ErrOutside,
		`c:/x`:               fsys.ErrOutside,
		`C:`:                 fsys.ErrOutside,
		`C:x`:                fsys.ErrOutside,
		`\x`:                 fsys.ErrOutside,
		`\\server\share\x`:   fsys.ErrOutside,
		`\\?\C:\x`:           fsys.ErrOutside,
		`\\.\PhysicalDrive0`: fsys.ErrOutside,
		`a\..\..\x`:          fsys.ErrOutside,
		`NUL`:                fsys.ErrInvalid,
		`sub\con.txt`:        fsys.ErrInvalid,
		`secrets.`:           fsys.ErrInvalid,
		`file.txt:hidden`:    fsys.ErrInvalid,
		`dir\PROGRA~1\x`:     fsys.ErrInvalid,
	} {
		if _, err := clean("op", name, true); !errors.Is(err, kind) {
			t.Errorf("clean(%q, windows): %v, want %v", name, err, kind)
		}
	}
	// The same spellings are ordinary names elsewhere.
	for _, name := range []string{`NUL`, `secrets.`, `a\b`, `file.txt:hidden`, `C:x`} {
		if _, err := clean("op", name, false); err != nil {
			t.Errorf("clean(%q) outside Windows: %v, want ok", name, err)
		}
	}
}
