package patch

import (
	"errors"
	"fmt"
)

// Sentinels for what callers branch on. Every *ParseError wraps
// ErrInvalidPatch; every *HunkError wraps ErrNoMatch or ErrAmbiguous by its
// Kind.
var (
	ErrInvalidPatch = errors.New("invalid patch")
	ErrNoMatch      = errors.New("hunk does not match the file")
	ErrAmbiguous    = errors.New("hunk matches the file in several places")
)

// ParseError says why Parse refused a patch and where.
type ParseError struct {
	Line int    // 1-based line of the patch text
	Msg  string // what is wrong, and what was expected
}

// Error returns the message, as the error interface asks.
func (e *ParseError) Error() string {
	return fmt.Sprintf("patch line %d: %s", e.Line, e.Msg)
}

// Unwrap returns ErrInvalidPatch.
func (e *ParseError) Unwrap() error { return ErrInvalidPatch }

// The kinds of *HunkError; they are the refusal kinds of the same names.
const (
	KindNoMatch   = "no_match"
	KindAmbiguous = "ambiguous"
)

// HunkError says why Apply could not place a hunk.
type HunkError struct {
	Index int    // 0-based index of the hunk in the slice given to Apply
	Kind  string // KindNoMatch or KindAmbiguous
	// Lines are 1-based file lines: for no_match, the nearest region (its
	// first to last line, or where the lines were found out of place); for
	// ambiguous, the first line of each candidate position.
	Lines []int
	// Near shows the file's nearest region as numbered lines ("00012|text"),
	// "" when there is none.
	Near string
	Msg  string // what happened and what differs
}

// Error returns the message, as the error interface asks.
func (e *HunkError) Error() string {
	return fmt.Sprintf("hunk %d: %s", e.Index+1, e.Msg)
}

// Unwrap returns ErrAmbiguous or ErrNoMatch according to Kind.
func (e *HunkError) Unwrap() error {
	if e.Kind == KindAmbiguous {
		return ErrAmbiguous
	}
	return ErrNoMatch
}
