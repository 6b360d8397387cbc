package winpath

import (
	"errors"
	"testing"
)

// TestCheck is the table of Windows path spellings. It runs on every
// system: the rules are pure functions of the name.
func TestCheck(t *testing.T) {
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
		err := Check(tc.name)
		if (err == nil) != tc.ok {
			t.Errorf("Check(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
		if err != nil && !errors.Is(err, ErrName) {
			t.Errorf("Check(%q) = %v, not ErrName", tc.name, err)
		}
	}
}
