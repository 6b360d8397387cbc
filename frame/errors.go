package frame

import (
	"errors"
	"fmt"
)

// ErrNotFrame is wrapped by every *SyntaxError: the input is not a frame of
// the kind asked for.
var ErrNotFrame = errors.New("not a read frame")

// ErrInvalidOptions is wrapped by the error EncodeWindow returns for a
// negative Offset, Limit or MaxBytes.
var ErrInvalidOptions = errors.New("invalid window options")

// SyntaxError says why Decode or DecodeWindow refused its input and where.
type SyntaxError struct {
	Line int    // 1-based line of the frame text where the problem is; 0 when it is not at one line
	Msg  string // what is wrong
}

// Error returns the message, as the error interface asks.
func (e *SyntaxError) Error() string {
	if e.Line == 0 {
		return "frame: " + e.Msg
	}
	return fmt.Sprintf("frame: line %d: %s", e.Line, e.Msg)
}

// Unwrap returns ErrNotFrame.
func (e *SyntaxError) Unwrap() error { return ErrNotFrame }

// OffsetError is returned by EncodeWindow when the window would start after
// the last line of the file.
type OffsetError struct {
	Offset int // the requested first line
	Lines  int // numbered lines in the file
}

// Error returns the message, as the error interface asks.
func (e *OffsetError) Error() string {
	return fmt.Sprintf("offset %d is past the end of the file (%s)", e.Offset, countLines(e.Lines))
}

// LineTooLongError is returned by EncodeWindow when the first line of the
// window alone is over the byte bound. The window is never cut inside a line.
type LineTooLongError struct {
	Line  int // 1-based line number
	Bytes int // the line's bytes, counting its "\n" if it has one
	Max   int // the byte bound of the window
}

// Error returns the message, as the error interface asks.
func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("line %d is %d bytes, over the %d-byte read limit", e.Line, e.Bytes, e.Max)
}

func syntaxErr(line int, format string, args ...any) error {
	return &SyntaxError{Line: line, Msg: fmt.Sprintf(format, args...)}
}
