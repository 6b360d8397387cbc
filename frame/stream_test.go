package frame

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// checkStream compares WindowWriter, fed text in pieces of step bytes, with
// EncodeWindow.
func checkStream(t *testing.T, text string, o Options, step int) {
	t.Helper()
	want, wantErr := EncodeWindow([]byte(text), o)
	w := NewWindowWriter(o)
	for s := text; len(s) > 0; {
		k := min(step, len(s))
		if n, err := w.Write([]byte(s[:k])); n != k || err != nil {
			t.Fatalf("Write = %d, %v", n, err)
		}
		s = s[k:]
	}
	got, err := w.Window()
	if (err == nil) != (wantErr == nil) || err != nil && err.Error() != wantErr.Error() {
		t.Fatalf("%q %+v step %d: error %v, want %v", text, o, step, err, wantErr)
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("%q %+v step %d: window differs (-EncodeWindow +stream):\n%s", text, o, step, d)
	}
}

func TestWindowWriterMatchesEncodeWindow(t *testing.T) {
	texts := []string{"", "\n", "a", "a\n", "a\nb", "a\nb\n", "ab\ncd\nef\n", "\n\n\n", "long line here\nx\nyy\n",
		"é\r\nü\r\n", strings.Repeat("0123456789\n", 30) + "tail"}
	opts := []Options{{}, {Limit: 1}, {Offset: 2}, {Offset: 2, Limit: 2}, {Offset: 3, Limit: 1}, {Offset: 9},
		{MaxBytes: 1}, {MaxBytes: 2}, {MaxBytes: 3}, {MaxBytes: 5}, {Offset: 2, MaxBytes: 1}, {Offset: 2, MaxBytes: 4},
		{Offset: 30, Limit: 3, MaxBytes: 22}, {Offset: 31, MaxBytes: 4}, {Offset: -1}, {Limit: -1}, {MaxBytes: -1}}
	for _, text := range texts {
		for _, o := range opts {
			for _, step := range []int{1, 2, 3, 7, 1 << 20} {
				checkStream(t, text, o, step)
			}
		}
	}
}

func TestWindowWriterLongFirstLine(t *testing.T) {
	w := NewWindowWriter(Options{Offset: 2, MaxBytes: 4})
	w.Write([]byte("a\n0123"))
	w.Write([]byte("456789\nb\n"))
	_, err := w.Window()
	var long *LineTooLongError
	if !errors.As(err, &long) || long.Line != 2 || long.Bytes != 11 || long.Max != 4 {
		t.Fatalf("err = %v, want line 2 of 11 bytes over 4", err)
	}
}

// TestWindowWriterKeepsOnlyTheWindow: the bytes after the window are
// counted, not kept.
func TestWindowWriterKeepsOnlyTheWindow(t *testing.T) {
	w := NewWindowWriter(Options{Limit: 1})
	w.Write([]byte("first\n"))
	chunk := []byte(strings.Repeat("x", 1<<16) + "\n")
	for range 64 {
		w.Write(chunk)
	}
	if cap(w.shown) > 1<<10 {
		t.Fatalf("kept %d bytes for a one-line window", cap(w.shown))
	}
	win, err := w.Window()
	if err != nil || win.Lines != 66 || win.Frame != "00001|first\n(lines 1-1 of 66; next: offset 2)" {
		t.Fatalf("window %+v, %v", win, err)
	}
}

func FuzzWindowWriter(f *testing.F) {
	f.Add("a\nbb\nccc\n", 2, 1, 4, 3)
	f.Add("", 0, 0, 0, 1)
	f.Fuzz(func(t *testing.T, text string, offset, limit, maxBytes, step int) {
		if step <= 0 || offset > 1<<20 || limit > 1<<20 || maxBytes > 1<<20 {
			t.Skip()
		}
		checkStream(t, text, Options{Offset: offset, Limit: limit, MaxBytes: maxBytes}, step)
	})
}
