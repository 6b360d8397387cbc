//go:build !linux

package local

import "os"

// beneath is opendir_linux.go's: elsewhere os.Root opens every directory.
type beneath struct{}

func (*beneath) openDir(*os.Root, string) (int, bool) { return -1, false }

func (*beneath) close() {}
