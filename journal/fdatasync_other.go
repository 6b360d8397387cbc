//go:build !linux

package journal

import "os"

// fdatasync is a full fsync where fdatasync is not known to suffice.
func fdatasync(f *os.File) error { return f.Sync() }
