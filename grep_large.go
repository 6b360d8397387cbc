package stet

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"slices"
	"unicode/utf8"

	"github.com/stet-dev/stet/tools"
)

// largeKeepBytes bounds the lines scanLarge keeps of one file: twice what
// one answer shows (MaxGrepBytes), with room for context.
const largeKeepBytes = 4 * MaxGrepBytes

// hitGroup is a run of a large file's lines that holds hits and the context
// around them: data is those lines (each with its "\n"), hits are offsets
// into data with the file's own line numbers, so buildRows shows them as it
// shows a small file's.
type hitGroup struct {
	data []byte
	hits []hit
}

// scanLarge searches a file over the edit limit line by line as it streams
// (grep -rn finds what such a file holds, and so does stet): only the lines
// of hits and the before/after context around them are kept, at most
// largeKeepBytes of them (then the answer is truncated there), and no line
// longer than maxLine is searched. The file is
// skipped, as a small one is, when its first block holds a NUL byte (binary)
// or a line is not valid UTF-8 (so the whole file is read, as grep reads
// it). Multiline patterns need the whole file and are not searched here.
// Once the hits a page can use (q.need) and their trailing context are in
// hand, the rest is only checked to be text.
func (q *grepQuery) scanLarge(ctx context.Context, f io.Reader, before, after int, maxLine int64) (fileHits, error) {
	br := bufio.NewReaderSize(f, 256<<10)
	head, _ := br.Peek(binaryProbeBytes)
	if bytes.IndexByte(head, 0) >= 0 {
		return fileHits{}, nil
	}
	var (
		out      fileHits
		prev     [][]byte // the last before lines (copies), oldest first
		grp      hitGroup
		open     bool
		since    int // lines kept after the group's last hit
		stored   int64
		line     int
		hits     int
		long     []byte // a line longer than the reader's buffer, gathered
		tooLong  bool
		overKeep bool
		done     bool   // the answer is in hand
		lower    []byte // the region lower-cased, for foldLit
	)
	closeGroup := func() {
		if open {
			out.groups = append(out.groups, grp)
			grp, open, since = hitGroup{}, false, 0
		}
	}
	keepLine := func(b []byte, nl bool) {
		grp.data = append(grp.data, b...)
		if nl {
			grp.data = append(grp.data, '\n')
		}
		stored += int64(len(b)) + 1
	}
	for iter := 0; ; iter++ {
		if iter%grepCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fileHits{}, err
			}
		}
		// The whole lines before the next candidate (the prefilter's
		// literal), or all of them once the answer is in hand, are only
		// counted and checked to be text, a buffer at a time.
		if !open && (done || q.lits != nil || q.foldLit != nil) {
			// What is buffered, or a fresh buffer when it is empty: asking
			// for a full buffer while part of one is left would slide the
			// rest down and read again for every line.
			n := br.Buffered()
			if n == 0 {
				n = br.Size()
			}
			region, _ := br.Peek(n)
			if k := bytes.LastIndexByte(region, '\n'); k >= 0 {
				region = region[:k+1]
				cand := -1
				switch {
				case done:
				case q.lits != nil:
					cand = q.lits.index(region)
				default:
					cand, lower = indexFold(region, q.foldLit, lower)
				}
				if cand >= 0 {
					region = region[:bytes.LastIndexByte(region[:cand], '\n')+1]
				}
				if len(region) > 0 {
					if err := ctx.Err(); err != nil {
						return fileHits{}, err
					}
					if !utf8.Valid(region) {
						return fileHits{}, nil // not text: skipped, as a small file is
					}
					line += bytes.Count(region, []byte{'\n'})
					if q.mode == tools.GrepContent && before > 0 && !done {
						prev = lastLines(prev, region, before)
					}
					br.Discard(len(region))
					continue
				}
			}
		}
		b, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			// A line longer than the buffer: gather it, up to maxLine, in
			// one buffer of that size (made once: no doubling).
			if long == nil {
				long = make([]byte, 0, maxLine+1)
			}
			long, tooLong = append(long[:0], b...), false
			for errors.Is(err, bufio.ErrBufferFull) {
				b, err = br.ReadSlice('\n')
				if !tooLong && int64(len(long)+len(b)) > maxLine {
					tooLong, long = true, long[:0]
				}
				if !tooLong {
					long = append(long, b...)
				}
			}
			b = long
		} else {
			tooLong = false
		}
		if err != nil && !errors.Is(err, io.EOF) {
			return fileHits{}, err
		}
		if len(b) == 0 && !tooLong {
			break // the end
		}
		line++
		nl := len(b) > 0 && b[len(b)-1] == '\n'
		if nl {
			b = b[:len(b)-1]
		}
		if !tooLong && !utf8.Valid(b) {
			return fileHits{}, nil // not text: skipped, as a small file is
		}
		if done {
			// The answer is in hand; the rest is read only to tell
			// whether the file is text, as a small file is judged whole.
			if errors.Is(err, io.EOF) {
				break
			}
			continue
		}
		match := !tooLong && (q.lits == nil || q.lits.index(b) >= 0) && q.re.Match(b)
		switch {
		case match && q.mode == tools.GrepFilesWithMatches:
			out.count, done = 1, true
		case match && q.mode == tools.GrepCount:
			out.count++
		case match && (q.need <= 0 || hits < q.need):
			out.count++
			hits++
			if !open {
				grp, open = hitGroup{}, true
				for _, p := range prev {
					keepLine(p, true)
				}
			}
			grp.hits = append(grp.hits, hit{start: len(grp.data), end: len(grp.data) + len(b), first: line, last: line})
			keepLine(b, nl)
			since = 0
		case match:
			// Past the hits a page can use: still the trailing context
			// of the last one kept (as a small file's rows show it).
			out.count++
			if open && since < before+after {
				keepLine(b, nl)
				since++
			}
		case open && !tooLong && since < before+after:
			// Context of the last hit, or of the next one if it comes
			// soon: one group then holds both, each line once.
			keepLine(b, nl)
			since++
		default:
			closeGroup()
		}
		if q.mode == tools.GrepContent {
			if before > 0 {
				if tooLong {
					prev = prev[:0] // context stops at a line that cannot be shown
				} else {
					if len(prev) == before {
						// A ring: the oldest line's buffer takes the new one.
						oldest := prev[0]
						copy(prev, prev[1:])
						prev[len(prev)-1] = append(oldest[:0], b...)
					} else {
						prev = append(prev, bytes.Clone(b))
					}
				}
			}
			if q.need > 0 && hits >= q.need && (!open || since >= after) {
				closeGroup()
				done = true // the hits a page can use, and their trailing context
			}
			if stored > largeKeepBytes {
				closeGroup()
				overKeep, done = true, true
			}
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	closeGroup()
	out.more = overKeep
	return out, nil
}

// lastLines returns the last n lines (copies, without their "\n") of prev
// followed by the lines of region, which ends with a "\n".
func lastLines(prev [][]byte, region []byte, n int) [][]byte {
	var tail [][]byte // the region's last lines, newest first
	end := len(region) - 1
	for len(tail) < n && end >= 0 {
		start := bytes.LastIndexByte(region[:end], '\n') + 1
		tail = append(tail, bytes.Clone(region[start:end]))
		end = start - 1
	}
	slices.Reverse(tail)
	keep := max(0, min(len(prev), n-len(tail)))
	out := append(prev[:0:0], prev[len(prev)-keep:]...)
	return append(out, tail...)
}

// asciiLower appends src with its ASCII letters lower-cased to dst.
func asciiLower(dst, src []byte) []byte {
	for _, c := range src {
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		dst = append(dst, c)
	}
	return dst
}

// indexFold is bytes.Index of lit (lower-case) in region with region's
// ASCII letters lower-cased, lowering only as far as the search goes (in
// doubling steps): a candidate on every line costs about its distance, not
// a whole buffer each. low is scratch, returned for reuse.
func indexFold(region, lit, low []byte) (int, []byte) {
	low = low[:0]
	from := 0
	for n := 256; ; n *= 2 {
		end := min(len(region), len(low)+n)
		low = asciiLower(low, region[len(low):end])
		if i := bytes.Index(low[from:], lit); i >= 0 {
			return from + i, low
		}
		if end == len(region) {
			return -1, low
		}
		from = max(0, len(low)-len(lit)+1)
	}
}
