package stet

import (
	"context"
	"testing"
	"testing/synctest"
)

// A worker that would keep more matching bytes than the bound waits until
// the reader lets go of some, unless the reader waits for that very file;
// a stopped search holds no one back.
func TestGrepHoldBoundsWhatWorkersKeep(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, cancel := context.WithCancel(t.Context())
		defer cancel()
		g, stop := newGrepHold(ctx, 10)
		defer stop()
		head, later := newGrepJob(nil), newGrepJob(nil)
		g.at(head, 0)
		if !g.take(later, 0, 8) {
			t.Fatal("a take within the bound was refused")
		}
		got := make(chan bool, 1)
		go func() { got <- g.take(later, 1, 8) }()
		synctest.Wait()
		select {
		case <-got:
			t.Fatal("a worker kept bytes past the bound while the reader waited for another file")
		default:
		}
		g.give(8)
		synctest.Wait()
		if ok := <-got; !ok {
			t.Fatal("the waiting worker was refused once bytes were given back")
		}
		// The file the reader waits for is taken whatever is held.
		if !g.take(head, 0, 100) {
			t.Fatal("the file the reader waits for was held back")
		}
		go func() { got <- g.take(later, 2, 1) }()
		synctest.Wait()
		cancel()
		synctest.Wait()
		if ok := <-got; ok {
			t.Fatal("a stopped search still counted a take")
		}
	})
}
