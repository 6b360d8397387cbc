package policy

import (
	"strings"
	"testing"

	"github.com/stet-dev/stet/receipt"
)

func TestCheckBinding(t *testing.T) {
	partial := Observation{Version: "sha256:x", Seen: Ranges{{10, 50}, {80, 100}}, Size: 200}
	whole := Observation{Version: "sha256:x", Seen: Ranges{{0, 200}}, Whole: true, Size: 200}
	seenAll := Observation{Version: "sha256:x", Seen: Ranges{{0, 200}}, Size: 200} // read in windows
	empty := Observation{Version: "sha256:x", Size: 0}
	none := (*NotSeen)(nil)
	tests := []struct {
		name    string
		mode    Binding
		obs     Observation
		regions []Range
		whole   bool
		want    *NotSeen
	}{
		{"seen: inside", BindSeen, partial, []Range{{12, 20}, {80, 100}}, false, none},
		{"seen: edge of a range", BindSeen, partial, []Range{{10, 50}}, false, none},
		{"seen: starts before", BindSeen, partial, []Range{{5, 20}}, false, &NotSeen{Range{5, 10}}},
		{"seen: spans a hole", BindSeen, partial, []Range{{40, 90}}, false, &NotSeen{Range{50, 80}}},
		{"seen: second region", BindSeen, partial, []Range{{12, 20}, {150, 160}}, false, &NotSeen{Range{150, 160}}},
		{"seen: insertion inside", BindSeen, partial, []Range{{30, 30}}, false, none},
		{"seen: insertion at edge", BindSeen, partial, []Range{{50, 50}}, false, none},
		{"seen: insertion at start edge", BindSeen, partial, []Range{{80, 80}}, false, none},
		{"seen: insertion outside", BindSeen, partial, []Range{{60, 60}}, false, &NotSeen{Range{60, 60}}},
		{"seen: whole replace needs all", BindSeen, partial, nil, true, &NotSeen{Range{0, 10}}},
		{"seen: whole replace after windows", BindSeen, seenAll, nil, true, none},
		{"seen: whole read", BindSeen, whole, []Range{{0, 200}}, true, none},
		{"seen: empty file", BindSeen, empty, []Range{{0, 0}}, true, none},
		{"read: anything", BindRead, partial, []Range{{150, 160}}, true, none},
		{"full: needs a whole read", BindFull, seenAll, []Range{{0, 1}}, false, &NotSeen{Range{0, 200}}},
		{"full: whole read", BindFull, whole, []Range{{0, 1}}, true, none},
		{"unknown mode acts as seen", Binding("bogus"), partial, []Range{{60, 61}}, false, &NotSeen{Range{60, 61}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckBinding(tt.mode, tt.obs, tt.regions, tt.whole)
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Errorf("CheckBinding = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestNotSeenWindow(t *testing.T) {
	content := []byte("l1\nl2\nl3\nl4\nl5\n") // line n starts at 3(n-1)
	tests := []struct {
		gap           Range
		offset, limit int
	}{
		{Range{0, 3}, 1, 1},   // line 1 with its newline
		{Range{0, 2}, 1, 1},   // line 1 without
		{Range{3, 9}, 2, 2},   // lines 2-3
		{Range{4, 7}, 2, 2},   // from inside line 2 into line 3
		{Range{6, 6}, 3, 1},   // an insertion point at the start of line 3
		{Range{0, 15}, 1, 5},  // the whole file
		{Range{15, 15}, 6, 1}, // insertion at the end: the empty last line
	}
	for _, tt := range tests {
		off, lim := (&NotSeen{tt.gap}).Window(content)
		if off != tt.offset || lim != tt.limit {
			t.Errorf("Window(%v) = offset %d limit %d, want %d %d", tt.gap, off, lim, tt.offset, tt.limit)
		}
	}
	if msg := (&NotSeen{Range{3, 9}}).Error(); !strings.Contains(msg, "3-9") {
		t.Errorf("Error() = %q", msg)
	}
}

func TestObservationCarry(t *testing.T) {
	m := []receipt.Match{{Offset: 10, OldBytes: 5, NewBytes: 8}}
	whole := Observation{Version: "v1", Whole: true, Size: 100}
	got := whole.Carry(m, "v2", 103)
	if got.Version != "v2" || got.Size != 103 || !got.Whole || !got.Seen.Covers(Range{0, 103}) {
		t.Errorf("whole read carried = %+v, want whole and all seen at v2", got)
	}
	part := Observation{Version: "v1", Seen: Ranges{{0, 20}}, Size: 100}
	got = part.Carry(m, "v2", 103)
	if got.Whole || !got.Seen.Covers(Range{0, 23}) || got.Seen.Covers(Range{23, 24}) {
		t.Errorf("partial read carried = %+v, want [0,23) seen, not whole", got)
	}
	if CheckBinding(BindSeen, got, []Range{{15, 22}}, false) != nil {
		t.Error("an edit of the session's own new text must be allowed after Carry")
	}
}
