package receipt

import (
	"bytes"

	"github.com/stet-dev/stet/fsys"
)

// Lines returns the number of numbered lines of b in a read frame: the count
// of "\n" plus one.
func Lines(b []byte) int {
	return bytes.Count(b, []byte{'\n'}) + 1
}

// StateOf returns the State of b: its Version, size and line count.
func StateOf(b []byte) *State {
	return &State{Version: string(fsys.VersionOf(b)), Bytes: len(b), Lines: Lines(b)}
}
