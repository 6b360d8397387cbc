package frame

import (
	"errors"
	"strings"
	"testing"
)

func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name, frame string
		line        int    // the line the error must name; 0 for none
		msg         string // a part of the message
	}{
		{"empty input", "", 0, "empty input"},
		{"trailer only", "(1 line)", 1, "announces 1 numbered lines, the frame has 0"},
		{"no trailer", "00001|a\n", 2, "missing trailer"},
		{"no trailer, last line numbered", "00001|a\n00002|b", 2, "does not start with \"(\""},
		{"newline after trailer", "00001|a\n(1 line)\n", 3, "newline after the trailer"},
		{"newline after window trailer", "00002|b\n(lines 2-2 of 3; next: offset 3)\n", 3, "newline after the trailer"},
		{"two newlines after trailer", "00001|a\n(1 line)\n\n", 4, "missing trailer"},
		{"plain text", "hello world", 1, "does not start with \"(\""},
		{"text then trailer-like", "hello\n(1 line)", 1, "want \"00001|\", found \"hello\""},
		{"count too high", "00001|a\n(2 lines)", 2, "announces 2 numbered lines, the frame has 1"},
		{"count too low", "00001|a\n00002|b\n(1 line)", 3, "announces 1 numbered lines, the frame has 2"},
		{"singular for many", "00001|a\n00002|b\n(2 line)", 3, "must read \"(2 lines)\""},
		{"plural for one", "00001|a\n(1 lines)", 2, "must read \"(1 line)\""},
		{"zero lines", "(0 lines)", 1, "counts no lines"},
		{"leading zero count", "00001|a\n(01 line)", 2, "is not \"(N lines)\""},
		{"signed count", "00001|a\n(+1 line)", 2, "is not \"(N lines)\""},
		{"space in trailer", "00001|a\n( 1 line)", 2, "is not \"(N lines)\""},
		{"unclosed trailer", "00001|a\n(1 line", 2, "does not end with \")\""},
		{"trailer with extra words", "00001|a\n(1 line total)", 2, "must read \"(1 line)\""},
		{"numbers out of order", "00002|a\n00001|b\n(2 lines)", 1, "want \"00001|\", found \"00002|a\""},
		{"number skipped", "00001|a\n00003|b\n(2 lines)", 2, "want \"00002|\", found \"00003|b\""},
		{"number repeated", "00001|a\n00001|b\n(2 lines)", 2, "want \"00002|\""},
		{"narrow width", "0001|a\n(1 line)", 1, "want \"00001|\", found \"0001|a\""},
		{"wide width", "000001|a\n(1 line)", 1, "want \"00001|\", found \"000001|a\""},
		{"wide width under 100k", "000001|a\n000002|b\n(2 lines)", 1, "want \"00001|\""},
		{"missing pipe", "00001 a\n(1 line)", 1, "want \"00001|\", found \"00001 a\""},
		{"colon not pipe", "00001:a\n(1 line)", 1, "want \"00001|\""},
		{"number only", "00001\n(1 line)", 1, "want \"00001|\", found \"00001\""},
		{"blank numbered line", "00001|a\n\n(2 lines)", 2, "want \"00002|\", found \"\""},
		{"crlf frame", "00001|a\r\n(1 line)\r", 2, "does not end with \")\""},
		{"leading space", " 00001|a\n(1 line)", 1, "want \"00001|\""},
		{"cat -n style", "     1\ta\n(1 line)", 1, "want \"00001|\""},
		{"window frame", "00002|b\n(lines 2-2 of 3; next: offset 3)", 2, "is that of a window (lines 2-2 of 3)"},
		{"window frame at end", "00003|c\n(lines 3-3 of 3; end of file)", 2, "is that of a window"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text, err := Decode(tt.frame)
			if err == nil {
				t.Fatalf("Decode(%q) = %q, want an error", tt.frame, text)
			}
			var se *SyntaxError
			if !errors.As(err, &se) || !errors.Is(err, ErrNotFrame) {
				t.Fatalf("err = %T %v, want *SyntaxError wrapping ErrNotFrame", err, err)
			}
			if se.Line != tt.line {
				t.Errorf("error names line %d, want %d: %v", se.Line, tt.line, err)
			}
			if !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("message %q does not contain %q", err, tt.msg)
			}
		})
	}
}

func TestDecodeWindow(t *testing.T) {
	tests := []struct {
		name, frame string
		from        int
		text        string
	}{
		{"whole frame", "00001|a\n00002|b\n(2 lines)", 1, "a\nb"},
		{"empty file", "00001|\n(1 line)", 1, ""},
		{"middle", "00002|b\n00003|c\n(lines 2-3 of 5; next: offset 4)", 2, "b\nc\n"},
		{"first lines", "00001|a\n(lines 1-1 of 2; next: offset 2)", 1, "a\n"},
		{"end of file", "00004|d\n00005|\n(lines 4-5 of 5; end of file)", 4, "d\n"},
		{"end of file no final newline", "00005|e\n(lines 5-5 of 5; end of file)", 5, "e"},
		{"wide", "100000|z\n(lines 100000-100000 of 100000; end of file)", 100000, "z"},
		{"wide middle", "000050|x\n(lines 50-50 of 100000; next: offset 51)", 50, "x\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, text, err := DecodeWindow(tt.frame)
			if err != nil {
				t.Fatal(err)
			}
			if from != tt.from || string(text) != tt.text {
				t.Errorf("DecodeWindow = %d, %q; want %d, %q", from, text, tt.from, tt.text)
			}
		})
	}
}

func TestDecodeWindowRefuses(t *testing.T) {
	tests := []struct{ name, frame, msg string }{
		{"whole file as window", "00001|a\n(lines 1-1 of 1; end of file)", "covers the whole file; a whole file's trailer is \"(1 line)\""},
		{"end of file too early", "00002|b\n(lines 2-2 of 3; end of file)", "says end of file before the last line"},
		{"next after last", "00003|c\n(lines 3-3 of 3; next: offset 4)", "offers a next offset after the last line"},
		{"wrong next", "00002|b\n(lines 2-2 of 5; next: offset 4)", "offers next offset 4, not 3"},
		{"reversed range", "00003|c\n(lines 3-2 of 5; next: offset 3)", "outside 1..N or reversed"},
		{"line zero", "00000|c\n(lines 0-0 of 5; next: offset 1)", "outside 1..N or reversed"},
		{"past total", "00006|c\n(lines 6-6 of 5; end of file)", "outside 1..N or reversed"},
		{"count mismatch", "00002|b\n(lines 2-3 of 5; next: offset 4)", "announces 2 numbered lines, the frame has 1"},
		{"wrong start number", "00003|b\n(lines 2-2 of 5; next: offset 3)", "want \"00002|\""},
		{"width of total", "000002|b\n(lines 2-2 of 5; next: offset 3)", "want \"00002|\""},
		{"narrow width of big total", "00002|b\n(lines 2-2 of 100000; next: offset 3)", "want \"000002|\""},
		{"garbled tail", "00002|b\n(lines 2-2 of 5; more)", "does not end with \"; next: offset B+1)\""},
		{"garbled range", "00002|b\n(lines 2 to 2 of 5; end of file)", "is not \"(lines A-B of N"},
		{"leading zero in range", "00002|b\n(lines 02-2 of 5; next: offset 3)", "is not \"(lines A-B of N"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			from, text, err := DecodeWindow(tt.frame)
			if err == nil {
				t.Fatalf("DecodeWindow(%q) = %d, %q; want an error", tt.frame, from, text)
			}
			if !errors.Is(err, ErrNotFrame) || !strings.Contains(err.Error(), tt.msg) {
				t.Errorf("err = %v, want ErrNotFrame with %q", err, tt.msg)
			}
		})
	}
}

func TestEchoes(t *testing.T) {
	file := "package main\n\nfunc main() {\n\tprintln(\"hi\")\n}\n"
	frame := Encode([]byte(file))
	win, err := EncodeWindow([]byte(file), Options{Offset: 3, Limit: 2})
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		results []string
		answer  string
		want    bool
	}{
		{"empty answer", []string{frame}, "", false},
		{"white space answer", []string{frame}, " \n\t", false},
		{"no results", nil, "hello", false},
		{"the frame as sent", []string{frame}, frame, true},
		{"the frame with white space around", []string{frame}, "\n" + frame + "\n\n", true},
		{"part of a result as sent", []string{"3 files changed"}, "files changed", true},
		{"decoded file text", []string{frame}, file, true},
		{"a line of the file", []string{frame}, "func main() {", true},
		{"lines spanning the prefixes", []string{frame}, "func main() {\n\tprintln(\"hi\")", true},
		{"a window of the frame", []string{frame}, win.Frame, true},
		{"decoded window text", []string{win.Frame}, "func main() {\n\tprintln(\"hi\")\n", true},
		{"answer frame of text inside a plain result", []string{"output: x := 1\ny := 2\ndone"}, Encode([]byte("x := 1\ny := 2")), true},
		{"result frame with white space around", []string{"\n" + frame + "\n"}, "func main() {\n\tprintln", true},
		{"second result", []string{"nothing", frame}, "println", true},
		{"new text", []string{frame}, "The program prints hi.", false},
		{"answer adds to the echo", []string{frame}, "func main() {} // fixed", false},
		{"frame of other text", []string{frame}, Encode([]byte("func other() {}\n")), false},
		{"crlf is not lf", []string{frame}, "func main() {\r\n\tprintln", false},
		{"empty-file frame answers only by itself", []string{frame}, "00001|\n(1 line)", false},
		{"empty-file frame echoed", []string{"00001|\n(1 line)"}, "00001|\n(1 line)", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := Echoes(tt.results, tt.answer); got != tt.want {
				t.Errorf("Echoes = %v, want %v", got, tt.want)
			}
		})
	}
}
