package stet

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet/tools"
)

// checkGroups compares the rows of a file's hits built from the groups a
// worker copies out of it (groupHits, then the offset skipped as the pager
// skips it) with the rows built from the whole file: the same rows, seen
// ranges (offsets in the file), counts and cut, for every offset.
func checkGroups(t *testing.T, pattern string, data []byte, multiline bool, before, after, limit, maxBytes int) {
	t.Helper()
	q, err := compileGrep(GrepArgs{Pattern: pattern, Multiline: multiline, OutputMode: tools.GrepContent})
	if err != nil {
		return
	}
	q.need = 0
	var lower []byte
	hits, _, err := q.scan(context.Background(), data, &lower)
	if err != nil {
		t.Fatal(err)
	}
	groups, held := groupHits(data, slices.Clone(hits), before, after)
	n := 0
	for _, g := range groups {
		n += len(g.data)
		if g.at < 0 || g.at+len(g.data) > len(data) || string(data[g.at:g.at+len(g.data)]) != string(g.data) {
			t.Fatalf("group at %d is not the file's bytes there: %q", g.at, g.data)
		}
	}
	if n != held || held > len(data) {
		t.Fatalf("groups hold %d bytes, held says %d, of a %d-byte file", n, held, len(data))
	}
	for skip := 0; skip <= len(hits); skip++ {
		var whole, parts rowBuilder
		want := whole.build(data, hits[skip:], before, after, limit, maxBytes, "f")
		sel, left, total := skipHits(nil, groups, skip)
		if left != 0 || total != len(hits)-skip {
			t.Fatalf("skip %d of %d hits: %d left to skip, %d hits kept", skip, len(hits), left, total)
		}
		got := parts.buildGroups(sel, before, after, limit, maxBytes, "f")
		if g, w := fmt.Sprintf("%+v", got), fmt.Sprintf("%+v", want); g != w {
			t.Fatalf("pattern %q (multiline %v) before %d after %d limit %d bytes %d skip %d over %q:\nfrom groups %s\nfrom file   %s",
				pattern, multiline, before, after, limit, maxBytes, skip, data, g, w)
		}
	}
}

// FuzzGrepGroups: the rows of a file's hits built from the lines copied out
// of it are those built from the whole file.
func FuzzGrepGroups(f *testing.F) {
	seeds := []struct{ pattern, data string }{
		{"a", "a\nb\nc\na\nd\ne\nf\ng\na\n"},
		{"a", "a\na\na"},
		{"x", "\n\nx\n\n\nx\n\n"},
		{"b", "a\nb"},
		{"a\nb", "a\nb\nc\na\nb\n"},
		{"(?s)a.*c", "a\nb\nc\nd\n"},
		{"l", "long " + strings.Repeat("line ", 200) + "\nl\n"},
		{"^", "one\ntwo\nthree\n"},
	}
	for _, s := range seeds {
		f.Add(s.pattern, []byte(s.data), uint8(0x21), uint16(100), uint16(1000))
		f.Add(s.pattern, []byte(s.data), uint8(0xf3), uint16(2), uint16(12))
	}
	f.Fuzz(func(t *testing.T, pattern string, data []byte, ctx uint8, limit, maxBytes uint16) {
		if pattern == "" || len(pattern) > 32 || len(data) > 4096 {
			return
		}
		before, after := int(ctx&7), int(ctx>>3&7)
		checkGroups(t, pattern, data, ctx&0x80 != 0, before, after, int(limit%64)+1, int(maxBytes)+1)
	})
}

// TestGrepGroupsCases runs the comparison over files whose hits' context
// meets, overlaps and stops at the file's ends, and long lines.
func TestGrepGroupsCases(t *testing.T) {
	var b strings.Builder
	for i := range 300 {
		switch {
		case i%17 == 0, i%17 == 3, i%29 == 1:
			fmt.Fprintf(&b, "hit %d\n", i)
		case i%41 == 0:
			b.WriteString(strings.Repeat("filler ", 400) + "\n")
		default:
			fmt.Fprintf(&b, "line %d\n", i)
		}
	}
	data := []byte(b.String())
	for _, d := range [][]byte{data, data[:len(data)-1], []byte("hit\n"), []byte("hit"), []byte("\nhit\n\n")} {
		for _, ml := range []bool{false, true} {
			for before := range 4 {
				for after := range 4 {
					checkGroups(t, "hit", d, ml, before, after, 1000, 1<<20)
					checkGroups(t, "hit", d, ml, before, after, 3, 1<<20)
					checkGroups(t, `hit \d+\nline`, d, true, before, after, 1000, 200)
				}
			}
		}
	}
}
