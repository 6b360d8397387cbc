package filelock

import (
	"context"
	"sync"
)

// Table hands out one lock per key. The zero value is ready to use; a Table
// must not be copied after first use. Entries are dropped when no caller
// holds or waits for them, so the table stays as small as the set of files
// in use.
type Table struct {
	mu sync.Mutex
	m  map[string]*entry
}

type entry struct {
	ch   chan struct{} // holds a token while the lock is taken
	refs int           // holders and waiters
}

// Lock takes the lock for key, waiting until it is free or ctx is done.
// The returned unlock releases it; calling unlock more than once is harmless.
func (t *Table) Lock(ctx context.Context, key string) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	t.mu.Lock()
	if t.m == nil {
		t.m = make(map[string]*entry)
	}
	e := t.m[key]
	if e == nil {
		e = &entry{ch: make(chan struct{}, 1)}
		t.m[key] = e
	}
	e.refs++
	t.mu.Unlock()

	select {
	case e.ch <- struct{}{}:
	case <-ctx.Done():
		t.release(key, e)
		return nil, ctx.Err()
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			<-e.ch
			t.release(key, e)
		})
	}, nil
}

func (t *Table) release(key string, e *entry) {
	t.mu.Lock()
	defer t.mu.Unlock()
	e.refs--
	if e.refs == 0 {
		delete(t.m, key)
	}
}

// Len returns the number of keys held or waited for.
func (t *Table) Len() int {
	t.mu.Lock()
	defer t.mu.Unlock()
	return len(t.m)
}
