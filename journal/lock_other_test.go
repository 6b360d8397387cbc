//go:build !unix && !windows

package journal_test

import (
	"errors"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// Without a lock between processes, Open refuses rather than risk a chain
// that two appenders interleave.
func TestOpenRefusedWithoutLocks(t *testing.T) {
	j, err := journal.Open(t.TempDir(), journal.Options{})
	if err == nil {
		j.Close()
		t.Fatal("Open succeeded on a system without file locks")
	}
	if !errors.Is(err, errors.ErrUnsupported) {
		t.Fatalf("Open: %v, want errors.ErrUnsupported", err)
	}
}
