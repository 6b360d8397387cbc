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
	buf, n := stet.AppendGrepRows(g.w.AvailableBuffer(), part, !noFilename)
	if _, err := g.w.Write(buf); err != nil && g.err == nil {
		g.err = err
	}
	if g.w.Buffered() > 0 && g.timer == nil && !g.stopped {
		g.timer = time.AfterFunc(streamDelay, g.flushLater)
	}
	return n, g.err
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
