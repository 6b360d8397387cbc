package stet

import (
	"bytes"
	"unicode/utf8"

	"github.com/stet-dev/stet/policy"
)

// grepped is the rows grep shows of one file.
type grepped struct {
	rows    []GrepMatch   // matches and context lines, in line order
	seen    policy.Ranges // byte ranges of the lines shown whole
	matches int           // hits shown
	bytes   int           // text bytes of the rows
	cut     bool          // a hit longer than the byte bound was shown in part
}

// rowBuilder builds the rows of one file's hits at a time (build). Its
// scratch is reused from one file to the next, and the rows' texts are
// slices of one string per file: no allocation per row.
type rowBuilder struct {
	spans []rowSpan
	text  []byte         // the rows' texts, one after the other
	seen  []policy.Range // the lines shown whole (offsets in the file), merged as they come
	// the file being built
	data      []byte // the lines of the group being built
	at        int    // where data starts in the file
	g         grepped
	maxBytes  int
	shownUpTo int // the last line number shown
	afterEnd  int // trailing context still due after the last hit shown:
	afterLine int // from the line after the one ending at afterEnd
	afterLeft int // (numbered afterLine+1), this many lines
	ctxStarts []int
}

// rowSpan is one row: its text is text[from:to].
type rowSpan struct {
	from, to, line int
	match          bool
}

// build returns the rows to show for the hits of one file, named name:
// each hit's lines and the context around them, in line order, each line
// at most once, at most limit hits. Once the rows hold maxBytes of text no
// new hit is started (its context is never cut).
func (b *rowBuilder) build(data []byte, hits []hit, before, after, limit, maxBytes int, name string) grepped {
	return b.buildGroups([]hitGroup{{data: data, hits: hits}}, before, after, limit, maxBytes, name)
}

// buildGroups is build for a file's hits in groups (see hitGroup): the
// rows are those build gives for the whole file, as long as each group
// holds its hits' lines and the context lines around them (groupHits).
// The seen ranges are offsets in the file (each group's at added).
func (b *rowBuilder) buildGroups(groups []hitGroup, before, after, limit, maxBytes int, name string) grepped {
	b.g, b.maxBytes = grepped{}, maxBytes
	b.spans, b.text, b.seen = b.spans[:0], b.text[:0], b.seen[:0]
	b.shownUpTo, b.afterLeft = 0, 0
	b.data, b.at = nil, 0
groups:
	for _, grp := range groups {
		for _, h := range grp.hits {
			if b.g.matches >= limit || b.g.bytes >= maxBytes {
				break groups
			}
			// The trailing context of the hit before lies in its own
			// group's lines, still b.data.
			b.flushAfter(h.first)
			b.data, b.at = grp.data, grp.at
			b.afterLeft = 0
			b.leading(h, before)
			b.hitLines(h)
			b.g.matches++
			b.afterEnd, b.afterLine, b.afterLeft = h.end, h.last, after
		}
	}
	b.flushAfter(int(^uint(0) >> 1))
	g := b.g
	if len(b.spans) > 0 {
		all := string(b.text)
		g.rows = make([]GrepMatch, len(b.spans))
		for i, sp := range b.spans {
			g.rows[i] = GrepMatch{Path: name, Line: sp.line, Text: all[sp.from:sp.to], Context: !sp.match}
		}
	}
	if len(b.seen) > 0 {
		g.seen = policy.NewRanges(b.seen...)
	}
	b.data = nil
	if cap(b.text) > keepBufBytes {
		b.text = nil
	}
	return g
}

// groupHits copies out of data, a file's bytes, the lines that the rows of
// its hits show (each hit's lines and up to before and after lines around
// it), as hitGroups: a run of such lines, with each line's "\n", per group,
// and runs that meet or overlap merged into one. The copies share one
// buffer, so that the file's own buffer can be read into again at once;
// held is its size. The groups' hits are a copy of hits, which they do not
// keep.
func groupHits(data []byte, hits []hit, before, after int) (groups []hitGroup, held int) {
	type span struct{ start, end, first, last int } // bytes, and the hits in it
	var spans []span
	for i, h := range hits {
		start := h.start
		for k := 0; k < before && start > 0; k++ {
			start = bytes.LastIndexByte(data[:start-1], '\n') + 1
		}
		end := h.end // the end of a line: its "\n", or the end of data
		for k := 0; k < after && end+1 < len(data); k++ {
			if j := bytes.IndexByte(data[end+1:], '\n'); j >= 0 {
				end += 1 + j
			} else {
				end = len(data)
			}
		}
		end = rangeEndOf(data, end)
		if n := len(spans); n > 0 && start <= spans[n-1].end {
			spans[n-1].end = max(spans[n-1].end, end)
			spans[n-1].last = i + 1
			continue
		}
		spans = append(spans, span{start, end, i, i + 1})
	}
	for _, sp := range spans {
		held += sp.end - sp.start
	}
	buf := make([]byte, 0, held)
	groups = make([]hitGroup, len(spans))
	// The groups' hits are their own: hits may be a worker's scratch.
	own := make([]hit, len(hits))
	copy(own, hits)
	for i, sp := range spans {
		from := len(buf)
		buf = append(buf, data[sp.start:sp.end]...)
		hs := own[sp.first:sp.last]
		for k := range hs {
			hs[k].start -= sp.start
			hs[k].end -= sp.start
		}
		groups[i] = hitGroup{data: buf[from:len(buf):len(buf)], hits: hs, at: sp.start}
	}
	return groups, held
}

// show adds the line data[start:end], numbered line, as a row.
func (b *rowBuilder) show(start, end, line int, match bool) {
	from := len(b.text)
	if end-start > maxGrepLineBytes {
		cut := maxGrepLineBytes
		for cut > 0 && !utf8.RuneStart(b.data[start+cut]) {
			cut--
		}
		b.text = append(b.text, b.data[start:start+cut]...)
		b.text = append(b.text, " … (line is "...)
		b.text = append(b.text, policy.Thousands(rangeEndOf(b.data, end)-start)...)
		b.text = append(b.text, " bytes; read it to see all)"...)
	} else {
		b.text = append(b.text, b.data[start:end]...)
		r := policy.Range{Start: b.at + start, End: b.at + rangeEndOf(b.data, end)}
		if n := len(b.seen); n > 0 && b.seen[n-1].End == r.Start {
			b.seen[n-1].End = r.End
		} else {
			b.seen = append(b.seen, r)
		}
	}
	b.spans = append(b.spans, rowSpan{from: from, to: len(b.text), line: line, match: match})
	b.g.bytes += len(b.text) - from + 1
	b.shownUpTo = line
}

// nextLine returns the bounds of the line after the one ending at end.
func (b *rowBuilder) nextLine(end int) (int, int, bool) {
	s := end + 1
	if end >= len(b.data) || s >= len(b.data) {
		return 0, 0, false
	}
	e := len(b.data)
	if j := bytes.IndexByte(b.data[s:], '\n'); j >= 0 {
		e = s + j
	}
	return s, e, true
}

// flushAfter shows the trailing context still due, up to the line before
// upTo.
func (b *rowBuilder) flushAfter(upTo int) {
	for b.afterLeft > 0 {
		s, e, ok := b.nextLine(b.afterEnd)
		if !ok || b.afterLine+1 >= upTo {
			return
		}
		b.afterLine++
		b.afterEnd = e
		b.afterLeft--
		if b.afterLine > b.shownUpTo {
			b.show(s, e, b.afterLine, false)
		}
	}
}

// leading shows the context before hit h: up to before lines, walking
// back from its first line, none already shown.
func (b *rowBuilder) leading(h hit, before int) {
	b.ctxStarts = b.ctxStarts[:0]
	ls := h.start
	for k := 0; k < before && h.first-k-1 > b.shownUpTo && ls > 0; k++ {
		ls = bytes.LastIndexByte(b.data[:ls-1], '\n') + 1
		b.ctxStarts = append(b.ctxStarts, ls)
	}
	for i := len(b.ctxStarts) - 1; i >= 0; i-- {
		s := b.ctxStarts[i]
		e := s + bytes.IndexByte(b.data[s:], '\n')
		b.show(s, e, h.first-i-1, false)
	}
}

// hitLines shows the lines of hit h not shown yet.
func (b *rowBuilder) hitLines(h hit) {
	s, line := h.start, h.first
	for {
		e := len(b.data)
		if j := bytes.IndexByte(b.data[s:], '\n'); j >= 0 {
			e = s + j
		}
		if e > h.end {
			e = h.end
		}
		if line > b.shownUpTo {
			b.show(s, e, line, true)
		}
		if e >= h.end || line >= h.last {
			return
		}
		if b.g.bytes >= b.maxBytes {
			// One multiline match can span a whole file: past the bound
			// its lines are left out, and the answer says so.
			b.g.cut = true
			return
		}
		s, line = e+1, line+1
	}
}

// rangeEndOf is the end of the line ending at end, with its "\n" if any.
func rangeEndOf(data []byte, end int) int {
	if end < len(data) {
		return end + 1
	}
	return end
}
