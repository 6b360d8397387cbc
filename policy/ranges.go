package policy

import (
	"slices"

	"github.com/stet-dev/stet/receipt"
)

// Range is a span of byte offsets in one version of a file: [Start, End).
type Range struct {
	Start int // first byte, from 0
	End   int // one past the last byte
}

// Empty reports whether r holds no byte.
func (r Range) Empty() bool { return r.End <= r.Start }

// Ranges is a set of byte offsets kept normalized: sorted, with no empty,
// overlapping or adjacent ranges. Methods never modify the receiver's
// backing array, so a Ranges value may be shared.
type Ranges []Range

// Add returns the set rs with r added. An empty r adds nothing. It copies
// rs: O(len(rs)). To add many ranges, use NewRanges and Union.
func (rs Ranges) Add(r Range) Ranges {
	if r.Empty() {
		return rs
	}
	out := make(Ranges, 0, len(rs)+1)
	i := 0
	for ; i < len(rs) && rs[i].End < r.Start; i++ {
		out = append(out, rs[i])
	}
	for ; i < len(rs) && rs[i].Start <= r.End; i++ {
		r.Start = min(r.Start, rs[i].Start)
		r.End = max(r.End, rs[i].End)
	}
	out = append(out, r)
	return append(out, rs[i:]...)
}

// NewRanges returns the set of the given ranges, in any order, overlapping
// or not: O(n log n) for n ranges (O(n) when they come sorted).
func NewRanges(rs ...Range) Ranges {
	sorted := slices.Clone(rs)
	slices.SortFunc(sorted, func(a, b Range) int { return a.Start - b.Start })
	out := make(Ranges, 0, len(sorted))
	for _, r := range sorted {
		out = out.push(r)
	}
	return slices.Clip(out)
}

// Union returns the set of the bytes in rs or in other, in one merge pass:
// O(len(rs) + len(other)).
func (rs Ranges) Union(other Ranges) Ranges {
	if len(other) == 0 {
		return rs
	}
	if len(rs) == 0 {
		return other
	}
	out := make(Ranges, 0, len(rs)+len(other))
	i, j := 0, 0
	for i < len(rs) || j < len(other) {
		if j == len(other) || i < len(rs) && rs[i].Start <= other[j].Start {
			out = out.push(rs[i])
			i++
		} else {
			out = out.push(other[j])
			j++
		}
	}
	return slices.Clip(out)
}

// Covers reports whether every byte of r is in rs. An empty r is covered.
func (rs Ranges) Covers(r Range) bool {
	_, gap := rs.FirstGap(r)
	return !gap
}

// FirstGap returns the first part of r that rs does not cover: it starts at
// the first uncovered byte of r and ends where rs resumes, or at r.End.
// ok is false when rs covers all of r (an empty r included).
func (rs Ranges) FirstGap(r Range) (gap Range, ok bool) {
	if r.Empty() {
		return Range{}, false
	}
	pos := r.Start
	// The first range that ends after pos is the only one that can cover it.
	i, _ := slices.BinarySearchFunc(rs, pos, func(x Range, p int) int {
		if x.End <= p {
			return -1
		}
		return 1
	})
	if i < len(rs) && rs[i].Start <= pos {
		pos = rs[i].End
		i++
	}
	if pos >= r.End {
		return Range{}, false
	}
	end := r.End
	if i < len(rs) && rs[i].Start < end {
		end = rs[i].Start
	}
	return Range{pos, end}, true
}

// touches reports whether offset p lies inside a range of rs or at its
// edge: where a zero-length region (an insertion) may go.
func (rs Ranges) touches(p int) bool {
	for _, r := range rs {
		if r.Start <= p && p <= r.End {
			return true
		}
	}
	return false
}

// Carry moves rs through the session's own mutation, given the mutation's
// matches (offsets in the preimage, as in a receipt) and the new file size.
//
// Bytes outside every replaced region keep their seen-ness and move by the
// size change of the matches before them; a range partly overlapping a
// replaced region keeps its parts outside the region; the new bytes of every
// match count as seen. The result is clipped to [0, newSize). Matches may
// come in any order but must not overlap.
func (rs Ranges) Carry(matches []receipt.Match, newSize int) Ranges {
	ms := slices.Clone(matches)
	slices.SortFunc(ms, func(a, b receipt.Match) int { return a.Offset - b.Offset })

	var out Ranges
	j := 0 // rs[:j] end before the span being kept
	// keep adds the seen parts of the unchanged preimage span [from, to),
	// shifted by delta. Spans come in order, so out grows in order.
	keep := func(from, to, delta int) {
		for j < len(rs) && rs[j].End <= from {
			j++
		}
		for k := j; k < len(rs) && rs[k].Start < to; k++ {
			s, e := max(rs[k].Start, from), min(rs[k].End, to)
			if s < e {
				out = out.push(Range{s + delta, e + delta})
			}
		}
	}
	prev, delta := 0, 0
	for _, m := range ms {
		keep(prev, m.Offset, delta)
		out = out.push(Range{m.Offset + delta, m.Offset + delta + m.NewBytes})
		delta += m.NewBytes - m.OldBytes
		prev = m.Offset + m.OldBytes
	}
	if len(rs) > 0 {
		keep(prev, max(prev, rs[len(rs)-1].End), delta)
	}
	return out.clip(newSize)
}

// push appends r to rs, whose ranges all start at or before r.Start,
// merging it with the last range when they overlap or touch.
func (rs Ranges) push(r Range) Ranges {
	if r.Empty() {
		return rs
	}
	if n := len(rs); n > 0 && rs[n-1].End >= r.Start {
		rs[n-1].End = max(rs[n-1].End, r.End)
		return rs
	}
	return append(rs, r)
}

func (rs Ranges) clip(size int) Ranges {
	out := make(Ranges, 0, len(rs))
	for _, r := range rs {
		r.Start, r.End = max(r.Start, 0), min(r.End, size)
		if !r.Empty() {
			out = append(out, r)
		}
	}
	return out
}
