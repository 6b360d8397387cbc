package main

import (
	"bufio"
	"io"
	"sync"
	"time"

	"github.com/stet-dev/stet"
)

// streamDelay is at most how long grep keeps rows it has formatted before
// writing them out.
const streamDelay = 10 * time.Millisecond

// grepGCPercent is the collector's target (as GOGC, which overrides it)
// while the grep command runs: a search over a large tree allocates tens of
// megabytes over a live heap of a few, which at the default of 100 is ten
// collections in a fifth of a second; at 400 it is one or two, for a peak
// a dozen megabytes higher, in a process that ends with the search.
const grepGCPercent = 400

// grepOut is grep's standard output. Rows are written when the buffer
// fills, and otherwise at the latest streamDelay after they were formatted
// (a timer), not once per file: a reader that needs only the first lines
// still gets them at once, and a search with many matching files makes a
// write per buffer, not one per file. All use of the buffer is under mu,
// the timer's flush included.
type grepOut struct {
	mu      sync.Mutex
	w       *bufio.Writer
	timer   *time.Timer // armed while formatted rows wait to be written
	err     error       // the first failed write
	stopped bool

	// groups: rows come with context (-A, -B or -C above 0), and a "--"
	// line separates rows that do not follow one another (another file,
	// or a gap of lines), as grep separates its groups.
	groups   bool
	lastPath string // the last row written, for groups
	lastLine int    // 0: none yet
	run      stet.GrepResult
	// matched says a row written shows a match: a matching line, a path
	// (-l), or a count above 0 (-c shows a file named with no match as 0).
	matched bool
}

func newGrepOut(w io.Writer) *grepOut {
	return &grepOut{w: bufio.NewWriterSize(w, 64<<10)}
}

// rows formats part's rows (without the path with noFilename) and returns
// how many results they hold, and the error of a write that failed since
// the last call (the reader went away: the search stops).
func (g *grepOut) rows(part *stet.GrepResult, noFilename bool) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	buf, n := g.format(g.w.AvailableBuffer(), part, !noFilename)
	if _, err := g.w.Write(buf); err != nil && g.err == nil {
		g.err = err
	}
	if g.w.Buffered() > 0 && g.timer == nil && !g.stopped {
		g.timer = time.AfterFunc(streamDelay, g.flushLater)
	}
	return n, g.err
}

// format appends part's rows to dst as grep prints them: stet's rows, with
// a "--" line between groups when g.groups is set.
func (g *grepOut) format(dst []byte, part *stet.GrepResult, withPath bool) ([]byte, int) {
	g.matched = g.matched || grepFound(part)
	if !g.groups || len(part.Matches) == 0 {
		return stet.AppendGrepRows(dst, part, withPath)
	}
	n := 0
	ms := part.Matches
	for len(ms) > 0 {
		end := 1
		for end < len(ms) && ms[end].Path == ms[end-1].Path && ms[end].Line == ms[end-1].Line+1 {
			end++
		}
		if g.lastLine > 0 && (ms[0].Path != g.lastPath || ms[0].Line != g.lastLine+1) {
			dst = append(dst, "--\n"...)
		}
		g.run.Matches = ms[:end]
		var k int
		dst, k = stet.AppendGrepRows(dst, &g.run, withPath)
		n += k
		g.lastPath, g.lastLine = ms[end-1].Path, ms[end-1].Line
		ms = ms[end:]
	}
	g.run.Matches = nil
	return dst, n // content rows only: a part of the content mode has no paths or counts
}

// grepFound reports whether r shows a match: a matching line, a path, or
// a count above 0.
func grepFound(r *stet.GrepResult) bool {
	if len(r.Paths) > 0 {
		return true
	}
	for _, m := range r.Matches {
		if !m.Context {
			return true
		}
	}
	for _, c := range r.Counts {
		if c.Count > 0 {
			return true
		}
	}
	return false
}

// flushLater is the timer's flush.
func (g *grepOut) flushLater() {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.timer = nil
	if g.stopped {
		return
	}
	if err := g.w.Flush(); err != nil && g.err == nil {
		g.err = err
	}
}

// flush writes out what is formatted, now.
func (g *grepOut) flush() error {
	g.mu.Lock()
	defer g.mu.Unlock()
	if err := g.w.Flush(); err != nil && g.err == nil {
		g.err = err
	}
	return g.err
}

// done stops the timer and hands back the buffer, for the trailer and the
// last flush: after done nothing else writes to it.
func (g *grepOut) done() *bufio.Writer {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.stopped = true
	if g.timer != nil {
		g.timer.Stop()
		g.timer = nil
	}
	return g.w
}
