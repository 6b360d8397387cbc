package cfgedit

import (
	"bytes"
	"fmt"
)

// Obj is an ordered object: its members are written in this order.
type Obj []Member

// Member is one member of an Obj. Val is a string, bool, int, []string or
// Obj.
type Member struct {
	Key string
	Val any
}

// SyntaxError is a file a merge cannot read: where, and what was seen.
type SyntaxError struct {
	Line, Col int    // 1-based; Col counts bytes
	Msg       string // what is wrong
}

// Error returns "line L, column C: msg".
func (e *SyntaxError) Error() string {
	return fmt.Sprintf("line %d, column %d: %s", e.Line, e.Col, e.Msg)
}

// errAt is a SyntaxError at byte offset off of src.
func errAt(src []byte, off int, format string, args ...any) *SyntaxError {
	line, col := position(src, off)
	return &SyntaxError{Line: line, Col: col, Msg: fmt.Sprintf(format, args...)}
}

// position is the 1-based line and column of byte offset off.
func position(src []byte, off int) (line, col int) {
	if off > len(src) {
		off = len(src)
	}
	line = 1 + bytes.Count(src[:off], []byte("\n"))
	col = off - (bytes.LastIndexByte(src[:off], '\n') + 1) + 1
	return line, col
}

// lineOf is the 1-based line of byte offset off.
func lineOf(src []byte, off int) int {
	l, _ := position(src, off)
	return l
}

// newline is the file's line ending: "\r\n" when its first line break is
// one, else "\n".
func newline(src []byte) string {
	if i := bytes.IndexByte(src, '\n'); i > 0 && src[i-1] == '\r' {
		return "\r\n"
	}
	return "\n"
}

// lineStart is the offset of the start of the line holding off.
func lineStart(src []byte, off int) int {
	return bytes.LastIndexByte(src[:off], '\n') + 1
}

// lineIndent is the leading spaces and tabs of the line holding off.
func lineIndent(src []byte, off int) string {
	s := lineStart(src, off)
	e := s
	for e < len(src) && (src[e] == ' ' || src[e] == '\t') {
		e++
	}
	return string(src[s:e])
}

// firstOnLine reports whether only spaces and tabs precede off on its line.
func firstOnLine(src []byte, off int) bool {
	for i := lineStart(src, off); i < off; i++ {
		if src[i] != ' ' && src[i] != '\t' {
			return false
		}
	}
	return true
}
