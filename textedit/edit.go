package textedit

import (
	"bytes"
	"context"
	"fmt"
	"math"

	"github.com/stet-dev/stet/receipt"
)

// Edit is one literal replacement: Old is replaced by New, once (Old must
// then occur exactly once) or, with ReplaceAll, at every non-overlapping
// occurrence from left to right.
type Edit struct {
	Old, New   string
	ReplaceAll bool
}

// Result is what a list of edits or regions did to a text.
type Result struct {
	// Text holds the new bytes.
	Text []byte
	// Matches are the changed regions of the preimage, sorted by Offset and
	// neither overlapping nor touching, with every field set: Old is the
	// preimage's bytes of the region and New the final bytes that replace
	// them. Splicing each New over its region of the preimage gives Text.
	Matches []receipt.Match
	// EOL is EOLCRLFAdapted when an edit matched only after LF→CRLF
	// adaptation, else DetectEOL of the preimage.
	EOL string
	// Count is the number of replacements made, over all edits.
	Count int
}

// span is a changed region during ApplyBuffers: [orig, orig+olen) of the preimage
// became [cur, cur+clen) of the current text. Outside the spans the current
// text equals the preimage, shifted.
type span struct{ orig, olen, cur, clen int }

// Buffers lends the byte slices a result's text is built in. Get returns a
// slice of length 0 and capacity at least n; Put takes back a slice Get
// returned once nothing uses it any more. A nil Buffers allocates.
type Buffers interface {
	Get(n int) []byte
	Put(b []byte)
}

// get returns a slice from bufs, or a new one when bufs is nil.
func get(bufs Buffers, n int) []byte {
	if bufs == nil {
		return make([]byte, 0, n)
	}
	return bufs.Get(n)
}

// put hands b back to bufs, when there are bufs.
func put(bufs Buffers, b []byte) {
	if bufs != nil {
		bufs.Put(b)
	}
}

// checkEvery is how many matches the loops over matches handle between
// cancellation checks.
const checkEvery = 1024

// ApplyContext applies edits in order, each to the result of the previous
// one. It is all or nothing: the first edit that fails returns its error
// and no result. Arguments are checked for every edit before any matching
// (an *EditError); then each edit may fail with a *NoMatchError or an
// *AmbiguousError. Every error carries the failing edit's index.
//
// Matching is literal on bytes. When an edit's Old has no literal match and
// the text it applies to contains "\r\n", Old and New are retried with
// every bare "\n" turned into "\r\n"; a hit is applied and Result.EOL
// becomes EOLCRLFAdapted. Nothing else is ever retried.
//
// The returned Matches are regions of the original text, composed across
// edits: an edit that touches text written by an earlier edit, or a region
// next to it, extends that region.
//
// It stops with ctx's error once ctx is done (checked before each edit and
// every few thousand matches), and when maxBytes > 0 it refuses an edit
// whose result would be larger than maxBytes with a *TooLargeError,
// computed from the match count before the result is built.
func ApplyContext(ctx context.Context, text []byte, edits []Edit, maxBytes int) (Result, error) {
	return ApplyBuffers(ctx, text, edits, maxBytes, nil)
}

// ApplyBuffers is ApplyContext building the texts in slices from bufs: the
// text between two edits of a list is handed back as soon as the next one
// is built, and Result.Text is the caller's, to hand back once it is done
// with it. Result.Text never shares memory with text, and Matches hold
// copies of their bytes. On an error nothing is left lent.
func ApplyBuffers(ctx context.Context, text []byte, edits []Edit, maxBytes int, bufs Buffers) (Result, error) {
	if len(edits) == 0 {
		return Result{}, ErrNoEdits
	}
	// Argument errors are independent of the text, so they are reported
	// before any matching, in edit order.
	for i, e := range edits {
		switch {
		case e.Old == "":
			return Result{}, &EditError{Index: i, Err: ErrEmptyOld}
		case e.Old == e.New:
			return Result{}, &EditError{Index: i, Err: ErrNoChange}
		}
	}
	if len(edits) >= indexMinEdits && len(text) >= indexMinBytes {
		return applyIndexed(ctx, text, edits, maxBytes, bufs)
	}
	return applySequential(ctx, text, edits, maxBytes, bufs)
}

// applySequential applies checked edits one after the other, each by a
// scan of the whole current text and a rebuild of it: O(n) per edit.
func applySequential(ctx context.Context, text []byte, edits []Edit, maxBytes int, bufs Buffers) (res Result, err error) {
	cur, lent := text, false // lent: cur is an edit's text, from bufs
	defer func() {
		if err != nil && lent {
			put(bufs, cur)
		}
	}()
	var spans []span
	adapted := false
	count := 0
	for i, e := range edits {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		old, repl := []byte(e.Old), []byte(e.New)
		hits, err := locate(ctx, cur, old, e.ReplaceAll, i)
		if err != nil {
			return Result{}, err
		}
		if len(hits) == 0 && bytes.Contains(cur, []byte("\r\n")) {
			if crOld := toCRLF(old); len(crOld) != len(old) {
				hits, err = locate(ctx, cur, crOld, e.ReplaceAll, i)
				if err != nil {
					return Result{}, err
				}
				if len(hits) > 0 {
					old, repl, adapted = crOld, toCRLF(repl), true
				}
			}
		}
		if len(hits) == 0 {
			return Result{}, &NoMatchError{Index: i, Old: e.Old, Near: nearest(cur, []byte(e.Old))}
		}
		if maxBytes > 0 {
			if size, ok := resultSize(len(cur), len(hits), len(old), len(repl), maxBytes); !ok {
				return Result{}, &TooLargeError{Index: i, Count: len(hits), Old: len(old), New: len(repl), Size: size, Max: maxBytes}
			}
		}
		prev := cur
		cur, spans = replace(get(bufs, resultLen(len(cur), len(hits), len(old), len(repl))), cur, spans, hits, len(old), repl)
		if lent {
			put(bufs, prev) // the previous edit's text: nothing refers to it now
		}
		lent = true
		count += len(hits)
	}
	eol := DetectEOL(text)
	if adapted {
		eol = EOLCRLFAdapted
	}
	return Result{Text: cur, Matches: matches(text, cur, spans), EOL: eol, Count: count}, nil
}

// locate returns the offsets where old is to be replaced in text: every
// non-overlapping occurrence with all, else the single occurrence. It
// returns no offsets when old does not occur, and an *AmbiguousError when
// it occurs more than once (counting overlaps) without all.
func locate(ctx context.Context, text, old []byte, all bool, index int) ([]int, error) {
	if all {
		var hits []int
		for at := 0; ; {
			if len(hits)%checkEvery == checkEvery-1 {
				if err := ctx.Err(); err != nil {
					return nil, err
				}
			}
			j := bytes.Index(text[at:], old)
			if j < 0 {
				return hits, nil
			}
			hits = append(hits, at+j)
			at += j + len(old)
		}
	}
	first := bytes.Index(text, old)
	if first < 0 {
		return nil, nil
	}
	next := bytes.Index(text[first+1:], old)
	if next < 0 {
		return []int{first}, nil
	}
	amb := &AmbiguousError{Index: index}
	line := 1 + bytes.Count(text[:first], []byte("\n"))
	amb.Lines = append(amb.Lines, line)
	for prev, at := first, first+1+next; ; {
		if len(amb.Lines)%checkEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		line += bytes.Count(text[prev:at], []byte("\n"))
		amb.Lines = append(amb.Lines, line)
		prev = at
		j := bytes.Index(text[at+1:], old)
		if j < 0 {
			break
		}
		at += 1 + j
	}
	amb.Count = len(amb.Lines)
	return nil, amb
}

// resultSize returns the size of a text of n bytes after hits replacements
// of old bytes by repl bytes, and whether it is at most max. It never
// overflows: a size over max is reported as computed or, when even that
// would overflow, as max+1.
func resultSize(n, hits, old, repl, max int) (int, bool) {
	if repl <= old {
		return n - hits*(old-repl), true
	}
	grow := repl - old
	if hits > (max-n)/grow {
		if hits > (math.MaxInt-n)/grow {
			return max + 1, false
		}
		return n + hits*grow, false
	}
	return n + hits*grow, true
}

// resultLen is the length of a text of n bytes after hits replacements of
// old bytes by repl bytes (resultSize has checked that it fits).
func resultLen(n, hits, old, repl int) int { return n + hits*(repl-old) }

// replace writes, into out (length 0, room for the result), text with repl
// over [h, h+n) for each hit h (sorted, not overlapping) and folds the hits
// into spans, merging a hit with every span it overlaps or touches.
func replace(out, text []byte, spans []span, hits []int, n int, repl []byte) ([]byte, []span) {
	delta := len(repl) - n
	last := 0
	for _, h := range hits {
		out = append(out, text[last:h]...)
		out = append(out, repl...)
		last = h + n
	}
	out = append(out, text[last:]...)

	merged := make([]span, 0, len(spans)+len(hits))
	var (
		open       bool
		a, b       int // the current group, in current-text coordinates
		groupDelta int // size change of the spans inside the group
		groupHits  int
		spanDelta  int // size change of the spans before the group
		hitsBefore int // hits before the group
	)
	flush := func() {
		merged = append(merged, span{
			orig: a - spanDelta,
			olen: b - a - groupDelta,
			cur:  a + hitsBefore*delta,
			clen: b - a + groupHits*delta,
		})
		spanDelta += groupDelta
		hitsBefore += groupHits
	}
	add := func(start, end, sDelta, isHit int) {
		if open && start <= b {
			b = max(b, end)
		} else {
			if open {
				flush()
			}
			open, a, b, groupDelta, groupHits = true, start, end, 0, 0
		}
		groupDelta += sDelta
		groupHits += isHit
	}
	i, j := 0, 0
	for i < len(spans) || j < len(hits) {
		if j == len(hits) || i < len(spans) && spans[i].cur <= hits[j] {
			s := spans[i]
			add(s.cur, s.cur+s.clen, s.clen-s.olen, 0)
			i++
		} else {
			add(hits[j], hits[j]+n, 0, 1)
			j++
		}
	}
	if open {
		flush()
	}
	return out, merged
}

// matches turns spans into receipt matches of pre, the preimage, with the
// bytes of final.
func matches(pre, final []byte, spans []span) []receipt.Match {
	ms := make([]receipt.Match, len(spans))
	line, at := 1, 0
	for k, s := range spans {
		line += bytes.Count(pre[at:s.orig], []byte("\n"))
		at = s.orig
		ms[k] = receipt.Match{
			Offset:   s.orig,
			OldBytes: s.olen,
			NewBytes: s.clen,
			Line:     line,
			Old:      bytes.Clone(pre[s.orig : s.orig+s.olen]),
			New:      bytes.Clone(final[s.cur : s.cur+s.clen]),
		}
	}
	return ms
}

// Splice replaces regions of text the caller has already located: each
// region's Offset and OldBytes address text and its New holds the
// replacement. Regions must be sorted by Offset and must not overlap; when a
// region's Old is not nil it must equal the bytes it addresses. Any
// violation returns an error wrapping ErrBadRegion.
//
// The result's Matches are the regions with NewBytes, Line and Old filled
// in; Count is their number and EOL is DetectEOL(text).
func Splice(text []byte, regions []receipt.Match) (Result, error) {
	size, end := len(text), 0
	for i, r := range regions {
		switch {
		case r.Offset < 0 || r.OldBytes < 0 || r.Offset > len(text) || r.OldBytes > len(text)-r.Offset:
			return Result{}, fmt.Errorf("%w %d: %d bytes at offset %d lie outside the text (%d bytes)", ErrBadRegion, i, r.OldBytes, r.Offset, len(text))
		case r.Offset < end:
			return Result{}, fmt.Errorf("%w %d: offset %d overlaps or precedes the region before it (which ends at %d)", ErrBadRegion, i, r.Offset, end)
		case r.Old != nil && !bytes.Equal(r.Old, text[r.Offset:r.Offset+r.OldBytes]):
			return Result{}, fmt.Errorf("%w %d: the text at offset %d does not hold the region's old bytes", ErrBadRegion, i, r.Offset)
		}
		end = r.Offset + r.OldBytes
		size += len(r.New) - r.OldBytes
	}
	out := make([]byte, 0, size)
	ms := make([]receipt.Match, len(regions))
	last, line := 0, 1
	for i, r := range regions {
		line += bytes.Count(text[last:r.Offset], []byte("\n"))
		out = append(out, text[last:r.Offset]...)
		out = append(out, r.New...)
		last = r.Offset + r.OldBytes
		ms[i] = receipt.Match{
			Offset:   r.Offset,
			OldBytes: r.OldBytes,
			NewBytes: len(r.New),
			Line:     line,
			Old:      bytes.Clone(text[r.Offset:last]),
			New:      bytes.Clone(r.New),
		}
		line += bytes.Count(text[r.Offset:last], []byte("\n"))
	}
	out = append(out, text[last:]...)
	return Result{Text: out, Matches: ms, EOL: DetectEOL(text), Count: len(regions)}, nil
}
