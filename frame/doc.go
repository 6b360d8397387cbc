// Package frame writes and reads the numbered read frame of SPEC section 3:
// the text a model sees when it reads a file, and the text it may try to
// hand back.
//
// A frame has one numbered line per "\n"-separated segment of the text: the
// line number zero-padded to five digits (to the digit count of the total
// when the file has 100,000 lines or more, for every line), "|", then the
// segment's bytes exactly, "\r", tabs, invalid UTF-8 and NUL bytes
// included. A trailer line with no newline after it closes the frame:
// "(N lines)" for a whole file, or "(lines A-B of N; next: offset B+1)" /
// "(lines A-B of N; end of file)" for a window. The encoding loses nothing:
// Decode of the whole-file frame of t is t, for every t.
//
// A window is bounded by a line count and by a byte count of the text it
// shows. The bound is never met by cutting a line: a window stops before the
// line that would cross it, and a first line that alone crosses it is refused
// with a *LineTooLongError.
//
// EncodeWindow writes a window, the whole file when it fits (encode.go);
// WindowWriter selects the same window from a text written to it in
// pieces, holding only the window (stream.go), for a file too large to
// hold; Decode and DecodeWindow read a frame back (decode.go); LineCount,
// LineStart and LineOf number lines as a frame does.
//
// Echoes tells whether a model's answer only repeats text a tool already
// returned, looking through frames in both directions (echo.go; SPEC
// section 3 names it).
//
// This package must not do IO, hold state between calls, or know where the
// text came from: it is a pure function of the bytes it is given (a
// WindowWriter holds only the window of the one text written to it).
// Deciding which files may be read (binary, not UTF-8, too large) is the
// caller's job.
package frame
