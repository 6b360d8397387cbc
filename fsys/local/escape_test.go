package local

import (
	"errors"
	"testing"

	"github.com/stet-dev/stet/fsys"
)

// TestEscapeKind: os.Root's own refusal (met when a path is swapped for a
// link that leaves after the walk) maps to fsys.ErrOutside.
func TestEscapeKind(t *testing.T) {
	l, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if l.escape == nil {
		t.Fatal("the escape error was not captured")
	}
	_, err = l.root.Open("../x")
	if err := l.fail("read", "x", err); !errors.Is(err, fsys.ErrOutside) {
		t.Fatalf("os.Root escape maps to %v", err)
	}
}
