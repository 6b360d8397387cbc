package stet_test

import (
	"context"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/stet-dev/stet"
)

// TestListSort pins list's sort argument (SPEC section 2): name, the
// default, is path order; size puts the largest first, a tie in name
// order, and limit then keeps the largest.
func TestListSort(t *testing.T) {
	ctx := context.Background()
	_, s, _ := open(t, map[string]string{
		"b.txt":       "bb\n",
		"a.txt":       "a\n",
		"c.txt":       "cccccc\n",
		"d/e.txt":     "eeeeeeeeee\n",
		"d/f.txt":     "bb\n",
		"zz/tiny.txt": "\n",
	}, stet.Options{})
	names := func(r *stet.ListResult) []string {
		var out []string
		for _, e := range r.Entries {
			out = append(out, e.Name)
		}
		return out
	}
	for _, tc := range []struct {
		args      stet.ListArgs
		want      []string
		truncated bool
	}{
		{stet.ListArgs{}, []string{"a.txt", "b.txt", "c.txt", "d", "zz"}, false},
		{stet.ListArgs{Sort: "name"}, []string{"a.txt", "b.txt", "c.txt", "d", "zz"}, false},
		{stet.ListArgs{Sort: "size"}, []string{"c.txt", "b.txt", "a.txt", "d", "zz"}, false},
		{stet.ListArgs{Sort: "size", Depth: 2}, []string{"d/e.txt", "c.txt", "b.txt", "d/f.txt", "a.txt", "zz/tiny.txt", "d", "zz"}, false},
		{stet.ListArgs{Sort: "size", Depth: 2, Limit: 2}, []string{"d/e.txt", "c.txt"}, true},
	} {
		r, err := s.List(ctx, tc.args)
		if err != nil {
			t.Fatalf("list %+v: %v", tc.args, err)
		}
		if diff := cmp.Diff(tc.want, names(r)); diff != "" || r.Truncated != tc.truncated {
			t.Errorf("list %+v: truncated %v (want %v), entries (-want +got):\n%s", tc.args, r.Truncated, tc.truncated, diff)
		}
	}
	_, err := s.List(ctx, stet.ListArgs{Sort: "sise"})
	if kindOf(err) != "invalid" {
		t.Fatalf("sort sise: %v, want an invalid refusal", err)
	}
}
