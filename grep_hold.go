package stet

import (
	"context"
	"sync"
)

// grepHoldBytes bounds the bytes of matching files that grep's workers keep
// for the reader ahead of it (the rows of a file are built from its bytes
// in walk order, so a worker that runs ahead holds them until then).
const grepHoldBytes = 32 << 20

// grepHold is that bound, shared by the workers of one search. A worker
// that would keep a file's bytes past it waits until the reader has let go
// of earlier ones, unless the reader waits for that very file (so the
// search always moves on, and a file larger than the bound is still
// searched): what is held at once is at most the bound plus one file,
// whatever the number of files, their sizes or the speed of the reader.
type grepHold struct {
	mu        sync.Mutex
	cond      sync.Cond
	held, max int64
	job       *grepJob // the job the reader is on
	file      int      // the file of it the reader waits for
	stopped   bool
}

// newGrepHold returns the bound of one search; it stops holding anyone
// back once ctx is done.
func newGrepHold(ctx context.Context, max int64) (*grepHold, func() bool) {
	g := &grepHold{max: max}
	g.cond.L = &g.mu
	stop := context.AfterFunc(ctx, func() {
		g.mu.Lock()
		g.stopped = true
		g.cond.Broadcast()
		g.mu.Unlock()
	})
	return g, stop
}

// take counts n bytes of file i of j as held, waiting while they would go
// past the bound and the reader is not waiting for that file. It reports
// false, holding nothing, when the search was stopped meanwhile.
func (g *grepHold) take(j *grepJob, i int, n int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for g.held+n > g.max && (g.job != j || g.file != i) && !g.stopped {
		g.cond.Wait()
	}
	if g.stopped {
		return false
	}
	g.held += n
	return true
}

// give lets go of n bytes taken before.
func (g *grepHold) give(n int64) {
	g.mu.Lock()
	g.held -= n
	g.cond.Broadcast()
	g.mu.Unlock()
}

// at says the reader now waits for file i of j.
func (g *grepHold) at(j *grepJob, i int) {
	g.mu.Lock()
	g.job, g.file = j, i
	g.cond.Broadcast()
	g.mu.Unlock()
}
