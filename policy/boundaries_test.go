package policy

import (
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet/receipt"
)

// Boundaries of the decisions that words and warnings rest on: each case
// sits exactly on an edge, so an off-by-one in the rule changes its answer.
func TestAlarmEdges(t *testing.T) {
	lines := func(n int) []byte { return []byte(strings.Repeat("row\n", n)) }
	cases := []struct {
		name          string
		file          string
		before, after []byte
		want          bool
	}{
		{"shrank by exactly 80%", "a.go", lines(10), lines(2), true},
		{"shrank by 70%", "a.go", lines(10), lines(3), false},
		{"empty to empty", "a.go", nil, nil, false},
		{"empty first lines on both sides", "a.csv", []byte("\na\n"), []byte("\nb\n"), false},
		{"an empty first line filled", "a.csv", []byte("\nrow\n"), []byte("hdr\nrow\n"), true},
	}
	for _, c := range cases {
		if got := Alarm(c.file, c.before, c.after); got != c.want {
			t.Errorf("%s: Alarm = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestCountsAtTheSizeThreshold(t *testing.T) {
	if got := Counts(SizeCountThreshold, 3, 10, 1); got != "3 lines → 1" {
		t.Errorf("exactly at the threshold: %q, want lines", got)
	}
	if got := Counts(10, 3, SizeCountThreshold, 2); got != "3 lines → 2" {
		t.Errorf("after exactly at the threshold: %q, want lines", got)
	}
	if got := Counts(SizeCountThreshold+1, 3, 10, 1); got != "5.0 MB → 1 line" {
		t.Errorf("one byte over: %q, want a size", got)
	}
}

func TestRangesEdges(t *testing.T) {
	rs := Ranges{}.Add(Range{Start: 0, End: 5}).Add(Range{Start: 10, End: 15})
	cases := []struct {
		r   Range
		gap Range
		ok  bool
	}{
		{Range{0, 5}, Range{}, false},        // exactly the first range
		{Range{4, 6}, Range{5, 6}, true},     // runs one byte past its end
		{Range{5, 10}, Range{5, 10}, true},   // exactly the hole
		{Range{5, 11}, Range{5, 10}, true},   // the gap ends where the next range starts
		{Range{9, 10}, Range{9, 10}, true},   // the byte just before the next range
		{Range{10, 15}, Range{}, false},      // exactly the second range
		{Range{14, 16}, Range{15, 16}, true}, // one byte past the last range
		{Range{3, 3}, Range{}, false},        // empty
		{Range{20, 30}, Range{20, 30}, true}, // wholly after
		{Range{0, 15}, Range{5, 10}, true},   // spans both
		{Range{10, 11}, Range{}, false},      // first byte of the second range
		{Range{15, 15}, Range{}, false},      // empty at the end
		{Range{4, 5}, Range{}, false},        // last byte of the first range
		{Range{-1, 0}, Range{-1, 0}, true},   // before everything
		{Range{100, 101}, Range{100, 101}, true},
	}
	for _, c := range cases {
		gap, ok := rs.FirstGap(c.r)
		if ok != c.ok || gap != c.gap {
			t.Errorf("FirstGap(%v) = %v, %v; want %v, %v", c.r, gap, ok, c.gap, c.ok)
		}
	}
	// Union keeps order and merges ranges that touch, whichever side holds
	// the earlier start.
	a := Ranges{{0, 5}, {20, 25}}
	b := Ranges{{5, 10}, {20, 22}, {30, 31}}
	want := Ranges{{0, 10}, {20, 25}, {30, 31}}
	if got := a.Union(b); !slices.Equal(got, want) {
		t.Errorf("a.Union(b) = %v, want %v", got, want)
	}
	if got := b.Union(a); !slices.Equal(got, want) {
		t.Errorf("b.Union(a) = %v, want %v", got, want)
	}
	// Equal starts: both sides' ranges land once.
	if got := (Ranges{{3, 4}}).Union(Ranges{{3, 8}}); !slices.Equal(got, Ranges{{3, 8}}) {
		t.Errorf("equal starts: %v", got)
	}
}

// Carry keeps exactly the seen bytes outside a replaced region, up to its
// edges, and the new bytes.
func TestCarryEdges(t *testing.T) {
	seen := Ranges{{0, 4}, {6, 10}}
	// Replace bytes [4, 6) (2 bytes) by 3 new bytes: the range ending at the
	// region's start and the one starting at its end both survive, shifted.
	got := seen.Carry([]receipt.Match{{Offset: 4, OldBytes: 2, NewBytes: 3}}, 11)
	if want := (Ranges{{0, 11}}); !slices.Equal(got, want) {
		t.Errorf("Carry = %v, want %v", got, want)
	}
	// A seen range that ends exactly where the region starts keeps all of it;
	// one that starts inside the region keeps only its part after.
	got = (Ranges{{0, 4}, {5, 9}}).Carry([]receipt.Match{{Offset: 4, OldBytes: 2, NewBytes: 0}}, 8)
	if !slices.Equal(got, Ranges{{0, 7}}) {
		t.Errorf("Carry = %v, want [{0 7}]", got)
	}
}
