package cfgedit

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// yamlLine is one line of a YAML document as the block reader sees it.
type yamlLine struct {
	start, end int    // offsets of the line and of its line break
	next       int    // offset of the next line
	indent     int    // leading spaces
	blank      bool   // only spaces, or a comment
	scalar     bool   // a line of a block scalar: indented, never read
	key        string // the mapping key the line starts with, if any
	isKey      bool
	item       bool   // the line starts a sequence item ("- ")
	inline     string // the value after "key:", comment removed
	comment    string // the line's comment, "#..." (after a key)
}

var yamlSpecial = regexp.MustCompile(`^(?i:true|false|yes|no|on|off|y|n|null|~|[-+]?(\.inf|\.nan|[0-9][0-9_.:e+-]*|0x[0-9a-f]+|0o[0-7]+))$`)

// parseYAMLLines splits src into lines and reads each one's indentation,
// key and inline value, refusing what a block reader cannot follow: tabs
// in indentation, directives, several documents, and quoted scalars or
// flow collections that span lines. Lines of a block scalar (| or >) are
// marked as such: nothing in them is read.
func parseYAMLLines(src []byte) ([]yamlLine, error) {
	if !utf8.Valid(src) {
		return nil, errAt(src, firstInvalid(src), "invalid UTF-8")
	}
	var lines []yamlLine
	scalarIndent := -1 // inside a block scalar: lines indented more than this
	seenContent := false
	for off := 0; off < len(src); {
		end := off
		for end < len(src) && src[end] != '\n' {
			end++
		}
		next := end
		if end < len(src) {
			next++
		}
		if end > off && src[end-1] == '\r' {
			end--
		}
		l := yamlLine{start: off, end: end, next: next}
		text := string(src[off:end])
		if i := strings.IndexAny(text, "\r\u0085\u2028\u2029"); i >= 0 {
			return nil, errAt(src, off+i, "a line break other than \\n or \\r\\n; stet reads those only")
		}
		if off == 0 {
			text = strings.TrimPrefix(text, "\ufeff")
		}
		for l.indent < len(text) && text[l.indent] == ' ' {
			l.indent++
		}
		rest := text[l.indent:]
		trimmed := strings.TrimRight(rest, " \t")
		if scalarIndent >= 0 {
			if trimmed == "" || l.indent > scalarIndent {
				l.blank = trimmed == ""
				l.scalar = !l.blank
				lines = append(lines, l)
				off = next
				continue
			}
			scalarIndent = -1
		}
		switch {
		case strings.HasPrefix(rest, "\t"):
			return nil, errAt(src, off+l.indent, "a tab in the indentation; YAML indents with spaces")
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
			l.blank = true
			lines = append(lines, l)
			off = next
			continue
		case l.indent == 0 && strings.HasPrefix(trimmed, "%"):
			return nil, errAt(src, off, "a YAML directive; stet reads plain block mappings only")
		case l.indent == 0 && (trimmed == "---" || strings.HasPrefix(trimmed, "--- ")):
			if seenContent || trimmed != "---" {
				return nil, errAt(src, off, "several YAML documents (or content after ---); stet reads one")
			}
			l.blank = true
			lines = append(lines, l)
			off = next
			continue
		case l.indent == 0 && trimmed == "...":
			return nil, errAt(src, off, "a document end marker (...); stet reads one document")
		}
		seenContent = true
		body := rest
		col := off + l.indent
		for strings.HasPrefix(body, "- ") || body == "-" {
			l.item = true
			n := 1
			for n < len(body) && body[n] == ' ' {
				n++
			}
			body, col = body[n:], col+n
		}
		if k, after, ok, err := yamlKey(src, col, body); err != nil {
			return nil, err
		} else if ok {
			l.key, l.isKey = k, true
			body, col = after, col+len(body)-len(after)
		}
		value, comment, err := yamlInline(src, col, body)
		if err != nil {
			return nil, err
		}
		if l.isKey {
			l.inline, l.comment = value, comment
		}
		if v := strings.TrimSpace(value); strings.HasPrefix(v, "|") || strings.HasPrefix(v, ">") {
			if !l.isKey && !l.item {
				return nil, errAt(src, col, "a block scalar (| or >) on a line of its own; stet reads it only after its key (key: |)")
			}
			scalarIndent = l.indent
		}
		lines = append(lines, l)
		off = next
	}
	return lines, nil
}

// yamlKey reads "key:" at the start of body: a plain key, or a quoted one.
func yamlKey(src []byte, col int, body string) (key, after string, ok bool, err error) {
	if body == "" {
		return "", body, false, nil
	}
	switch body[0] {
	case '"', '\'':
		end, val, err := yamlQuoted(src, col, body)
		if err != nil {
			return "", "", false, err
		}
		rest := strings.TrimLeft(body[end:], " ")
		if strings.HasPrefix(rest, ":") && (len(rest) == 1 || rest[1] == ' ') {
			return val, rest[1:], true, nil
		}
		return "", body, false, nil
	case '?', '&', '*', '!', '|', '>', '[', '{', '%', '@', '`', '#':
		if body[0] == '?' && (len(body) == 1 || body[1] == ' ') {
			return "", "", false, errAt(src, col, "a complex mapping key (?); stet reads plain keys only")
		}
		if body[0] == '&' || body[0] == '*' || body[0] == '!' {
			return "", "", false, errAt(src, col, "an anchor, alias or tag before a key; stet reads plain keys only")
		}
		return "", body, false, nil
	}
	i := strings.Index(body, ": ")
	if i < 0 && strings.HasSuffix(body, ":") {
		i = len(body) - 1
	}
	if j := strings.Index(body, " #"); j >= 0 && j < i {
		return "", body, false, nil
	}
	if i <= 0 {
		return "", body, false, nil
	}
	return strings.TrimRight(body[:i], " "), body[i+1:], true, nil
}

// yamlQuoted reads a quoted scalar at the start of body and returns where
// it ends and its value; one that does not close on its line is refused.
func yamlQuoted(src []byte, col int, body string) (int, string, error) {
	q := body[0]
	var b strings.Builder
	for i := 1; i < len(body); i++ {
		c := body[i]
		switch {
		case q == '\'' && c == '\'':
			if i+1 < len(body) && body[i+1] == '\'' {
				b.WriteByte('\'')
				i++
				continue
			}
			return i + 1, b.String(), nil
		case q == '"' && c == '\\':
			if i+1 < len(body) {
				b.WriteByte(c)
				b.WriteByte(body[i+1])
				i++
			}
		case q == '"' && c == '"':
			s, err := strconv.Unquote(`"` + strings.ReplaceAll(b.String(), `\/`, `/`) + `"`)
			if err != nil {
				s = b.String()
			}
			return i + 1, s, nil
		default:
			b.WriteByte(c)
		}
	}
	return 0, "", errAt(src, col, "a quoted value that does not close on its line; stet reads one-line values only")
}

// yamlInline reads the inline value of a line: it must close its quotes
// and brackets on the line. It returns the value and the comment.
func yamlInline(src []byte, col int, body string) (value, comment string, err error) {
	n := len(body)
	body = strings.TrimLeft(body, " ")
	col += n - len(body)
	depth := 0
	// start: a scalar may begin here (the value's start, or after a flow
	// indicator); only there does a quote open a quoted scalar.
	start := true
	for i := 0; i < len(body); i++ {
		c := body[i]
		switch {
		case c == ' ':
			continue
		case c == '#' && (i == 0 || body[i-1] == ' '):
			if depth > 0 {
				return "", "", errAt(src, col+i, "a flow collection ([...] or {...}) that does not close on its line; stet reads one-line values only")
			}
			return strings.TrimRight(body[:i], " "), body[i:], nil
		case (c == '"' || c == '\'') && start:
			end, _, err := yamlQuoted(src, col+i, body[i:])
			if err != nil {
				return "", "", err
			}
			i += end - 1
		case (c == '[' || c == '{') && start:
			depth++
			start = true
			continue
		case (c == ']' || c == '}') && depth > 0:
			depth--
		}
		start = depth > 0 && strings.IndexByte("[{,:", c) >= 0
	}
	if depth > 0 {
		return "", "", errAt(src, col, "a flow collection ([...] or {...}) that does not close on its line; stet reads one-line values only")
	}
	return strings.TrimRight(body, " "), "", nil
}

// SetYAML returns src with the entry name of the top-level block mapping
// section (extensions: stet:) set to val: its lines replaced where it
// exists, added after the section's last entry where it does not, the
// section appended where it is missing. Everything else keeps its bytes.
func SetYAML(src []byte, section, name string, val Obj) ([]byte, error) {
	lines, err := parseYAMLLines(src)
	if err != nil {
		return nil, err
	}
	nl := newline(src)
	if n := len(lines); n > 0 && lines[n-1].scalar && lines[n-1].next == lines[n-1].end {
		// A line break added after it would change the scalar's value.
		return nil, errAt(src, lines[n-1].start, "the file ends inside a block scalar (| or >) without a line break; add one and run again")
	}
	sec, err := yamlSection(src, lines, section)
	if err != nil {
		return nil, err
	}
	if sec < 0 {
		out := append([]byte{}, src...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, nl...)
		}
		return append(out, renderYAML(Obj{{section, Obj{{name, val}}}}, 0, 2, nl)...), nil
	}
	// The section's block: the lines after its key up to the next
	// top-level line.
	first, stop := sec+1, len(lines)
	for i := sec + 1; i < len(lines); i++ {
		if !lines[i].blank && lines[i].indent == 0 && !lines[i].item {
			stop = i
			break
		}
	}
	head := lines[sec]
	inline := strings.TrimSpace(head.inline)
	child, unit, entries, err := yamlEntries(src, lines[:stop], first, section)
	if err != nil {
		return nil, err
	}
	if child >= 0 && inline != "" {
		return nil, errAt(src, head.start, "%s: has a value on its own line and entries below it", section)
	}
	if child < 0 {
		// No entries: the section is empty, null or written inline.
		if inline != "" && inline != "{}" && inline != "null" && inline != "~" {
			return nil, errAt(src, head.start, "%s: is written inline (%s); stet adds to it only as a block mapping", section, inline)
		}
		return fillYAMLSection(src, head, section, name, val, nl), nil
	}
	var found = -1
	for _, i := range entries {
		if lines[i].key == name {
			if found >= 0 {
				return nil, errAt(src, lines[i].start, "%s.%s is given twice (lines %d and %d); remove one", section, name, lineOf(src, lines[found].start), lineOf(src, lines[i].start))
			}
			found = i
		}
	}
	text := renderYAML(Obj{{name, val}}, child, unit, nl)
	if found < 0 {
		return appendYAMLEntry(src, lines, first, stop, text, nl), nil
	}
	// The entry's lines: up to the next line at the entry's indentation
	// or less, without the blank and comment lines before it.
	last := found
	for i := found + 1; i < stop; i++ {
		if lines[i].blank {
			continue
		}
		if lines[i].indent <= child && !(lines[i].item && lines[i].indent == child) {
			break
		}
		last = i
	}
	out := append([]byte{}, src[:lines[found].start]...)
	out = append(out, text...)
	if lines[last].next == lines[last].end {
		out = out[:len(out)-len(nl)]
	}
	return append(out, src[lines[last].next:]...), nil
}

// yamlSection returns the index of the top-level line whose key is
// section, or -1, refusing a top level that is not a mapping at column 1
// or gives section twice.
func yamlSection(src []byte, lines []yamlLine, section string) (int, error) {
	sec, top := -1, false
	for i, l := range lines {
		if l.blank {
			continue
		}
		if !top && l.indent > 0 {
			return -1, errAt(src, l.start, "the top level is indented; stet reads a mapping whose keys start at column 1")
		}
		top = true
		if l.indent == 0 && l.item {
			return -1, errAt(src, l.start, "the top level is a list; stet reads a mapping (key: value)")
		}
		if l.indent == 0 && !l.isKey {
			return -1, errAt(src, l.start, "want a key (key: value) at the top level")
		}
		if l.indent == 0 && l.key == section {
			if sec >= 0 {
				return -1, errAt(src, l.start, "%s: is given twice (lines %d and %d); remove one", section, lineOf(src, lines[sec].start), lineOf(src, l.start))
			}
			sec = i
		}
	}
	return sec, nil
}

// yamlEntries reads the entries of the section block lines[first:]: their
// indentation (child, -1 when there is none), the file's indentation step
// under an entry (unit) and the index of each entry's line, refusing a
// block that is not a mapping of entries.
func yamlEntries(src []byte, lines []yamlLine, first int, section string) (child, unit int, entries []int, err error) {
	child, unit, unitSet := -1, 2, false
	for i := first; i < len(lines); i++ {
		l := lines[i]
		if l.blank || l.scalar && child >= 0 {
			continue
		}
		if child < 0 {
			child = l.indent
			if l.item {
				return 0, 0, nil, errAt(src, l.start, "%s: is a list here; stet adds to it only as a mapping (name: settings)", section)
			}
		}
		switch {
		case l.indent < child:
			return 0, 0, nil, errAt(src, l.start, "this line is indented less than the entries of %s: above it", section)
		case l.indent == child && l.item:
			return 0, 0, nil, errAt(src, l.start, "%s: mixes a list item with mapping entries", section)
		case l.indent == child && !l.isKey:
			return 0, 0, nil, errAt(src, l.start, "want an entry (name:) of %s: here", section)
		case l.indent == child:
			entries = append(entries, i)
		case !unitSet:
			// The first line under an entry: the file's indentation step.
			unit, unitSet = min(l.indent-child, 8), true
		}
	}
	return child, unit, entries, nil
}

// fillYAMLSection writes the entry name into a section with none (empty,
// null or {}), keeping the comment on its key line.
func fillYAMLSection(src []byte, head yamlLine, section, name string, val Obj, nl string) []byte {
	keyLine := section + ":"
	if head.comment != "" {
		keyLine += " " + head.comment
	}
	text := keyLine + nl + renderYAML(Obj{{name, val}}, 2, 2, nl)
	end := head.next
	out := append([]byte{}, src[:head.start]...)
	out = append(out, text...)
	if head.next == head.end { // the last line had no line break
		end = len(src)
	}
	return append(out, src[end:]...)
}

// appendYAMLEntry writes text after the last line of the section block
// lines[first:stop].
func appendYAMLEntry(src []byte, lines []yamlLine, first, stop int, text, nl string) []byte {
	last := first
	for i := first; i < stop; i++ {
		if !lines[i].blank {
			last = i
		}
	}
	at := lines[last].next
	out := append([]byte{}, src[:at]...)
	if lines[last].next == lines[last].end {
		out = append(out, nl...)
	}
	out = append(out, text...)
	return append(out, src[at:]...)
}

// renderYAML writes val as a block mapping at indent ind, nested levels
// unit spaces deeper, sequences indented under their key.
func renderYAML(val Obj, ind, unit int, nl string) string {
	var b strings.Builder
	pad := strings.Repeat(" ", ind)
	for _, m := range val {
		b.WriteString(pad + yamlScalar(m.Key) + ":")
		switch v := m.Val.(type) {
		case Obj:
			if len(v) == 0 {
				b.WriteString(" {}" + nl)
				continue
			}
			b.WriteString(nl + renderYAML(v, ind+unit, unit, nl))
		case []string:
			if len(v) == 0 {
				b.WriteString(" []" + nl)
				continue
			}
			b.WriteString(nl)
			for _, s := range v {
				b.WriteString(pad + strings.Repeat(" ", unit) + "- " + yamlScalar(s) + nl)
			}
		case string:
			b.WriteString(" " + yamlScalar(v) + nl)
		case bool:
			b.WriteString(" " + strconv.FormatBool(v) + nl)
		case int:
			b.WriteString(" " + strconv.Itoa(v) + nl)
		default:
			panic(fmt.Sprintf("cfgedit: cannot render a %T", v))
		}
	}
	return b.String()
}

var yamlPlain = regexp.MustCompile(`^[A-Za-z0-9_/.][A-Za-z0-9_./@+=-]*$`)

// yamlScalar is s plain when YAML reads it back as that string, else
// double-quoted.
func yamlScalar(s string) string {
	if yamlPlain.MatchString(s) && !yamlSpecial.MatchString(s) {
		return s
	}
	return quote(s)
}
