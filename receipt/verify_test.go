package receipt

import (
	"bytes"
	"errors"
	"math/rand/v2"
	"strings"
	"testing"
)

// edit replaces old bytes at off of a preimage with new.
type edit struct {
	off, old int
	new      string
}

// build splices edits (sorted, not overlapping) into pre and returns the
// readback and a correct receipt with Old and New recorded when record is
// set.
func build(pre string, record bool, edits ...edit) ([]byte, Receipt) {
	var rb []byte
	r := Receipt{Before: StateOf([]byte(pre)), Matches: []Match{}}
	at := 0
	for _, e := range edits {
		rb = append(rb, pre[at:e.off]...)
		rb = append(rb, e.new...)
		m := Match{Offset: e.off, OldBytes: e.old, NewBytes: len(e.new), Line: strings.Count(pre[:e.off], "\n") + 1}
		if record {
			m.Old, m.New = []byte(pre[e.off:e.off+e.old]), []byte(e.new)
		}
		r.Matches = append(r.Matches, m)
		at = e.off + e.old
	}
	rb = append(rb, pre[at:]...)
	r.After = StateOf(rb)
	return rb, r
}

const pre = "package main\n\nfunc main() {\n\tprintln(\"hello\")\n}\n"

func TestVerifyPasses(t *testing.T) {
	hello := strings.Index(pre, "hello")
	tests := []struct {
		name  string
		pre   string
		edits []edit
	}{
		{"one replacement", pre, []edit{{hello, 5, "hello, world"}}},
		{"two replacements", pre, []edit{{0, 7, "package"}, {hello, 5, "bye"}}},
		{"deletion of a region", pre, []edit{{hello - 1, 7, ""}}},
		{"insertion", pre, []edit{{len(pre), 0, "// end\n"}}},
		{"insertion at start", pre, []edit{{0, 0, "// start\n"}}},
		{"two insertions at one offset", pre, []edit{{5, 0, "a"}, {5, 0, "b"}}},
		{"whole-file write", pre, []edit{{0, len(pre), "new\ncontent"}}},
		{"no change", pre, nil},
		{"crlf", "a\r\nb\r\n", []edit{{3, 1, "B"}}},
		{"binary bytes", "\x00\xff\n\x00", []edit{{1, 1, "\xfe\x00"}}},
	}
	for _, tt := range tests {
		for _, record := range []bool{false, true} {
			rb, r := build(tt.pre, record, tt.edits...)
			if err := Verify([]byte(tt.pre), rb, r); err != nil {
				t.Errorf("%s (record %v): %v", tt.name, record, err)
			}
		}
	}
}

func TestVerifyCreateAndDelete(t *testing.T) {
	content := []byte("new file\n")
	create := Receipt{After: StateOf(content), Matches: []Match{{Offset: 0, OldBytes: 0, NewBytes: len(content), Line: 1}}}
	if err := Verify(nil, content, create); err != nil {
		t.Errorf("create: %v", err)
	}
	if err := Verify([]byte{}, content, create); err != nil {
		t.Errorf("create with empty non-nil preimage: %v", err)
	}
	emptyCreate := Receipt{After: StateOf(nil)}
	if err := Verify(nil, []byte{}, emptyCreate); err != nil {
		t.Errorf("create of an empty file: %v", err)
	}
	del := Receipt{Before: StateOf([]byte(pre)), Matches: []Match{{Offset: 0, OldBytes: len(pre), Line: 1}}}
	if err := Verify([]byte(pre), nil, del); err != nil {
		t.Errorf("delete: %v", err)
	}
	delNoMatch := Receipt{Before: StateOf([]byte(pre))}
	if err := Verify([]byte(pre), nil, delNoMatch); err != nil {
		t.Errorf("delete without match: %v", err)
	}

	bad := []struct {
		name               string
		preimage, readback []byte
		r                  Receipt
		reason             string
	}{
		{"create over existing bytes", []byte("x"), content, create, "before is null (a create) but the preimage holds 1 bytes"},
		{"create without a match", nil, content, Receipt{After: StateOf(content)}, "readback has 9 bytes more"},
		{"delete that left bytes", []byte(pre), []byte{}, del, "after is null (a delete) but the readback holds 0 bytes"},
		{"delete that adds bytes", []byte(pre), nil, Receipt{Before: StateOf([]byte(pre)), Matches: []Match{{Offset: 0, OldBytes: len(pre), NewBytes: 1, Line: 1}}}, "adds 1 bytes but after is null"},
		{"delete of other bytes", []byte("other"), nil, del, "before.bytes is"},
	}
	for _, tt := range bad {
		err := Verify(tt.preimage, tt.readback, tt.r)
		checkMismatch(t, tt.name, err, tt.reason)
	}
}

func TestVerifyFails(t *testing.T) {
	hello := strings.Index(pre, "hello") // 38; pre has 48 bytes
	good, r := build(pre, false, edit{hello, 5, "bye"})
	_, rec := build(pre, true, edit{hello, 5, "bye"})
	with := func(f func(*Receipt)) Receipt {
		c := r
		c.Before, c.After = new(*r.Before), new(*r.After)
		c.Matches = append([]Match(nil), r.Matches...)
		f(&c)
		return c
	}
	recWith := func(f func(*Receipt)) Receipt {
		c := rec
		c.Matches = append([]Match(nil), rec.Matches...)
		f(&c)
		return c
	}
	changed := func(b []byte, i int, c byte) []byte {
		b = bytes.Clone(b)
		b[i] = c
		return b
	}
	tests := []struct {
		name     string
		readback []byte
		r        Receipt
		offset   int
		reason   string
	}{
		{"byte changed in a gap", changed(good, 3, 'X'), with(func(c *Receipt) { c.After = StateOf(changed(good, 3, 'X')) }), 3, "readback byte 3 differs from unchanged preimage byte 3 (before match 0)"},
		{"byte changed after the match", changed(good, len(good)-2, '{'), with(func(c *Receipt) { c.After = StateOf(changed(good, len(good)-2, '{')) }), len(good) - 2, "(after the last match)"},
		{"byte changed, after state not updated", changed(good, 0, 'P'), r, 0, "readback byte 0 differs"},
		{"region shifted by one", []byte(pre[:hello+1] + "bye" + pre[hello+6:]), r, hello + 3, "readback byte 41 differs from unchanged preimage byte 43 (after the last match)"},
		{"region shifted by one, receipt side", good, with(func(c *Receipt) { c.Matches[0].Offset++ }), hello, "readback byte 38 differs from unchanged preimage byte 38 (before match 0)"},
		{"bytes appended", append(bytes.Clone(good), '\n'), with(func(c *Receipt) { c.After = StateOf(append(bytes.Clone(good), '\n')) }), len(good), "readback has 1 bytes more than the receipt accounts for"},
		{"bytes truncated", good[:len(good)-1], with(func(c *Receipt) { c.After = StateOf(good[:len(good)-1]) }), len(good) - 1, "readback ends at byte 45, 1 bytes short"},
		{"truncated inside the new region", good[:hello+1], with(func(c *Receipt) { c.After = StateOf(good[:hello+1]) }), hello + 1, "readback ends inside the 3 new bytes of match 0"},
		{"new region too long for the receipt", []byte(pre[:hello] + "byee" + pre[hello+5:]), with(func(c *Receipt) { c.After = StateOf([]byte(pre[:hello] + "byee" + pre[hello+5:])) }), hello + 3, "readback byte 41 differs from unchanged preimage byte 43"},
		{"wrong new region", []byte(pre[:hello] + "BYE" + pre[hello+5:]), recWith(func(c *Receipt) { c.After = StateOf([]byte(pre[:hello] + "BYE" + pre[hello+5:])) }), hello, "match 0: readback byte 38 is not the new bytes"},
		{"wrong new region without New is caught by the hash", []byte(pre[:hello] + "BYE" + pre[hello+5:]), r, -1, "after.version is"},
		{"wrong old bytes", good, recWith(func(c *Receipt) { c.Matches[0].Old = []byte("hellO") }), hello + 4, "preimage byte 42 is not the old bytes"},
		{"old of the wrong size", good, recWith(func(c *Receipt) { c.Matches[0].Old = []byte("hell") }), hello, "records 4 old bytes but old_bytes is 5"},
		{"new of the wrong size", good, recWith(func(c *Receipt) { c.Matches[0].New = []byte("by") }), hello, "records 2 new bytes but new_bytes is 3"},
		{"wrong before hash", good, with(func(c *Receipt) { c.Before.Version = StateOf([]byte("x")).Version }), -1, "before.version is sha256:2d711642b726"},
		{"wrong after hash", good, with(func(c *Receipt) { c.After.Version = StateOf([]byte("x")).Version }), -1, "after.version is sha256:2d711642b726"},
		{"wrong before bytes", good, with(func(c *Receipt) { c.Before.Bytes++ }), -1, "before.bytes is 49, the preimage has 48"},
		{"wrong after lines", good, with(func(c *Receipt) { c.After.Lines = 1 }), -1, "after.lines is 1, the readback has 6"},
		{"wrong line", good, with(func(c *Receipt) { c.Matches[0].Line = 3 }), hello, "match 0 has line 3, preimage byte 38 is on line 4"},
		{"negative offset", good, with(func(c *Receipt) { c.Matches[0].Offset = -1 }), -1, "negative field"},
		{"past the preimage", good, with(func(c *Receipt) { c.Matches[0].OldBytes = len(pre) }), hello, "ends past the preimage's 48 bytes"},
		{"offset past the preimage", good, with(func(c *Receipt) { c.Matches[0].Offset = len(pre) + 1 }), len(pre) + 1, "ends past the preimage"},
		{"overlapping matches", good, with(func(c *Receipt) {
			c.Matches = []Match{{Offset: 10, OldBytes: 5, NewBytes: 5, Line: 1}, {Offset: 14, OldBytes: 1, NewBytes: 1, Line: 2}}
		}), 14, "match 1 at preimage byte 14 starts before the end of match 0 (byte 15)"},
		{"unsorted matches", good, with(func(c *Receipt) {
			c.Matches = []Match{{Offset: 20, NewBytes: 0, Line: 3}, {Offset: 10, NewBytes: 0, Line: 1}}
		}), 10, "matches must be sorted"},
	}
	for _, tt := range tests {
		err := Verify([]byte(pre), tt.readback, tt.r)
		var ve *VerifyError
		checkMismatch(t, tt.name, err, tt.reason)
		if errors.As(err, &ve) && ve.Offset != tt.offset {
			t.Errorf("%s: offset %d, want %d (%v)", tt.name, ve.Offset, tt.offset, err)
		}
	}
}

func checkMismatch(t *testing.T, name string, err error, reason string) {
	t.Helper()
	var ve *VerifyError
	switch {
	case err == nil:
		t.Errorf("%s: Verify passed, want an error", name)
	case !errors.Is(err, ErrMismatch) || !errors.As(err, &ve):
		t.Errorf("%s: err %T %v, want *VerifyError wrapping ErrMismatch", name, err, err)
	case !strings.Contains(ve.Reason, reason):
		t.Errorf("%s: reason %q, want it to contain %q", name, ve.Reason, reason)
	}
}

func TestStateOf(t *testing.T) {
	s := StateOf([]byte("a\nb\n"))
	if s.Bytes != 4 || s.Lines != 3 || s.Version != "sha256:911169ddaaf146aff539f58c26c489af3b892dff0fe283c1c264c65ae5aa59a2" {
		t.Errorf("StateOf = %+v", *s)
	}
	if s := StateOf(nil); s.Bytes != 0 || s.Lines != 1 || s.Version != "sha256:e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855" {
		t.Errorf("StateOf(nil) = %+v", *s)
	}
	if n := Lines([]byte("\n\n")); n != 3 {
		t.Errorf("Lines = %d", n)
	}
}

func FuzzVerify(f *testing.F) {
	f.Add([]byte(pre), uint64(1), uint64(2))
	f.Add([]byte(""), uint64(3), uint64(4))
	f.Add([]byte("a\r\nb\r\n\x00\xff"), uint64(5), uint64(6))
	f.Fuzz(func(t *testing.T, text []byte, seed1, seed2 uint64) {
		rng := rand.New(rand.NewPCG(seed1, seed2))
		record := rng.IntN(2) == 0
		// Random sorted, non-overlapping regions.
		var edits []edit
		for at := 0; at <= len(text) && rng.IntN(4) != 0; {
			off := at + rng.IntN(len(text)-at+1)
			old := rng.IntN(len(text) - off + 1)
			nw := make([]byte, rng.IntN(8))
			for i := range nw {
				nw[i] = byte(rng.Uint32())
			}
			edits = append(edits, edit{off, old, string(nw)})
			at = off + old
		}
		rb, r := build(string(text), record, edits...)
		if err := Verify(text, rb, r); err != nil {
			t.Fatalf("correct receipt refused: %v (edits %+v)", err, edits)
		}
		if len(rb) == 0 {
			return
		}
		i := rng.IntN(len(rb))
		bad := bytes.Clone(rb)
		bad[i] ^= byte(1 + rng.IntN(255))
		if err := Verify(text, bad, r); !errors.Is(err, ErrMismatch) {
			t.Fatalf("flipped readback byte %d passed: err %v (edits %+v)", i, err, edits)
		}
	})
}

func BenchmarkVerify(b *testing.B) {
	line := strings.Repeat("abcdefghij", 9) + "\tx = y;\n"
	pre := strings.Repeat(line, 10<<20/len(line))
	mid := len(pre) / 2
	rb, r := build(pre, true, edit{mid, 10, "replacement text"})
	preb := []byte(pre)
	b.SetBytes(int64(len(pre)))
	for b.Loop() {
		if err := Verify(preb, rb, r); err != nil {
			b.Fatal(err)
		}
	}
}
