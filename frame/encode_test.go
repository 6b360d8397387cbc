package frame

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

func TestEncode(t *testing.T) {
	tests := []struct {
		name, text, want string
	}{
		{"empty file", "", "00001|\n(1 line)"},
		{"one line no newline", "a", "00001|a\n(1 line)"},
		{"one line with newline", "a\n", "00001|a\n00002|\n(2 lines)"},
		{"lone newline", "\n", "00001|\n00002|\n(2 lines)"},
		{"no final newline", "a\nb", "00001|a\n00002|b\n(2 lines)"},
		{"crlf keeps carriage returns", "a\r\nb\r\n", "00001|a\r\n00002|b\r\n00003|\n(3 lines)"},
		{"mixed endings", "a\r\nb\nc\rd", "00001|a\r\n00002|b\n00003|c\rd\n(3 lines)"},
		{"lone carriage return is not a line break", "a\rb", "00001|a\rb\n(1 line)"},
		{"bom", "\ufeffpackage a\n", "00001|\ufeffpackage a\n00002|\n(2 lines)"},
		{"tabs", "\tx\t\n", "00001|\tx\t\n00002|\n(2 lines)"},
		{"invalid utf-8", "\xff\xfe\x80\n", "00001|\xff\xfe\x80\n00002|\n(2 lines)"},
		{"nul bytes", "a\x00b\n\x00", "00001|a\x00b\n00002|\x00\n(2 lines)"},
		{"pipes and digits in text", "00002|x\n(1 line)", "00001|00002|x\n00002|(1 line)\n(2 lines)"},
		{"blank lines", "\n\n\n", "00001|\n00002|\n00003|\n00004|\n(4 lines)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Encode([]byte(tt.text))
			if got != tt.want {
				t.Errorf("Encode(%q)\n got %q\nwant %q", tt.text, got, tt.want)
			}
			back, err := Decode(got)
			if err != nil {
				t.Fatalf("Decode(Encode(%q)): %v", tt.text, err)
			}
			if string(back) != tt.text {
				t.Errorf("Decode(Encode(%q)) = %q", tt.text, back)
			}
		})
	}
}

func TestEncodeWidth(t *testing.T) {
	tests := []struct {
		lines       int
		first, last string
		trailer     string
		window      string
	}{
		{99999, "00001|", "99999|", "(99999 lines)", "00050|x\n00051|x\n(lines 50-51 of 99999; next: offset 52)"},
		{100000, "000001|", "100000|", "(100000 lines)", "000050|x\n000051|x\n(lines 50-51 of 100000; next: offset 52)"},
		{1000000, "0000001|", "1000000|", "(1000000 lines)", "0000050|x\n0000051|x\n(lines 50-51 of 1000000; next: offset 52)"},
	}
	for _, tt := range tests {
		text := []byte(strings.Repeat("x\n", tt.lines-1) + "x")
		got := Encode(text)
		if !strings.HasPrefix(got, tt.first+"x\n") {
			t.Errorf("%d lines: frame starts %q, want %q", tt.lines, got[:20], tt.first)
		}
		if want := "\n" + tt.last + "x\n" + tt.trailer; !strings.HasSuffix(got, want) {
			t.Errorf("%d lines: frame ends %q, want suffix %q", tt.lines, got[len(got)-40:], want)
		}
		if n := strings.Count(got, "\n"); n != tt.lines {
			t.Errorf("%d lines: frame has %d newlines", tt.lines, n)
		}
		// Every line has the same width, windows included.
		w, err := EncodeWindow(text, Options{Offset: 50, Limit: 2})
		if err != nil {
			t.Fatal(err)
		}
		if w.Frame != tt.window {
			t.Errorf("%d lines: window\n got %q\nwant %q", tt.lines, w.Frame, tt.window)
		}
	}
}

func TestEncodeWindow(t *testing.T) {
	text := "one\ntwo\nthree\nfour\n" // 5 numbered lines, the last empty
	tests := []struct {
		name       string
		text       string
		o          Options
		want       string
		from, to   int
		start, end int
		whole      bool
	}{
		{"defaults show the whole file", text, Options{}, "00001|one\n00002|two\n00003|three\n00004|four\n00005|\n(5 lines)", 1, 5, 0, 19, true},
		{"offset 1 explicit", text, Options{Offset: 1}, "00001|one\n00002|two\n00003|three\n00004|four\n00005|\n(5 lines)", 1, 5, 0, 19, true},
		{"limit", text, Options{Limit: 2}, "00001|one\n00002|two\n(lines 1-2 of 5; next: offset 3)", 1, 2, 0, 8, false},
		{"middle window", text, Options{Offset: 2, Limit: 2}, "00002|two\n00003|three\n(lines 2-3 of 5; next: offset 4)", 2, 3, 4, 14, false},
		{"window to end of file", text, Options{Offset: 3}, "00003|three\n00004|four\n00005|\n(lines 3-5 of 5; end of file)", 3, 5, 8, 19, false},
		{"last empty line alone", text, Options{Offset: 5}, "00005|\n(lines 5-5 of 5; end of file)", 5, 5, 19, 19, false},
		{"single line window", text, Options{Offset: 4, Limit: 1}, "00004|four\n(lines 4-4 of 5; next: offset 5)", 4, 4, 14, 19, false},
		{"limit exactly the file", text, Options{Limit: 5}, "00001|one\n00002|two\n00003|three\n00004|four\n00005|\n(5 lines)", 1, 5, 0, 19, true},
		// "one\n" is 4 bytes, "two\n" 4: 8 fits, 14 with "three\n" does not.
		{"byte bound exact", text, Options{MaxBytes: 8}, "00001|one\n00002|two\n(lines 1-2 of 5; next: offset 3)", 1, 2, 0, 8, false},
		{"byte bound one short", text, Options{MaxBytes: 7}, "00001|one\n(lines 1-1 of 5; next: offset 2)", 1, 1, 0, 4, false},
		{"byte bound counts the last line without newline", "ab\ncd", Options{Offset: 2, MaxBytes: 2}, "00002|cd\n(lines 2-2 of 2; end of file)", 2, 2, 3, 5, false},
		{"byte bound and limit, limit first", text, Options{Limit: 1, MaxBytes: 100}, "00001|one\n(lines 1-1 of 5; next: offset 2)", 1, 1, 0, 4, false},
		{"empty file", "", Options{}, "00001|\n(1 line)", 1, 1, 0, 0, true},
		{"empty file tiny bound", "", Options{MaxBytes: 1}, "00001|\n(1 line)", 1, 1, 0, 0, true},
		{"no final newline whole", "a\nb", Options{Offset: 2}, "00002|b\n(lines 2-2 of 2; end of file)", 2, 2, 2, 3, false},
		{"crlf window", "a\r\nb\r\nc", Options{Offset: 2, Limit: 1}, "00002|b\r\n(lines 2-2 of 3; next: offset 3)", 2, 2, 3, 6, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := EncodeWindow([]byte(tt.text), tt.o)
			if err != nil {
				t.Fatal(err)
			}
			if w.Frame != tt.want {
				t.Errorf("frame\n got %q\nwant %q", w.Frame, tt.want)
			}
			if w.From != tt.from || w.To != tt.to || w.Start != tt.start || w.End != tt.end || w.Whole != tt.whole {
				t.Errorf("window %d-%d [%d,%d) whole=%v, want %d-%d [%d,%d) whole=%v",
					w.From, w.To, w.Start, w.End, w.Whole, tt.from, tt.to, tt.start, tt.end, tt.whole)
			}
			if w.Lines != LineCount([]byte(tt.text)) {
				t.Errorf("Lines = %d, want %d", w.Lines, LineCount([]byte(tt.text)))
			}
			from, shown, err := DecodeWindow(w.Frame)
			if err != nil {
				t.Fatalf("DecodeWindow: %v", err)
			}
			if from != tt.from || string(shown) != tt.text[tt.start:tt.end] {
				t.Errorf("DecodeWindow = %d, %q; want %d, %q", from, shown, tt.from, tt.text[tt.start:tt.end])
			}
			if tt.whole && w.Frame != Encode([]byte(tt.text)) {
				t.Errorf("whole window differs from Encode")
			}
		})
	}
}

func TestEncodeWindowErrors(t *testing.T) {
	text := []byte("short\n" + strings.Repeat("x", 300) + "\nshort\n")
	t.Run("line too long", func(t *testing.T) {
		_, err := EncodeWindow(text, Options{Offset: 2, MaxBytes: 100})
		var lt *LineTooLongError
		if !errors.As(err, &lt) {
			t.Fatalf("err = %v, want *LineTooLongError", err)
		}
		if *lt != (LineTooLongError{Line: 2, Bytes: 301, Max: 100}) {
			t.Errorf("err = %+v", *lt)
		}
		if want := "line 2 is 301 bytes, over the 100-byte read limit"; err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
	})
	t.Run("long line after the first stops the window", func(t *testing.T) {
		w, err := EncodeWindow(text, Options{MaxBytes: 100})
		if err != nil {
			t.Fatal(err)
		}
		if w.To != 1 || !strings.HasSuffix(w.Frame, "(lines 1-1 of 4; next: offset 2)") {
			t.Errorf("window %d-%d %q", w.From, w.To, w.Frame)
		}
	})
	t.Run("line exactly at the bound", func(t *testing.T) {
		w, err := EncodeWindow(text, Options{Offset: 2, MaxBytes: 301, Limit: 1})
		if err != nil || w.End-w.Start != 301 {
			t.Fatalf("w = %+v, err = %v", w, err)
		}
	})
	t.Run("offset past end", func(t *testing.T) {
		_, err := EncodeWindow(text, Options{Offset: 5})
		var oe *OffsetError
		if !errors.As(err, &oe) || *oe != (OffsetError{Offset: 5, Lines: 4}) {
			t.Fatalf("err = %v, want *OffsetError{5, 4}", err)
		}
		if want := "offset 5 is past the end of the file (4 lines)"; err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
	})
	t.Run("offset past end of empty file", func(t *testing.T) {
		_, err := EncodeWindow(nil, Options{Offset: 2})
		var oe *OffsetError
		if !errors.As(err, &oe) || oe.Lines != 1 {
			t.Fatalf("err = %v", err)
		}
		if want := "offset 2 is past the end of the file (1 line)"; err.Error() != want {
			t.Errorf("message %q, want %q", err, want)
		}
	})
	for _, o := range []Options{{Offset: -1}, {Limit: -1}, {MaxBytes: -1}} {
		if _, err := EncodeWindow(text, o); !errors.Is(err, ErrInvalidOptions) {
			t.Errorf("EncodeWindow(%+v) err = %v, want ErrInvalidOptions", o, err)
		}
	}
}

func TestEncodeWindowDefaults(t *testing.T) {
	t.Run("default limit", func(t *testing.T) {
		text := []byte(strings.Repeat("x\n", 3000))
		w, err := EncodeWindow(text, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if w.To != DefaultLimit || !strings.HasSuffix(w.Frame, "(lines 1-2000 of 3001; next: offset 2001)") {
			t.Errorf("to = %d, trailer %q", w.To, w.Frame[len(w.Frame)-45:])
		}
	})
	t.Run("default byte bound", func(t *testing.T) {
		line := strings.Repeat("y", 1023) + "\n" // 1 KiB a line
		text := []byte(strings.Repeat(line, 300))
		w, err := EncodeWindow(text, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want := DefaultMaxBytes / 1024; w.To != want || w.End != DefaultMaxBytes {
			t.Errorf("to = %d, end = %d, want %d, %d", w.To, w.End, want, DefaultMaxBytes)
		}
	})
}

func TestLineHelpers(t *testing.T) {
	text := []byte("ab\ncd\n")
	if n := LineCount(text); n != 3 {
		t.Errorf("LineCount = %d", n)
	}
	if n := LineCount(nil); n != 1 {
		t.Errorf("LineCount(nil) = %d", n)
	}
	for line, want := range map[int]int{-1: -1, 0: -1, 1: 0, 2: 3, 3: 6, 4: -1} {
		if got := LineStart(text, line); got != want {
			t.Errorf("LineStart(%d) = %d, want %d", line, got, want)
		}
	}
	for off, want := range map[int]int{-1: 0, 0: 1, 1: 1, 2: 1, 3: 2, 5: 2, 6: 3, 7: 0} {
		if got := LineOf(text, off); got != want {
			t.Errorf("LineOf(%d) = %d, want %d", off, got, want)
		}
	}
}

func BenchmarkEncode(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"4KiB", 4 << 10}, {"1MiB", 1 << 20}, {"10MiB", 10 << 20}} {
		// About 100 bytes a line: a 10 MiB file has about 105k lines.
		line := strings.Repeat("abcdefghij", 9) + "\tx = y;\r\n"
		text := bytes.Repeat([]byte(line), size.n/len(line)+1)[:size.n]
		b.Run(size.name, func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				_ = Encode(text)
			}
		})
		b.Run(size.name+"/window", func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				_, _ = EncodeWindow(text, Options{Offset: LineCount(text) / 2, MaxBytes: MaxMaxBytes, Limit: 1 << 30})
			}
		})
		b.Run(size.name+"/decode", func(b *testing.B) {
			f := Encode(text)
			b.SetBytes(int64(len(text)))
			for b.Loop() {
				_, _ = Decode(f)
			}
		})
	}
}
