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
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/internal/history"
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
	re *regexp.Regexp
	// wordNext and wordInner, for a whole-word query, go on searching
	// after a match (see grepExprs and wordMatches) and find the pattern
	// alone (matchLine); nil otherwise.
	wordNext, wordInner *regexp.Regexp
	lits                grepLits // literals one of which every match contains (the prefilter); nil when none is known
	foldLits            grepLits // foldLit's prefilter
	multiline           bool
	mode                string
	before, after       int // context lines (scanLarge keeps them; buildRows shows them)
	// foldLit, for a case-insensitive pattern without lit, is a literal
	// every match holds up to ASCII case, lower-cased (its letters fold to
	// ASCII letters only): scanLarge's prefilter then.
	foldLit []byte
	// need is how many hits a worker needs from one file at most: a file
	// cannot contribute more than offset+limit+1 to any page (0: all).
	need int
	// litOnly says the pattern is exactly lits' one literal (no "\n", no
	// case folding, not whole-word): a line the prefilter finds it in
	// matches, without the regexp.
	litOnly bool
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
	count int // matching lines
	err   error
	// groups are the lines the content rows are built from: the hits with
	// the context around them, copied out of a small file's bytes
	// (groupHits) or kept as a file over the edit limit streams
	// (scanLarge, which sets large); more says it holds hits past them.
	groups []hitGroup
	large  bool
	more   bool
	held   int64 // the bytes of groups counted by the search's grepHold
	// version, size and lines describe a small file with content rows (its
	// fsys.Version, bytes and line count), worked out by the worker, so
	// that the reader of the results only records what it shows.
	version     string
	size, lines int
}

// grepBatch is at most how many files make one job, and grepBatchDirs at
// most how many directories they come from: a worker opens the files of
// each directory under one hold of its lock (see fsys.OpenEach), and the
// walk, the workers and the reader of the results hand over one job
// instead of one file or one small directory at a time (each hand-over
// may wake a goroutine).
const (
	grepBatch     = 64
	grepBatchDirs = 8
)

// grepJob is files in path order, from one or more directories, for one
// worker; finished counts the files whose result hits holds (nil while no
// file has a hit or an error: a batch without a match allocates no
// results), so that the reader takes each file as soon as it is searched.
type grepJob struct {
	segs   []jobSeg             // the directories of the files, in order
	rels   []string             // the files' paths
	names  []string             // their names in their directories
	hidden func(fsys.Info) bool // a hard link to a deny-read file (Workspace.linkGuard)

	mu       sync.Mutex
	ready    sync.Cond // signalled as finished grows
	hits     []fileHits
	finished int
}

// newGrepJob returns an empty job of files.
func newGrepJob(hidden func(fsys.Info) bool) *grepJob {
	j := &grepJob{rels: make([]string, 0, grepBatch), names: make([]string, 0, grepBatch), hidden: hidden}
	j.ready.L = &j.mu
	return j
}

// set records the result of file i.
func (j *grepJob) set(i int, h fileHits) {
	j.mu.Lock()
	if j.hits == nil {
		j.hits = make([]fileHits, len(j.names))
	}
	j.hits[i] = h
	j.mu.Unlock()
}

// finish says the first n files are searched; wake wakes the reader if
// it waits. Only a file with a result (hits or an error), the end of the
// job, and a worker about to wait on the hold wake it: a file without a
// match has nothing for the reader, which sleeps through a run of them
// rather than waking once per file.
func (j *grepJob) finish(n int, wake bool) {
	j.mu.Lock()
	j.finished = max(j.finished, n)
	if wake || n == len(j.names) {
		j.ready.Broadcast()
	}
	j.mu.Unlock()
}

// drop lets go of file i's groups once its rows are built, so that a job
// of many files holds only those not yet shown.
func (j *grepJob) drop(i int) {
	j.mu.Lock()
	j.hits[i].groups = nil
	j.mu.Unlock()
}

// wait returns the result of file i once it is searched.
func (j *grepJob) wait(i int) fileHits {
	j.mu.Lock()
	defer j.mu.Unlock()
	for j.finished <= i {
		j.ready.Wait()
	}
	if j.hits == nil {
		return fileHits{}
	}
	return j.hits[i]
}

// jobSeg is a run of a job's files in one directory: those from the end
// of the run before up to end.
type jobSeg struct {
	dir *walkDir // open once for the walk and all its files (held)
	end int
}

// release lets go of the job's directories.
func (j *grepJob) release() {
	for _, sg := range j.segs {
		sg.dir.release()
	}
}

// compileGrep builds the query of a call whose arguments passed rule 1.
func compileGrep(a GrepArgs) (*grepQuery, error) {
	expr, inner, next := grepExprs(a)
	re, err := regexp.Compile(expr)
	if err != nil {
		return nil, err
	}
	q := &grepQuery{re: re, multiline: a.Multiline, mode: a.OutputMode, before: a.Context, after: a.Context}
	if err := q.compileWord(inner, next); err != nil {
		return nil, err
	}
	if inner != "" {
		expr = inner // the literals every match holds are the pattern's
	}
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
		simple := parsed.Simplify()
		q.lits = newGrepLits(requiredSet(simple, exactLiteral))
		q.litOnly = simple.Op == syntax.OpLiteral && simple.Flags&syntax.FoldCase == 0 && q.wordInner == nil &&
			len(q.lits) == 1 && string(q.lits[0].lit) == string(simple.Rune) && !strings.ContainsRune(string(simple.Rune), '\n')
		if q.lits == nil {
			if lit := foldedLiteral(simple); len(lit) > 0 {
				q.foldLit = lit
				q.foldLits = grepLits{newGrepLit(lit)}
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

// exactLiteral is the bytes of the literal node re, or nil when it is
// case-folded and holds a letter that folds.
func exactLiteral(re *syntax.Regexp) []byte {
	if re.Flags&syntax.FoldCase != 0 {
		for _, r := range re.Rune {
			if unicode.SimpleFold(r) != r {
				return nil
			}
		}
	}
	return []byte(string(re.Rune))
}

// foldedLiteral is requiredSet's one literal for case-folded literals: the longest
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
	return q.scanInto(ctx, nil, data, lower)
}

// scanInto is scan appending the hits to hits[:0] (a worker's scratch,
// reused from file to file), but for a multiline pattern.
func (q *grepQuery) scanInto(ctx context.Context, hits []hit, data []byte, lower *[]byte) ([]hit, int, error) {
	if q.multiline {
		return q.scanWhole(data)
	}
	// The prefilter looks for lits in hay: the file itself, or for a
	// case-insensitive pattern its ASCII-lower-cased copy (same offsets).
	lits, hay := q.lits, data
	if lits == nil && q.foldLits != nil && lower != nil {
		*lower = asciiLower((*lower)[:0], data)
		lits, hay = q.foldLits, *lower
	}
	hits = hits[:0]
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
		if lits != nil {
			var err error
			if cand, err = nextCandidate(ctx, lits, hay, from); err != nil || cand < 0 {
				return hits, count, err
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
		if (q.litOnly && lits != nil) || q.matchLine(data[ls:le]) {
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

// nextCandidate returns where the first of lits is in hay from from on,
// or -1. It looks at a window at a time, so that a long file without a
// candidate still notices cancellation.
func nextCandidate(ctx context.Context, lits grepLits, hay []byte, from int) (int, error) {
	longest := 0
	for _, l := range lits {
		longest = max(longest, len(l.lit))
	}
	for {
		if err := ctx.Err(); err != nil {
			return -1, err
		}
		end := min(len(hay), from+grepWindow+longest-1)
		if i := lits.index(hay[from:end]); i >= 0 {
			return from + i, nil
		}
		if end == len(hay) {
			return -1, nil
		}
		from += grepWindow
	}
}

// grepWindow is how many bytes the prefilter searches between
// cancellation checks.
const grepWindow = 16 << 10

// scanWhole is scan for multiline: matches may span lines; the lines a
// match touches make one hit, merged with the one before when they share a
// line.
func (q *grepQuery) scanWhole(data []byte) ([]hit, int, error) {
	if q.lits != nil && q.lits.index(data) < 0 {
		return nil, 0, nil
	}
	// Only as many matches as the answer can use are built: a pattern that
	// matches a million times in a file does not build a million matches
	// for one page of rows. Matches on one line merge into one hit, so when
	// the first n matches give too few hits, n grows. Counting needs them
	// all; the file is at most the edit limit, which bounds that too.
	if q.mode == tools.GrepCount || q.need <= 0 {
		hits, count, _ := q.hitsOf(data, q.findAll(data, -1))
		return hits, count, nil
	}
	for n := q.need; ; n *= 4 {
		ms := q.findAll(data, n)
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

// grepBuf is a worker's reusable read buffer: a file costs no allocation
// of its content (a matching file's rows are built from the lines copied
// out of it, groupHits), and the buffer, once grown to the largest file
// read, stays so for the rest of the search.
type grepBuf struct {
	b     []byte
	lower []byte // the file lower-cased (ASCII), for a case-insensitive prefilter
	hits  []hit  // scan's hits in the file (groupHits copies those it keeps)
}

// keepBufBytes is the largest scratch buffer (lower-cased text, row text)
// kept between files, and keepHits the most hits a worker's scratch keeps.
const (
	keepBufBytes = 1 << 20
	keepHits     = 1 << 15
)

// headBytes is how much of a file load reads first: enough to tell a binary
// file (binaryProbeBytes) before a larger one is read whole.
const headBytes = 64 << 10

// load reads the open file f, which info describes (rel names it), into the
// buffer, bounded by limit bytes. binary reports a NUL in the first block,
// which stops the read.
func (w *grepBuf) load(f io.Reader, info fsys.Info, rel string, limit int64) (data []byte, binary bool, err error) {
	if info.Size > limit {
		return nil, false, fsys.E("read", rel, fsys.ErrTooLarge, &fsys.TooLargeError{Size: info.Size, Max: limit})
	}
	want := int(info.Size) + 1
	buf := w.b[:0]
	defer func() { w.b = buf[:0] }()
	checked := false
	for {
		// The buffer grows to the file's size (rounded up, so that it
		// serves the next files too), once its head has been checked.
		need := min(want, headBytes)
		if checked {
			need = want
			if len(buf) >= want {
				need = 2 * len(buf) // the file grew since fstat
			}
		}
		if cap(buf) < need {
			buf = append(make([]byte, 0, roundBuf(need)), buf...)
		}
		end := cap(buf)
		if !checked {
			end = min(end, headBytes)
		}
		room := end - len(buf)
		n, rerr := f.Read(buf[len(buf):end])
		buf = buf[:len(buf)+n]
		if int64(len(buf)) > limit {
			return nil, false, fsys.E("read", rel, fsys.ErrTooLarge, &fsys.TooLargeError{Size: int64(len(buf)), Max: limit})
		}
		// A short read that ends exactly at the size the open file's fstat
		// gave is the end: the file as it was when opened, without one
		// more read to see EOF (a system call per file, and most files are
		// small). A file that grew since is searched as it was then.
		done := errors.Is(rerr, io.EOF) || (rerr == nil && n < room && info.Size > 0 && int64(len(buf)) == info.Size)
		if !checked && (len(buf) >= binaryProbeBytes || rerr != nil || done) {
			checked = true
			if bytes.IndexByte(buf[:min(len(buf), binaryProbeBytes)], 0) >= 0 {
				return nil, true, nil
			}
		}
		if done {
			break
		}
		if rerr != nil {
			return nil, false, fmt.Errorf("read %s: %w", rel, rerr)
		}
	}
	return buf, false, nil
}

// roundBuf is want rounded up to a whole 64 KiB.
func roundBuf(want int) int { return (want + 64<<10 - 1) &^ (64<<10 - 1) }

// grepSearch is one worker's work on one file: f is the file open, info
// describes it, rel names it, named says the call named it (its errors are
// then the call's).
func (s *Session) grepSearch(ctx context.Context, q *grepQuery, f io.Reader, info fsys.Info, w *grepBuf, rel string, named bool) fileHits {
	if max := s.e.WS.Opts.MaxFileBytes; info.Size > max && !q.multiline {
		h, err := q.scanLarge(ctx, f, q.before, q.after, max)
		if err != nil && (named || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded)) {
			return fileHits{err: err}
		}
		h.large = true
		return h
	}
	data, binary, err := w.load(f, info, rel, s.e.WS.Opts.MaxFileBytes)
	if err != nil {
		if named {
			return fileHits{err: err}
		}
		return fileHits{} // unreadable, special or too large: skipped
	}
	if binary {
		return fileHits{}
	}
	hits, count, err := q.scanInto(ctx, w.hits, data, &w.lower)
	if cap(w.lower) > keepBufBytes {
		w.lower = nil
	}
	if !q.multiline {
		w.hits = hits[:0]
		if cap(w.hits) > keepHits {
			w.hits = nil
		}
	}
	if err != nil {
		return fileHits{err: err}
	}
	if count == 0 || !utf8.Valid(data) {
		return fileHits{}
	}
	if q.mode != tools.GrepContent {
		return fileHits{count: count}
	}
	// The rows are built later, in path order, from the lines they show:
	// those are copied out, and the buffer takes the next file.
	out := fileHits{count: count, size: len(data)}
	// The lines of the file: those before the last hit's first line
	// (which starts a line), counted by the scan, and those from it on.
	if n := len(hits); n > 0 {
		last := hits[n-1]
		out.lines = last.first + bytes.Count(data[last.start:], []byte{'\n'})
	} else {
		out.lines = receipt.Lines(data)
	}
	var held int
	out.groups, held = groupHits(data, hits, q.before, q.after)
	out.held = int64(held)
	out.version = string(fsys.VersionOf(data))
	return out
}

// grepWorkers is how many files grep reads and searches at once.
func grepWorkers() int { return min(max(runtime.GOMAXPROCS(0), 2), 16) }

// grepFiles searches the files of t (t itself when it is a file) with
// bounded workers and hands each file's hits to fn in path order. fn
// returning errStopWalk ends the search early. The buffer of h.data goes
// back to the workers once fn returns: fn must not keep it.
func (s *Session) grepFiles(ctx context.Context, t engine.Target, a GrepArgs, q *grepQuery, unreadable *[]string, fn func(rel string, h fileHits) error) error {
	info, err := t.Root.P.Stat(t.Rel)
	if err != nil {
		return s.e.WS.FileErr("grep", t, err)
	}
	switch info.Type {
	case fsys.TypeFile:
		var w grepBuf
		f, info, err := fsys.Open(t.Root.P, t.Rel)
		if err != nil {
			return err
		}
		h := s.grepSearch(ctx, q, f, info, &w, t.Rel, true)
		f.Close()
		if h.err != nil {
			return h.err
		}
		return fn(t.Rel, h)
	case fsys.TypeDir:
		return s.grepTree(ctx, t, a, q, unreadable, fn)
	default:
		return fsys.E("grep", t.Rel, fsys.ErrNotRegular, nil)
	}
}

// grepTree is grepFiles for a directory. The walk runs on its own
// goroutine and hands the files of each directory, a batch at a time, to
// grepWorkers workers, and to the reader below in the same order: the
// reader waits for each batch in turn (a reorder window as long as the
// order channel, which bounds how far the walk and the workers run ahead
// of it), so results come in the walk's order whatever worker found them.
// An error, or fn's, cancels the walk and the workers, and returns once
// they have stopped.
func (s *Session) grepTree(ctx context.Context, t engine.Target, a GrepArgs, q *grepQuery, unreadable *[]string, fn func(rel string, h fileHits) error) error {
	sel, err := grepSelection(t, a)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	n := grepWorkers()
	jobs := make(chan *grepJob, 4*n)
	order := make(chan *grepJob, 8*n)
	hold, stopHold := newGrepHold(ctx, grepHoldBytes)
	defer stopHold()
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			var w grepBuf
			for j := range jobs {
				s.grepJob(ctx, q, j, &w, hold)
				j.release()
				j.finish(len(j.names), true)
			}
		})
	}
	walkErr := make(chan error, 1)
	go func() {
		defer close(jobs)
		defer close(order)
		walkErr <- s.grepWalk(ctx, t, a, sel, unreadable, jobs, order)
	}()
	stop := grepCollect(ctx, order, hold, cancel, fn)
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

// grepCollect takes the jobs of order as they come, waits for each to be
// searched, and hands its files' hits to fn. The first error (a file's,
// fn's, or ctx's, checked before each file is handed over) cancels the
// search and is returned; the rest of order is drained, so that the walk
// can end.
func grepCollect(ctx context.Context, order <-chan *grepJob, hold *grepHold, cancel func(), fn func(rel string, h fileHits) error) error {
	var stop error
	for j := range order {
		if stop != nil {
			continue
		}
		for i := range j.names {
			hold.at(j, i)
			h := j.wait(i)
			if h.err != nil {
				stop = h.err
				break
			}
			if h.count == 0 {
				continue
			}
			if err := ctx.Err(); err != nil {
				stop = err
				break
			}
			err := fn(j.rels[i], h)
			j.drop(i)
			hold.give(h.held)
			if err != nil {
				stop = err
				break
			}
		}
		if stop != nil {
			cancel()
		}
	}
	return stop
}

// grepSel is which files of a walk grep searches: those under prefix
// whose path below it matches only and whose name matches one of types
// (nil: any).
type grepSel struct {
	prefix string
	only   *glob.Pattern
	types  []*glob.Pattern
}

func grepSelection(t engine.Target, a GrepArgs) (grepSel, error) {
	sel := grepSel{prefix: t.Rel + "/"}
	if t.Rel == "." {
		sel.prefix = ""
	}
	if a.Type != "" {
		sel.types = compileGlobs(tools.FileTypes[a.Type])
	}
	if a.Glob != "" {
		var err error
		if sel.only, err = glob.Compile(a.Glob); err != nil {
			return sel, engine.Refuse(KindInvalid, t.Spelled, "glob %v", err) // checkArgs checked it
		}
	}
	return sel, nil
}

// wants reports whether the walk's file rel (named name) is searched.
func (sel grepSel) wants(rel, name string) bool {
	if sel.only != nil && !sel.only.Match(strings.TrimPrefix(rel, sel.prefix)) {
		return false
	}
	return sel.types == nil || matchesAny(sel.types, name)
}

// grepWalk walks t and hands its files, up to grepBatch from up to
// grepBatchDirs directories at a time, to order (the reader's queue) and then jobs (the workers').
func (s *Session) grepWalk(ctx context.Context, t engine.Target, a GrepArgs, sel grepSel, unreadable *[]string, jobs, order chan<- *grepJob) error {
	hidden := s.e.WS.LinkGuard(ctx)
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
			j.release()
			return ctx.Err()
		}
		jobs <- j // never blocks for long: the workers drain jobs
		return nil
	}
	var open []*walkDir // the directories the walk is in, innermost last
	enter := func(_ string, d *walkDir) { open = append(open, d) }
	leave := func(string) { open = open[:len(open)-1] }
	// Sizes are not listed (no stat of each entry): the open file's own
	// fstat bounds the read (grepBuf.load).
	f := walkFilter{noIgnore: a.NoIgnore, exclude: a.Exclude, typesOnly: true, enter: enter, leave: leave, unreadable: unreadable}
	err := s.ws.walk(ctx, t, 0, f, func(rel string, e fsys.Info, _ int) error {
		if e.Type != fsys.TypeFile || !sel.wants(rel, e.Name) {
			return nil // directories are entered; links and special files are not searched
		}
		dir := open[len(open)-1] // rel's directory
		if cur != nil && cur.segs[len(cur.segs)-1].dir != dir && len(cur.segs) == grepBatchDirs {
			if err := flush(); err != nil {
				return err
			}
		}
		if cur == nil {
			cur = newGrepJob(hidden)
		}
		if n := len(cur.segs); n == 0 || cur.segs[n-1].dir != dir {
			cur.segs = append(cur.segs, jobSeg{dir: dir.hold()})
		}
		cur.rels = append(cur.rels, rel)
		cur.names = append(cur.names, e.Name)
		cur.segs[len(cur.segs)-1].end = len(cur.names)
		if len(cur.names) == grepBatch {
			return flush()
		}
		return nil
	})
	if ferr := flush(); err == nil {
		err = ferr
	}
	return err
}

// grepJob searches the files of j, filling j.hits. A file that cannot be
// opened or read is skipped (no hits); cancellation stops the job and is
// the result of the file it stopped at.
func (s *Session) grepJob(ctx context.Context, q *grepQuery, j *grepJob, w *grepBuf, hold *grepHold) {
	set := j.set
	if err := ctx.Err(); err != nil {
		set(0, fileHits{err: err})
		return
	}
	from, stopped := 0, false
	for _, sg := range j.segs {
		fsys.OpenEach(sg.dir.d, j.names[from:sg.end], func(k int, f io.Reader, info fsys.Info, err error) error {
			i := from + k
			if err := ctx.Err(); err != nil {
				set(i, fileHits{err: err})
				stopped = true
				return err
			}
			if err != nil || j.hidden(info) {
				j.finish(i+1, false)
				return nil // unreadable or special, or another name of a hidden file: skipped
			}
			h := s.grepSearch(ctx, q, f, info, w, j.rels[i], false)
			if h.held > 0 {
				// The reader, if it waits for a file before this one, is
				// told those are done before this worker may wait for it.
				j.finish(i, true)
				if !hold.take(j, i, h.held) {
					h = fileHits{err: ctx.Err()} // stopped while it waited
				}
			}
			found := h.count > 0 || h.err != nil
			if found {
				set(i, h)
			}
			j.finish(i+1, found)
			stopped = h.err != nil
			return h.err
		})
		if stopped {
			return
		}
		from = sg.end
	}
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
// is returned. The lines handed over count as seen, as with Grep: the
// session holds each file's at once, and the journal gets their records
// in batches while the search goes on (grepRecorder), all of them before
// GrepEach returns; those of rows handed over before a failure stay.
func (s *Session) GrepEach(ctx context.Context, a GrepArgs, each func(part *GrepResult) error) (truncated bool, err error) {
	if ref := checkArgs("grep", a); ref != nil {
		return false, ref
	}
	if err := s.e.CatchUp(); err != nil {
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
	t, ref := s.e.Resolve("grep", a.Path)
	if ref != nil {
		return false, ref
	}
	if ref := s.e.WS.Denied(t); ref != nil {
		return false, ref
	}
	p := newGrepPager(s, t, a, q, each)
	var unreadable []string
	err = s.grepFiles(ctx, t, a, q, &unreadable, p.file)
	failed := err != nil && !errors.Is(err, errStopWalk)
	if rerr := p.recs.finish(!failed); rerr != nil && !failed {
		return false, rerr
	}
	if failed {
		if _, ok := AsRefusal(err); ok || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
			return false, err
		}
		var pe *fsys.PathError
		if errors.As(err, &pe) {
			return false, s.e.WS.FileErr("grep", t, err)
		}
		return false, err
	}
	if note := unreadableNote(unreadable); note != nil {
		if err := each(&GrepResult{Notes: note}); err != nil {
			return false, err
		}
	}
	return p.truncated, nil
}

// grepPager turns the hits of each file, in path order, into one page of
// results handed to each: it skips the offset, stops at the limit and at
// the byte bound, and records the lines shown as seen.
type grepPager struct {
	s               *Session
	t               engine.Target // the call's path
	q               *grepQuery
	each            func(part *GrepResult) error
	before, after   int
	skip            int // results still to skip
	limit, maxBytes int
	shown, bytes    int // results and text bytes handed over so far
	truncated       bool
	recs            grepRecorder // the observations of the rows shown
	rows            rowBuilder
	groups          []hitGroup // scratch: a file's groups past the offset
}

func newGrepPager(s *Session, t engine.Target, a GrepArgs, q *grepQuery, each func(*GrepResult) error) *grepPager {
	p := &grepPager{s: s, t: t, q: q, each: each, recs: grepRecorder{s: s}, before: q.before, after: q.after, skip: a.Offset, limit: a.Limit, maxBytes: MaxGrepBytes}
	if p.limit == 0 {
		p.limit = DefaultGrepLimit
		if q.mode != tools.GrepContent {
			p.limit = DefaultGrepFileLimit
		}
	}
	if a.Limit == 0 {
		p.maxBytes = DefaultPageBytes
	}
	return p
}

// file takes the hits of the file rel (grepFiles' fn).
func (p *grepPager) file(rel string, h fileHits) error {
	u := p.t.Walked(rel)
	name := u.Display()
	if p.q.mode != tools.GrepContent {
		return p.fileRow(name, h)
	}
	if err := p.content(u, name, h); err != nil {
		return err
	}
	if h.more {
		if p.skip > 0 {
			// The page starts past what could be kept of this file: no
			// offset reaches those matches, so say so rather than answer
			// an empty page that says more exist.
			return engine.Refuse(KindTooLarge, name, "%s holds more matching lines than one search can page through (over %s bytes of them); narrow the pattern, or read the file in windows",
				name, policy.Thousands(largeKeepBytes))
		}
		p.truncated = true
		return errStopWalk
	}
	return nil
}

// fileRow is file in the files_with_matches and count modes: one row.
func (p *grepPager) fileRow(name string, h fileHits) error {
	if h.count == 0 && p.q.mode != tools.GrepCount {
		// A file named alone, searched without a match: no path to list
		// (count mode shows it with 0, as grep -c does).
		return nil
	}
	if p.skip > 0 {
		p.skip--
		return nil
	}
	if p.shown >= p.limit || p.bytes+len(name) > p.maxBytes {
		p.truncated = true
		return errStopWalk
	}
	p.shown++
	p.bytes += len(name)
	part := &GrepResult{}
	if p.q.mode == tools.GrepCount {
		part.Counts = []GrepCountRow{{Path: name, Count: h.count}}
	} else {
		part.Paths = []string{name}
	}
	return p.each(part)
}

// content shows the rows of a file's hits, its groups past the offset;
// errStopWalk says the page is full.
func (p *grepPager) content(u engine.Target, name string, h fileHits) error {
	var groups []hitGroup
	var total int
	groups, p.skip, total = skipHits(p.groups[:0], h.groups, p.skip)
	defer func() { clear(groups); p.groups = groups[:0] }()
	if total == 0 {
		return nil
	}
	if p.shown >= p.limit {
		p.truncated = true
		return errStopWalk
	}
	g := p.rows.buildGroups(groups, p.before, p.after, p.limit-p.shown, p.maxBytes-p.bytes, name)
	p.shown += g.matches
	p.bytes += g.bytes
	if len(g.rows) > 0 {
		// A file over the edit limit cannot be edited: what grep showed
		// of it is not recorded.
		if !h.large {
			if rec := p.s.grepObserve(u, h.version, h.size, h.lines, g.seen); rec != nil {
				p.recs.add(*rec)
			}
		}
		if err := p.each(&GrepResult{Matches: g.rows}); err != nil {
			return err
		}
	}
	if g.matches < total || g.cut {
		p.truncated = true
		return errStopWalk
	}
	return nil
}

// skipHits appends to dst the groups with the first skip hits left out
// (whole groups, then the first hits of the next), and returns them, the
// skip still due past them all and the hits they hold.
func skipHits(dst, groups []hitGroup, skip int) ([]hitGroup, int, int) {
	total := 0
	for _, grp := range groups {
		if skip >= len(grp.hits) {
			skip -= len(grp.hits)
			continue
		}
		grp.hits, skip = grp.hits[skip:], 0
		dst = append(dst, grp)
		total += len(grp.hits)
	}
	return dst, skip, total
}

// grepCheckEvery is how many candidate lines grep scans between
// cancellation checks.
const grepCheckEvery = 1024

// grepObserve records the lines grep showed as seen at the file's version
// (version, size and lines describe it).
func (s *Session) grepObserve(t engine.Target, version string, size, lines int, seen policy.Ranges) *journal.Record {
	if len(seen) == 0 {
		return nil
	}
	key := t.Key()
	s.e.Mu.Lock()
	o := s.e.Files[key]
	if o == nil || o.Version != version {
		o = &engine.Observation{Version: version}
	}
	next := &engine.Observation{Version: version, Seen: o.Seen.Union(seen), Whole: o.Whole, Size: size, Lines: lines}
	if next.Same(o) {
		s.e.Mu.Unlock()
		return nil // nothing new was shown: the journal already holds it
	}
	history.ApplyPayload(&s.e.State, engine.RecObserve, key, next)
	s.e.Mu.Unlock()
	r := s.e.Rec(engine.RecObserve, key, next)
	return &r
}
