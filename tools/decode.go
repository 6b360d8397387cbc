package tools

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrInvalid is the kind of every argument error: errors.Is(err, ErrInvalid)
// holds for each *ArgError. Its refusal kind is "invalid".
var ErrInvalid = errors.New("invalid arguments")

// ErrUnknownTool is returned by Decode for a tool name that does not exist.
var ErrUnknownTool = errors.New("unknown tool")

// ArgError reports arguments that break rule 1 of SPEC section 4: wrong JSON
// types, unknown or repeated keys, missing arguments, and values no call
// could accept.
type ArgError struct {
	Tool string // the tool called
	// Field is the argument at fault, such as "offset" or
	// "edits[2].old_string"; "" when the arguments as a whole are wrong.
	Field string
	// Msg says what is wrong and what to send instead, as complete
	// sentences for a model.
	Msg string
	// Suggest is, for an unknown argument, the name the model probably
	// meant ("old_string" for "old_str"); otherwise "".
	Suggest string
}

// Error returns the tool's name and Msg: `edit: unknown argument "old_str";
// did you mean "old_string"?`.
func (e *ArgError) Error() string {
	if e.Tool == "" {
		return e.Msg
	}
	return e.Tool + ": " + e.Msg
}

// Is reports whether target is ErrInvalid.
func (e *ArgError) Is(target error) bool { return target == ErrInvalid }

// Decode parses the JSON arguments of tool into its argument struct
// (*ReadArgs, *EditArgs, ...) and checks rule 1 of SPEC section 4. Every
// problem is an *ArgError naming the argument and the fix; an unknown tool
// is ErrUnknownTool.
//
// Decode is strict: keys must match exactly (case included) and appear
// once, and each value must have its JSON type. It accepts what clients
// send in practice: integral numbers written as floats (3.0), null for an
// omitted argument, and empty input for "no arguments". Values are checked,
// never changed. Once the JSON types are right, Decode applies the same
// checks as the argument type's Validate method, so a call is judged alike
// whether it arrives as JSON or as a Go value.
//
// It reads the input once to find the members, then decodes each known
// value on its own, so a large content string is decoded by exactly one
// encoding/json call.
func Decode(tool string, raw []byte) (any, error) { return Stet.Decode(tool, raw) }

// topMembers parses the whole argument text. Empty input and null stand for
// no arguments. example is the tool's (see tool.example).
func topMembers(tool, example string, raw []byte) ([]member, error) {
	s := newScanner(raw)
	s.SkipSpace()
	rest := raw[s.Pos():]
	if len(rest) == 0 || string(trimSpace(rest)) == "null" {
		return nil, nil
	}
	if rest[0] != '{' {
		return nil, &ArgError{Tool: tool, Msg: fmt.Sprintf("the arguments must be a JSON object such as {%s}, not %s.", example, article(jsonType(rest)))}
	}
	ms, err := parseObject(raw)
	if err != nil {
		return nil, &ArgError{Tool: tool, Msg: fmt.Sprintf("the arguments are not valid JSON: %v. Send one JSON object.", err)}
	}
	return ms, nil
}

func trimSpace(b []byte) []byte {
	for len(b) > 0 && isSpace(b[len(b)-1]) {
		b = b[:len(b)-1]
	}
	for len(b) > 0 && isSpace(b[0]) {
		b = b[1:]
	}
	return b
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

func article(typ string) string {
	switch typ {
	case "array", "object":
		return "an " + typ
	case "null", "nothing":
		return typ
	default:
		return "a " + typ
	}
}

// bind decodes the members ms into fields (pointers in the order of
// params). prefix is "" for the top-level arguments, or "edits[i]" for an
// element of an array of objects (edit's edits); missing is then the
// sentence a missing key adds (objects.missing).
func bind(tool, prefix, missing string, params []param, fields []any, ms []member) *ArgError {
	seen := make([]bool, len(params))
	given := make([]bool, len(params))
	index := make([]int, len(ms))
	var unknown []string
	for j, m := range ms {
		i := paramIndex(params, m.key)
		index[j] = i
		if i < 0 {
			unknown = append(unknown, m.key)
			continue
		}
		if seen[i] {
			return &ArgError{Tool: tool, Field: qualify(prefix, m.key),
				Msg: fmt.Sprintf("%s appears more than once; send each argument once.", qualify(prefix, m.key))}
		}
		seen[i] = true
	}
	if len(unknown) > 0 {
		return unknownError(tool, prefix, params, unknown)
	}
	for j, m := range ms {
		i := index[j]
		p := params[i]
		field := qualify(prefix, p.name)
		ok, err := decodeValue(tool, field, p, m.val, fields[i])
		if err != nil {
			return err
		}
		given[i] = ok
	}
	var absent []string
	for i, p := range params {
		if p.required && !given[i] {
			absent = append(absent, p.name)
		}
	}
	if len(absent) > 0 {
		return missingError(tool, prefix, missing, absent)
	}
	return nil
}

func paramIndex(params []param, key string) int {
	for i, p := range params {
		if p.name == key {
			return i
		}
	}
	return -1
}

func qualify(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

func unknownError(tool, prefix string, params []param, unknown []string) *ArgError {
	known := make([]string, len(params))
	for i, p := range params {
		known[i] = p.name
	}
	where, noun := "", "argument"
	accepts := fmt.Sprintf("%s accepts %s.", tool, strings.Join(known, ", "))
	if prefix != "" {
		where = " in " + prefix
		noun = "key"
		array, _, _ := strings.Cut(prefix, "[")
		accepts = fmt.Sprintf("Each element of %s takes %s.", array, strings.Join(known, ", "))
	}
	first := suggest(unknown[0], known)
	e := &ArgError{Tool: tool, Field: qualify(prefix, unknown[0]), Suggest: first}
	if len(unknown) == 1 {
		if first != "" {
			e.Msg = fmt.Sprintf("unknown %s %q%s; did you mean %q?", noun, truncate(unknown[0]), where, first)
		} else {
			e.Msg = fmt.Sprintf("unknown %s %q%s. %s", noun, truncate(unknown[0]), where, accepts)
		}
		return e
	}
	const maxListed = 5
	var parts []string
	for i, k := range unknown {
		if i == maxListed {
			parts = append(parts, fmt.Sprintf("%d more", len(unknown)-maxListed))
			break
		}
		part := strconv.Quote(truncate(k))
		if s := suggest(k, known); s != "" {
			part += fmt.Sprintf(" (did you mean %q?)", s)
		}
		parts = append(parts, part)
	}
	e.Msg = fmt.Sprintf("unknown %ss%s: %s. %s", noun, where, strings.Join(parts, ", "), accepts)
	return e
}

// missingError refuses the absent required arguments; in an element of an
// array of objects (prefix), adding the sentence elem.
func missingError(tool, prefix, elem string, missing []string) *ArgError {
	e := &ArgError{Tool: tool, Field: qualify(prefix, missing[0])}
	quoted := make([]string, len(missing))
	for i, m := range missing {
		quoted[i] = strconv.Quote(m)
	}
	list := strings.Join(quoted, " and ")
	switch {
	case prefix != "":
		e.Msg = fmt.Sprintf("%s is missing %s; %s", prefix, list, elem)
	case len(missing) == 1:
		e.Msg = fmt.Sprintf("missing required argument %s.", list)
	default:
		e.Msg = fmt.Sprintf("missing required arguments %s.", list)
	}
	if prefix == "" && missing[0] == "content" {
		e.Msg = strings.TrimSuffix(e.Msg, ".") + `: the complete text of the file ("" for an empty file).`
	}
	return e
}

// decodeValue decodes v, the value of argument p, into dst (a *string,
// **string, *int, *bool, *[]string, or a pointer to a slice that p.elem
// fills). It reports false for null, which stands for an omitted argument.
func decodeValue(tool, field string, p param, v []byte, dst any) (bool, *ArgError) {
	typ := jsonType(v)
	if typ == "null" {
		return false, nil
	}
	bad := func(msg string, args ...any) *ArgError {
		return &ArgError{Tool: tool, Field: field, Msg: fmt.Sprintf(msg, args...)}
	}
	switch p.kind {
	case kindString:
		if typ != "string" {
			return false, bad("%s must be a string, not %s.", field, article(typ))
		}
		s, err := unquote(v)
		if err != nil {
			return false, bad("%s is not a valid JSON string: %v.", field, err)
		}
		switch p := dst.(type) {
		case *string:
			*p = s
		case **string:
			*p = &s
		default:
			panic(fmt.Sprintf("tools: string argument %s bound to %T", field, dst))
		}
	case kindInt:
		if typ != "number" {
			msg := fmt.Sprintf("%s must be an integer, not %s.", field, article(typ))
			if n, ok := quotedNumber(v); ok {
				msg = fmt.Sprintf("%s must be an integer, not a string: send %s without quotes.", field, n)
			}
			return false, bad("%s", msg)
		}
		n, err := parseWhole(v)
		if err != "" {
			return false, bad("%s must be %s, got %s.", field, err, truncate(string(v)))
		}
		*dst.(*int) = n
	case kindBool:
		if typ != "boolean" {
			msg := fmt.Sprintf("%s must be true or false, not %s.", field, article(typ))
			if s := string(v); s == `"true"` || s == `"false"` {
				msg = fmt.Sprintf("%s must be true or false, not a string: send %s without quotes.", field, s[1:len(s)-1])
			}
			return false, bad("%s", msg)
		}
		*dst.(*bool) = v[0] == 't'
	case kindStrings:
		if typ != "array" {
			msg := fmt.Sprintf("%s must be an array of strings, not %s.", field, article(typ))
			if typ == "string" {
				msg += " Send [\"a.txt\", \"b.txt\"], even for one path."
			}
			return false, bad("%s", msg)
		}
		elems, err := parseArray(v)
		if err != nil {
			return false, bad("%s is not valid JSON: %v.", field, err)
		}
		list := make([]string, len(elems))
		for i, e := range elems {
			if jsonType(e) != "string" {
				return false, bad("%s[%d] must be a string, not %s.", field, i, article(jsonType(e)))
			}
			s, err := unquote(e)
			if err != nil {
				return false, bad("%s[%d] is not a valid JSON string: %v.", field, i, err)
			}
			list[i] = s
		}
		*dst.(*[]string) = list
	case kindObjects:
		if err := decodeObjects(tool, field, p.elem, v, dst); err != nil {
			return false, err
		}
	}
	return true, nil
}

// parseWhole parses a JSON number that must be a whole number in int
// range; 3.0 and 1e3 are whole. On failure it says what the number must be.
func parseWhole(v []byte) (int, string) {
	s := string(v)
	if n, err := strconv.ParseInt(s, 10, 0); err == nil {
		return int(n), ""
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.Abs(f) >= math.MaxInt64 {
		return 0, "an integer of reasonable size"
	}
	if f != math.Trunc(f) {
		return 0, "a whole number"
	}
	return int(f), ""
}

// quotedNumber reports whether v is a JSON string holding a number, as in
// "offset": "10".
func quotedNumber(v []byte) (string, bool) {
	if len(v) < 3 || len(v) > 24 || v[0] != '"' {
		return "", false
	}
	inner := string(v[1 : len(v)-1])
	if _, err := strconv.ParseFloat(inner, 64); err != nil {
		return "", false
	}
	return inner, true
}

// objects describes an argument that is an array of objects, such as
// edit's edits: the keys of one element, the words refusals use for it,
// and how a decoded array is filled (made by objectsOf).
type objects struct {
	params  []param
	shape   string // one element as messages show it: "{old_string, new_string, replace_all?}"
	empty   string // what to send instead of an empty array, a sentence
	missing string // the sentence after "edits[i] is missing ..."
	// fill decodes the elements into the slice dst points to.
	fill func(tool, field string, elems [][]byte, dst any) *ArgError
}

// objectsOf completes o for elements of type E, whose fields (in the order
// of o.params) fields returns.
func objectsOf[E any](o objects, fields func(*E) []any) *objects {
	o.fill = func(tool, field string, elems [][]byte, dst any) *ArgError {
		list := make([]E, len(elems))
		for i, e := range elems {
			prefix := fmt.Sprintf("%s[%d]", field, i)
			if jsonType(e) != "object" {
				return &ArgError{Tool: tool, Field: prefix,
					Msg: fmt.Sprintf("%s must be an object %s, not %s.", prefix, o.shape, article(jsonType(e)))}
			}
			ms, err := parseObject(e)
			if err != nil {
				return &ArgError{Tool: tool, Field: prefix, Msg: fmt.Sprintf("%s is not valid JSON: %v.", prefix, err)}
			}
			if err := bind(tool, prefix, o.missing, o.params, fields(&list[i]), ms); err != nil {
				return err
			}
		}
		*dst.(*[]E) = list
		return nil
	}
	return &o
}

// decodeObjects decodes v, an array of objects o describes, into dst.
func decodeObjects(tool, field string, o *objects, v []byte, dst any) *ArgError {
	typ := jsonType(v)
	if typ != "array" {
		msg := fmt.Sprintf("%s must be an array of %s objects, not %s.", field, o.shape, article(typ))
		if typ == "string" {
			msg += " Send the array itself, not JSON text inside a string."
		}
		return &ArgError{Tool: tool, Field: field, Msg: msg}
	}
	elems, err := parseArray(v)
	if err != nil { // the whole input was scanned already; this is defensive
		return &ArgError{Tool: tool, Field: field, Msg: fmt.Sprintf("%s is not valid JSON: %v.", field, err)}
	}
	if len(elems) == 0 {
		return &ArgError{Tool: tool, Field: field, Msg: fmt.Sprintf("%s is empty; %s", field, o.empty)}
	}
	return o.fill(tool, field, elems, dst)
}

// truncate shortens a value quoted back in a message.
func truncate(s string) string {
	const max = 40
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && s[cut]&0xC0 == 0x80 { // keep UTF-8 sequences whole
		cut--
	}
	return s[:cut] + "..."
}
