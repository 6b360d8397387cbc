package receipt

import "time"

// Receipt records one mutation: what the file held before, what it holds
// after, and which byte regions changed. Its JSON is the contract of SPEC
// section 6.
type Receipt struct {
	ID       string    `json:"id"`
	Session  string    `json:"session"`
	Tool     string    `json:"tool"`
	Path     string    `json:"path"`
	From     string    `json:"from,omitempty"` // the source path of a move
	Before   *State    `json:"before"`         // nil (null) for a create
	After    *State    `json:"after"`          // nil (null) for a delete
	Matches  []Match   `json:"matches"`
	EOL      string    `json:"eol"` // lf, crlf, crlf-adapted, mixed or none
	Verified bool      `json:"verified"`
	DryRun   bool      `json:"dry_run,omitempty"`
	Notes    []string  `json:"notes,omitempty"`
	Time     time.Time `json:"time"`
}

// State describes a file's bytes at one moment.
type State struct {
	Version string `json:"version"` // sha256:<64 hex>
	Bytes   int    `json:"bytes"`
	Lines   int    `json:"lines"` // numbered lines in the read frame: count of "\n" + 1
	// Mode is the file's mode as four octal digits, "0644", "0755": the
	// permission bits, led by the setuid (4), setgid (2) and sticky (1)
	// digit ("4755" is a setuid 0755 file). Empty where it is unknown.
	Mode string `json:"mode,omitempty"`
}

// Match is one changed region. Offset and OldBytes address the preimage;
// the region's new bytes start at the same offset shifted by the size
// changes of the matches before it. Line is the 1-based preimage line of
// Offset. A whole-file write is one match covering the whole preimage.
//
// Old and New, when not nil, hold the region's bytes; Verify then checks
// them too. They are not part of the JSON.
type Match struct {
	Offset   int    `json:"offset"`
	OldBytes int    `json:"old_bytes"`
	NewBytes int    `json:"new_bytes"`
	Line     int    `json:"line"`
	Old      []byte `json:"-"`
	New      []byte `json:"-"`
}
