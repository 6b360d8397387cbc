package policy

import "testing"

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
		{"full: windows cover a file over one window", BindFull, Observation{Seen: Ranges{{0, 200}}, Size: 200, Windowed: true}, []Range{{0, 1}}, true, none},
		{"full: windows short of the end", BindFull, Observation{Seen: Ranges{{0, 120}}, Size: 200, Windowed: true}, []Range{{0, 1}}, false, &NotSeen{Range{120, 200}}},
		{"unknown mode acts as seen", Binding("bogus"), partial, []Range{{60, 61}}, false, &NotSeen{Range{60, 61}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := CheckBinding(tt.mode, tt.obs, tt.regions, tt.whole)
			if (got == nil) != (tt.want == nil) || got != nil && *got != *tt.want {
				t.Errorf("CheckBinding = %+v, want %+v", got, tt.want)
			}
		})
	}
}
