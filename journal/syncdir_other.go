//go:build !windows

package journal

import "os"

// syncDirFile fsyncs the open directory d.
func syncDirFile(d *os.File) error { return d.Sync() }
