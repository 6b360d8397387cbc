//go:build !linux

package local_test

import (
	"errors"
	"testing"
)

// needExchange skips a test that swaps two paths at an instant: it needs
// renameat2(RENAME_EXCHANGE), a Linux feature.
func needExchange(t *testing.T) {
	t.Helper()
	t.Skip("needs renameat2(RENAME_EXCHANGE), a Linux feature")
}

func exchangePaths(a, b string) error { return errors.ErrUnsupported }
