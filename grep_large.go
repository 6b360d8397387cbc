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

// hitGroup is a run of a file's lines that holds hits and the context
// around them: data is those lines (each with its "\n"), at where they
// start in the file, hits are offsets into data with the file's own line
// numbers, so that the rows are built from the group as from the whole
// file. A file over the edit limit is never held whole (scanLarge keeps its
// groups as it streams; at is then not known, 0), and a small file's
// worker copies its groups out (groupHits) and reads the next file into
// its buffer.
type hitGroup struct {
	data []byte
	hits []hit
	at   int
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
	ls := &largeScan{q: q, br: br, before: before, after: after, maxLine: maxLine}
	for iter := 0; ; iter++ {
		if iter%grepCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return fileHits{}, err
			}
		}
		// The whole lines before the next candidate (the prefilter's
		// literal), or all of them once the answer is in hand, are only
		// counted and checked to be text, a buffer at a time.
		if !ls.open && (ls.done || q.lits != nil || q.foldLit != nil) {
			skipped, text, err := ls.skipRegion(ctx)
			if err != nil || !text {
				return fileHits{}, err
			}
			if skipped {
				continue
			}
		}
		b, tooLong, err := ls.readLine()
		if err != nil && !errors.Is(err, io.EOF) {
			return fileHits{}, err
		}
		if len(b) == 0 && !tooLong {
			break // the end
		}
		if !ls.line(b, tooLong) {
			return fileHits{}, nil // not text: skipped, as a small file is
		}
		if errors.Is(err, io.EOF) {
			break
		}
	}
	ls.closeGroup()
	ls.out.more = ls.overKeep
	return ls.out, nil
}

// largeScan is the state of one scanLarge.
type largeScan struct {
	q              *grepQuery
	br             *bufio.Reader
	before, after  int
	maxLine        int64
	out            fileHits
	prev           [][]byte // the last before lines (copies), oldest first
	grp            hitGroup
	open           bool
	since          int // lines kept after the group's last hit
	stored         int64
	lineNo         int
	hits           int
	long           []byte // a line longer than the reader's buffer, gathered
	overKeep, done bool   // done: the answer is in hand
	lower          []byte // the region lower-cased, for foldLit
}

func (ls *largeScan) closeGroup() {
	if ls.open {
		ls.out.groups = append(ls.out.groups, ls.grp)
		ls.grp, ls.open, ls.since = hitGroup{}, false, 0
	}
}

func (ls *largeScan) keepLine(b []byte, nl bool) {
	ls.grp.data = append(ls.grp.data, b...)
	if nl {
		ls.grp.data = append(ls.grp.data, '\n')
	}
	ls.stored += int64(len(b)) + 1
}

// skipRegion counts and checks to be text the whole buffered lines before
// the next candidate (all of them once the answer is in hand), and says
// whether it skipped any and whether they were text.
func (ls *largeScan) skipRegion(ctx context.Context) (skipped, text bool, err error) {
	// What is buffered, or a fresh buffer when it is empty: asking for a
	// full buffer while part of one is left would slide the rest down
	// and read again for every line.
	n := ls.br.Buffered()
	if n == 0 {
		n = ls.br.Size()
	}
	region, _ := ls.br.Peek(n)
	k := bytes.LastIndexByte(region, '\n')
	if k < 0 {
		return false, true, nil
	}
	region = region[:k+1]
	cand := -1
	switch {
	case ls.done:
	case ls.q.lits != nil:
		cand = ls.q.lits.index(region)
	default:
		cand, ls.lower = indexFold(region, ls.q.foldLit, ls.lower)
	}
	if cand >= 0 {
		region = region[:bytes.LastIndexByte(region[:cand], '\n')+1]
	}
	if len(region) == 0 {
		return false, true, nil
	}
	if err := ctx.Err(); err != nil {
		return false, false, err
	}
	if !utf8.Valid(region) {
		return false, false, nil
	}
	ls.lineNo += bytes.Count(region, []byte{'\n'})
	if ls.q.mode == tools.GrepContent && ls.before > 0 && !ls.done {
		ls.prev = lastLines(ls.prev, region, ls.before)
	}
	ls.br.Discard(len(region))
	return true, true, nil
}

// readLine reads the next line, with its "\n" if any. A line longer than
// the reader's buffer is gathered, up to maxLine, in one buffer of that
// size (made once: no doubling); tooLong says it was longer still (b is
// then empty).
func (ls *largeScan) readLine() (b []byte, tooLong bool, err error) {
	b, err = ls.br.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return b, false, err
	}
	if ls.long == nil {
		ls.long = make([]byte, 0, ls.maxLine+1)
	}
	ls.long = append(ls.long[:0], b...)
	for errors.Is(err, bufio.ErrBufferFull) {
		b, err = ls.br.ReadSlice('\n')
		if !tooLong && int64(len(ls.long)+len(b)) > ls.maxLine {
			tooLong, ls.long = true, ls.long[:0]
		}
		if !tooLong {
			ls.long = append(ls.long, b...)
		}
	}
	return ls.long, tooLong, err
}

// line takes the next line b (tooLong: a line past maxLine, not
// searched); false says the file is not text.
func (ls *largeScan) line(b []byte, tooLong bool) bool {
	ls.lineNo++
	nl := len(b) > 0 && b[len(b)-1] == '\n'
	if nl {
		b = b[:len(b)-1]
	}
	if !tooLong && !utf8.Valid(b) {
		return false
	}
	if ls.done {
		// The answer is in hand; the rest is read only to tell whether
		// the file is text, as a small file is judged whole.
		return true
	}
	q := ls.q
	match := !tooLong && (q.lits == nil || q.lits.index(b) >= 0) && q.matchLine(b)
	ls.take(b, nl, match, tooLong)
	if q.mode == tools.GrepContent {
		ls.remember(b, tooLong)
		if q.need > 0 && ls.hits >= q.need && (!ls.open || ls.since >= ls.after) {
			ls.closeGroup()
			ls.done = true // the hits a page can use, and their trailing context
		}
		if ls.stored > largeKeepBytes {
			ls.closeGroup()
			ls.overKeep, ls.done = true, true
		}
	}
	return true
}

// take counts a matching line and keeps it, or the context around hits,
// in the open group.
func (ls *largeScan) take(b []byte, nl, match, tooLong bool) {
	q := ls.q
	switch {
	case match && q.mode == tools.GrepFilesWithMatches:
		ls.out.count, ls.done = 1, true
	case match && q.mode == tools.GrepCount:
		ls.out.count++
	case match && (q.need <= 0 || ls.hits < q.need):
		ls.out.count++
		ls.hits++
		if !ls.open {
			ls.grp, ls.open = hitGroup{}, true
			for _, p := range ls.prev {
				ls.keepLine(p, true)
			}
		}
		ls.grp.hits = append(ls.grp.hits, hit{start: len(ls.grp.data), end: len(ls.grp.data) + len(b), first: ls.lineNo, last: ls.lineNo})
		ls.keepLine(b, nl)
		ls.since = 0
	case match:
		// Past the hits a page can use: still the trailing context of
		// the last one kept (as a small file's rows show it).
		ls.out.count++
		if ls.open && ls.since < ls.before+ls.after {
			ls.keepLine(b, nl)
			ls.since++
		}
	case ls.open && !tooLong && ls.since < ls.before+ls.after:
		// Context of the last hit, or of the next one if it comes soon:
		// one group then holds both, each line once.
		ls.keepLine(b, nl)
		ls.since++
	default:
		ls.closeGroup()
	}
}

// remember keeps b among the last before lines (leading context).
func (ls *largeScan) remember(b []byte, tooLong bool) {
	switch {
	case ls.before == 0:
	case tooLong:
		ls.prev = ls.prev[:0] // context stops at a line that cannot be shown
	case len(ls.prev) == ls.before:
		// A ring: the oldest line's buffer takes the new one.
		oldest := ls.prev[0]
		copy(ls.prev, ls.prev[1:])
		ls.prev[len(ls.prev)-1] = append(oldest[:0], b...)
	default:
		ls.prev = append(ls.prev, bytes.Clone(b))
	}
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
