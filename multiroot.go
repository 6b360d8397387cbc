package stet

import (
	"context"

	"github.com/stet-dev/stet/tools"
)

// rootPaths returns the absolute directory of every root when the
// workspace has several, so that list, find and grep with no path cover
// each; nil for a one-root workspace, where no path means the root.
func (s *Session) rootPaths(path string) []string {
	if path != "" || len(s.e.WS.RootList) < 2 {
		return nil
	}
	return s.e.WS.Roots()
}

// listRoots is list with no path in a workspace of several roots: each
// root as a directory entry named by its absolute path, and with depth
// above 1 the entries under each root (named from the root's path), each
// root listed as list lists a directory (and so observed).
func (s *Session) listRoots(ctx context.Context, a ListArgs, roots []string) (*ListResult, error) {
	limit := a.Limit
	if limit == 0 {
		limit = DefaultListLimit
	}
	res := &ListResult{Path: "", Entries: []Entry{}}
	for _, dir := range roots {
		if len(res.Entries) >= limit {
			res.Truncated = true
			break
		}
		res.Entries = append(res.Entries, Entry{Name: dir, Type: "dir"})
		if a.Depth <= 1 {
			continue
		}
		sub := a
		sub.Path, sub.Depth, sub.Limit = dir, a.Depth-1, limit-len(res.Entries)
		if sub.Limit <= 0 {
			res.Truncated = true
			break
		}
		r, err := s.List(ctx, sub)
		if err != nil {
			if _, ok := AsRefusal(err); ok {
				continue // outside a client's narrowed roots: not shown
			}
			return nil, err
		}
		for _, e := range r.Entries {
			e.Name = dir + "/" + e.Name
			res.Entries = append(res.Entries, e)
		}
		res.Notes = append(res.Notes, r.Notes...)
		if r.Truncated {
			res.Truncated = true
			break
		}
	}
	sortEntries(res, a.Sort, limit)
	return res, nil
}

// findRoots is find with no path in a workspace of several roots: each
// root searched in turn, paths in the first root relative and in the
// others absolute, as find names them.
func (s *Session) findRoots(ctx context.Context, a FindArgs, roots []string) (*FindResult, error) {
	limit := a.Limit
	if limit == 0 {
		limit = DefaultFindLimit
	}
	res := &FindResult{Paths: []string{}}
	var first error
	for _, dir := range roots {
		sub := a
		sub.Path, sub.Limit = dir, limit-len(res.Paths)
		if sub.Limit <= 0 {
			res.Truncated = true
			break
		}
		r, err := s.Find(ctx, sub)
		if err != nil {
			if _, ok := AsRefusal(err); ok {
				first = cmpOr(first, err)
				continue
			}
			return nil, err
		}
		first = errSearched
		res.Paths = append(res.Paths, r.Paths...)
		res.Notes = append(res.Notes, r.Notes...)
		if r.Truncated {
			res.Truncated = true
			break
		}
	}
	if first != errSearched && first != nil {
		return nil, first // no root could be searched
	}
	if a.Limit == 0 {
		// A default page holds DefaultPageBytes of paths across the roots,
		// as in one root (find observes nothing, so the cut is free).
		n := 0
		for i, p := range res.Paths {
			if n += len(p); n > DefaultPageBytes {
				res.Paths, res.Truncated = res.Paths[:i], true
				break
			}
		}
	}
	return res, nil
}

// grepRoots is grep with no path in a workspace of several roots: each
// root searched in turn, in root order, with offset and limit counted
// across all of them (matching lines in content mode, files otherwise).
// A root wholly before the offset is skipped after a count (which shows and
// observes nothing), so no line is shown, or counted as seen, that the
// answer leaves out.
func (s *Session) grepRoots(ctx context.Context, a GrepArgs, roots []string) (*GrepResult, error) {
	content := a.OutputMode == "" || a.OutputMode == tools.GrepContent
	limit := a.Limit
	if limit == 0 {
		limit = DefaultGrepLimit
		if !content {
			limit = DefaultGrepFileLimit
		}
	}
	res := &GrepResult{}
	switch {
	case content:
		res.Matches = []GrepMatch{}
	case a.OutputMode == tools.GrepCount:
		res.Counts = []GrepCountRow{}
	default:
		res.Paths = []string{}
	}
	offset, got := a.Offset, 0
	var first error
	for _, dir := range roots {
		if got >= limit {
			res.Truncated = true
			break
		}
		sub := a
		sub.Path, sub.Offset, sub.Limit = dir, 0, limit-got
		if offset > 0 {
			total, exact, err := s.grepTotal(ctx, sub, content)
			if err != nil {
				if _, ok := AsRefusal(err); ok {
					first = cmpOr(first, err)
					continue
				}
				return nil, err
			}
			if exact && offset >= total {
				offset -= total
				first = errSearched
				continue
			}
			sub.Offset, offset = offset, 0
		}
		r, err := s.Grep(ctx, sub)
		if err != nil {
			if _, ok := AsRefusal(err); ok {
				first = cmpOr(first, err)
				continue
			}
			return nil, err
		}
		first = errSearched
		for _, m := range r.Matches {
			if !m.Context {
				got++
			}
			res.Matches = append(res.Matches, m)
		}
		got += len(r.Paths) + len(r.Counts)
		res.Paths = append(res.Paths, r.Paths...)
		res.Counts = append(res.Counts, r.Counts...)
		res.Notes = append(res.Notes, r.Notes...)
		if r.Truncated {
			res.Truncated = true
			break
		}
	}
	if first != errSearched && first != nil {
		return nil, first
	}
	return res, nil
}

// grepTotal counts what grep a would give in one root (matching lines in
// content mode, files otherwise) without showing any of it; exact is false
// when the count itself was cut at its bound.
func (s *Session) grepTotal(ctx context.Context, a GrepArgs, content bool) (total int, exact bool, err error) {
	a.OutputMode, a.Offset, a.Limit = tools.GrepCount, 0, tools.MaxResults
	r, err := s.Grep(ctx, a)
	if err != nil {
		return 0, false, err
	}
	if !content {
		return len(r.Counts), !r.Truncated, nil
	}
	for _, c := range r.Counts {
		total += c.Count
	}
	return total, !r.Truncated, nil
}

func cmpOr(a, b error) error {
	if a != nil {
		return a
	}
	return b
}
