package stet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"regexp"
	"sort"
	"strings"
	"unicode/utf8"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/glob"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

// Default result bounds of the read-only tools.
const (
	DefaultListLimit = 1000
	DefaultFindLimit = 1000
	DefaultGrepLimit = 200
	maxGrepLineBytes = 2000
)

// walkFn is called for each entry under a directory, with its path relative
// to the root. Returning errSkipDir skips a directory's contents.
type walkFn func(rel string, info fsys.Info, depth int) error

var errSkipDir = errors.New("skip this directory")
var errStopWalk = errors.New("stop the walk")

// walk visits the tree under dir (not following symlinks), sorted by name,
// down to maxDepth levels (0: no limit). Hidden (deny-read) entries are
// skipped; .git is listed but not entered unless it is the start.
func (ws *Workspace) walk(ctx context.Context, t target, maxDepth int, fn walkFn) error {
	var visit func(rel string, depth int) error
	visit = func(rel string, depth int) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		entries, err := t.root.p.ReadDir(rel)
		if err != nil {
			return err
		}
		for _, e := range entries {
			child := e.Name
			if rel != "." {
				child = rel + "/" + e.Name
			}
			if _, hidden := ws.rules.Denied(child); hidden {
				continue
			}
			if err := fn(child, e, depth); err != nil {
				if errors.Is(err, errSkipDir) {
					continue
				}
				return err
			}
			if e.Type == fsys.TypeDir && (maxDepth == 0 || depth < maxDepth) && e.Name != ".git" {
				if err := visit(child, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return visit(t.rel, 1)
}

func (ws *Workspace) displayRel(t target, rel string) string {
	u := t
	u.rel = rel
	return u.display()
}

// List shows a directory's entries with type and size, down to depth levels,
// and records the directories shown as observed.
func (s *Session) List(ctx context.Context, a ListArgs) (*ListResult, error) {
	if ref := checkArgs("list", a); ref != nil {
		return nil, ref
	}
	t, ref := s.resolve("list", a.Path)
	if ref != nil {
		return nil, ref
	}
	if ref := s.ws.denied(t); ref != nil {
		return nil, ref
	}
	info, err := t.root.p.Stat(t.rel)
	if err != nil {
		return nil, s.ws.fileErr("list", t, err)
	}
	if info.Type != fsys.TypeDir {
		return nil, refuse(KindInvalid, t.spelled, "%s is a file, not a directory; read it instead (read path=%s)", t.spelled, t.spelled)
	}
	depth, limit := a.Depth, a.Limit
	if depth == 0 {
		depth = 1
	}
	if limit == 0 {
		limit = DefaultListLimit
	}
	res := &ListResult{Path: t.display(), Entries: []Entry{}}
	dirs := []target{t}
	prefix := t.rel + "/"
	if t.rel == "." {
		prefix = ""
	}
	err = s.ws.walk(ctx, t, depth, func(rel string, e fsys.Info, d int) error {
		if len(res.Entries) >= limit {
			res.Truncated = true
			return errStopWalk
		}
		res.Entries = append(res.Entries, Entry{Name: strings.TrimPrefix(rel, prefix), Type: string(e.Type), Size: e.Size})
		if e.Type == fsys.TypeDir && d < depth {
			u := t
			u.rel = rel
			dirs = append(dirs, u)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		return nil, s.ws.fileErr("list", t, err)
	}
	if err := s.observeDirs(dirs...); err != nil {
		return nil, err
	}
	return res, nil
}

// Find lists the files whose path (relative to path, default the root)
// matches a glob; "**" crosses directories, a pattern without "/" matches
// base names at any depth.
func (s *Session) Find(ctx context.Context, a FindArgs) (*FindResult, error) {
	if ref := checkArgs("find", a); ref != nil {
		return nil, ref
	}
	t, ref := s.resolve("find", a.Path)
	if ref != nil {
		return nil, ref
	}
	if ref := s.ws.denied(t); ref != nil {
		return nil, ref
	}
	limit := a.Limit
	if limit == 0 {
		limit = DefaultFindLimit
	}
	prefix := t.rel + "/"
	if t.rel == "." {
		prefix = ""
	}
	res := &FindResult{Paths: []string{}}
	err := s.ws.walk(ctx, t, 0, func(rel string, e fsys.Info, _ int) error {
		if e.Type == fsys.TypeDir {
			return nil
		}
		if glob.Match(a.Pattern, strings.TrimPrefix(rel, prefix)) {
			if len(res.Paths) >= limit {
				res.Truncated = true
				return errStopWalk
			}
			res.Paths = append(res.Paths, s.ws.displayRel(t, rel))
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		return nil, s.ws.fileErr("find", t, err)
	}
	return res, nil
}

// Grep searches text files for an RE2 pattern and returns path:line:text
// rows (with context lines when asked). The lines shown count as seen.
func (s *Session) Grep(ctx context.Context, a GrepArgs) (*GrepResult, error) {
	if ref := checkArgs("grep", a); ref != nil {
		return nil, ref
	}
	re, err := regexp.Compile(a.Pattern) // valid: checkArgs compiled it
	if err != nil {
		return nil, argRefusal("grep", err)
	}
	t, ref := s.resolve("grep", a.Path)
	if ref != nil {
		return nil, ref
	}
	if ref := s.ws.denied(t); ref != nil {
		return nil, ref
	}
	limit := a.Limit
	if limit == 0 {
		limit = DefaultGrepLimit
	}
	res := &GrepResult{Matches: []GrepMatch{}}
	var recs []journal.Record
	count := 0
	search := func(rel string) error {
		u := t
		u.rel = rel
		data, err := t.root.p.ReadFile(rel)
		if err != nil || int64(len(data)) > s.ws.opts.MaxFileBytes {
			return nil // unreadable or special files are skipped
		}
		head := data
		if len(head) > 8<<10 {
			head = head[:8<<10]
		}
		if bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(data) {
			return nil
		}
		rows, seen, n := grepFile(re, data, a.Context, limit-count)
		if len(rows) == 0 {
			return nil
		}
		count += n
		name := u.display()
		for i := range rows {
			rows[i].Path = name
		}
		res.Matches = append(res.Matches, rows...)
		rec := s.grepObserve(u, data, seen)
		if rec != nil {
			recs = append(recs, *rec)
		}
		if count >= limit {
			res.Truncated = true
			return errStopWalk
		}
		return nil
	}
	info, err := t.root.p.Stat(t.rel)
	if err != nil {
		return nil, s.ws.fileErr("grep", t, err)
	}
	if info.Type != fsys.TypeDir {
		err = search(t.rel)
	} else {
		prefix := t.rel + "/"
		if t.rel == "." {
			prefix = ""
		}
		err = s.ws.walk(ctx, t, 0, func(rel string, e fsys.Info, _ int) error {
			if e.Type != fsys.TypeFile || e.Size > s.ws.opts.MaxFileBytes {
				return nil // links, special files and files too large to edit are not searched
			}
			if a.Glob != "" && !glob.Match(a.Glob, strings.TrimPrefix(rel, prefix)) {
				return nil
			}
			return search(rel)
		})
	}
	if err != nil && !errors.Is(err, errStopWalk) {
		return nil, s.ws.fileErr("grep", t, err)
	}
	if len(recs) > 0 {
		if _, err := s.ws.journal.AppendLazy(recs...); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// grepFile returns the rows to show for one file (matches and context,
// in line order, at most limit matches), the byte ranges of the lines shown
// whole, and the number of matches.
func grepFile(re *regexp.Regexp, data []byte, context, limit int) ([]GrepMatch, []policy.Range, int) {
	type line struct{ start, end int } // end includes the "\n"
	var lines []line
	for start := 0; ; {
		i := bytes.IndexByte(data[start:], '\n')
		if i < 0 {
			lines = append(lines, line{start, len(data)})
			break
		}
		lines = append(lines, line{start, start + i + 1})
		start += i + 1
	}
	show := map[int]bool{} // line index -> is a match
	var order []int
	n := 0
	for i, l := range lines {
		if n >= limit {
			break
		}
		text := bytes.TrimSuffix(data[l.start:l.end], []byte("\n"))
		if !re.Match(text) {
			continue
		}
		n++
		for j := max(0, i-context); j <= min(len(lines)-1, i+context); j++ {
			if _, ok := show[j]; !ok {
				order = append(order, j)
				show[j] = false
			}
		}
		show[i] = true
	}
	sort.Ints(order)
	var rows []GrepMatch
	var seen policy.Ranges
	for _, i := range order {
		l := lines[i]
		text := string(bytes.TrimSuffix(data[l.start:l.end], []byte("\n")))
		if len(text) > maxGrepLineBytes {
			cut := maxGrepLineBytes
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut] + fmt.Sprintf(" … (line is %s bytes; read it to see all)", policy.Thousands(l.end-l.start))
		} else {
			seen = seen.Add(policy.Range{Start: l.start, End: l.end})
		}
		rows = append(rows, GrepMatch{Line: i + 1, Text: text, Context: !show[i]})
	}
	return rows, seen, n
}

// grepObserve records the lines grep showed as seen at the file's version.
func (s *Session) grepObserve(t target, data []byte, seen policy.Ranges) *journal.Record {
	if len(seen) == 0 {
		return nil
	}
	key := t.key()
	version := string(fsys.VersionOf(data))
	s.mu.Lock()
	o := s.files[key]
	if o == nil || o.Version != version {
		o = &observation{Version: version}
	}
	next := &observation{Version: version, Seen: o.Seen, Whole: o.Whole, Size: len(data), Lines: receipt.Lines(data)}
	for _, r := range seen {
		next.Seen = next.Seen.Add(r)
	}
	s.files[key] = next
	s.mu.Unlock()
	r := s.rec(recObserve, key, next)
	return &r
}
