package frame

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
)

// Window bounds. The byte bounds count the text a window shows (segment
// bytes and their "\n"), not the line-number prefixes.
const (
	DefaultLimit    = 2000     // lines in a window when Options.Limit is 0
	DefaultMaxBytes = 40 << 10 // text bytes in a window when Options.MaxBytes is 0 (stet's default read window)
	MaxMaxBytes     = 8 << 20  // the largest byte bound a server may configure; EncodeWindow does not clamp
)

// minWidth is the width of every line number in a file under 100,000 lines.
const minWidth = 5

// Options selects a window of a file.
type Options struct {
	Offset   int // first line, 1-based; 0 means 1
	Limit    int // most lines to show; 0 means DefaultLimit
	MaxBytes int // most text bytes to show; 0 means DefaultMaxBytes
}

// Window is one encoded window of a file.
type Window struct {
	Frame string // the numbered lines and the trailer
	Lines int    // numbered lines in the whole file
	From  int    // first line shown, 1-based
	To    int    // last line shown, inclusive
	// Start and End are the byte range [Start, End) of the text the window
	// shows: from the first byte of line From to the end of line To,
	// including its "\n" when it has one (every line but the last does).
	Start, End int
	Whole      bool // the window shows the whole file and its trailer is "(N lines)"
}

// LineCount returns the number of numbered lines of text: the count of "\n"
// plus one. An empty text has one (empty) line.
func LineCount(text []byte) int {
	return bytes.Count(text, nl) + 1
}

// LineStart returns the byte offset of the first byte of the 1-based line of
// text, or -1 when line is not between 1 and LineCount(text). The last line
// of a text ending in "\n" is empty and starts at len(text).
func LineStart(text []byte, line int) int {
	if line < 1 {
		return -1
	}
	pos := 0
	for n := 1; n < line; n++ {
		i := bytes.IndexByte(text[pos:], '\n')
		if i < 0 {
			return -1
		}
		pos += i + 1
	}
	return pos
}

// LineOf returns the 1-based line holding byte offset of text, or 0 when
// offset is not between 0 and len(text). A "\n" belongs to the line it ends;
// len(text) belongs to the last line.
func LineOf(text []byte, offset int) int {
	if offset < 0 || offset > len(text) {
		return 0
	}
	return bytes.Count(text[:offset], nl) + 1
}

// EncodeWindow returns the window of text that starts at line o.Offset and
// holds as many whole lines as fit both o.Limit and o.MaxBytes, counting for
// each line its bytes and its "\n". It returns an *OffsetError when the
// offset is past the last line, a *LineTooLongError when the first line alone
// does not fit in o.MaxBytes, and an error wrapping ErrInvalidOptions for a
// negative option. A window that shows every line is Whole and carries the
// whole-file trailer.
func EncodeWindow(text []byte, o Options) (Window, error) {
	if o.Offset < 0 || o.Limit < 0 || o.MaxBytes < 0 {
		return Window{}, fmt.Errorf("frame: offset %d, limit %d, max bytes %d: %w", o.Offset, o.Limit, o.MaxBytes, ErrInvalidOptions)
	}
	from, limit, maxBytes := max(o.Offset, 1), o.Limit, o.MaxBytes
	if limit == 0 {
		limit = DefaultLimit
	}
	if maxBytes == 0 {
		maxBytes = DefaultMaxBytes
	}
	n := LineCount(text)
	if from > n {
		return Window{}, &OffsetError{Offset: from, Lines: n}
	}
	start := LineStart(text, from)
	end, line := start, from
	for line <= n && line-from < limit {
		next := len(text)
		if i := bytes.IndexByte(text[end:], '\n'); i >= 0 {
			next = end + i + 1
		}
		if next-start > maxBytes {
			if line == from {
				return Window{}, &LineTooLongError{Line: line, Bytes: next - end, Max: maxBytes}
			}
			break
		}
		end, line = next, line+1
	}
	to := line - 1
	whole := from == 1 && to == n
	return Window{
		Frame: encode(text[start:end], from, to, n, whole),
		Lines: n,
		From:  from,
		To:    to,
		Start: start,
		End:   end,
		Whole: whole,
	}, nil
}

var nl = []byte{'\n'}

// width returns the digits of every line number in a file of n lines.
func width(n int) int {
	w := minWidth
	for p := 100000; n >= p; p *= 10 {
		w++
	}
	return w
}

// trailer returns the last line of a frame showing lines from..to of n.
func trailer(from, to, n int, whole bool) string {
	switch {
	case whole:
		return "(" + countLines(n) + ")"
	case to == n:
		return "(lines " + strconv.Itoa(from) + "-" + strconv.Itoa(to) + " of " + strconv.Itoa(n) + "; end of file)"
	default:
		return "(lines " + strconv.Itoa(from) + "-" + strconv.Itoa(to) + " of " + strconv.Itoa(n) + "; next: offset " + strconv.Itoa(to+1) + ")"
	}
}

func countLines(n int) string {
	if n == 1 {
		return "1 line"
	}
	return strconv.Itoa(n) + " lines"
}

// encode frames shown, the text of lines from..to of a file of n lines: it
// ends with the "\n" of line to unless to is the last line.
func encode(shown []byte, from, to, n int, whole bool) string {
	w := width(n)
	k := to - from + 1
	newlines := k
	if to == n {
		newlines--
	}
	tr := trailer(from, to, n, whole)
	var b strings.Builder
	b.Grow(len(shown) - newlines + k*(w+2) + len(tr))
	num := newCounter(from, w)
	for range k {
		b.Write(num.prefix)
		if i := bytes.IndexByte(shown, '\n'); i >= 0 {
			b.Write(shown[:i+1])
			shown = shown[i+1:]
		} else {
			b.Write(shown)
			b.WriteByte('\n')
			shown = nil
		}
		num.next()
	}
	b.WriteString(tr)
	return b.String()
}

// counter is a zero-padded decimal line number followed by "|", stepped in
// place so that encoding a line costs no formatting.
type counter struct{ prefix []byte }

func newCounter(n, w int) counter {
	d := strconv.Itoa(n)
	c := counter{prefix: make([]byte, w+1)}
	for i := range w - len(d) {
		c.prefix[i] = '0'
	}
	copy(c.prefix[w-len(d):], d)
	c.prefix[w] = '|'
	return c
}

// next adds one. The width is that of the file's last line number, so the
// counter of a line in the file never overflows it.
func (c counter) next() {
	for i := len(c.prefix) - 2; i >= 0; i-- {
		if c.prefix[i] < '9' {
			c.prefix[i]++
			return
		}
		c.prefix[i] = '0'
	}
}
