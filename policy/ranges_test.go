package policy

import (
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stet-dev/stet/receipt"
)

func build(rs ...Range) Ranges {
	var out Ranges
	for _, r := range rs {
		out = out.Add(r)
	}
	return out
}

func TestRangesAdd(t *testing.T) {
	tests := []struct {
		in   []Range
		want Ranges
	}{
		{nil, nil},
		{[]Range{{5, 5}}, nil}, // empty ranges add nothing
		{[]Range{{3, 1}}, nil},
		{[]Range{{10, 20}, {0, 5}}, Ranges{{0, 5}, {10, 20}}},
		{[]Range{{0, 5}, {5, 10}}, Ranges{{0, 10}}}, // adjacent ranges merge
		{[]Range{{0, 5}, {3, 10}}, Ranges{{0, 10}}},
		{[]Range{{0, 5}, {10, 15}, {20, 25}, {4, 21}}, Ranges{{0, 25}}},
		{[]Range{{0, 5}, {10, 15}, {20, 25}, {6, 9}}, Ranges{{0, 5}, {6, 9}, {10, 15}, {20, 25}}},
		{[]Range{{0, 5}, {10, 15}, {11, 12}}, Ranges{{0, 5}, {10, 15}}},
		{[]Range{{10, 15}, {0, 100}}, Ranges{{0, 100}}},
	}
	for _, tt := range tests {
		if got := build(tt.in...); !cmp.Equal(got, tt.want) {
			t.Errorf("adding %v = %v, want %v", tt.in, got, tt.want)
		}
	}
}

func TestRangesAddDoesNotModifyReceiver(t *testing.T) {
	rs := build(Range{0, 5}, Range{10, 15}, Range{20, 25})
	before := slices.Clone(rs)
	_ = rs.Add(Range{4, 21})
	_ = rs.Add(Range{7, 8})
	if !cmp.Equal(rs, before) {
		t.Errorf("Add changed its receiver: %v, was %v", rs, before)
	}
}

func TestRangesCoversAndFirstGap(t *testing.T) {
	rs := build(Range{10, 20}, Range{30, 40})
	tests := []struct {
		r   Range
		gap Range // zero: covered
	}{
		{Range{10, 20}, Range{}},
		{Range{12, 18}, Range{}},
		{Range{31, 40}, Range{}},
		{Range{15, 15}, Range{}}, // empty: covered
		{Range{50, 50}, Range{}},
		{Range{0, 5}, Range{0, 5}},
		{Range{5, 15}, Range{5, 10}},
		{Range{15, 25}, Range{20, 25}},
		{Range{15, 35}, Range{20, 30}}, // the gap ends where seen resumes
		{Range{35, 45}, Range{40, 45}},
		{Range{0, 100}, Range{0, 10}},
		{Range{20, 30}, Range{20, 30}},
	}
	for _, tt := range tests {
		gap, ok := rs.FirstGap(tt.r)
		if gap != tt.gap || ok != (tt.gap != Range{}) {
			t.Errorf("%v.FirstGap(%v) = %v, %v; want %v", rs, tt.r, gap, ok, tt.gap)
		}
		if cov := rs.Covers(tt.r); cov != (tt.gap == Range{}) {
			t.Errorf("%v.Covers(%v) = %v", rs, tt.r, cov)
		}
	}
	if !Ranges(nil).Covers(Range{0, 0}) {
		t.Error("nothing seen must still cover an empty range (an empty file)")
	}
	if gap, ok := Ranges(nil).FirstGap(Range{0, 7}); !ok || gap != (Range{0, 7}) {
		t.Errorf("nil.FirstGap = %v, %v", gap, ok)
	}
}

func TestCarry(t *testing.T) {
	m := func(off, oldN, newN int) receipt.Match {
		return receipt.Match{Offset: off, OldBytes: oldN, NewBytes: newN}
	}
	tests := []struct {
		name    string
		seen    Ranges
		matches []receipt.Match
		newSize int
		want    Ranges
	}{
		{"grow inside", Ranges{{0, 100}}, []receipt.Match{m(50, 10, 20)}, 110, Ranges{{0, 110}}},
		{"shrink inside", Ranges{{0, 100}}, []receipt.Match{m(40, 20, 0)}, 80, Ranges{{0, 80}}},
		{"insert at edge", Ranges{{0, 100}}, []receipt.Match{m(100, 0, 20)}, 120, Ranges{{0, 120}}},
		{"range after the match shifts", Ranges{{0, 10}, {60, 70}}, []receipt.Match{m(20, 5, 15)}, 110,
			Ranges{{0, 10}, {20, 35}, {70, 80}}},
		{"range before the match stays", Ranges{{80, 90}}, []receipt.Match{m(20, 5, 1)}, 96,
			Ranges{{20, 21}, {76, 86}}},
		{"partial overlap kept up to the region", Ranges{{0, 30}}, []receipt.Match{m(20, 20, 5)}, 85,
			Ranges{{0, 25}}},
		{"partial overlap kept after the region", Ranges{{30, 60}}, []receipt.Match{m(20, 20, 5)}, 85,
			Ranges{{20, 45}}},
		{"unseen bytes stay unseen", Ranges{{0, 10}}, []receipt.Match{m(50, 4, 4)}, 100,
			Ranges{{0, 10}, {50, 54}}},
		{"several matches, out of order", Ranges{{0, 100}},
			[]receipt.Match{m(60, 5, 0), m(10, 0, 3), m(30, 2, 2)}, 98, Ranges{{0, 98}}},
		{"whole-file write", Ranges{{0, 10}}, []receipt.Match{m(0, 500, 40)}, 40, Ranges{{0, 40}}},
		{"nothing seen before", nil, []receipt.Match{m(5, 1, 3)}, 12, Ranges{{5, 8}}},
		{"clipped to the new size", Ranges{{0, 200}}, nil, 50, Ranges{{0, 50}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			before := slices.Clone(tt.seen)
			got := tt.seen.Carry(tt.matches, tt.newSize)
			if !cmp.Equal(got, tt.want) {
				t.Errorf("Carry = %v, want %v", got, tt.want)
			}
			if !cmp.Equal(tt.seen, before) {
				t.Errorf("Carry changed its receiver to %v", tt.seen)
			}
		})
	}
}

// TestCarryProperty checks Carry against an oracle that applies random
// mutations to a file whose bytes are labeled seen or unseen: after the
// mutation a byte is seen exactly when it is new or was seen before.
func TestCarryProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for iter := range 3000 {
		size := rng.IntN(60)
		seenBits := make([]bool, size)
		var seen Ranges
		for range rng.IntN(5) {
			s := rng.IntN(size + 1)
			e := s + rng.IntN(size-s+1)
			seen = seen.Add(Range{s, e})
			for i := s; i < e; i++ {
				seenBits[i] = true
			}
		}
		// Non-overlapping matches in order.
		var ms []receipt.Match
		for pos := 0; pos <= size; {
			pos += rng.IntN(12)
			if pos > size {
				break
			}
			oldN := rng.IntN(min(6, size-pos) + 1)
			ms = append(ms, receipt.Match{Offset: pos, OldBytes: oldN, NewBytes: rng.IntN(6)})
			pos += oldN + 1 // +1 keeps insertions at one offset apart
		}
		// The oracle: build the new file's labels.
		var want []bool
		prev := 0
		for _, m := range ms {
			want = append(want, seenBits[prev:m.Offset]...)
			for range m.NewBytes {
				want = append(want, true)
			}
			prev = m.Offset + m.OldBytes
		}
		want = append(want, seenBits[prev:]...)

		shuffled := slices.Clone(ms)
		rng.Shuffle(len(shuffled), func(i, j int) { shuffled[i], shuffled[j] = shuffled[j], shuffled[i] })
		got := seen.Carry(shuffled, len(want))

		if !normalized(got) {
			t.Fatalf("iter %d: Carry(%v, %v) = %v is not normalized", iter, seen, ms, got)
		}
		for i, w := range want {
			if got.Covers(Range{i, i + 1}) != w {
				t.Fatalf("iter %d: Carry(%v, %v, %d) = %v; byte %d seen = %v, want %v",
					iter, seen, ms, len(want), got, i, !w, w)
			}
		}
		if len(got) > 0 && got[len(got)-1].End > len(want) {
			t.Fatalf("iter %d: Carry = %v reaches past the new size %d", iter, got, len(want))
		}
		// A wholly seen file stays wholly seen.
		if all := (Ranges{}).Add(Range{0, size}).Carry(ms, len(want)); !all.Covers(Range{0, len(want)}) {
			t.Fatalf("iter %d: a wholly seen file carried through %v = %v", iter, ms, all)
		}
	}
}

func TestAddProperty(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for iter := range 2000 {
		var rs Ranges
		bits := make([]bool, 50)
		for range rng.IntN(8) {
			s := rng.IntN(50)
			e := s + rng.IntN(50-s+1)
			rs = rs.Add(Range{s, e})
			for i := s; i < e; i++ {
				bits[i] = true
			}
		}
		if !normalized(rs) {
			t.Fatalf("iter %d: %v not normalized", iter, rs)
		}
		for i, b := range bits {
			if rs.Covers(Range{i, i + 1}) != b {
				t.Fatalf("iter %d: %v covers byte %d = %v, want %v", iter, rs, i, !b, b)
			}
		}
		s := rng.IntN(50)
		e := s + rng.IntN(50-s+1)
		gap, ok := rs.FirstGap(Range{s, e})
		first := -1
		for i := s; i < e; i++ {
			if !bits[i] {
				first = i
				break
			}
		}
		if ok != (first >= 0) || ok && (gap.Start != first || gap.End <= gap.Start || gap.End > e ||
			!rs.Covers(Range{gap.End, gap.End + 1}) && gap.End != e) {
			t.Fatalf("iter %d: %v.FirstGap(%d, %d) = %v, %v; first uncovered byte %d", iter, rs, s, e, gap, ok, first)
		}
		for i := gap.Start; ok && i < gap.End; i++ {
			if bits[i] {
				t.Fatalf("iter %d: gap %v holds seen byte %d", iter, gap, i)
			}
		}
	}
}

func normalized(rs Ranges) bool {
	for i, r := range rs {
		if r.Empty() || i > 0 && rs[i-1].End >= r.Start {
			return false
		}
	}
	return true
}

// manyRanges returns n disjoint ranges in a shuffled order.
func manyRanges(n int) []Range {
	rs := make([]Range, n)
	for i := range rs {
		j := (i * 7919) % n // a permutation when n is not a multiple of 7919
		rs[i] = Range{Start: 4 * j, End: 4*j + 2}
	}
	return rs
}

func TestNewRangesAndUnion(t *testing.T) {
	got := NewRanges(Range{5, 7}, Range{0, 2}, Range{2, 3}, Range{6, 9}, Range{4, 4}, Range{20, 21})
	want := Ranges{{0, 3}, {5, 9}, {20, 21}}
	if !slices.Equal(got, want) {
		t.Fatalf("NewRanges = %v, want %v", got, want)
	}
	u := Ranges{{0, 1}, {10, 12}}.Union(Ranges{{1, 2}, {4, 5}, {11, 15}, {30, 31}})
	if want := (Ranges{{0, 2}, {4, 5}, {10, 15}, {30, 31}}); !slices.Equal(u, want) {
		t.Fatalf("Union = %v, want %v", u, want)
	}
	if u := (Ranges{}).Union(Ranges{{1, 2}}); !slices.Equal(u, Ranges{{1, 2}}) {
		t.Fatalf("empty union %v", u)
	}
	if u := (Ranges{{1, 2}}).Union(nil); !slices.Equal(u, Ranges{{1, 2}}) {
		t.Fatalf("union with nothing %v", u)
	}
	// Adding one by one gives the same set.
	rs := manyRanges(1001)
	var one Ranges
	for _, r := range rs {
		one = one.Add(r)
	}
	if all := NewRanges(rs...); !slices.Equal(all, one) || len(all) != 1001 {
		t.Fatalf("NewRanges of many: %d ranges, Add: %d", len(all), len(one))
	}
	if u := NewRanges(rs[:500]...).Union(NewRanges(rs[500:]...)); !slices.Equal(u, one) {
		t.Fatal("Union of halves differs")
	}
}

func BenchmarkRanges20kAddOneByOne(b *testing.B) {
	rs := manyRanges(20001)
	for b.Loop() {
		var out Ranges
		for _, r := range rs {
			out = out.Add(r)
		}
	}
}

func BenchmarkRanges20kNewRanges(b *testing.B) {
	rs := manyRanges(20001)
	for b.Loop() {
		NewRanges(rs...)
	}
}

func BenchmarkRanges100kCarry(b *testing.B) {
	seen := NewRanges(manyRanges(100001)...)
	ms := make([]receipt.Match, 50000)
	for i := range ms {
		ms[i] = receipt.Match{Offset: 8*i + 1, OldBytes: 2, NewBytes: 3}
	}
	for b.Loop() {
		seen.Carry(ms, 8*100001)
	}
}
