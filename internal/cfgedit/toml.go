package cfgedit

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// tomlStmt is one statement of a TOML document: a table header or a
// key/value pair, with its dotted key and the bytes it spans (from the
// start of its line to after the line break that ends it).
type tomlStmt struct {
	header     bool // [table] or [[array of tables]]
	arrayTable bool // [[array of tables]]
	keys       []string
	start, end int
}

type tomlParser struct {
	src   []byte
	i     int
	stmts []tomlStmt
}

// parseTOML reads a whole document into its statements.
func parseTOML(src []byte) ([]tomlStmt, error) {
	if !utf8.Valid(src) {
		return nil, errAt(src, firstInvalid(src), "invalid UTF-8")
	}
	p := &tomlParser{src: src}
	if strings.HasPrefix(string(src), "\xef\xbb\xbf") {
		p.i = 3
	}
	for p.i < len(src) {
		start := lineStart(src, p.i)
		p.blanks()
		if p.eol() {
			continue
		}
		st := tomlStmt{start: start}
		var err error
		if p.src[p.i] == '[' {
			st.header = true
			p.i++
			if p.i < len(src) && src[p.i] == '[' {
				st.arrayTable = true
				p.i++
			}
			p.blanks()
			if st.keys, err = p.key(); err != nil {
				return nil, err
			}
			p.blanks()
			closing := "]"
			if st.arrayTable {
				closing = "]]"
			}
			if !strings.HasPrefix(string(src[p.i:]), closing) {
				return nil, p.errf("want %q to close the table header", closing)
			}
			p.i += len(closing)
		} else {
			if st.keys, err = p.key(); err != nil {
				return nil, err
			}
			p.blanks()
			if p.i >= len(src) || src[p.i] != '=' {
				return nil, p.errf("want '=' after the key %s", strings.Join(st.keys, "."))
			}
			p.i++
			p.blanks()
			if err := p.value(0); err != nil {
				return nil, err
			}
		}
		p.blanks()
		if !p.eol() {
			return nil, p.errf("want the end of the line")
		}
		st.end = p.i
		p.stmts = append(p.stmts, st)
	}
	return p.stmts, nil
}

func firstInvalid(src []byte) int {
	off := 0
	for off < len(src) {
		r, n := utf8.DecodeRune(src[off:])
		if r == utf8.RuneError && n == 1 {
			return off
		}
		off += n
	}
	return off
}

func (p *tomlParser) errf(format string, args ...any) error {
	what := "end of file"
	if p.i < len(p.src) {
		r, _ := utf8.DecodeRune(p.src[p.i:])
		what = strconv.QuoteRune(r)
	}
	return errAt(p.src, p.i, "unexpected %s: %s", what, fmt.Sprintf(format, args...))
}

func (p *tomlParser) blanks() {
	for p.i < len(p.src) && (p.src[p.i] == ' ' || p.src[p.i] == '\t') {
		p.i++
	}
}

// eol consumes a comment and the line break (or the end of the file) and
// reports whether it found them.
func (p *tomlParser) eol() bool {
	if p.i < len(p.src) && p.src[p.i] == '#' {
		for p.i < len(p.src) && p.src[p.i] != '\n' && p.src[p.i] != '\r' {
			p.i++
		}
	}
	switch {
	case p.i >= len(p.src):
		return true
	case p.src[p.i] == '\n':
		p.i++
		return true
	case p.src[p.i] == '\r' && p.i+1 < len(p.src) && p.src[p.i+1] == '\n':
		p.i += 2
		return true
	}
	return false
}

// space skips blanks, comments and line breaks (inside arrays).
func (p *tomlParser) space() {
	for {
		p.blanks()
		if p.i >= len(p.src) || !(p.src[p.i] == '#' || p.src[p.i] == '\n' || p.src[p.i] == '\r') {
			return
		}
		if !p.eol() {
			return
		}
	}
}

func isBare(c byte) bool {
	return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}

// key reads a dotted key.
func (p *tomlParser) key() ([]string, error) {
	var keys []string
	for {
		var k string
		switch {
		case p.i < len(p.src) && p.src[p.i] == '"':
			s, err := p.basic()
			if err != nil {
				return nil, err
			}
			k = s
		case p.i < len(p.src) && p.src[p.i] == '\'':
			s, err := p.literal()
			if err != nil {
				return nil, err
			}
			k = s
		default:
			j := p.i
			for j < len(p.src) && isBare(p.src[j]) {
				j++
			}
			if j == p.i {
				return nil, p.errf("want a key")
			}
			k = string(p.src[p.i:j])
			p.i = j
		}
		keys = append(keys, k)
		p.blanks()
		if p.i < len(p.src) && p.src[p.i] == '.' {
			p.i++
			p.blanks()
			continue
		}
		return keys, nil
	}
}

// basic reads a "basic string" and returns its value.
func (p *tomlParser) basic() (string, error) {
	start := p.i
	p.i++
	var b strings.Builder
	for p.i < len(p.src) {
		c := p.src[p.i]
		switch {
		case c == '"':
			p.i++
			return b.String(), nil
		case c == '\\':
			r, err := p.escape()
			if err != nil {
				return "", err
			}
			b.WriteRune(r)
		case c == '\n' || c == '\r':
			return "", errAt(p.src, start, "unterminated string")
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", p.errf("control character in a string")
		default:
			b.WriteByte(c)
			p.i++
		}
	}
	return "", errAt(p.src, start, "unterminated string")
}

// escape reads one escape sequence of a basic string.
func (p *tomlParser) escape() (rune, error) {
	if p.i+1 >= len(p.src) {
		return 0, p.errf("unterminated escape")
	}
	c := p.src[p.i+1]
	simple := map[byte]rune{'b': '\b', 't': '\t', 'n': '\n', 'f': '\f', 'r': '\r', '"': '"', '\\': '\\', 'e': 0x1b}
	if r, ok := simple[c]; ok {
		p.i += 2
		return r, nil
	}
	n := map[byte]int{'u': 4, 'U': 8, 'x': 2}[c]
	if n == 0 || p.i+2+n > len(p.src) || !isHex(p.src[p.i+2:p.i+2+n]) {
		return 0, p.errf("invalid escape")
	}
	v, _ := strconv.ParseUint(string(p.src[p.i+2:p.i+2+n]), 16, 32)
	if !utf8.ValidRune(rune(v)) {
		return 0, p.errf("invalid escape: not a Unicode scalar value")
	}
	p.i += 2 + n
	return rune(v), nil
}

// literal reads a 'literal string'.
func (p *tomlParser) literal() (string, error) {
	start := p.i
	p.i++
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == '\'':
			p.i++
			return string(p.src[start+1 : p.i-1]), nil
		case c == '\n' || c == '\r':
			return "", errAt(p.src, start, "unterminated string")
		case c < 0x20 && c != '\t' || c == 0x7f:
			return "", p.errf("control character in a string")
		}
		p.i++
	}
	return "", errAt(p.src, start, "unterminated string")
}

// multi reads a multi-line string opened by three quotes q.
func (p *tomlParser) multi(q byte) error {
	start := p.i
	p.i += 3
	delim := strings.Repeat(string(q), 3)
	for p.i < len(p.src) {
		if strings.HasPrefix(string(p.src[p.i:min(p.i+3, len(p.src))]), delim) {
			p.i += 3
			// Up to two more quotes belong to the string.
			for k := 0; k < 2 && p.i < len(p.src) && p.src[p.i] == q; k++ {
				p.i++
			}
			return nil
		}
		c := p.src[p.i]
		switch {
		case q == '"' && c == '\\':
			if p.i+1 < len(p.src) && (p.src[p.i+1] == ' ' || p.src[p.i+1] == '\t' || p.src[p.i+1] == '\n' || p.src[p.i+1] == '\r') {
				p.i++ // a line-ending backslash
				continue
			}
			if _, err := p.escape(); err != nil {
				return err
			}
		case c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f:
			return p.errf("control character in a string")
		default:
			p.i++
		}
	}
	return errAt(p.src, start, "unterminated multi-line string")
}

var reDate = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}$`)

// value reads one value.
func (p *tomlParser) value(depth int) error {
	if depth > maxDepth {
		return p.errf("nested more than %d levels", maxDepth)
	}
	if p.i >= len(p.src) {
		return p.errf("want a value")
	}
	rest := string(p.src[p.i:min(p.i+3, len(p.src))])
	switch {
	case rest == `"""`:
		return p.multi('"')
	case rest == `'''`:
		return p.multi('\'')
	case p.src[p.i] == '"':
		_, err := p.basic()
		return err
	case p.src[p.i] == '\'':
		_, err := p.literal()
		return err
	case p.src[p.i] == '[':
		p.i++
		for {
			p.space()
			if p.i < len(p.src) && p.src[p.i] == ']' {
				p.i++
				return nil
			}
			if err := p.value(depth + 1); err != nil {
				return err
			}
			p.space()
			switch {
			case p.i < len(p.src) && p.src[p.i] == ',':
				p.i++
			case p.i < len(p.src) && p.src[p.i] == ']':
			default:
				return p.errf("want ',' or ']' in an array")
			}
		}
	case p.src[p.i] == '{':
		p.i++
		for {
			p.space()
			if p.i < len(p.src) && p.src[p.i] == '}' {
				p.i++
				return nil
			}
			if _, err := p.key(); err != nil {
				return err
			}
			p.blanks()
			if p.i >= len(p.src) || p.src[p.i] != '=' {
				return p.errf("want '=' in an inline table")
			}
			p.i++
			p.blanks()
			if err := p.value(depth + 1); err != nil {
				return err
			}
			p.space()
			switch {
			case p.i < len(p.src) && p.src[p.i] == ',':
				p.i++
			case p.i < len(p.src) && p.src[p.i] == '}':
			default:
				return p.errf("want ',' or '}' in an inline table")
			}
		}
	}
	start := p.i
	for p.i < len(p.src) && (isBare(p.src[p.i]) || strings.IndexByte("+.:", p.src[p.i]) >= 0) {
		p.i++
		// A date and a time may be separated by a space.
		if p.i+1 < len(p.src) && p.src[p.i] == ' ' && p.src[p.i+1] >= '0' && p.src[p.i+1] <= '9' && reDate.Match(p.src[start:p.i]) {
			p.i++
		}
	}
	tok := string(p.src[start:p.i])
	switch {
	case tok == "":
		p.i = start
		return p.errf("want a value")
	case tok == "true" || tok == "false" || strings.TrimLeft(tok, "+-") == "inf" || strings.TrimLeft(tok, "+-") == "nan":
	case strings.IndexByte("0123456789+-", tok[0]) >= 0:
	default:
		p.i = start
		return p.errf("want a value (a string needs quotes)")
	}
	return nil
}

func hasPrefix(keys, prefix []string) bool {
	if len(keys) < len(prefix) {
		return false
	}
	for i := range prefix {
		if keys[i] != prefix[i] {
			return false
		}
	}
	return true
}

// SetTOML returns src with the table path.name (such as
// [mcp_servers.stet]) holding val's members: the table's header and
// key/value lines replaced where it exists, the table appended where it
// does not. The old entry's sub-tables ([mcp_servers.stet.env]) are
// removed with it: the entry is replaced whole. Comments after the table's
// last key and everything else keep their bytes. A name defined
// another way (dotted keys, an inline table) is refused, naming its line,
// as is anything that is not TOML.
func SetTOML(src []byte, path []string, name string, val Obj) ([]byte, error) {
	stmts, err := parseTOML(src)
	if err != nil {
		return nil, err
	}
	full := append(append([]string{}, path...), name)
	dotted := strings.Join(full, ".")
	var table []string // the current table's keys
	at := -1           // the statement of our header
	last := -1         // the last key/value of our table
	for i, st := range stmts {
		if st.header {
			table = st.keys
			switch {
			case st.arrayTable && (equalKeys(st.keys, path) || equalKeys(st.keys, full)):
				return nil, errAt(src, st.start, "[[%s]] is an array of tables; stet can only add a [%s] table", strings.Join(st.keys, "."), dotted)
			case equalKeys(st.keys, full):
				if at >= 0 {
					return nil, errAt(src, st.start, "[%s] is defined twice (lines %d and %d); remove one", dotted, lineOf(src, stmts[at].start), lineOf(src, st.start))
				}
				at, last = i, i
			}
			continue
		}
		if hasPrefix(table, full) {
			if equalKeys(table, full) {
				last = i
			}
			continue // our table, or one of its sub-tables
		}
		keys := append(append([]string{}, table...), st.keys...)
		switch {
		case hasPrefix(keys, full) || hasPrefix(full, keys):
			return nil, errAt(src, st.start, "%s is set by the key %s here, not as a [%s] table; change it by hand, or remove it and run again", dotted, strings.Join(keys, "."), dotted)
		}
	}
	nl := newline(src)
	body := renderTOML(full, val, nl)
	if at < 0 {
		out := append([]byte{}, src...)
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, nl...)
		}
		if len(strings.TrimSpace(string(src))) > 0 && !strings.HasSuffix(string(out), nl+nl) {
			out = append(out, nl...)
		}
		return append(out, body...), nil
	}
	// The entry is replaced whole: its sub-tables ([mcp_servers.stet.env])
	// go with it, so nothing of an old entry rides into the new one.
	type span struct{ from, to int }
	var cuts []span
	for i := 0; i < len(stmts); i++ {
		st := stmts[i]
		if !st.header || !hasPrefix(st.keys, full) || equalKeys(st.keys, full) {
			continue
		}
		j := i
		for j+1 < len(stmts) && !stmts[j+1].header {
			j++
		}
		end := stmts[j].end
		if end < len(src) && src[end] == '\r' {
			end++
		}
		if end < len(src) && src[end] == '\n' {
			end++
		}
		cuts = append(cuts, span{st.start, end})
		i = j
	}
	from, to := stmts[at].start, stmts[last].end
	repl := body
	if to == len(src) && !strings.HasSuffix(string(src), "\n") {
		repl = repl[:len(repl)-len(nl)]
	}
	edits := append(cuts, span{from, to})
	slices.SortFunc(edits, func(a, b span) int { return b.from - a.from })
	out := append([]byte{}, src...)
	for _, e := range edits {
		with := ""
		if e.from == from {
			with = repl
		}
		out = append(out[:e.from:e.from], append([]byte(with), out[e.to:]...)...)
	}
	return out, nil
}

func equalKeys(a, b []string) bool { return len(a) == len(b) && hasPrefix(a, b) }

// renderTOML writes the table keys with val's members, one a line.
func renderTOML(keys []string, val Obj, nl string) string {
	var b strings.Builder
	q := make([]string, len(keys))
	for i, k := range keys {
		q[i] = tomlKey(k)
	}
	b.WriteString("[" + strings.Join(q, ".") + "]" + nl)
	for _, m := range val {
		b.WriteString(tomlKey(m.Key) + " = " + tomlValue(m.Val) + nl)
	}
	return b.String()
}

func tomlKey(k string) string {
	for i := 0; i < len(k); i++ {
		if !isBare(k[i]) {
			return tomlString(k)
		}
	}
	if k == "" {
		return `""`
	}
	return k
}

func tomlValue(v any) string {
	switch v := v.(type) {
	case string:
		return tomlString(v)
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = tomlString(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	case Obj:
		parts := make([]string, len(v))
		for i, m := range v {
			parts[i] = tomlKey(m.Key) + " = " + tomlValue(m.Val)
		}
		if len(parts) == 0 {
			return "{}"
		}
		return "{ " + strings.Join(parts, ", ") + " }"
	}
	panic(fmt.Sprintf("cfgedit: cannot render a %T", v))
}

// tomlString is s as a TOML basic string.
func tomlString(s string) string {
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r < 0x20 || r == 0x7f:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r)
		}
	}
	b.WriteByte('"')
	return b.String()
}
