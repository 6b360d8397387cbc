package brief

import (
	"strings"
	"unicode"
)

// QuotedRequest extracts the ORIGINAL REQUEST block of a worker brief (see
// the package documentation for the forms it reads). ok is false when text
// has no such block; an empty block gives "", true.
func QuotedRequest(text string) (request string, ok bool) {
	blk, ok := findBlock(strings.Split(text, "\n"))
	return blk.content, ok
}

// block is a request block found in a brief's lines.
type block struct {
	first   int    // the marker line
	next    int    // the first line after the block and its closing line
	content string // the request, trimmed
}

// findBlock finds the first request block in lines.
func findBlock(lines []string) (block, bool) {
	for i, l := range lines {
		if b, ok := xmlBlock(lines, i); ok {
			return b, true
		}
		inline, level, ok := marker(l)
		if !ok {
			continue
		}
		b := block{first: i}
		body := lines[i+1:]
		start := 0
		if inline == "" {
			for start < len(body) && strings.TrimSpace(body[start]) == "" {
				start++
			}
			if start < len(body) {
				if c, n, ok := fenceOpen(body[start]); ok {
					end := start + 1
					for end < len(body) && !fenceClose(body[end], c, n) {
						end++
					}
					// A fence's content is taken verbatim: no ">" unquoting.
					b.content = strings.TrimSpace(strings.Join(body[start+1:end], "\n"))
					b.next = i + 1 + min(end+1, len(body))
					return b, true
				}
			}
		}
		end, closed := start, false
		for ; end < len(body); end++ {
			if isEnd(body[end]) {
				closed = true
				break
			}
		}
		if !closed {
			for end = start; end < len(body) && !isHeader(body[end], level); end++ {
			}
		}
		content := body[start:end]
		if inline != "" {
			content = append([]string{inline}, content...)
		}
		b.content = finish(content)
		b.next = i + 1 + end
		if closed {
			b.next++
		}
		return b, true
	}
	return block{}, false
}

// finish joins a block's lines, removes ">" quoting when every non-blank
// line has it, and trims the result.
func finish(lines []string) string {
	if quoted(lines) {
		out := make([]string, len(lines))
		for i, l := range lines {
			t := strings.TrimLeft(l, " \t")
			if t, ok := strings.CutPrefix(t, ">"); ok {
				l = strings.TrimPrefix(t, " ")
			}
			out[i] = l
		}
		lines = out
	}
	return strings.TrimSpace(strings.Join(lines, "\n"))
}

// quoted reports whether lines has a non-blank line and every non-blank
// line starts with ">".
func quoted(lines []string) bool {
	found := false
	for _, l := range lines {
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if !strings.HasPrefix(t, ">") {
			return false
		}
		found = true
	}
	return found
}

const name = "original request"

// marker reports whether line opens a request block, with the request text
// that follows a colon on the same line and the Markdown heading level (0
// for none).
func marker(line string) (inline string, level int, ok bool) {
	t, level := heading(strings.TrimSpace(line))
	t = strings.TrimLeft(t, "*_=[ \t")
	if len(t) < len(name) || !equalName(t[:len(name)]) {
		return "", 0, false
	}
	rest := strings.TrimLeft(t[len(name):], "*_=] \t")
	switch {
	case rest == "":
		return "", level, true
	case rest[0] != ':':
		return "", 0, false
	}
	return strings.TrimSpace(strings.TrimLeft(rest[1:], "*_=] \t")), level, true
}

// isEnd reports whether line closes a request block.
func isEnd(line string) bool {
	t, _ := heading(strings.TrimSpace(line))
	t = strings.TrimRight(strings.TrimLeft(t, "*_=[ \t"), "*_=]: \t")
	for _, prefix := range [...]string{"end of ", "end_of_", "end "} {
		if len(t) == len(prefix)+len(name) && strings.EqualFold(t[:len(prefix)], prefix) && equalName(t[len(prefix):]) {
			return true
		}
	}
	return false
}

// equalName reports whether s is "original request" in any letter case,
// with a space, "_" or "-" between the words.
func equalName(s string) bool {
	return len(s) == len(name) && strings.EqualFold(s[:8], "original") &&
		strings.ContainsRune(" _-", rune(s[8])) && strings.EqualFold(s[9:], "request")
}

// heading strips a Markdown heading's "#"s and returns its level.
func heading(t string) (string, int) {
	n := 0
	for n < len(t) && n < 7 && t[n] == '#' {
		n++
	}
	if n == 0 || n > 6 || n < len(t) && t[n] != ' ' && t[n] != '\t' {
		return t, 0
	}
	return strings.TrimSpace(t[n:]), n
}

// isHeader reports whether line starts a new section of a brief: an
// ALL-CAPS label ending in ":" ("TASK:", "INPUTS (…):"), or, when the
// block was opened by a heading of level, a heading of that level or
// higher.
func isHeader(line string, level int) bool {
	t := strings.TrimSpace(line)
	if _, l := heading(t); level > 0 && l > 0 && l <= level {
		return true
	}
	if !strings.HasSuffix(t, ":") {
		return false
	}
	label := strings.TrimSuffix(t, ":")
	if i := strings.IndexByte(label, '('); i >= 0 {
		label = label[:i]
	}
	label = strings.TrimSpace(label)
	upper := 0
	for _, r := range label {
		switch {
		case r >= 'A' && r <= 'Z':
			upper++
		case r >= '0' && r <= '9', strings.ContainsRune(" _-/&", r):
		default:
			return false
		}
	}
	return upper >= 2
}

// fenceOpen reports whether line opens a code fence, with its character
// and length.
func fenceOpen(line string) (c byte, n int, ok bool) {
	t := strings.TrimSpace(line)
	if len(t) < 3 || (t[0] != '`' && t[0] != '~') {
		return 0, 0, false
	}
	c = t[0]
	for n < len(t) && t[n] == c {
		n++
	}
	if n < 3 || c == '`' && strings.IndexByte(t[n:], '`') >= 0 {
		return 0, 0, false
	}
	return c, n, true
}

// fenceClose reports whether line closes a fence of n c's.
func fenceClose(line string, c byte, n int) bool {
	t := strings.TrimSpace(line)
	return len(t) >= n && strings.Trim(t, string(c)) == ""
}

const (
	xmlOpen  = "<original_request>"
	xmlClose = "</original_request>"
)

// xmlBlock reads a block opened by an <original_request> tag at the start
// of lines[i] and closed by </original_request>, or the end of the text.
func xmlBlock(lines []string, i int) (block, bool) {
	t := strings.TrimLeftFunc(lines[i], unicode.IsSpace)
	if len(t) < len(xmlOpen) || !strings.EqualFold(t[:len(xmlOpen)], xmlOpen) {
		return block{}, false
	}
	rest := append([]string{t[len(xmlOpen):]}, lines[i+1:]...)
	for j, l := range rest {
		if k := indexFold(l, xmlClose); k >= 0 {
			content := append(rest[:j:j], l[:k])
			return block{first: i, next: i + j + 1, content: finish(content)}, true
		}
	}
	return block{first: i, next: len(lines), content: finish(rest)}, true
}

// indexFold is strings.Index for an ASCII needle, ignoring letter case.
func indexFold(s, needle string) int {
	for k := 0; k+len(needle) <= len(s); k++ {
		if strings.EqualFold(s[k:k+len(needle)], needle) {
			return k
		}
	}
	return -1
}
