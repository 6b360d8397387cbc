package cfgedit

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxDepth bounds nesting in every reader, so hostile input cannot exhaust
// the stack.
const maxDepth = 256

// jsonObj is an object of a JSONC document: where its braces are and its
// members, in order.
type jsonObj struct {
	open, close int // offsets of '{' and '}'
	members     []jsonMember
}

// jsonMember is one member: the offset of its key, the span of its value,
// and the value's object when it is one.
type jsonMember struct {
	key              string
	keyStart         int
	valStart, valEnd int
	obj              *jsonObj
}

// jsonParser reads JSON with comments and trailing commas.
type jsonParser struct {
	src []byte
	i   int
}

// parseJSONC reads a whole document. It returns the top-level object, or
// nil when the document holds no value (only whitespace and comments).
func parseJSONC(src []byte) (*jsonObj, error) {
	p := &jsonParser{src: src}
	if bytes.HasPrefix(src, []byte("\xef\xbb\xbf")) {
		p.i = 3
	}
	if !utf8.Valid(src) {
		off := 0
		for off < len(src) {
			r, n := utf8.DecodeRune(src[off:])
			if r == utf8.RuneError && n == 1 {
				break
			}
			off += n
		}
		return nil, errAt(src, off, "invalid UTF-8")
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.i == len(src) {
		return nil, nil
	}
	start := p.i
	obj, err := p.value(0)
	if err != nil {
		return nil, err
	}
	if err := p.space(); err != nil {
		return nil, err
	}
	if p.i != len(src) {
		return nil, errAt(src, p.i, "unexpected %s after the top-level value", p.what())
	}
	if obj == nil {
		return nil, errAt(src, start, "the top level is %s, not an object", kindOf(src[start]))
	}
	return obj, nil
}

func kindOf(c byte) string {
	switch c {
	case '[':
		return "an array"
	case '"':
		return "a string"
	case 't', 'f':
		return "a boolean"
	case 'n':
		return "null"
	}
	return "a number"
}

// what names the byte at the parser's position for an error.
func (p *jsonParser) what() string {
	if p.i >= len(p.src) {
		return "end of file"
	}
	r, _ := utf8.DecodeRune(p.src[p.i:])
	return strconv.QuoteRune(r)
}

// space skips whitespace and comments.
func (p *jsonParser) space() error {
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
			p.i++
		case c == '/' && p.i+1 < len(p.src) && p.src[p.i+1] == '/':
			j := bytes.IndexByte(p.src[p.i:], '\n')
			if j < 0 {
				p.i = len(p.src)
			} else {
				p.i += j + 1
			}
		case c == '/' && p.i+1 < len(p.src) && p.src[p.i+1] == '*':
			j := bytes.Index(p.src[p.i+2:], []byte("*/"))
			if j < 0 {
				return errAt(p.src, p.i, "unterminated /* comment")
			}
			p.i += 2 + j + 2
		default:
			return nil
		}
	}
	return nil
}

// value reads one value and returns its object when it is one.
func (p *jsonParser) value(depth int) (*jsonObj, error) {
	if depth > maxDepth {
		return nil, errAt(p.src, p.i, "nested more than %d levels", maxDepth)
	}
	if p.i >= len(p.src) {
		return nil, errAt(p.src, p.i, "unexpected end of file, want a value")
	}
	switch c := p.src[p.i]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return nil, p.array(depth)
	case c == '"':
		_, err := p.str()
		return nil, err
	case c == '-' || c >= '0' && c <= '9':
		return nil, p.number()
	default:
		for _, lit := range []string{"true", "false", "null"} {
			if bytes.HasPrefix(p.src[p.i:], []byte(lit)) {
				p.i += len(lit)
				return nil, nil
			}
		}
		return nil, errAt(p.src, p.i, "unexpected %s, want a value", p.what())
	}
}

func (p *jsonParser) object(depth int) (*jsonObj, error) {
	o := &jsonObj{open: p.i}
	p.i++
	for {
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i < len(p.src) && p.src[p.i] == '}' {
			o.close = p.i
			p.i++
			return o, nil
		}
		if p.i >= len(p.src) || p.src[p.i] != '"' {
			return nil, errAt(p.src, p.i, "unexpected %s, want a member name in quotes or '}'", p.what())
		}
		m := jsonMember{keyStart: p.i}
		k, err := p.str()
		if err != nil {
			return nil, err
		}
		m.key = k
		if err := p.space(); err != nil {
			return nil, err
		}
		if p.i >= len(p.src) || p.src[p.i] != ':' {
			return nil, errAt(p.src, p.i, "unexpected %s, want ':' after %q", p.what(), k)
		}
		p.i++
		if err := p.space(); err != nil {
			return nil, err
		}
		m.valStart = p.i
		if m.obj, err = p.value(depth + 1); err != nil {
			return nil, err
		}
		m.valEnd = p.i
		o.members = append(o.members, m)
		if err := p.space(); err != nil {
			return nil, err
		}
		switch {
		case p.i < len(p.src) && p.src[p.i] == ',':
			p.i++
		case p.i < len(p.src) && p.src[p.i] == '}':
		default:
			return nil, errAt(p.src, p.i, "unexpected %s, want ',' or '}' after the value of %q", p.what(), k)
		}
	}
}

func (p *jsonParser) array(depth int) error {
	p.i++
	for {
		if err := p.space(); err != nil {
			return err
		}
		if p.i < len(p.src) && p.src[p.i] == ']' {
			p.i++
			return nil
		}
		if _, err := p.value(depth + 1); err != nil {
			return err
		}
		if err := p.space(); err != nil {
			return err
		}
		switch {
		case p.i < len(p.src) && p.src[p.i] == ',':
			p.i++
		case p.i < len(p.src) && p.src[p.i] == ']':
		default:
			return errAt(p.src, p.i, "unexpected %s, want ',' or ']' in an array", p.what())
		}
	}
}

// str reads a string and returns its decoded value.
func (p *jsonParser) str() (string, error) {
	start := p.i
	p.i++
	for p.i < len(p.src) {
		switch c := p.src[p.i]; {
		case c == '"':
			p.i++
			var s string
			if err := json.Unmarshal(p.src[start:p.i], &s); err != nil {
				return "", errAt(p.src, start, "invalid string")
			}
			return s, nil
		case c == '\\':
			if p.i+1 >= len(p.src) {
				return "", errAt(p.src, start, "unterminated string")
			}
			switch p.src[p.i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				p.i += 2
			case 'u':
				if p.i+6 > len(p.src) || !isHex(p.src[p.i+2:p.i+6]) {
					return "", errAt(p.src, p.i, "invalid \\u escape")
				}
				p.i += 6
			default:
				return "", errAt(p.src, p.i, "invalid escape \\%c", p.src[p.i+1])
			}
		case c < 0x20:
			return "", errAt(p.src, p.i, "control character in a string (a line break inside quotes?)")
		default:
			p.i++
		}
	}
	return "", errAt(p.src, start, "unterminated string")
}

func isHex(b []byte) bool {
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

func (p *jsonParser) number() error {
	start := p.i
	digits := func() int {
		n := 0
		for p.i < len(p.src) && p.src[p.i] >= '0' && p.src[p.i] <= '9' {
			p.i++
			n++
		}
		return n
	}
	if p.src[p.i] == '-' {
		p.i++
	}
	if p.i < len(p.src) && p.src[p.i] == '0' {
		p.i++
	} else if digits() == 0 {
		return errAt(p.src, start, "invalid number")
	}
	if p.i < len(p.src) && p.src[p.i] == '.' {
		p.i++
		if digits() == 0 {
			return errAt(p.src, start, "invalid number")
		}
	}
	if p.i < len(p.src) && (p.src[p.i] == 'e' || p.src[p.i] == 'E') {
		p.i++
		if p.i < len(p.src) && (p.src[p.i] == '+' || p.src[p.i] == '-') {
			p.i++
		}
		if digits() == 0 {
			return errAt(p.src, start, "invalid number")
		}
	}
	return nil
}

// find returns the member named key, or nil; a name given twice is an
// error (clients disagree on which one wins).
func (o *jsonObj) find(src []byte, key string) (*jsonMember, error) {
	var found *jsonMember
	for i := range o.members {
		m := &o.members[i]
		if m.key != key {
			continue
		}
		if found != nil {
			return nil, errAt(src, m.keyStart, "%q is given twice (lines %d and %d); remove one", key, lineOf(src, found.keyStart), lineOf(src, m.keyStart))
		}
		found = m
	}
	return found, nil
}

// SetJSON returns src with the member name of the object at path (a chain
// of member names from the top level, such as ["servers"]) set to val:
// replaced where it exists, added after the object's last member where it
// does not, the objects on the path created when missing. Everything else
// keeps its bytes. src is JSON with comments and trailing commas allowed;
// an empty src becomes a new document.
func SetJSON(src []byte, path []string, name string, val Obj) ([]byte, error) {
	return setJSON(src, path, name, val)
}

// SetJSONMember is SetJSON for a value of any kind Member holds (a
// string, a number, a bool, an object or an array).
func SetJSONMember(src []byte, path []string, name string, val any) ([]byte, error) {
	return setJSON(src, path, name, val)
}

// SetJSONArray returns src with the array member name of the object at
// path (created, with the objects on the path, when missing) holding the
// elements of the array there now that keep accepts, in their order, then
// add. keep sees each element's JSON; a kept element is written again from
// it, so comments inside the array are lost (an array with comments in it
// is refused, naming its line). Everything outside the member keeps its
// bytes.
func SetJSONArray(src []byte, path []string, name string, keep func(elem json.RawMessage) bool, add []Obj) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	var elems []any
	m, err := memberAt(src, root, path, name)
	if err != nil {
		return nil, err
	}
	if m != nil {
		var old []json.RawMessage
		if err := json.Unmarshal(src[m.valStart:m.valEnd], &old); err != nil {
			return nil, errAt(src, m.valStart, "%q is not a plain JSON array (comments inside it, or another kind of value); merge by hand, or move it aside and run again", name)
		}
		for _, e := range old {
			if keep(e) {
				elems = append(elems, e)
			}
		}
	}
	for _, o := range add {
		elems = append(elems, o)
	}
	if m != nil && sameJSON(src[m.valStart:m.valEnd], []byte(renderJSON(elems, "", "", ""))) {
		return src, nil // already so: a second merge changes nothing
	}
	return setJSON(src, path, name, elems)
}

// sameJSON reports whether a and b are the same JSON text, whitespace
// aside.
func sameJSON(a, b []byte) bool {
	var ca, cb bytes.Buffer
	return json.Compact(&ca, a) == nil && json.Compact(&cb, b) == nil && bytes.Equal(ca.Bytes(), cb.Bytes())
}

// memberAt finds the member name of the object at path, or nil when it or
// an object on the way is missing.
func memberAt(src []byte, root *jsonObj, path []string, name string) (*jsonMember, error) {
	cur := root
	if cur == nil {
		return nil, nil
	}
	for _, key := range path {
		m, err := cur.find(src, key)
		if err != nil || m == nil || m.obj == nil {
			return nil, err
		}
		cur = m.obj
	}
	return cur.find(src, name)
}

func setJSON(src []byte, path []string, name string, val any) ([]byte, error) {
	root, err := parseJSONC(src)
	if err != nil {
		return nil, err
	}
	unit := indentUnit(src)
	nl := newline(src)
	if root == nil {
		var b strings.Builder
		b.Write(src)
		if len(bytes.TrimSpace(src)) > 0 && !bytes.HasSuffix(src, []byte("\n")) {
			b.WriteString(nl)
		}
		b.WriteString(renderJSON(wrap(path, name, val), "", unit, nl))
		b.WriteString(nl)
		return []byte(b.String()), nil
	}
	cur := root
	for i, key := range path {
		m, err := cur.find(src, key)
		if err != nil {
			return nil, err
		}
		if m == nil {
			return insertJSON(src, cur, key, wrap(path[i+1:], name, val), unit, nl), nil
		}
		if m.obj == nil {
			return nil, errAt(src, m.valStart, "%q is %s, not an object; fix or remove it", key, kindOf(src[m.valStart]))
		}
		cur = m.obj
	}
	m, err := cur.find(src, name)
	if err != nil {
		return nil, err
	}
	if m == nil {
		return insertJSON(src, cur, name, val, unit, nl), nil
	}
	ind := lineIndent(src, m.keyStart)
	if !firstOnLine(src, m.keyStart) {
		ind = lineIndent(src, cur.open) + unit
	}
	out := make([]byte, 0, len(src)+256)
	out = append(out, src[:m.valStart]...)
	out = append(out, renderJSON(val, ind, unit, nl)...)
	out = append(out, src[m.valEnd:]...)
	return out, nil
}

// wrap nests val under name inside objects named by path.
func wrap(path []string, name string, val any) Obj {
	v := Obj{{name, val}}
	for i := len(path) - 1; i >= 0; i-- {
		v = Obj{{path[i], v}}
	}
	return v
}

// insertJSON adds the member key: val to o, after its last member.
func insertJSON(src []byte, o *jsonObj, key string, val any, unit, nl string) []byte {
	objInd := lineIndent(src, o.open)
	if len(o.members) == 0 {
		ind := objInd + unit
		q := o.close
		for q > o.open+1 && isSpace(src[q-1]) {
			q--
		}
		text := nl + ind + quote(key) + ": " + renderJSON(val, ind, unit, nl) + nl + objInd
		return splice(src, q, o.close, text)
	}
	last := o.members[len(o.members)-1]
	ind := objInd + unit
	if firstOnLine(src, last.keyStart) {
		ind = lineIndent(src, last.keyStart)
	}
	member := quote(key) + ": " + renderJSON(val, ind, unit, nl)
	// After the last value: its trailing comma, if any.
	p := &jsonParser{src: src, i: last.valEnd}
	p.space() // the document parsed: cannot fail
	trailing := src[p.i] == ','
	at, comma := last.valEnd, ","
	if trailing {
		at, comma = p.i+1, ""
		member += ","
	}
	ip := endOfLine(src, at)
	if ip < 0 || ip > o.close {
		// Something else follows on the line: the close brace, say.
		ip = at
	}
	out := make([]byte, 0, len(src)+len(member)+64)
	out = append(out, src[:at]...)
	out = append(out, comma...)
	out = append(out, src[at:ip]...)
	out = append(out, nl+ind+member...)
	out = append(out, src[ip:]...)
	return out
}

// endOfLine is the offset of the line break ending the line at off when
// only spaces, tabs and a // comment follow off on it (the end of src when
// it has no line break), else -1.
func endOfLine(src []byte, off int) int {
	i := off
	for i < len(src) && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	switch {
	case i+1 < len(src) && src[i] == '/' && src[i+1] == '/':
		j := bytes.IndexByte(src[i:], '\n')
		if j < 0 {
			return len(src)
		}
		i += j
	case i == len(src):
		return i
	case src[i] == '\r' && i+1 < len(src) && src[i+1] == '\n':
		return i
	case src[i] != '\n':
		return -1
	}
	if i > off && src[i-1] == '\r' {
		i--
	}
	return i
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func splice(src []byte, from, to int, text string) []byte {
	out := make([]byte, 0, len(src)+len(text))
	out = append(out, src[:from]...)
	out = append(out, text...)
	out = append(out, src[to:]...)
	return out
}

// indentUnit is the file's indentation step: the leading whitespace of
// its first indented line (a tab, or that many spaces), "  " when none.
func indentUnit(src []byte) string {
	for _, line := range bytes.Split(src, []byte("\n")) {
		n := 0
		for n < len(line) && (line[n] == ' ' || line[n] == '\t') {
			n++
		}
		if n == 0 || n == len(line) || line[n] == '\r' {
			continue
		}
		if line[0] == '\t' {
			return "\t"
		}
		if n > 8 {
			n = 8
		}
		return strings.Repeat(" ", n)
	}
	return "  "
}

// quote is s as a JSON string, without HTML escaping.
func quote(s string) string {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	return strings.TrimSuffix(b.String(), "\n")
}

// renderJSON writes v as JSON: objects one member a line at indent ind
// plus unit, arrays of strings on one line.
func renderJSON(v any, ind, unit, nl string) string {
	switch v := v.(type) {
	case Obj:
		if len(v) == 0 {
			return "{}"
		}
		var b strings.Builder
		b.WriteString("{")
		for i, m := range v {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(nl + ind + unit + quote(m.Key) + ": " + renderJSON(m.Val, ind+unit, unit, nl))
		}
		b.WriteString(nl + ind + "}")
		return b.String()
	case []any:
		if len(v) == 0 {
			return "[]"
		}
		var b strings.Builder
		b.WriteString("[")
		for i, e := range v {
			if i > 0 {
				b.WriteString(",")
			}
			b.WriteString(nl + ind + unit + renderJSON(e, ind+unit, unit, nl))
		}
		b.WriteString(nl + ind + "]")
		return b.String()
	case json.RawMessage:
		var b bytes.Buffer
		if err := json.Indent(&b, v, ind, unit); err != nil {
			return string(v)
		}
		return strings.ReplaceAll(b.String(), "\n", nl)
	case []string:
		q := make([]string, len(v))
		for i, s := range v {
			q[i] = quote(s)
		}
		return "[" + strings.Join(q, ", ") + "]"
	case string:
		return quote(v)
	case bool:
		return strconv.FormatBool(v)
	case int:
		return strconv.Itoa(v)
	}
	panic(fmt.Sprintf("cfgedit: cannot render a %T", v))
}
