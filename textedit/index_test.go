package textedit

import (
	"context"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// sameAsSequential checks that the indexed engine gives exactly what the
// rescanning engine gives: text, matches, EOL, count, or the same error.
func sameAsSequential(t *testing.T, text string, edits []Edit) {
	t.Helper()
	want, wantErr := applySequential(context.Background(), []byte(text), edits, 0, nil)
	got, err := applyIndexed(context.Background(), []byte(text), edits, 0, nil)
	if fmt.Sprintf("%T %v", err, err) != fmt.Sprintf("%T %v", wantErr, wantErr) {
		t.Fatalf("%q %+v:\nindexed error  %T %v\nsequential     %T %v", text, edits, err, err, wantErr, wantErr)
	}
	if wantErr != nil {
		if d := cmp.Diff(wantErr, err); d != "" {
			t.Fatalf("%q %+v: errors differ:\n%s", text, edits, d)
		}
		return
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%q %+v: results differ (-sequential +indexed):\n%s", text, edits, d)
	}
}

func TestIndexedMatchesSequential(t *testing.T) {
	cases := []struct {
		text  string
		edits []Edit
	}{
		{"abc", []Edit{{Old: "b", New: "x"}}},
		{"aaa", []Edit{{Old: "a", New: "bb", ReplaceAll: true}, {Old: "bb", New: "a", ReplaceAll: true}}},
		{"abcabc", []Edit{{Old: "abc", New: ""}}}, // ambiguous
		{"abc", []Edit{{Old: "b", New: "xy"}, {Old: "axyc", New: "z"}}},
		{"abcdef", []Edit{{Old: "cd", New: ""}, {Old: "be", New: "Q"}}},  // a match across a deletion
		{"abcdef", []Edit{{Old: "c", New: "c1"}, {Old: "1d", New: "_"}}}, // across a piece's edge
		{"a\r\nb\r\nc", []Edit{{Old: "a\nb", New: "x\ny"}, {Old: "y\nc", New: "z"}}},
		{"a\nb", []Edit{{Old: "a\nb", New: "x"}, {Old: "q", New: "r"}}}, // no match
		{"one two one", []Edit{{Old: "two", New: "one"}, {Old: "one", New: "1", ReplaceAll: true}}},
		{"xx", []Edit{{Old: "x", New: "", ReplaceAll: true}, {Old: "y", New: "z"}}},
		{"aaaa", []Edit{{Old: "aa", New: "b", ReplaceAll: true}}},
		{"ab", []Edit{{Old: "a", New: "aa"}, {Old: "aab", New: "c"}}},
	}
	for _, c := range cases {
		sameAsSequential(t, c.text, c.edits)
	}
}

// TestIndexedRandom runs random edit lists, most of them matching, through
// both engines.
func TestIndexedRandom(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := "ab\n\r"
	word := func(n int) string {
		var b strings.Builder
		for range n {
			b.WriteByte(alphabet[r.IntN(len(alphabet))])
		}
		return b.String()
	}
	for range 3000 {
		text := word(r.IntN(40))
		cur := text
		var edits []Edit
		for range 1 + r.IntN(6) {
			old := word(1 + r.IntN(3))
			if len(cur) > 0 && r.IntN(3) > 0 {
				s := r.IntN(len(cur))
				old = cur[s:min(len(cur), s+1+r.IntN(4))]
			}
			e := Edit{Old: old, New: word(r.IntN(4)), ReplaceAll: r.IntN(2) == 0}
			if e.Old == e.New {
				continue
			}
			edits = append(edits, e)
			if res, err := applySequential(context.Background(), []byte(cur), []Edit{e}, 0, nil); err == nil {
				cur = string(res.Text)
			}
		}
		if len(edits) > 0 {
			sameAsSequential(t, text, edits)
		}
	}
}

func FuzzIndexedMatchesSequential(f *testing.F) {
	f.Add("abcabc\r\nx", "b", "yy", "cy", "", true)
	f.Fuzz(func(t *testing.T, text, old1, new1, old2, new2 string, all bool) {
		if old1 == "" || old2 == "" || old1 == new1 || old2 == new2 {
			t.Skip()
		}
		sameAsSequential(t, text, []Edit{{Old: old1, New: new1, ReplaceAll: all}, {Old: old2, New: new2}})
	})
}

// manyEdits makes a text of about size bytes and n unique edits spread over
// it.
func manyEdits(size, n int) ([]byte, []Edit) {
	var b strings.Builder
	lines := 0
	for b.Len() < size {
		fmt.Fprintf(&b, "\tvalue_%07d := compute(%d) // a line of code\n", lines, lines)
		lines++
	}
	edits := make([]Edit, n)
	for k := range edits {
		l := k * (lines / n)
		edits[k] = Edit{Old: fmt.Sprintf("value_%07d := compute(", l), New: fmt.Sprintf("renamed_%07d := compute(", l)}
	}
	return []byte(b.String()), edits
}

func TestManyEditsOnePass(t *testing.T) {
	text, edits := manyEdits(1<<20, 200)
	want, err := applySequential(context.Background(), text, edits, 0, nil)
	if err != nil {
		t.Fatal(err)
	}
	got, err := ApplyContext(context.Background(), text, edits, 0)
	if err != nil {
		t.Fatal(err)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("results differ:\n%s", d)
	}
	if got.Count != 200 || len(got.Matches) != 200 {
		t.Fatalf("count %d, %d matches", got.Count, len(got.Matches))
	}
}

func benchManyEdits(b *testing.B, size, n int, apply func(context.Context, []byte, []Edit, int) (Result, error)) {
	text, edits := manyEdits(size, n)
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := apply(context.Background(), text, edits, 0); err != nil {
			b.Fatal(err)
		}
	}
}

// sequential is applySequential without Buffers, as ApplyContext is.
func sequential(ctx context.Context, text []byte, edits []Edit, max int) (Result, error) {
	return applySequential(ctx, text, edits, max, nil)
}

func BenchmarkEdits4000On8MiBSequential(b *testing.B) {
	benchManyEdits(b, 8<<20, 4000, sequential)
}
func BenchmarkEdits4000On8MiB(b *testing.B) { benchManyEdits(b, 8<<20, 4000, ApplyContext) }
func BenchmarkEdits64On8MiBSequential(b *testing.B) {
	benchManyEdits(b, 8<<20, 64, sequential)
}
func BenchmarkEdits64On8MiB(b *testing.B) { benchManyEdits(b, 8<<20, 64, ApplyContext) }
