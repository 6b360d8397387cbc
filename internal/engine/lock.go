package engine

import (
	"context"
	"sort"
)

// lockAll takes the per-file locks of every target in one global order
// (sorted by file identity, duplicates once), so calls that lock the same
// files in another order cannot deadlock. Every mutating tool takes its locks
// here. On an error nothing stays locked.
func (ws *Workspace) LockAll(ctx context.Context, ts ...Target) (func(), error) {
	type keyed struct {
		key string
		t   Target
	}
	ks := make([]keyed, 0, len(ts))
	seen := make(map[string]bool, len(ts))
	for _, t := range ts {
		k := t.Key()
		if seen[k] {
			continue
		}
		seen[k] = true
		ks = append(ks, keyed{k, t})
	}
	sort.Slice(ks, func(i, j int) bool { return ks[i].key < ks[j].key })
	unlocks := make([]func(), 0, len(ks))
	release := func() {
		for i := len(unlocks) - 1; i >= 0; i-- {
			unlocks[i]()
		}
	}
	for _, k := range ks {
		u, err := ws.lock(ctx, k.t)
		if err != nil {
			release()
			return nil, err
		}
		unlocks = append(unlocks, u)
	}
	return release, nil
}
