package stet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/glob"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/tools"
)

// Default result bounds of the read-only tools.
const (
	DefaultListLimit = 1000
	DefaultFindLimit = 1000
	DefaultGrepLimit = 200
	maxGrepLineBytes = 2000
	// MaxGrepBytes bounds the text of grep's rows: no new match is shown
	// once they hold this much (the result is then truncated).
	MaxGrepBytes = 2 << 20
	// MaxGrepLimit is the largest limit grep accepts (checked with every
	// argument in package tools).
	MaxGrepLimit = tools.MaxResults
	// MaxGrepContext is the largest context grep accepts (lines each side).
	MaxGrepContext = tools.MaxContext
)

// walkFn is called for each entry under a directory, with its path relative
// to the root. Returning errSkipDir skips a directory's contents.
type walkFn func(rel string, info fsys.Info, depth int) error

var errSkipDir = errors.New("skip this directory")
var errStopWalk = errors.New("stop the walk")

// walk visits the tree under dir (not following symlinks), sorted by name,
// down to maxDepth levels (0: no limit). Hidden (deny-read) entries are
// skipped (see hiddenEntry); .git is listed but not entered unless it is the
// start.
func (ws *Workspace) walk(ctx context.Context, t target, maxDepth int, fn walkFn) error {
	paths := ws.rulePaths(t)
	real := paths[len(paths)-1] // where t leads, if a symlink is on its way
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
			if ws.hiddenEntry(t, child, real, e) {
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

// hiddenEntry reports whether the walk of t must skip the entry at child: a
// deny-read path by its name under t, by the name it has where t leads
// (real), or, for a symlink, by any name its target goes by.
func (ws *Workspace) hiddenEntry(t target, child, real string, e fsys.Info) bool {
	rules := t.root.rules
	if !rules.HasDenied() {
		return false
	}
	if _, ok := rules.Denied(child); ok {
		return true
	}
	if real != t.rel {
		suffix := child
		if t.rel != "." {
			suffix = strings.TrimPrefix(child, t.rel+"/")
		}
		if _, ok := rules.Denied(path.Join(real, suffix)); ok {
			return true
		}
	}
	if e.Type == fsys.TypeSymlink {
		u := t
		u.rel = child
		return ws.denied(u) != nil
	}
	return false
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
	if roots := s.rootPaths(a.Path); roots != nil {
		return s.listRoots(ctx, a, roots)
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
	if roots := s.rootPaths(a.Path); roots != nil {
		return s.findRoots(ctx, a, roots)
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
	if roots := s.rootPaths(a.Path); roots != nil {
		return s.grepRoots(ctx, a, roots)
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
	count, shown := 0, 0
	// search greps one file. A file named as the path is refused when it
	// cannot be searched; files met in a walk are skipped.
	search := func(rel string, named bool) error {
		u := t
		u.rel = rel
		data, err := fsys.ReadFileMax(t.root.p, rel, s.ws.opts.MaxFileBytes)
		if err != nil {
			if named {
				return s.ws.fileErr("grep", u, err)
			}
			return nil // unreadable, special or too large: skipped
		}
		head := data
		if len(head) > 8<<10 {
			head = head[:8<<10]
		}
		if bytes.IndexByte(head, 0) >= 0 || !utf8.Valid(data) {
			return nil
		}
		g, err := grepFile(ctx, re, data, a.Context, limit-count, MaxGrepBytes-shown)
		if err != nil {
			return err
		}
		if len(g.rows) == 0 {
			return nil
		}
		count += g.matches
		shown += g.bytes
		name := u.display()
		for i := range g.rows {
			g.rows[i].Path = name
		}
		res.Matches = append(res.Matches, g.rows...)
		rec := s.grepObserve(u, data, g.seen)
		if rec != nil {
			recs = append(recs, *rec)
		}
		if count >= limit || g.full {
			res.Truncated = true
			return errStopWalk
		}
		return nil
	}
	info, err := t.root.p.Stat(t.rel)
	if err != nil {
		return nil, s.ws.fileErr("grep", t, err)
	}
	switch info.Type {
	case fsys.TypeDir:
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
			return search(rel, false)
		})
	case fsys.TypeFile:
		err = search(t.rel, true)
	default:
		err = fsys.E("grep", t.rel, fsys.ErrNotRegular, nil)
	}
	if err != nil && !errors.Is(err, errStopWalk) {
		if _, ok := AsRefusal(err); ok || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return nil, err
		}
		return nil, s.ws.fileErr("grep", t, err)
	}
	if len(recs) > 0 {
		if _, err := s.ws.journal.AppendLazy(recs...); err != nil {
			return nil, err
		}
	}
	return res, nil
}

// grepCheckEvery is how many lines grep scans between cancellation checks.
const grepCheckEvery = 1024

// grepped is what grep found in one file.
type grepped struct {
	rows    []GrepMatch   // matches and context lines, in line order
	seen    policy.Ranges // byte ranges of the lines shown whole
	matches int           // matching lines shown
	bytes   int           // text bytes of the rows
	full    bool          // stopped at the byte bound with matches left unshown
}

// grepFile returns the rows to show for one file: matches and their
// context, in line order, at most limit matches. Once the rows hold
// maxBytes of text no new match is started (its context is never cut). It
// is one pass over the lines: each line is shown at most once.
func grepFile(ctx context.Context, re *regexp.Regexp, data []byte, context, limit, maxBytes int) (grepped, error) {
	var g grepped
	var seen []policy.Range
	var starts []int // the first byte of each line seen so far
	shownUpTo := -1  // the last line index shown
	afterUpTo := -1  // context lines after a match are due up to here
	show := func(i int, match bool) {
		start := starts[i]
		end := len(data)
		if i+1 < len(starts) {
			end = starts[i+1]
		} else if j := bytes.IndexByte(data[start:], '\n'); j >= 0 {
			end = start + j + 1
		}
		text := string(bytes.TrimSuffix(data[start:end], []byte("\n")))
		if len(text) > maxGrepLineBytes {
			cut := maxGrepLineBytes
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut] + fmt.Sprintf(" … (line is %s bytes; read it to see all)", policy.Thousands(end-start))
		} else {
			seen = append(seen, policy.Range{Start: start, End: end})
		}
		g.rows = append(g.rows, GrepMatch{Line: i + 1, Text: text, Context: !match})
		g.bytes += len(text) + 1
		shownUpTo = i
	}
	for i, start := 0, 0; start <= len(data); i++ {
		if i%grepCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return grepped{}, err
			}
		}
		end := len(data)
		next := len(data) + 1
		if j := bytes.IndexByte(data[start:], '\n'); j >= 0 {
			end, next = start+j, start+j+1
		}
		starts = append(starts, start)
		if g.matches < limit && !g.full && re.Match(data[start:end]) {
			if g.bytes >= maxBytes && i > afterUpTo {
				g.full = true
			} else {
				for k := max(shownUpTo+1, i-context); k < i; k++ {
					show(k, false)
				}
				show(i, true)
				g.matches++
				afterUpTo = i + context
				start = next
				continue
			}
		}
		if i <= afterUpTo && i > shownUpTo {
			show(i, false)
		} else if g.matches >= limit || g.full {
			break
		}
		start = next
	}
	g.seen = policy.NewRanges(seen...)
	return g, nil
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
	next := &observation{Version: version, Seen: o.Seen.Union(seen), Whole: o.Whole, Size: len(data), Lines: receipt.Lines(data)}
	if next.same(o) {
		s.mu.Unlock()
		return nil // nothing new was shown: the journal already holds it
	}
	s.files[key] = next
	s.mu.Unlock()
	r := s.rec(recObserve, key, next)
	return &r
}
