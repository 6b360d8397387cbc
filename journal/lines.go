package journal

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"slices"
)

// tailWindow is how much of a file's end readTail reads first; it doubles
// until the window holds the last complete line.
const tailWindow = 8 << 10

// tail describes the end of a JSON-lines file.
type tail struct {
	size int64  // the file's size
	end  int64  // offset just past its last "\n": where complete lines end
	last []byte // the last complete line without its "\n"; nil if there is none
}

// torn reports how many bytes follow the last complete line.
func (t tail) torn() int64 { return t.size - t.end }

// readTail finds the last complete line of f by reading a window at its end,
// widened until it holds that line, so its cost depends on the last line and
// not on the file.
func readTail(f *os.File) (tail, error) {
	info, err := f.Stat()
	if err != nil {
		return tail{}, err
	}
	t := tail{size: info.Size()}
	var buf []byte
	for w := int64(tailWindow); ; w *= 2 {
		w = min(w, t.size)
		off := t.size - w
		buf = slices.Grow(buf[:0], int(w))[:w]
		if _, err := f.ReadAt(buf, off); err != nil {
			return t, err
		}
		nl := bytes.LastIndexByte(buf, '\n')
		if nl < 0 && off == 0 {
			return t, nil // no complete line at all
		}
		if nl >= 0 {
			start := bytes.LastIndexByte(buf[:nl], '\n') + 1
			if start > 0 || off == 0 {
				t.end = off + int64(nl) + 1
				t.last = slices.Clone(buf[start:nl])
				return t, nil
			}
		}
	}
}

// eachLine calls fn with every "\n"-terminated line of r, numbered from 1,
// without its "\n". The slice is valid only during the call. It returns the
// number of bytes after the last "\n" (a torn line), which fn never sees.
func eachLine(r io.Reader, fn func(n int64, line []byte) error) (torn int64, err error) {
	br := bufio.NewReaderSize(r, 16<<10)
	var long []byte // a line longer than br's buffer, gathered piecewise
	var n int64
	for {
		chunk, err := br.ReadSlice('\n')
		switch {
		case err == nil:
			line := chunk[:len(chunk)-1]
			if long != nil {
				line = append(long, line...)
				long = nil
			}
			n++
			if err := fn(n, line); err != nil {
				return 0, err
			}
		case errors.Is(err, bufio.ErrBufferFull):
			long = append(long, chunk...)
		case errors.Is(err, io.EOF):
			return int64(len(long) + len(chunk)), nil
		default:
			return 0, err
		}
	}
}
