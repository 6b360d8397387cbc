//go:build unix && !linux

package local

import (
	"errors"
	"io"
	"os"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/internal/confine"
)

// direntBufSize is unused here; os.File reads the entries.
const direntBufSize = 0

// eachEntry calls fn with the name and type of every entry of the directory
// open at fd (which it does not close).
func eachEntry(fd int, _ []byte, fn func(name string, typ fsys.Type) error) error {
	dup, err := dupCloexec(fd)
	if err != nil {
		return err
	}
	// Not opened through the Root: entry types come from the directory
	// itself, and only single-component names relative to fd are used.
	dir := os.NewFile(uintptr(dup), "dir")
	defer dir.Close()
	for {
		ents, err := dir.ReadDir(512)
		for _, e := range ents {
			if err := fn(e.Name(), confine.TypeOf(e.Type())); err != nil {
				return err
			}
		}
		if errors.Is(err, io.EOF) || (err == nil && len(ents) == 0) {
			return nil
		}
		if err != nil {
			return err
		}
	}
}
