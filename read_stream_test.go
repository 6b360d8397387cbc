package stet

import (
	"testing"
	"unicode/utf8"

	"github.com/stet-dev/stet/internal/engine"
)

// TestUTF8StreamMatchesWholeCheck: checking in pieces finds what checking
// the whole text finds, wherever the pieces split a rune.
func TestUTF8StreamMatchesWholeCheck(t *testing.T) {
	texts := []string{"", "abc", "é", "日本語", "a😀b", "\xff", "a\xe6\x97", "\xe6\x97a", "é\xc3", "ok\xed\xa0\x80", "😀\x80", "\xef\xbf\xbd"}
	for _, s := range texts {
		want := -1
		if !utf8.ValidString(s) {
			want = engine.InvalidUTF8([]byte(s))
		}
		for step := 1; step <= len(s)+1; step++ {
			var u engine.Utf8Stream
			ok := true
			for rest := []byte(s); len(rest) > 0 && ok; {
				k := min(step, len(rest))
				ok = u.Write(rest[:k])
				rest = rest[k:]
			}
			ok = ok && u.End()
			got := -1
			if !ok {
				got = u.Bad
			}
			if got != want {
				t.Errorf("%q in pieces of %d: bad at %d, want %d", s, step, got, want)
			}
		}
	}
}

func FuzzUTF8Stream(f *testing.F) {
	f.Add([]byte("a\xe6\x97\xa5b"), 2)
	f.Fuzz(func(t *testing.T, b []byte, step int) {
		if step <= 0 {
			t.Skip()
		}
		want := -1
		if !utf8.Valid(b) {
			want = engine.InvalidUTF8(b)
		}
		var u engine.Utf8Stream
		ok := true
		for rest := b; len(rest) > 0 && ok; {
			k := min(step, len(rest))
			ok = u.Write(rest[:k])
			rest = rest[k:]
		}
		got := -1
		if !(ok && u.End()) {
			got = u.Bad
		}
		if got != want {
			t.Fatalf("%q step %d: %d, want %d", b, step, got, want)
		}
	})
}
