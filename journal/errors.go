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
	// ErrMoved: the state directory's path no longer names the directory
	// this handle opened (it was replaced, moved or removed), so another
	// process would write records this one never sees. Nothing is
	// appended; restart to open the directory the path names now.
	ErrMoved = errors.New("journal: the state directory was replaced or moved since it was opened; restart stet (the MCP server or the program) to use the one its path names now")
)
