package policy

import (
	"encoding/json"
	"slices"
	"testing"
)

func TestRangesJSON(t *testing.T) {
	rs := Ranges{{0, 5}, {10, 12}, {100, 2000}}
	b, err := json.Marshal(rs)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "[0,5,10,12,100,2000]" {
		t.Errorf("Marshal = %s, want the flat form", b)
	}
	for _, in := range []string{
		"[0,5,10,12,100,2000]",
		" [ 0 , 5,10,12 ,100,2000 ] ",
		`[{"Start":0,"End":5},{"Start":10,"End":12},{"Start":100,"End":2000}]`, // journals written before
		"[10,12,0,5,100,2000]",              // out of order: normalized
		"[0,5,5,5,10,12,100,2000]",          // an empty range: dropped
		"[0,3,2,5,10,12,100,1000,999,2000]", // overlapping: merged
	} {
		var got Ranges
		if err := json.Unmarshal([]byte(in), &got); err != nil {
			t.Errorf("Unmarshal(%s): %v", in, err)
			continue
		}
		if !slices.Equal(got, rs) {
			t.Errorf("Unmarshal(%s) = %v, want %v", in, got, rs)
		}
	}
	for _, in := range []string{"[0,5,10]", `["0",5]`, "[01,5]", "[-1,5]", "[1.5,2]", "{}", "[0,,5]", "[0,5,]"} {
		var got Ranges
		if err := json.Unmarshal([]byte(in), &got); err == nil {
			t.Errorf("Unmarshal(%s) = %v, want an error", in, got)
		}
	}
	var empty Ranges
	if err := json.Unmarshal([]byte("[]"), &empty); err != nil || len(empty) != 0 {
		t.Errorf("Unmarshal([]) = %v, %v", empty, err)
	}
}

// FuzzRangesJSON: the fast reader agrees with encoding/json on every input
// it accepts.
func FuzzRangesJSON(f *testing.F) {
	for _, s := range []string{"[0,5]", "[]", " [1 ,2] ", "[01]", "[1,", "[18446744073709551616,1]", "[0,5,10,12]"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		fast, ok := parseInts([]byte(s))
		if !ok {
			return
		}
		var slow []int
		if err := json.Unmarshal([]byte(s), &slow); err != nil {
			t.Fatalf("parseInts accepted %q, which encoding/json refuses: %v", s, err)
		}
		if !slices.Equal(fast, slow) && !(len(fast) == 0 && len(slow) == 0) {
			t.Fatalf("parseInts(%q) = %v, encoding/json = %v", s, fast, slow)
		}
	})
}
