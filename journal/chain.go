package journal

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
)

// linearSpan is the size of a region of the log that logLines walks line by
// line instead of bisecting.
const linearSpan = 2 << 10

// errNotInLog is the cause of a session index line that the log does not
// hold.
var errNotInLog = errors.New("not in the log")

// logLines finds lines of the log by seq, to check what a session index
// claims against the log it is derived from. Seqs in the log rise by one a
// line, so a line is found by bisecting offsets; lookups of rising seqs
// resume where the last one ended, so reading a session costs about one
// read of each of its lines, plus a bisection per jump over other sessions'
// lines.
type logLines struct {
	f   io.ReaderAt
	end int64 // where complete lines end
	lo  int64 // a line start; lines before it hold seqs below the next lookup
}

// find returns the start and bytes (without "\n") of the line with seq.
func (l *logLines) find(seq int64) (int64, []byte, error) {
	lo, hi := l.lo, l.end
	for lo < hi {
		s, err := l.seqAt(lo)
		if err != nil {
			return 0, nil, err
		}
		if s == seq {
			line, err := l.lineAt(lo)
			if err != nil {
				return 0, nil, err
			}
			l.lo = lo + int64(len(line)) + 1
			return lo, line, nil
		}
		if s > seq {
			break
		}
		if hi-lo <= linearSpan {
			if lo, err = l.startFrom(lo + 1); err != nil {
				return 0, nil, err
			}
			continue
		}
		mid := lo + (hi-lo)/2
		m, err := l.startFrom(mid)
		if err != nil {
			return 0, nil, err
		}
		if m >= hi {
			hi = mid // no line starts in [mid, hi)
			continue
		}
		ms, err := l.seqAt(m)
		if err != nil {
			return 0, nil, err
		}
		if ms <= seq {
			lo = m
		} else {
			hi = m
		}
	}
	return 0, nil, fmt.Errorf("seq %d: %w", seq, errNotInLog)
}

// startFrom returns the first line start at or after off, or l.end.
func (l *logLines) startFrom(off int64) (int64, error) {
	if off <= 0 {
		return 0, nil
	}
	// Most lines are shorter than the first read, so one small read finds
	// the next start; within a long line (a session snapshot) the reads
	// double, so crossing it costs a few reads, not one per 512 bytes.
	var small [512]byte
	buf := small[:]
	for pos := off - 1; pos < l.end; {
		n := int(min(int64(len(buf)), l.end-pos))
		if _, err := l.f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return 0, err
		}
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return pos + int64(i) + 1, nil
		}
		pos += int64(n)
		buf = grown(buf)
	}
	return l.end, nil
}

// lineAt returns the complete line starting at off, without its "\n".
func (l *logLines) lineAt(off int64) ([]byte, error) {
	var line []byte
	var small [2 << 10]byte
	buf := small[:]
	for pos := off; pos < l.end; {
		n := int(min(int64(len(buf)), l.end-pos))
		if _, err := l.f.ReadAt(buf[:n], pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		if i := bytes.IndexByte(buf[:n], '\n'); i >= 0 {
			return append(line, buf[:i]...), nil
		}
		line = append(line, buf[:n]...)
		pos += int64(n)
		buf = grown(buf) // as in startFrom
	}
	return nil, fmt.Errorf("offset %d: no complete line", off)
}

// maxRead caps the reads of startFrom and lineAt as they double.
const maxRead = 1 << 20

// grown returns a read buffer twice as long as buf, up to maxRead.
func grown(buf []byte) []byte {
	if len(buf) >= maxRead {
		return buf
	}
	return make([]byte, min(2*len(buf), maxRead))
}

// lineBefore returns the line that ends just before the line start off.
func (l *logLines) lineBefore(off int64) ([]byte, error) {
	if off <= 0 {
		return nil, nil
	}
	var buf [4 << 10]byte
	start := int64(0)
	for pos := off - 1; pos > 0; {
		n := min(int64(len(buf)), pos)
		if _, err := l.f.ReadAt(buf[:n], pos-n); err != nil {
			return nil, err
		}
		if i := bytes.LastIndexByte(buf[:n], '\n'); i >= 0 {
			start = pos - n + int64(i) + 1
			break
		}
		pos -= n
	}
	return l.lineAt(start)
}

// seqAt reads the seq of the line starting at off. Append writes "seq" as
// the first key of every line; a line that does not start that way is not
// one Append wrote.
// headAt reads the seq and prev of the line starting at off, reading only
// its first bytes.
func (l *logLines) headAt(off int64) (chainHead, error) {
	var buf [160]byte // {"seq":N,"prev":"sha256:<64 hex>" fits
	n, err := l.f.ReadAt(buf[:min(int64(len(buf)), l.end-off)], off)
	if err != nil && !errors.Is(err, io.EOF) {
		return chainHead{}, err
	}
	head := buf[:n]
	seq, err := leadingSeq(head)
	if err != nil {
		return chainHead{}, err
	}
	rest := head[bytes.IndexByte(head, ',')+1:]
	v, ok := bytes.CutPrefix(rest, []byte(`"prev":"`))
	i := bytes.IndexByte(v, '"')
	if !ok || i < 0 {
		// Not in the short form every Append writes: read the whole line.
		line, err := l.lineAt(off)
		if err != nil {
			return chainHead{}, err
		}
		return headOf(line)
	}
	return chainHead{Seq: seq, Prev: string(v[:i])}, nil
}

func (l *logLines) seqAt(off int64) (int64, error) {
	var buf [32]byte
	n, err := l.f.ReadAt(buf[:min(int64(len(buf)), l.end-off)], off)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, err
	}
	return leadingSeq(buf[:n])
}

// leadingSeq parses the seq at the start of a line: {"seq":N,
func leadingSeq(b []byte) (int64, error) {
	rest, ok := bytes.CutPrefix(b, []byte(`{"seq":`))
	i := bytes.IndexByte(rest, ',')
	if !ok || i <= 0 {
		return 0, fmt.Errorf("%w: a line of %s does not start with its seq", ErrCorrupt, logName)
	}
	seq, err := strconv.ParseInt(string(rest[:i]), 10, 64)
	if err != nil || seq <= 0 {
		return 0, fmt.Errorf("%w: a line of %s has a bad seq %q", ErrCorrupt, logName, rest[:i])
	}
	return seq, nil
}

// headOf reads the seq and prev of a log line, from its first bytes when it
// has the form Append writes ({"seq":N,"prev":"...",), else by decoding it.
func headOf(line []byte) (chainHead, error) {
	var h chainHead
	if seq, err := leadingSeq(line); err == nil {
		rest := line[bytes.IndexByte(line, ',')+1:]
		if v, ok := bytes.CutPrefix(rest, []byte(`"prev":"`)); ok {
			if i := bytes.IndexByte(v, '"'); i >= 0 && bytes.IndexByte(v[:i], '\\') < 0 {
				h.Seq, h.Prev = seq, string(v[:i])
				return h, nil
			}
		}
	}
	err := json.Unmarshal(line, &h)
	return h, err
}
