package stet

import (
	"cmp"
	"slices"

	"github.com/stet-dev/stet/tools"
)

// maxSortedEntries bounds what list walks before sorting by size: the
// largest entries are found among at most this many.
const maxSortedEntries = tools.MaxResults

// sortEntries puts a listing in the order sort asks for (path order is
// the walk's own) and keeps at most limit entries, marking the rest cut.
func sortEntries(res *ListResult, sort string, limit int) {
	if sort != tools.ListSortSize {
		return
	}
	slices.SortStableFunc(res.Entries, func(a, b Entry) int { return cmp.Compare(b.Size, a.Size) })
	if len(res.Entries) > limit {
		res.Entries = res.Entries[:limit]
		res.Truncated = true
	}
}
