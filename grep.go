package stet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"regexp/syntax"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/glob"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
	"github.com/stet-dev/stet/tools"
)

// DefaultGrepFileLimit is grep's default limit in the files_with_matches
// and count modes (files shown).
const DefaultGrepFileLimit = 1000

// binaryProbeBytes is how much of a file grep looks at for a NUL byte, the
// mark of a binary file, as grep and read do.
const binaryProbeBytes = 8 << 10

// grepQuery is a grep call compiled once and shared by the workers.
type grepQuery struct {
	re            *regexp.Regexp
	lit           []byte // a literal every match contains (the prefilter); nil when none is known
	multiline     bool
	mode          string
	before, after int // context lines (scanLarge keeps them; buildRows shows them)
	// foldLit, for a case-insensitive pattern without lit, is a literal
	// every match holds up to ASCII case, lower-cased (its letters fold to
	// ASCII letters only): scanLarge's prefilter then.
	foldLit []byte
	// need is how many hits a worker needs from one file at most: a file
	// cannot contribute more than offset+limit+1 to any page (0: all).
	need int
}

// hit is one match: the lines it touches, as the byte range from the start
// of its first line to the end of its last (without the "\n"), and their
// numbers.
type hit struct {
	start, end  int
	first, last int // line numbers, 1-based
}

// fileHits is what a worker found in one file.
type fileHits struct {
	hits  []hit
	count int    // matching lines
	data  []byte // the file's bytes, kept only when content rows will be built from them
	err   error
	// groups replace hits and data for a file over the edit limit, searched
	// as it streams (scanLarge); more says it holds hits past them.
	groups []hitGroup
	more   bool
}

// grepBatch is at most how many files of one directory make one job: a
// worker opens them under one hold of the directory's lock (see
// fsys.OpenEach), and the walk, the workers and the reader of the results
// hand over one job instead of one file at a time.
const grepBatch = 32

// grepJob is files of one directory, in path order, for one worker; done
// is closed once hits holds the result of each (nil while no file has a
// hit or an error: a batch without a match allocates no results).
type grepJob struct {
	dir    *walkDir // the directory, open once for the walk and all its files (held)
	rels   []string // the files' paths
	names  []string // their names in dir
	hits   []fileHits
	done   chan struct{}
	hidden func(fsys.Info) bool // a hard link to a deny-read file (Workspace.linkGuard)
}

// compileGrep builds the query of a call whose arguments passed rule 1.
func compileGrep(a GrepArgs) (*grepQuery, error) {
	expr := tools.GrepRegexp(a)
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	q := &grepQuery{re: re, multiline: a.Multiline, mode: a.OutputMode, before: a.Context, after: a.Context}
	if a.Before > 0 {
		q.before = a.Before
	}
	if a.After > 0 {
		q.after = a.After
	}
	if q.mode == "" {
		q.mode = tools.GrepContent
	}
	if parsed, err := syntax.Parse(expr, syntax.Perl); err == nil {
		if lit := requiredLiteral(parsed.Simplify()); len(lit) > 0 {
			q.lit = lit
		}
	}
	if q.lit == nil {
		if parsed, err := syntax.Parse(expr, syntax.Perl); err == nil {
			if lit := foldedLiteral(parsed.Simplify()); len(lit) > 0 {
				q.foldLit = lit
			}
		}
	}
	switch q.mode {
	case tools.GrepFilesWithMatches:
		q.need = 1
	case tools.GrepContent:
		limit := a.Limit
		if limit == 0 {
			limit = DefaultGrepLimit
		}
		q.need = a.Offset + limit + 1
	}
	return q, nil
}

// requiredLiteral returns the longest literal that every match of re
// contains, or nil. Case-folded literals count only when they hold no
// letter that folds.
func requiredLiteral(re *syntax.Regexp) []byte {
	return longestLiteral(re, func(re *syntax.Regexp) []byte {
		if re.Flags&syntax.FoldCase != 0 {
			for _, r := range re.Rune {
				if unicode.SimpleFold(r) != r {
					return nil
				}
			}
		}
		return []byte(string(re.Rune))
	})
}

// foldedLiteral is requiredLiteral for case-folded literals: the longest
// run of runes a match must hold up to ASCII case, lower-cased, taken from
// runes that are ASCII and fold only to ASCII (not k or s, which fold to
// the Kelvin sign and the long s); nil when there is none.
func foldedLiteral(re *syntax.Regexp) []byte {
	return longestLiteral(re, func(re *syntax.Regexp) []byte {
		if re.Flags&syntax.FoldCase == 0 {
			return nil
		}
		// The longest run of runes that are ASCII and fold only to ASCII:
		// a k or an s (or anything not ASCII) ends a run.
		var best, run []byte
		for _, r := range re.Rune {
			safe := r < utf8.RuneSelf
			for f := unicode.SimpleFold(r); safe && f != r; f = unicode.SimpleFold(f) {
				safe = f < utf8.RuneSelf
			}
			if !safe {
				run = nil
				continue
			}
			run = append(run, byte(unicode.ToLower(r)))
			if len(run) > len(best) {
				best = run
			}
		}
		return best
	})
}

// longestLiteral returns the longest of the literals every match of re
// must contain, as lit reads each literal node (nil: it does not count).
func longestLiteral(re *syntax.Regexp, lit func(*syntax.Regexp) []byte) []byte {
	switch re.Op {
	case syntax.OpLiteral:
		return lit(re)
	case syntax.OpCapture, syntax.OpPlus:
		return longestLiteral(re.Sub[0], lit)
	case syntax.OpRepeat:
		if re.Min >= 1 {
			return longestLiteral(re.Sub[0], lit)
		}
	case syntax.OpConcat:
		var best []byte
		for _, sub := range re.Sub {
			if l := longestLiteral(sub, lit); len(l) > len(best) {
				best = l
			}
		}
		return best
	}
	return nil
}

// scan finds the hits of q in data, at most q.need of them (0: all). It
// checks ctx now and then.
func (q *grepQuery) scan(ctx context.Context, data []byte, lower *[]byte) ([]hit, int, error) {
	if q.multiline {
		return q.scanWhole(data)
	}
	// The prefilter looks for lit in hay: the file itself, or for a
	// case-insensitive pattern its ASCII-lower-cased copy (same offsets).
	lit, hay := q.lit, data
	if lit == nil && q.foldLit != nil && lower != nil {
		*lower = asciiLower((*lower)[:0], data)
		lit, hay = q.foldLit, *lower
	}
	var hits []hit
	count := 0
	line, counted := 1, 0
	from := 0 // where the prefilter looks next
	for pos, n := 0, 0; pos < len(data); n++ {
		if n%grepCheckEvery == grepCheckEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, 0, err
			}
		}
		cand := pos
		if lit != nil {
			// The prefilter looks at a window at a time, so that a long
			// file without a candidate still notices cancellation.
			for {
				if err := ctx.Err(); err != nil {
					return nil, 0, err
				}
				end := min(len(data), from+grepWindow+len(lit)-1)
				if i := bytes.Index(hay[from:end], lit); i >= 0 {
					cand = from + i
					break
				}
				if end == len(data) {
					return hits, count, nil
				}
				from += grepWindow
			}
		}
		ls := pos
		if j := bytes.LastIndexByte(data[pos:cand], '\n'); j >= 0 {
			ls = pos + j + 1
		}
		le, next := len(data), len(data)
		if j := bytes.IndexByte(data[cand:], '\n'); j >= 0 {
			le, next = cand+j, cand+j+1
		}
		if q.re.Match(data[ls:le]) {
			line += bytes.Count(data[counted:ls], []byte{'\n'})
			counted = ls
			count++
			if q.mode != tools.GrepCount {
				hits = append(hits, hit{start: ls, end: le, first: line, last: line})
				if q.need > 0 && len(hits) >= q.need {
					break
				}
			}
		}
		pos, from = next, next
	}
	return hits, count, nil
}

// grepWindow is how many bytes the prefilter searches between
// cancellation checks.
const grepWindow = 16 << 10

// scanWhole is scan for multiline: matches may span lines; the lines a
// match touches make one hit, merged with the one before when they share a
// line.
func (q *grepQuery) scanWhole(data []byte) ([]hit, int, error) {
	if q.lit != nil && !bytes.Contains(data, q.lit) {
		return nil, 0, nil
	}
	// Only as many matches as the answer can use are built: a pattern that
	// matches a million times in a file does not build a million matches
	// for one page of rows. Matches on one line merge into one hit, so when
	// the first n matches give too few hits, n grows. Counting needs them
	// all; the file is at most the edit limit, which bounds that too.
	if q.mode == tools.GrepCount || q.need <= 0 {
		hits, count, _ := q.hitsOf(data, q.re.FindAllIndex(data, -1))
		return hits, count, nil
	}
	for n := q.need; ; n *= 4 {
		ms := q.re.FindAllIndex(data, n)
		hits, count, _ := q.hitsOf(data, ms)
		if len(ms) < n || len(hits) >= q.need {
			return hits, count, nil
		}
	}
}

// hitsOf turns matches into hits (see scanWhole).
func (q *grepQuery) hitsOf(data []byte, ms [][]int) ([]hit, int, error) {
	var hits []hit
	count := 0
	line, counted := 1, 0
	for _, m := range ms {
		s, e := m[0], m[1]
		if s == len(data) && (s == 0 || data[s-1] == '\n') {
			continue // the empty end of the file is no line
		}
		ls := bytes.LastIndexByte(data[:s], '\n') + 1
		last := e
		if e > s {
			last = e - 1
		}
		le := len(data)
		if last < len(data) && data[last] == '\n' && e > s {
			le = last
		} else if j := bytes.IndexByte(data[last:], '\n'); j >= 0 {
			le = last + j
		}
		line += bytes.Count(data[counted:ls], []byte{'\n'})
		counted = ls
		lastLine := line + bytes.Count(data[ls:le], []byte{'\n'})
		if n := len(hits); n > 0 && ls <= hits[n-1].end {
			h := &hits[n-1]
			count += lastLine - h.last
			h.end, h.last = max(h.end, le), max(h.last, lastLine)
			continue
		}
		count += lastLine - line + 1
		hits = append(hits, hit{start: ls, end: le, first: line, last: lastLine})
		if q.mode != tools.GrepCount && q.need > 0 && len(hits) >= q.need {
			break
		}
	}
	if q.mode == tools.GrepCount {
		hits = nil
	}
	return hits, count, nil
}

// grepBuf is a worker's reusable read buffer: a file without a hit costs
// no allocation of its content.
type grepBuf struct {
	b     []byte
	lower []byte // the file lower-cased (ASCII), for a case-insensitive prefilter
}

// keepBufBytes is the largest buffer a worker keeps between files.
const keepBufBytes = 1 << 20

// load reads the open file f, which info describes (rel names it), into the
// buffer, bounded by max bytes. binary reports a NUL in the first block,
// which stops the read.
func (w *grepBuf) load(f io.Reader, info fsys.Info, rel string, max int64) (data []byte, binary bool, err error) {
	if info.Size > max {
		return nil, false, fsys.E("read", rel, fsys.ErrTooLarge, &fsys.TooLargeError{Size: info.Size, Max: max})
	}
	want := int(info.Size) + 1
	if cap(w.b) < want {
		w.b = make([]byte, 0, want)
	}
	buf := w.b[:0]
	checked := false
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		room := cap(buf) - len(buf)
		n, rerr := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > max {
			return nil, false, fsys.E("read", rel, fsys.ErrTooLarge, &fsys.TooLargeError{Size: int64(len(buf)), Max: max})
		}
		// A short read that ends exactly at the size the open file's fstat
		// gave is the end: the file as it was when opened, without one
		// more read to see EOF (a system call per file, and most files are
		// small). A file that grew since is searched as it was then.
		end := errors.Is(rerr, io.EOF) || (rerr == nil && n < room && info.Size > 0 && int64(len(buf)) == info.Size)
		if !checked && (len(buf) >= binaryProbeBytes || rerr != nil || end) {
			checked = true
			if bytes.IndexByte(buf[:min(len(buf), binaryProbeBytes)], 0) >= 0 {
				w.keep(buf)
				return nil, true, nil
			}
		}
		if end {
			break
		}
		if rerr != nil {
			return nil, false, fmt.Errorf("read %s: %w", rel, rerr)
		}
	}
	w.keep(buf)
	return buf, false, nil
}

func (w *grepBuf) keep(buf []byte) {
	if cap(buf) <= keepBufBytes {
		w.b = buf[:0]
	} else {
		w.b = nil
	}
}

// grepSearch is one worker's work on one file: f is the file open, info
// describes it, rel names it, named says the call named it (its errors are
// then the call's).
func (s *Session) grepSearch(ctx context.Context, q *grepQuery, f io.Reader, info fsys.Info, w *grepBuf, rel string, named bool) fileHits {
	if max := s.ws.opts.MaxFileBytes; info.Size > max && !q.multiline {
		h, err := q.scanLarge(ctx, f, q.before, q.after, max)
		if err != nil && (named || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return fileHits{err: err}
		}
		return h
	}
	data, binary, err := w.load(f, info, rel, s.ws.opts.MaxFileBytes)
	if err != nil {
		if named {
			return fileHits{err: err}
		}
		return fileHits{} // unreadable, special or too large: skipped
	}
	if binary {
		return fileHits{}
	}
	hits, count, err := q.scan(ctx, data, &w.lower)
	if cap(w.lower) > keepBufBytes {
		w.lower = nil
	}
	if err != nil {
		return fileHits{err: err}
	}
	if count == 0 || !utf8.Valid(data) {
		return fileHits{}
	}
	out := fileHits{hits: hits, count: count}
	if q.mode == tools.GrepContent {
		// The rows are built from these bytes later: the buffer is handed
		// over (the worker takes a new one) rather than copied.
		out.data = data
		w.b = nil
	}
	return out
}

// grepWorkers is how many files grep reads and searches at once.
func grepWorkers() int { return min(max(runtime.GOMAXPROCS(0), 2), 16) }

// grepFiles searches the files of t (t itself when it is a file) with
// bounded workers and hands each file's hits to fn in path order. fn
// returning errStopWalk ends the search early.
func (s *Session) grepFiles(ctx context.Context, t target, a GrepArgs, q *grepQuery, unreadable *[]string, fn func(rel string, h fileHits) error) error {
	info, err := t.root.p.Stat(t.rel)
	if err != nil {
		return s.ws.fileErr("grep", t, err)
	}
	switch info.Type {
	case fsys.TypeFile:
		var w grepBuf
		f, info, err := fsys.Open(t.root.p, t.rel)
		if err != nil {
			return err
		}
		h := s.grepSearch(ctx, q, f, info, &w, t.rel, true)
		f.Close()
		if h.err != nil {
			return h.err
		}
		return fn(t.rel, h)
	case fsys.TypeDir:
	default:
		return fsys.E("grep", t.rel, fsys.ErrNotRegular, nil)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := grepWorkers()
	jobs := make(chan *grepJob, 4*n)
	order := make(chan *grepJob, 16*n)
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			var w grepBuf
			for j := range jobs {
				s.grepJob(ctx, q, j, &w)
				j.dir.release()
				close(j.done)
			}
		})
	}
	prefix := t.rel + "/"
	if t.rel == "." {
		prefix = ""
	}
	var types []*glob.Pattern
	if a.Type != "" {
		types = compileGlobs(tools.FileTypes[a.Type])
	}
	var only *glob.Pattern
	if a.Glob != "" {
		var err error
		if only, err = glob.Compile(a.Glob); err != nil {
			return refuse(KindInvalid, t.spelled, "glob %v", err) // checkArgs checked it
		}
	}
	hidden := s.ws.linkGuard(ctx)
	walkErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		defer close(order)
		var cur *grepJob // the files of one directory not yet handed over
		flush := func() error {
			j := cur
			if j == nil {
				return nil
			}
			cur = nil
			select {
			case order <- j:
			case <-ctx.Done():
				j.dir.release()
				return ctx.Err()
			}
			jobs <- j // never blocks for long: the workers drain jobs
			return nil
		}
		var open []*walkDir // the directories the walk is in, innermost last
		enter := func(_ string, d *walkDir) { open = append(open, d) }
		leave := func(string) {
			// The walk is done with it: its files go to the workers now.
			flush()
			open = open[:len(open)-1]
		}
		// Sizes are not listed (no stat of each entry): the open file's
		// own fstat bounds the read (grepBuf.load).
		err := s.ws.walk(ctx, t, 0, walkFilter{noIgnore: a.NoIgnore, exclude: a.Exclude, typesOnly: true, enter: enter, leave: leave, unreadable: unreadable}, func(rel string, e fsys.Info, _ int) error {
			if e.Type == fsys.TypeDir {
				// The walk enters it next: the files found so far go to
				// the workers first, so results keep streaming.
				return flush()
			}
			if e.Type != fsys.TypeFile {
				return nil // links and special files are not searched
			}
			sub := strings.TrimPrefix(rel, prefix)
			if only != nil && !only.Match(sub) {
				return nil
			}
			if types != nil && !matchesAny(types, e.Name) {
				return nil
			}
			dir := open[len(open)-1] // rel's directory
			if cur != nil && (cur.dir != dir || len(cur.names) == grepBatch) {
				if err := flush(); err != nil {
					return err
				}
			}
			if cur == nil {
				cur = &grepJob{dir: dir.hold(), rels: make([]string, 0, grepBatch), names: make([]string, 0, grepBatch), done: make(chan struct{}), hidden: hidden}
			}
			cur.rels = append(cur.rels, rel)
			cur.names = append(cur.names, e.Name)
			return nil
		})
		if ferr := flush(); err == nil {
			err = ferr
		}
		walkErr <- err
	}()
	var stop error
	for j := range order {
		if stop != nil {
			continue // drain, so the walk can end
		}
		<-j.done
		for i, h := range j.hits {
			if h.err != nil {
				stop = h.err
				cancel()
				break
			}
			if h.count == 0 {
				continue
			}
			if err := fn(j.rels[i], h); err != nil {
				stop = err
				cancel()
				break
			}
		}
	}
	werr := <-walkErr
	wg.Wait()
	if stop != nil {
		return stop
	}
	if werr != nil && !errors.Is(werr, context.Canceled) {
		return werr
	}
	return ctx.Err()
}

// grepJob searches the files of j, filling j.hits. A file that cannot be
// opened or read is skipped (no hits); cancellation stops the job and is
// the result of the file it stopped at.
func (s *Session) grepJob(ctx context.Context, q *grepQuery, j *grepJob, w *grepBuf) {
	set := func(i int, h fileHits) {
		if j.hits == nil {
			j.hits = make([]fileHits, len(j.names))
		}
		j.hits[i] = h
	}
	if err := ctx.Err(); err != nil {
		set(0, fileHits{err: err})
		return
	}
	fsys.OpenEach(j.dir.d, j.names, func(i int, f io.Reader, info fsys.Info, err error) error {
		if err := ctx.Err(); err != nil {
			set(i, fileHits{err: err})
			return err
		}
		if err != nil || j.hidden(info) {
			return nil // unreadable or special, or another name of a hidden file: skipped
		}
		h := s.grepSearch(ctx, q, f, info, w, j.rels[i], false)
		if h.count > 0 || h.err != nil {
			set(i, h)
		}
		return h.err
	})
}

func matchesAny(globs []*glob.Pattern, name string) bool {
	for _, g := range globs {
		if g.Match(name) {
			return true
		}
	}
	return false
}

// Grep searches text files for an RE2 pattern (see GrepArgs) and returns
// path:line:text rows in path order, or the paths or per-file counts of
// the files with a match. The lines shown in content mode count as seen.
func (s *Session) Grep(ctx context.Context, a GrepArgs) (*GrepResult, error) {
	if roots := s.rootPaths(a.Path); roots != nil {
		if ref := checkArgs("grep", a); ref != nil {
			return nil, ref
		}
		return s.grepRoots(ctx, a, roots)
	}
	res := &GrepResult{}
	switch a.OutputMode {
	case tools.GrepFilesWithMatches:
		res.Paths = []string{}
	case tools.GrepCount:
		res.Counts = []GrepCountRow{}
	default:
		res.Matches = []GrepMatch{}
	}
	truncated, err := s.GrepEach(ctx, a, func(part *GrepResult) error {
		res.Matches = append(res.Matches, part.Matches...)
		res.Paths = append(res.Paths, part.Paths...)
		res.Counts = append(res.Counts, part.Counts...)
		res.Notes = append(res.Notes, part.Notes...)
		return nil
	})
	if err != nil {
		return nil, err
	}
	res.Truncated = truncated
	return res, nil
}

// GrepEach is Grep for a surface that shows results as they are found: it
// calls each with the results of one file at a time, in path order, as
// soon as every file before it has been searched, and reports at the end
// whether results were left out. An error from each ends the search and
// is returned. The lines handed over count as seen, as with Grep.
func (s *Session) GrepEach(ctx context.Context, a GrepArgs, each func(part *GrepResult) error) (truncated bool, err error) {
	if ref := checkArgs("grep", a); ref != nil {
		return false, ref
	}
	if err := s.catchUp(); err != nil {
		return false, err
	}
	if roots := s.rootPaths(a.Path); roots != nil {
		// Several roots: searched one after the other, handed over whole.
		res, err := s.grepRoots(ctx, a, roots)
		if err != nil {
			return false, err
		}
		return res.Truncated, each(res)
	}
	q, err := compileGrep(a)
	if err != nil {
		return false, argRefusal("grep", err)
	}
	t, ref := s.resolve("grep", a.Path)
	if ref != nil {
		return false, ref
	}
	if ref := s.ws.denied(t); ref != nil {
		return false, ref
	}
	limit := a.Limit
	if limit == 0 {
		limit = DefaultGrepLimit
		if q.mode != tools.GrepContent {
			limit = DefaultGrepFileLimit
		}
	}
	before, after := a.Context, a.Context
	if a.Before > 0 {
		before = a.Before
	}
	if a.After > 0 {
		after = a.After
	}
	skip := a.Offset // results still to skip
	shown, bytesShown := 0, 0
	maxBytes := MaxGrepBytes
	if a.Limit == 0 {
		maxBytes = DefaultPageBytes
	}
	var recs []journal.Record
	var unreadable []string
	err = s.grepFiles(ctx, t, a, q, &unreadable, func(rel string, h fileHits) error {
		u := t
		u.rel = rel
		name := u.display()
		if q.mode != tools.GrepContent {
			if skip > 0 {
				skip--
				return nil
			}
			if shown >= limit || bytesShown+len(name) > maxBytes {
				truncated = true
				return errStopWalk
			}
			shown++
			bytesShown += len(name)
			part := &GrepResult{}
			if q.mode == tools.GrepCount {
				part.Counts = []GrepCountRow{{Path: name, Count: h.count}}
			} else {
				part.Paths = []string{name}
			}
			return each(part)
		}
		groups := h.groups
		if groups == nil {
			groups = []hitGroup{{data: h.data, hits: h.hits}}
		}
		for _, grp := range groups {
			hits := grp.hits
			if skip >= len(hits) {
				skip -= len(hits)
				continue
			}
			hits, skip = hits[skip:], 0
			if shown >= limit {
				truncated = true
				return errStopWalk
			}
			g := buildRows(grp.data, hits, before, after, limit-shown, maxBytes-bytesShown)
			shown += g.matches
			bytesShown += g.bytes
			if len(g.rows) > 0 {
				for i := range g.rows {
					g.rows[i].Path = name
				}
				// A file over the edit limit cannot be edited: what grep
				// showed of it is not recorded.
				if h.groups == nil {
					if rec := s.grepObserve(u, h.data, g.seen); rec != nil {
						recs = append(recs, *rec)
					}
				}
				if err := each(&GrepResult{Matches: g.rows}); err != nil {
					return err
				}
			}
			if g.matches < len(hits) || g.cut {
				truncated = true
				return errStopWalk
			}
		}
		if h.more {
			if skip > 0 {
				// The page starts past what could be kept of this file:
				// no offset reaches those matches, so say so rather than
				// answer an empty page that says more exist.
				return refuse(KindTooLarge, name, "%s holds more matching lines than one search can page through (over %s bytes of them); narrow the pattern, or read the file in windows",
					name, policy.Thousands(largeKeepBytes))
			}
			truncated = true
			return errStopWalk
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		if _, ok := AsRefusal(err); ok || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return false, err
		}
		var pe *fsys.PathError
		if errors.As(err, &pe) {
			return false, s.ws.fileErr("grep", t, err)
		}
		return false, err
	}
	if len(recs) > 0 {
		if err := s.append(false, recs...); err != nil {
			return false, err
		}
	}
	if note := unreadableNote(unreadable); note != nil {
		if err := each(&GrepResult{Notes: note}); err != nil {
			return false, err
		}
	}
	return truncated, nil
}

// grepCheckEvery is how many candidate lines grep scans between
// cancellation checks.
const grepCheckEvery = 1024

// grepped is the rows grep shows of one file.
type grepped struct {
	rows    []GrepMatch   // matches and context lines, in line order
	seen    policy.Ranges // byte ranges of the lines shown whole
	matches int           // hits shown
	bytes   int           // text bytes of the rows
	cut     bool          // a hit longer than the byte bound was shown in part
}

// buildRows returns the rows to show for the hits of one file: each hit's
// lines and the context around them, in line order, each line at most
// once, at most limit hits. Once the rows hold maxBytes of text no new hit
// is started (its context is never cut).
func buildRows(data []byte, hits []hit, before, after, limit, maxBytes int) grepped {
	var g grepped
	var seen []policy.Range
	shownUpTo := 0 // the last line number shown
	show := func(start, end, line int, match bool) {
		text := string(data[start:end])
		if len(text) > maxGrepLineBytes {
			cut := maxGrepLineBytes
			for cut > 0 && !utf8.RuneStart(text[cut]) {
				cut--
			}
			text = text[:cut] + fmt.Sprintf(" … (line is %s bytes; read it to see all)", policy.Thousands(rangeEndOf(data, end)-start))
		} else {
			rangeEnd := end
			if end < len(data) {
				rangeEnd++ // the "\n"
			}
			seen = append(seen, policy.Range{Start: start, End: rangeEnd})
		}
		g.rows = append(g.rows, GrepMatch{Line: line, Text: text, Context: !match})
		g.bytes += len(text) + 1
		shownUpTo = line
	}
	// nextLine returns the bounds of the line after the one ending at end.
	nextLine := func(end int) (int, int, bool) {
		if end >= len(data) {
			return 0, 0, false
		}
		s := end + 1
		if s >= len(data) {
			return 0, 0, false
		}
		e := len(data)
		if j := bytes.IndexByte(data[s:], '\n'); j >= 0 {
			e = s + j
		}
		return s, e, true
	}
	afterEnd, afterLine, afterLeft := 0, 0, 0 // trailing context still due after the last hit shown
	flushAfter := func(upTo int) {            // show trailing context lines numbered below upTo
		for afterLeft > 0 {
			s, e, ok := nextLine(afterEnd)
			if !ok || afterLine+1 >= upTo {
				return
			}
			afterLine++
			afterEnd = e
			afterLeft--
			if afterLine > shownUpTo {
				show(s, e, afterLine, false)
			}
		}
	}
	for _, h := range hits {
		if g.matches >= limit || g.bytes >= maxBytes {
			break
		}
		flushAfter(h.first)
		afterLeft = 0
		// Leading context: walk back from the hit's first line.
		var ctxStarts []int
		ls := h.start
		for k := 0; k < before && h.first-k-1 > shownUpTo && ls > 0; k++ {
			ls = bytes.LastIndexByte(data[:ls-1], '\n') + 1
			ctxStarts = append(ctxStarts, ls)
		}
		for i := len(ctxStarts) - 1; i >= 0; i-- {
			s := ctxStarts[i]
			e := s + bytes.IndexByte(data[s:], '\n')
			show(s, e, h.first-i-1, false)
		}
		// The hit's own lines.
		s, line := h.start, h.first
		for {
			e := len(data)
			if j := bytes.IndexByte(data[s:], '\n'); j >= 0 {
				e = s + j
			}
			if e > h.end {
				e = h.end
			}
			if line > shownUpTo {
				show(s, e, line, true)
			}
			if e >= h.end || line >= h.last {
				break
			}
			if g.bytes >= maxBytes {
				// One multiline match can span a whole file: past the
				// bound its lines are left out, and the answer says so.
				g.cut = true
				break
			}
			s, line = e+1, line+1
		}
		g.matches++
		afterEnd, afterLine, afterLeft = h.end, h.last, after
	}
	flushAfter(int(^uint(0) >> 1))
	g.seen = policy.NewRanges(seen...)
	return g
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
	if next.Same(o) {
		s.mu.Unlock()
		return nil // nothing new was shown: the journal already holds it
	}
	s.files[key] = next
	s.mu.Unlock()
	r := s.rec(recObserve, key, next)
	return &r
}

// rangeEndOf is the end of the line ending at end, with its "\n" if any.
func rangeEndOf(data []byte, end int) int {
	if end < len(data) {
		return end + 1
	}
	return end
}
