//go:build unix && !linux && !darwin

package local

// copyXattrs does nothing outside Linux and macOS: extended attributes are
// not kept there (a documented limit).
func copyXattrs(src, dst int) error { return nil }
