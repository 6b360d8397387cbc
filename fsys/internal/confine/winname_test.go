package confine

import (
	"errors"
	"testing"

	"github.com/stet-dev/stet/fsys"
)

// TestWindowsName is the table of Windows path spellings. It runs on every
// system: the rules are pure functions of the name.
func TestWindowsName(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"a/b.txt", true},
		{"src/main.go", true},
		{"console.log", true},
		{"nul_test.go", true},
		{"COM10", true},
		{"LPT", true},
		{"auxiliary/x", true},
		{"a~b.txt", true},
		{"notes~1.markdown", true}, // the extension is too long for an alias
		{"longname1~2", true},      // nine characters before the dot
		{"~1", true},
		{".gitignore", true},
		{"..x", true},
		{"CON", false},
		{"con", false},
		{"dir/Nul.txt", false},
		{"AUX.tar.gz", false},
		{"prn /x", false},
		{"COM1", false},
		{"com0", false},
		{"LPT9.log", false},
		{"COM¹", false},
		{"lpt³.txt", false},
		{"CONIN$", false},
		{"conout$.x", false},
		{"secrets.", false},
		{"secrets ", false},
		{"a./b", false},
		{"...", false},
		{"C:x", false},
		{"file.txt:stream", false},
		{"secrets::$DATA", false},
		{"a<b", false},
		{"a>b", false},
		{`a"b`, false},
		{"a|b", false},
		{"a?b", false},
		{"a*b", false},
		{"a\tb", false},
		{"PROGRA~1", false},
		{"dir/SECRET~1.ENV", false},
		{"x~12", false},
	} {
		err := WindowsName(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("WindowsName(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrWindowsName) {
			t.Errorf("WindowsName(%q) = %v, not ErrWindowsName", tc.name, err)
		}
	}
}

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
