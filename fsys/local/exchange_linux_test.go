package local_test

import (
	"testing"

	"golang.org/x/sys/unix"
)

// needExchange does nothing on Linux, which has renameat2.
func needExchange(*testing.T) {}

// exchangePaths atomically swaps two paths (test helper, plain syscalls).
func exchangePaths(a, b string) error {
	return unix.Renameat2(unix.AT_FDCWD, a, unix.AT_FDCWD, b, unix.RENAME_EXCHANGE)
}
