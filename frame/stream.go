package frame

import (
	"bytes"
	"fmt"
)

// WindowWriter selects a window of a text written to it in pieces, keeping
// only the window's bytes: it is EncodeWindow for a text too large to hold.
// Write the whole text, then call Window. It holds at most the window's
// byte bound (Options.MaxBytes) plus one line's piece of a write.
type WindowWriter struct {
	from, limit, maxBytes int
	err                   error

	phase  phase
	n      int // "\n" seen so far
	pos    int // bytes seen so far
	start  int // offset of line from
	line   int // the line being collected
	lineAt int // offset of its first byte
	shown  []byte
	long   *LineTooLongError
}

type phase int

const (
	skipping   phase = iota // before line from
	collecting              // inside the window
	measuring               // line from is too long; finding its end
	counting                // the window is decided; only lines are counted
)

// NewWindowWriter returns a WindowWriter for the window o selects, with the
// defaults and the errors of EncodeWindow.
func NewWindowWriter(o Options) *WindowWriter {
	w := &WindowWriter{from: max(o.Offset, 1), limit: o.Limit, maxBytes: o.MaxBytes}
	if o.Offset < 0 || o.Limit < 0 || o.MaxBytes < 0 {
		w.err = fmt.Errorf("frame: offset %d, limit %d, max bytes %d: %w", o.Offset, o.Limit, o.MaxBytes, ErrInvalidOptions)
		w.phase = counting
	}
	if w.limit == 0 {
		w.limit = DefaultLimit
	}
	if w.maxBytes == 0 {
		w.maxBytes = DefaultMaxBytes
	}
	if w.from == 1 && w.err == nil {
		w.phase, w.line = collecting, 1
	}
	return w
}

// Write consumes the next bytes of the text. It never fails.
func (w *WindowWriter) Write(p []byte) (int, error) {
	size := len(p)
	for len(p) > 0 {
		if w.phase == counting {
			w.n += bytes.Count(p, nl)
			w.pos += len(p)
			break
		}
		i := bytes.IndexByte(p, '\n')
		piece := p
		if i >= 0 {
			piece = p[:i+1]
		}
		p = p[len(piece):]
		w.pos += len(piece)
		ended := i >= 0
		if ended {
			w.n++
		}
		switch w.phase {
		case skipping:
			if ended && w.n+1 == w.from {
				w.phase, w.line, w.start, w.lineAt = collecting, w.from, w.pos, w.pos
			}
		case measuring:
			if ended {
				w.long.Bytes = w.pos - w.lineAt
				w.phase = counting
			}
		case collecting:
			if w.pos-w.start > w.maxBytes {
				if w.line == w.from {
					w.shown = nil
					w.long = &LineTooLongError{Line: w.line, Bytes: w.pos - w.lineAt, Max: w.maxBytes}
					w.phase = measuring
					if ended {
						w.phase = counting
					}
				} else {
					w.shown = w.shown[:w.lineAt-w.start]
					w.phase = counting
				}
				continue
			}
			w.shown = append(w.shown, piece...)
			if ended {
				w.line++
				w.lineAt = w.pos
				if w.line-w.from >= w.limit {
					w.phase = counting
				}
			}
		}
	}
	return size, nil
}

// Window returns the window of everything written, as EncodeWindow would
// for the same text and options.
func (w *WindowWriter) Window() (Window, error) {
	if w.err != nil {
		return Window{}, w.err
	}
	n := w.n + 1
	if w.from > n {
		return Window{}, &OffsetError{Offset: w.from, Lines: n}
	}
	if w.long != nil {
		if w.phase == measuring {
			w.long.Bytes = w.pos - w.lineAt
		}
		return Window{}, w.long
	}
	to, end := w.line-1, w.lineAt
	if w.phase == collecting {
		// The last line, which has no "\n", fits: it is shown.
		to, end = w.line, w.pos
	}
	whole := w.from == 1 && to == n
	return Window{
		Frame: encode(w.shown, w.from, to, n, whole),
		Lines: n,
		From:  w.from,
		To:    to,
		Start: w.start,
		End:   end,
		Whole: whole,
	}, nil
}
