package journal

import "errors"

// Error kinds, for errors.Is.
var (
	// ErrCorrupt: stored bytes do not match what they claim to be: a blob
	// whose content does not hash to its name, or a line that is not a
	// record or breaks its session's chain.
	ErrCorrupt = errors.New("journal: corrupt")
	// ErrNotFound: no blob is stored under the version asked for.
	ErrNotFound = errors.New("journal: not found")
)
