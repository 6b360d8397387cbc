package textedit

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"index/suffixarray"
	"slices"
	"sort"
)

// Many edits on a large text are applied against an index instead of
// rescanning and rebuilding the text per edit. The text is kept as the
// preimage plus the changed spans (each holding its current bytes); the
// preimage's suffix array finds an edit's matches in unchanged bytes, and a
// scan of the bytes around each changed span finds the matches that touch
// changed text. An edit then costs O(|old| log n + matches + spans × |old|
// + changed bytes) instead of O(n): K edits on an n-byte text cost one
// index build (O(n log n)) and work proportional to what they change.
const (
	indexMinEdits = 32      // fewer edits are applied by rescanning
	indexMinBytes = 1 << 20 // smaller texts are applied by rescanning
)

// piece is a changed span of an indexed text: [orig, orig+olen) of the
// preimage is now data, at [cur, cur+len(data)) of the current text.
type piece struct {
	orig, olen, cur int
	data            []byte
}

// indexed is a text under edit: pre with pieces spliced in.
type indexed struct {
	pre    []byte
	sa     *suffixarray.Index
	pieces []piece // sorted, neither overlapping nor touching
	size   int     // bytes of the current text
}

func newIndexed(pre []byte) *indexed {
	return &indexed{pre: pre, sa: suffixarray.New(pre), size: len(pre)}
}

// text returns the current text.
func (x *indexed) text() []byte { return x.slice(make([]byte, 0, x.size), 0, x.size) }

// slice appends the current text's bytes [a, b) to dst[:0].
func (x *indexed) slice(dst []byte, a, b int) []byte {
	out := slices.Grow(dst[:0], b-a)
	k := sort.Search(len(x.pieces), func(k int) bool { p := x.pieces[k]; return p.cur+len(p.data) > a })
	at, delta := a, 0
	if k > 0 {
		p := x.pieces[k-1]
		delta = p.cur + len(p.data) - (p.orig + p.olen)
	}
	for at < b {
		if k < len(x.pieces) && x.pieces[k].cur <= at {
			p := x.pieces[k]
			out = append(out, p.data[at-p.cur:min(len(p.data), b-p.cur)]...)
			at = p.cur + len(p.data)
			delta = at - (p.orig + p.olen)
			k++
			continue
		}
		end := b
		if k < len(x.pieces) {
			end = min(end, x.pieces[k].cur)
		}
		out = append(out, x.pre[at-delta:end-delta]...)
		at = end
	}
	return out
}

// find returns every offset of the current text where pat starts,
// overlapping ones included, sorted.
func (x *indexed) find(ctx context.Context, pat []byte) ([]int, error) {
	n := len(pat)
	var out []int
	var w []byte
	// Matches inside unchanged bytes: found in the preimage, kept when no
	// piece cuts into them, shifted by the pieces before them.
	for i, o := range x.sa.Lookup(pat, -1) {
		if i%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		k := sort.Search(len(x.pieces), func(k int) bool { p := x.pieces[k]; return p.orig+p.olen > o })
		if k < len(x.pieces) && x.pieces[k].orig < o+n {
			continue
		}
		cur := o
		if k > 0 {
			p := x.pieces[k-1]
			cur += p.cur + len(p.data) - (p.orig + p.olen)
		}
		out = append(out, cur)
	}
	// Matches that touch a piece: scanned around each piece.
	for k := 0; k < len(x.pieces); {
		if k%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return nil, err
			}
		}
		a := max(0, x.pieces[k].cur-(n-1))
		b := min(x.size, x.pieces[k].cur+len(x.pieces[k].data)+(n-1))
		for k++; k < len(x.pieces) && x.pieces[k].cur-(n-1) < b; k++ {
			b = min(x.size, x.pieces[k].cur+len(x.pieces[k].data)+(n-1))
		}
		w = x.slice(w, a, b)
		for at := 0; ; at++ {
			j := bytes.Index(w[at:], pat)
			if j < 0 {
				break
			}
			at += j
			p := a + at
			q := sort.Search(len(x.pieces), func(q int) bool { s := x.pieces[q]; return s.cur+len(s.data) > p })
			if q < len(x.pieces) && x.pieces[q].cur < p+n {
				out = append(out, p)
			}
		}
	}
	slices.Sort(out)
	return out, nil
}

// replace writes repl over [h, h+n) of the current text for each hit h
// (sorted, not overlapping), merging each hit with the pieces it overlaps
// or touches.
func (x *indexed) replace(ctx context.Context, hits []int, n int, repl []byte) error {
	delta := len(repl) - n
	out := make([]piece, 0, len(x.pieces)+len(hits))
	i, j := 0, 0
	pieceDelta := 0 // size change of the pieces before the group
	hitsBefore := 0
	for i < len(x.pieces) || j < len(hits) {
		if (i+j)%checkEvery == checkEvery-1 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		i0, j0 := i, j
		var a, b int
		if j == len(hits) || i < len(x.pieces) && x.pieces[i].cur <= hits[j] {
			a, b = x.pieces[i].cur, x.pieces[i].cur+len(x.pieces[i].data)
			i++
		} else {
			a, b = hits[j], hits[j]+n
			j++
		}
		for {
			if i < len(x.pieces) && x.pieces[i].cur <= b {
				b = max(b, x.pieces[i].cur+len(x.pieces[i].data))
				i++
			} else if j < len(hits) && hits[j] <= b {
				b = max(b, hits[j]+n)
				j++
			} else {
				break
			}
		}
		if j == j0 {
			// A piece no hit touches keeps its bytes; it only moves.
			p := x.pieces[i0]
			p.cur += hitsBefore * delta
			out = append(out, p)
			pieceDelta += len(p.data) - p.olen
			continue
		}
		groupDelta := 0
		for _, p := range x.pieces[i0:i] {
			groupDelta += len(p.data) - p.olen
		}
		old := x.slice(nil, a, b)
		data := make([]byte, 0, len(old)+(j-j0)*delta)
		last := 0
		for _, h := range hits[j0:j] {
			data = append(data, old[last:h-a]...)
			data = append(data, repl...)
			last = h - a + n
		}
		data = append(data, old[last:]...)
		out = append(out, piece{orig: a - pieceDelta, olen: b - a - groupDelta, cur: a + hitsBefore*delta, data: data})
		pieceDelta += groupDelta
		hitsBefore += j - j0
	}
	x.pieces = out
	x.size += len(hits) * delta
	return nil
}

// spans returns the pieces as ApplyBuffers' spans.
func (x *indexed) spans() []span {
	out := make([]span, len(x.pieces))
	for k, p := range x.pieces {
		out[k] = span{orig: p.orig, olen: p.olen, cur: p.cur, clen: len(p.data)}
	}
	return out
}

// nonOverlapping keeps the offsets of hits (sorted) that a left-to-right
// scan replacing n bytes at each would use.
func nonOverlapping(hits []int, n int) []int {
	out := hits[:0]
	next := 0
	for _, h := range hits {
		if h >= next {
			out = append(out, h)
			next = h + n
		}
	}
	return out
}

// applyIndexed is ApplyContext's engine for many edits on a large text
// (after the argument checks). It gives the same results and errors as
// the rescanning engine: an edit that fails is run again by that engine on
// the current text, once, to report exactly what it reports.
func applyIndexed(ctx context.Context, text []byte, edits []Edit, maxBytes int, bufs Buffers) (Result, error) {
	x := newIndexed(text)
	adapted := false
	count := 0
	crlf := []byte("\r\n")
	for i, e := range edits {
		if err := ctx.Err(); err != nil {
			return Result{}, err
		}
		old, repl := []byte(e.Old), []byte(e.New)
		hits, err := x.find(ctx, old)
		if err != nil {
			return Result{}, err
		}
		if len(hits) == 0 {
			if crOld := toCRLF(old); len(crOld) != len(old) {
				if has, err := x.find(ctx, crlf); err != nil {
					return Result{}, err
				} else if len(has) > 0 {
					if hits, err = x.find(ctx, crOld); err != nil {
						return Result{}, err
					}
					if len(hits) > 0 {
						old, repl = crOld, toCRLF(repl)
					}
				}
			}
		}
		if len(hits) == 0 || !e.ReplaceAll && len(hits) > 1 {
			return Result{}, failAt(ctx, x.text(), e, i)
		}
		if len(old) != len(e.Old) {
			adapted = true
		}
		if e.ReplaceAll {
			hits = nonOverlapping(hits, len(old))
		}
		if maxBytes > 0 {
			if size, ok := resultSize(x.size, len(hits), len(old), len(repl), maxBytes); !ok {
				return Result{}, &TooLargeError{Index: i, Count: len(hits), Old: len(old), New: len(repl), Size: size, Max: maxBytes}
			}
		}
		if err := x.replace(ctx, hits, len(old), repl); err != nil {
			return Result{}, err
		}
		count += len(hits)
	}
	final := x.slice(get(bufs, x.size), 0, x.size)
	eol := DetectEOL(text)
	if adapted {
		eol = EOLCRLFAdapted
	}
	return Result{Text: final, Matches: matches(text, final, x.spans()), EOL: eol, Count: count}, nil
}

// failAt returns the error the rescanning engine reports for edit e, the
// index-th, on cur.
func failAt(ctx context.Context, cur []byte, e Edit, index int) error {
	_, err := applySequential(ctx, cur, []Edit{e}, 0, nil)
	var nm *NoMatchError
	var am *AmbiguousError
	switch {
	case errors.As(err, &nm):
		nm.Index = index
	case errors.As(err, &am):
		am.Index = index
	case err == nil:
		return fmt.Errorf("textedit: edit %d: the index and the scan disagree", index)
	}
	return err
}
