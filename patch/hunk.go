package patch

import (
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// hunkBuilder collects the body of one hunk, line by line, in either format.
type hunkBuilder struct {
	h     Hunk
	line  int      // patch line of the hunk's first line
	ctx   []string // "@@" texts seen before the body
	n     int      // body lines taken (blank lines still pending excluded)
	blank []int    // patch lines of empty lines not yet taken
	last  byte     // the kind of the last body line: ' ', '-' or '+'
}

func newHunkBuilder(line int) *hunkBuilder { return &hunkBuilder{line: line} }

// take adds one body line; lineNo is its patch line. An empty line is an
// empty context line, held back until a later line shows it is inside the
// hunk (a trailing empty line before the next header is a separator).
func (b *hunkBuilder) take(l string, lineNo int) error {
	if l == "" {
		b.blank = append(b.blank, lineNo)
		return nil
	}
	if err := b.flush(); err != nil {
		return err
	}
	return b.add(l, lineNo)
}

// flush takes the held-back empty lines as empty context lines.
func (b *hunkBuilder) flush() error {
	for _, n := range b.blank {
		if err := b.add(" ", n); err != nil {
			return err
		}
	}
	b.blank = b.blank[:0]
	return nil
}

func (b *hunkBuilder) add(l string, lineNo int) error {
	kind, text := l[0], l[1:]
	switch kind {
	case ' ':
		if b.h.OldNoEOL || b.h.NewNoEOL {
			return &ParseError{Line: lineNo, Msg: "a context line follows \"\\ No newline at end of file\": that marker must end its side of the hunk"}
		}
		b.h.Old = append(b.h.Old, text)
		b.h.New = append(b.h.New, text)
	case '-':
		if b.h.OldNoEOL {
			return &ParseError{Line: lineNo, Msg: "a removed line follows \"\\ No newline at end of file\" on the old side"}
		}
		b.h.Old = append(b.h.Old, text)
	case '+':
		if b.h.NewNoEOL {
			return &ParseError{Line: lineNo, Msg: "an added line follows \"\\ No newline at end of file\" on the new side"}
		}
		b.h.New = append(b.h.New, text)
	case '\\':
		switch b.last {
		case ' ':
			b.h.OldNoEOL, b.h.NewNoEOL = true, true
		case '-':
			b.h.OldNoEOL = true
		case '+':
			b.h.NewNoEOL = true
		default:
			return &ParseError{Line: lineNo, Msg: "\"\\ No newline at end of file\" must follow a hunk line"}
		}
		b.h.AtEOF = true
		return nil
	default:
		return badHunkLine(l, lineNo)
	}
	b.last = kind
	b.n++
	return nil
}

// finish returns the hunk; held-back empty lines are dropped.
func (b *hunkBuilder) finish() (Hunk, error) {
	b.blank = nil
	if b.n == 0 {
		return Hunk{}, &ParseError{Line: b.line, Msg: "empty hunk: a hunk needs at least one ' ', '-' or '+' line"}
	}
	if b.h.Context == "" && len(b.ctx) > 0 {
		b.h.Context = strings.Join(b.ctx, "\n")
	}
	return b.h, nil
}

func badHunkLine(l string, lineNo int) error {
	return &ParseError{Line: lineNo, Msg: fmt.Sprintf("bad hunk line %q: every line of a hunk starts with ' ' (context), '-' (removed) or '+' (added)", clip(l, 60))}
}

// unifiedHeader is what a hunk's "@@" line says.
type unifiedHeader struct {
	form                                 headerForm
	oldLine, oldCount, newLine, newCount int
	// section is the text after the second "@@", or after a lone "@@" that
	// carries no numbers.
	section string
	// double says the line starts "@@ @@" (or "@@ -l +l @@"): its text is
	// a unified section heading even inside a Codex envelope.
	double bool
}

// headerForm says how much of a hunk header could be read.
type headerForm int

const (
	headerBad     headerForm = iota // "@@ -" with no number after it, or "@@@"
	headerBare                      // no numbers: "@@", "@@ @@", "@@ text"
	headerHint                      // an old line number, counts missing or unclosed
	headerCounted                   // "@@ -l[,s] +l[,s] @@", as diff and git write it
)

// parseUnifiedHeader reads a hunk's "@@" line in any form models write:
// "@@ -l,s +l,s @@ section" as git writes it, "@@ -l +l @@" without counts,
// "@@ -l,s +l,s" unclosed, "@@ @@ section", "@@ section" and a bare "@@".
// Numbers are only hints; counts are checked against the hunk only in the
// counted form, and only to find where the hunk ends.
func parseUnifiedHeader(l string) unifiedHeader {
	h := unifiedHeader{form: headerBad}
	rest, ok := strings.CutPrefix(l, "@@")
	if !ok || strings.HasPrefix(rest, "@") {
		return h
	}
	rest = strings.TrimSpace(rest)
	if !strings.HasPrefix(rest, "-") {
		h.form = headerBare
		if after, ok := strings.CutPrefix(rest, "@@"); ok {
			h.double, rest = true, strings.TrimSpace(after)
		}
		h.section = rest
		return h
	}
	ranges, section, closed := strings.Cut(rest, "@@")
	fields := strings.Fields(ranges)
	if len(fields) == 0 || len(fields) > 2 {
		return h
	}
	if h.oldLine, h.oldCount, ok = parseRange(fields[0], '-'); !ok {
		return h
	}
	h.form, h.section, h.double = headerHint, strings.TrimSpace(section), closed
	if len(fields) == 2 {
		if h.newLine, h.newCount, ok = parseRange(fields[1], '+'); !ok {
			return unifiedHeader{form: headerBad}
		}
		if closed {
			h.form = headerCounted
		}
	}
	return h
}

// maxLine bounds the numbers of a hunk header, so arithmetic on them
// cannot overflow.
const maxLine = 1 << 30

// parseRange reads "-l[,s]" or "+l[,s]" (sign names which); a missing
// count is 1.
func parseRange(s string, sign byte) (line, count int, ok bool) {
	if len(s) < 2 || s[0] != sign {
		return 0, 0, false
	}
	ls, cs, hasCount := strings.Cut(s[1:], ",")
	line, err := strconv.Atoi(ls)
	if err != nil || line < 0 || line > maxLine || ls == "" || ls[0] == '+' || ls[0] == '-' {
		return 0, 0, false
	}
	count = 1
	if hasCount {
		count, err = strconv.Atoi(cs)
		if err != nil || count < 0 || count > maxLine || cs == "" || cs[0] == '+' || cs[0] == '-' {
			return 0, 0, false
		}
	}
	return line, count, true
}

// oldStart turns a header's old range into Hunk.OldStart: a range with no
// lines names the line after which the new lines go. 0 when the header has
// no numbers.
func (h unifiedHeader) oldStart() int {
	if h.form < headerHint {
		return 0
	}
	if h.oldCount == 0 {
		return h.oldLine + 1
	}
	return h.oldLine
}

// clip shortens s to about n bytes for a message, cutting at a rune start.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
