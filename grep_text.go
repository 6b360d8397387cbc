package stet

import (
	"bytes"
	"context"
	"unicode/utf8"

	"github.com/stet-dev/stet/tools"
)

// GrepText searches text that is not a file of the workspace (the CLI's
// standard input, `stet grep PATTERN -`) as grep searches one file: the
// same pattern, options, modes, paging and bounds, its rows named name.
// The arguments that choose files (path, glob, type, exclude, no_ignore)
// are checked but select nothing here. Nothing is observed: the text is no
// workspace file, so what it shows counts for no later edit. A text with a
// NUL byte in its first 8 KiB, or that is not valid UTF-8, has no match,
// as such a file has none in a search. In count mode a text without a
// match is counted 0, as a file named alone is.
func GrepText(ctx context.Context, a GrepArgs, name string, text []byte) (*GrepResult, error) {
	if ref := checkArgs("grep", a); ref != nil {
		return nil, ref
	}
	q, err := compileGrep(a)
	if err != nil {
		return nil, argRefusal("grep", err)
	}
	res := &GrepResult{}
	switch q.mode {
	case tools.GrepFilesWithMatches:
		res.Paths = []string{}
	case tools.GrepCount:
		res.Counts = []GrepCountRow{}
	default:
		res.Matches = []GrepMatch{}
	}
	count := 0
	var hits []hit
	if bytes.IndexByte(text[:min(len(text), binaryProbeBytes)], 0) < 0 && utf8.Valid(text) {
		q.need = 0 // one text: its hits are all there is to page through
		var lower []byte
		if hits, count, err = q.scan(ctx, text, &lower); err != nil {
			return nil, err
		}
	}
	if count == 0 {
		if q.mode == tools.GrepCount && a.Offset == 0 {
			// Named alone, as a file given by name: counted 0, as grep -c
			// shows it.
			res.Counts = append(res.Counts, GrepCountRow{Path: name})
		}
		return res, nil
	}
	switch q.mode {
	case tools.GrepFilesWithMatches:
		if a.Offset == 0 {
			res.Paths = append(res.Paths, name)
		}
		return res, nil
	case tools.GrepCount:
		if a.Offset == 0 {
			res.Counts = append(res.Counts, GrepCountRow{Path: name, Count: count})
		}
		return res, nil
	}
	limit := a.Limit
	if limit == 0 {
		limit = DefaultGrepLimit
	}
	if a.Offset >= len(hits) {
		return res, nil
	}
	hits = hits[a.Offset:]
	maxBytes := MaxGrepBytes
	if a.Limit == 0 {
		maxBytes = DefaultPageBytes // a default page, as grep of a file gives
	}
	var b rowBuilder
	g := b.build(text, hits, q.before, q.after, limit, maxBytes, name)
	res.Matches = append(res.Matches, g.rows...)
	res.Truncated = g.matches < len(hits) || g.cut
	return res, nil
}
