package frame

import (
	"bytes"
	"errors"
	"strings"
	"testing"
	"unicode/utf8"
)

var seeds = []string{
	"", "a", "\n", "\n\n", "a\nb", "a\nb\n", "a\r\nb\r\n", "a\r\nb\nc\rd",
	"\ufeffpackage a\n", "\tx\t\n", "\xff\xfe\x80\n", "a\x00b\n\x00",
	"00001|x\n(1 line)", "(2 lines)\n", "|||\n|", "日本語\nテキスト\n",
}

func FuzzRoundTrip(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, text []byte) {
		fr := Encode(text)
		got, err := Decode(fr)
		if err != nil {
			t.Fatalf("Decode(Encode(%q)): %v", text, err)
		}
		if !bytes.Equal(got, text) {
			t.Fatalf("Decode(Encode(%q)) = %q", text, got)
		}
		if utf8.Valid(text) && !utf8.ValidString(fr) {
			t.Fatalf("frame of valid UTF-8 %q is not valid UTF-8", text)
		}
		n := LineCount(text)
		if c := strings.Count(fr, "\n"); c != n {
			t.Fatalf("frame has %d newlines, want %d", c, n)
		}
		if want := "(" + countLines(n) + ")"; !strings.HasSuffix(fr, "\n"+want) {
			t.Fatalf("frame %q does not end with %q", fr, want)
		}
	})
}

func FuzzDecode(f *testing.F) {
	for _, s := range seeds {
		f.Add(Encode([]byte(s)))
	}
	f.Add("00002|b\n(lines 2-2 of 3; next: offset 3)")
	f.Add("00003|c\n(lines 3-3 of 3; end of file)")
	f.Add("00001|a\n(1 line)\n")
	f.Add("000001|a\n(1 line)")
	f.Add("00001|a\n(2 lines)")
	f.Add("(lines 1-0 of 0; end of file)")
	f.Add("hello")
	f.Fuzz(func(t *testing.T, fr string) {
		if text, err := Decode(fr); err == nil {
			if again := Encode(text); again != fr {
				t.Fatalf("Decode accepted %q, which re-encodes to %q", fr, again)
			}
		} else if !errors.Is(err, ErrNotFrame) {
			t.Fatalf("Decode error %v does not wrap ErrNotFrame", err)
		}
		from, text, err := DecodeWindow(fr)
		if err != nil {
			if !errors.Is(err, ErrNotFrame) {
				t.Fatalf("DecodeWindow error %v does not wrap ErrNotFrame", err)
			}
			return
		}
		// Rebuild a file holding the shown text at line from, and
		// re-encode the same window of it.
		p, _ := parse(fr)
		if p.n > 1<<16 {
			return
		}
		var file []byte
		file = append(file, strings.Repeat("\n", from-1)...)
		file = append(file, text...)
		if p.to < p.n {
			file = append(file, strings.Repeat("\n", p.n-p.to-1)...)
		}
		w, err := EncodeWindow(file, Options{Offset: from, Limit: p.to - from + 1, MaxBytes: len(file) + 1})
		if err != nil {
			t.Fatalf("re-encoding window of %q: %v", fr, err)
		}
		if w.Frame != fr {
			t.Fatalf("DecodeWindow accepted %q, which re-encodes to %q", fr, w.Frame)
		}
	})
}

func FuzzWindow(f *testing.F) {
	for _, s := range seeds {
		f.Add([]byte(s), 1, 0)
		f.Add([]byte(s), 2, 3)
	}
	f.Add([]byte("short\n"+strings.Repeat("x", 50)+"\nshort"), 0, 10)
	f.Fuzz(func(t *testing.T, text []byte, limit, maxBytes int) {
		limit = max(limit, 0) % 50
		maxBytes = max(maxBytes, 0) % 200
		n := LineCount(text)
		var got []byte
		for offset := 1; ; {
			w, err := EncodeWindow(text, Options{Offset: offset, Limit: limit, MaxBytes: maxBytes})
			var lt *LineTooLongError
			if errors.As(err, &lt) {
				start := LineStart(text, offset)
				end := len(text)
				if i := bytes.IndexByte(text[start:], '\n'); i >= 0 {
					end = start + i + 1
				}
				if lt.Line != offset || lt.Bytes != end-start || lt.Bytes <= lt.Max {
					t.Fatalf("offset %d: %+v, line is %d bytes", offset, *lt, end-start)
				}
				return
			}
			if err != nil {
				t.Fatalf("offset %d: %v", offset, err)
			}
			if w.From != offset || w.To < w.From || w.To > n || w.Lines != n {
				t.Fatalf("offset %d: window %d-%d of %d (file %d)", offset, w.From, w.To, w.Lines, n)
			}
			if limit > 0 && w.To-w.From+1 > limit {
				t.Fatalf("window %d-%d over limit %d", w.From, w.To, limit)
			}
			if maxBytes > 0 && w.End-w.Start > maxBytes {
				t.Fatalf("window %d-%d has %d bytes, over %d", w.From, w.To, w.End-w.Start, maxBytes)
			}
			if w.Start != LineStart(text, w.From) || w.Start != len(got) {
				t.Fatalf("window %d-%d starts at %d, line starts at %d, previous windows end at %d", w.From, w.To, w.Start, LineStart(text, w.From), len(got))
			}
			if w.To < n && w.End != LineStart(text, w.To+1) {
				t.Fatalf("window %d-%d ends at %d, next line starts at %d", w.From, w.To, w.End, LineStart(text, w.To+1))
			}
			if w.To == n && w.End != len(text) {
				t.Fatalf("last window ends at %d of %d", w.End, len(text))
			}
			from, shown, err := DecodeWindow(w.Frame)
			if err != nil || from != w.From || !bytes.Equal(shown, text[w.Start:w.End]) {
				t.Fatalf("DecodeWindow(%q) = %d, %q, %v; want %d, %q", w.Frame, from, shown, err, w.From, text[w.Start:w.End])
			}
			if w.Whole != (w.From == 1 && w.To == n) || (w.Whole && w.Frame != Encode(text)) {
				t.Fatalf("window %d-%d of %d: Whole = %v", w.From, w.To, n, w.Whole)
			}
			got = append(got, shown...)
			if w.To == n {
				break
			}
			// The window is as long as the bounds allow.
			effLimit, effMax := limit, maxBytes
			if effLimit == 0 {
				effLimit = DefaultLimit
			}
			if effMax == 0 {
				effMax = DefaultMaxBytes
			}
			nextEnd := len(text)
			if i := bytes.IndexByte(text[w.End:], '\n'); i >= 0 {
				nextEnd = w.End + i + 1
			}
			if w.To-w.From+1 < effLimit && nextEnd-w.Start <= effMax {
				t.Fatalf("window %d-%d stops early: line %d fits", w.From, w.To, w.To+1)
			}
			offset = w.To + 1
		}
		if !bytes.Equal(got, text) {
			t.Fatalf("windows concatenate to %q, want %q", got, text)
		}
	})
}
