package textedit

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"testing"
)

// countingBufs lends new slices and keeps track of the ones not yet back.
type countingBufs struct {
	t    *testing.T
	lent map[*byte]bool
	gets int
}

func (c *countingBufs) Get(n int) []byte {
	b := bytes.Repeat([]byte{0xff}, max(n, 1))[:0] // not zeroed, as a reused slice is not
	c.lent[&b[:1][0]] = true
	c.gets++
	return b
}

func (c *countingBufs) Put(b []byte) {
	k := &b[:1][0]
	if !c.lent[k] {
		c.t.Errorf("Put of a slice that was not lent (or put back twice)")
	}
	delete(c.lent, k)
}

// ApplyBuffers gives the same result as ApplyContext, builds it in lent
// slices, hands back every one but the result's text, and on an error
// keeps none.
func TestApplyBuffers(t *testing.T) {
	text := []byte(strings.Repeat("alpha beta gamma\n", 200) + "delta\n")
	bigText, bigEdits := indexedCase(indexMinEdits + 2)
	for _, tc := range []struct {
		name  string
		text  []byte
		edits []Edit
		fails bool
	}{
		{"one edit", text, []Edit{{Old: "delta", New: "DELTA"}}, false},
		{"three edits", text, []Edit{{Old: "delta", New: "DELTA"}, {Old: "beta", New: "B", ReplaceAll: true}, {Old: "DELTA", New: "d"}}, false},
		{"a longer text", text, []Edit{{Old: "beta", New: "beta beta", ReplaceAll: true}}, false},
		{"the last edit misses", text, []Edit{{Old: "delta", New: "DELTA"}, {Old: "beta", New: "B", ReplaceAll: true}, {Old: "nowhere", New: "x"}}, true},
		{"the first edit misses", text, []Edit{{Old: "nowhere", New: "x"}}, true},
		{"ambiguous", text, []Edit{{Old: "delta", New: "DELTA"}, {Old: "gamma", New: "G"}}, true},
		{"indexed", bigText, bigEdits, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, wantErr := ApplyContext(context.Background(), tc.text, tc.edits, 0)
			orig := bytes.Clone(tc.text)
			bufs := &countingBufs{t: t, lent: map[*byte]bool{}}
			got, err := ApplyBuffers(context.Background(), tc.text, tc.edits, 0, bufs)
			if (err != nil) != tc.fails || (wantErr != nil) != tc.fails {
				t.Fatalf("err = %v, ApplyContext's = %v; want failure %v", err, wantErr, tc.fails)
			}
			if !bytes.Equal(tc.text, orig) {
				t.Fatal("the input text was written to")
			}
			if tc.fails {
				if len(bufs.lent) != 0 {
					t.Fatalf("%d slices still lent after an error", len(bufs.lent))
				}
				return
			}
			if !bytes.Equal(got.Text, want.Text) || len(got.Matches) != len(want.Matches) || got.Count != want.Count {
				t.Fatal("ApplyBuffers and ApplyContext disagree")
			}
			if cap(got.Text) != max(len(got.Text), 1) {
				t.Errorf("the result's slice was asked for %d bytes, the text has %d", cap(got.Text), len(got.Text))
			}
			if bufs.gets == 0 || len(bufs.lent) != 1 || !bufs.lent[&got.Text[:1][0]] {
				t.Fatalf("%d lent, %d not back; want only the result's text kept", bufs.gets, len(bufs.lent))
			}
		})
	}
}

// indexedCase is a text and edits enough for the indexed engine: n
// unique markers in over indexMinBytes of text, each replaced once.
func indexedCase(n int) ([]byte, []Edit) {
	var b bytes.Buffer
	var edits []Edit
	filler := strings.Repeat("alpha beta gamma\n", indexMinBytes/16/n+1)
	for i := range n {
		b.WriteString(filler)
		m := fmt.Sprintf("<marker %03d>", i)
		b.WriteString(m + "\n")
		edits = append(edits, Edit{Old: m, New: fmt.Sprintf("[%d]", i)})
	}
	return b.Bytes(), edits
}
