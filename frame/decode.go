package frame

import (
	"strconv"
	"strings"
)

// Decode returns the text a whole-file frame encodes. It is the strict
// inverse of Encode: it accepts exactly the strings Encode returns and
// refuses anything else (a window frame, a missing or miscounted trailer, a
// newline after the trailer, a line number out of sequence or of the wrong
// width, a missing "|") with a *SyntaxError that says what is wrong and on
// which line of the frame.
func Decode(frame string) ([]byte, error) {
	p, err := parse(frame)
	if err != nil {
		return nil, err
	}
	if !p.whole {
		return nil, syntaxErr(p.trailerLine, "trailer %q is that of a window (lines %d-%d of %d), not of a whole file", p.trailer, p.from, p.to, p.n)
	}
	return p.text, nil
}

// DecodeWindow returns the first line number and the text of a window frame,
// or of a whole-file frame (from is then 1). The text is the shown segments
// joined with "\n", followed by a "\n" when the window stops before the end
// of the file; it is text[Window.Start:Window.End] of the file that was
// encoded. Like Decode it accepts only what EncodeWindow can return, so a
// window trailer that covers every line ("(lines 1-N of N; end of file)") is
// refused: such a window carries the whole-file trailer.
func DecodeWindow(frame string) (from int, text []byte, err error) {
	p, err := parse(frame)
	if err != nil {
		return 0, nil, err
	}
	return p.from, p.text, nil
}

type parsed struct {
	from, to, n int
	whole       bool
	text        []byte
	trailer     string
	trailerLine int
}

func parse(frame string) (parsed, error) {
	var p parsed
	if frame == "" {
		return p, syntaxErr(0, "empty input")
	}
	body, tr := "", frame
	if i := strings.LastIndexByte(frame, '\n'); i >= 0 {
		body, tr = frame[:i+1], frame[i+1:]
	}
	lines := strings.Count(body, "\n")
	p.trailer, p.trailerLine = tr, lines+1
	if tr == "" {
		if i := strings.LastIndexByte(body[:len(body)-1], '\n'); isTrailer(body[i+1 : len(body)-1]) {
			return p, syntaxErr(lines+1, "newline after the trailer: the trailer must be the last line, with no newline after it")
		}
		return p, syntaxErr(lines+1, "missing trailer: the frame must end with \"(N lines)\" or a window trailer, with no newline after it")
	}
	if err := p.parseTrailer(); err != nil {
		return p, err
	}
	if want := p.to - p.from + 1; lines != want {
		return p, syntaxErr(p.trailerLine, "trailer %q announces %d numbered lines, the frame has %d", tr, want, lines)
	}
	w := width(p.n)
	// The text is the body less each line's number, "|" and "\n", plus the
	// "\n" that separates the segments and, before the end of the file,
	// follows the last one.
	size := len(body) - lines*(w+2) + lines
	if p.to == p.n {
		size--
	}
	if size < 0 {
		size = 0 // the line check below fails first
	}
	out := make([]byte, 0, size)
	num := newCounter(p.from, w)
	rest := body
	for k := range lines {
		line := rest[:strings.IndexByte(rest, '\n')]
		rest = rest[len(line)+1:]
		if len(line) <= w || line[:w+1] != string(num.prefix) {
			return p, syntaxErr(k+1, "want %q, found %s", num.prefix, quoteClip(line, w+11))
		}
		out = append(out, line[w+1:]...)
		if k < lines-1 || p.to < p.n {
			out = append(out, '\n')
		}
		num.next()
	}
	p.text = out
	return p, nil
}

// parseTrailer reads p.trailer into p.from, p.to, p.n and p.whole.
func (p *parsed) parseTrailer() error {
	bad := func(why string) error {
		return syntaxErr(p.trailerLine, "trailer %s %s", quoteClip(p.trailer, 80), why)
	}
	t, ok := strings.CutPrefix(p.trailer, "(")
	if !ok {
		return bad("does not start with \"(\"; the last line of a frame is its trailer")
	}
	t, ok = strings.CutSuffix(t, ")")
	if !ok {
		return bad("does not end with \")\"")
	}
	if rest, ok := strings.CutPrefix(t, "lines "); ok {
		return p.parseWindowTrailer(rest, bad)
	}
	count, unit, ok := strings.Cut(t, " ")
	n, okN := number(count)
	switch {
	case !ok || !okN:
		return bad("is not \"(N lines)\" or a window trailer")
	case n == 0:
		return bad("counts no lines; a frame has at least one")
	case n == 1 && unit != "line":
		return bad("must read \"(1 line)\"")
	case n > 1 && unit != "lines":
		return bad("must read \"(" + count + " lines)\"")
	}
	p.from, p.to, p.n, p.whole = 1, n, n, true
	return nil
}

// parseWindowTrailer reads "A-B of N; next: offset B+1" or
// "A-B of N; end of file".
func (p *parsed) parseWindowTrailer(t string, bad func(string) error) error {
	rng, t, ok1 := strings.Cut(t, " of ")
	total, tail, ok2 := strings.Cut(t, "; ")
	a, b, ok3 := strings.Cut(rng, "-")
	from, ok4 := number(a)
	to, ok5 := number(b)
	n, ok6 := number(total)
	if !ok1 || !ok2 || !ok3 || !ok4 || !ok5 || !ok6 {
		return bad("is not \"(lines A-B of N; next: offset B+1)\" or \"(lines A-B of N; end of file)\"")
	}
	switch {
	case from < 1 || from > to || to > n:
		return bad("has a line range outside 1..N or reversed")
	case tail == "end of file":
		if to != n {
			return bad("says end of file before the last line")
		}
		if from == 1 {
			return bad("covers the whole file; a whole file's trailer is \"(" + countLines(n) + ")\"")
		}
	default:
		next, ok := strings.CutPrefix(tail, "next: offset ")
		off, okOff := number(next)
		if !ok || !okOff {
			return bad("does not end with \"; next: offset B+1)\" or \"; end of file)\"")
		}
		if to == n {
			return bad("offers a next offset after the last line")
		}
		if off != to+1 {
			return bad("offers next offset " + next + ", not " + strconv.Itoa(to+1))
		}
	}
	p.from, p.to, p.n = from, to, n
	return nil
}

// number parses a decimal with no sign and no leading zero, small enough
// that widths and line arithmetic cannot overflow.
func number(s string) (int, bool) {
	if s == "" || len(s) > 15 || (s[0] == '0' && len(s) > 1) {
		return 0, false
	}
	n := 0
	for i := range len(s) {
		c := s[i]
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// isTrailer reports whether s parses as a trailer.
func isTrailer(s string) bool {
	p := parsed{trailer: s}
	return p.parseTrailer() == nil
}

// quoteClip quotes at most n bytes of s for an error message, and marks
// the cut.
func quoteClip(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	return strconv.Quote(s[:n]) + "..."
}
