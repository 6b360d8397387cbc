package tools

import (
	"encoding/json"
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
func Decode(tool string, raw []byte) (any, error) {
	t, ok := lookupTool(tool)
	if !ok {
		if s := Nearest(tool, toolNames()); s != "" {
			return nil, fmt.Errorf("%w %q; did you mean %q?", ErrUnknownTool, truncate(tool), s)
		}
		return nil, fmt.Errorf("%w %q; the tools are %s", ErrUnknownTool, truncate(tool), strings.Join(toolNames(), ", "))
	}
	return t.decode(raw)
}

// topMembers parses the whole argument text. Empty input and null stand for
// no arguments.
func topMembers(tool string, raw []byte) ([]member, error) {
	s := newScanner(raw)
	s.SkipSpace()
	rest := raw[s.Pos():]
	if len(rest) == 0 || string(trimSpace(rest)) == "null" {
		return nil, nil
	}
	if rest[0] != '{' {
		return nil, &ArgError{Tool: tool, Msg: fmt.Sprintf("the arguments must be a JSON object such as {%s}, not %s.", exampleArgs(tool), article(jsonType(rest)))}
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

func exampleArgs(tool string) string {
	switch tool {
	case "patch":
		return `"patch": "*** Begin Patch\n..."`
	case "find", "grep":
		return `"pattern": "..."`
	case "move":
		return `"from": "a.txt", "to": "b.txt"`
	case "list":
		return `"path": "src"`
	default:
		return `"path": "src/main.go"`
	}
}

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
// element of edit's edits.
func bind(tool, prefix string, params []param, fields []any, ms []member) *ArgError {
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
		ok, err := decodeValue(tool, field, p.kind, m.val, fields[i])
		if err != nil {
			return err
		}
		given[i] = ok
	}
	var missing []string
	for i, p := range params {
		if p.required && !given[i] {
			missing = append(missing, p.name)
		}
	}
	if len(missing) > 0 {
		return missingError(tool, prefix, missing)
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
		accepts = fmt.Sprintf("Each element of edits takes %s.", strings.Join(known, ", "))
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

func missingError(tool, prefix string, missing []string) *ArgError {
	e := &ArgError{Tool: tool, Field: qualify(prefix, missing[0])}
	quoted := make([]string, len(missing))
	for i, m := range missing {
		quoted[i] = strconv.Quote(m)
	}
	list := strings.Join(quoted, " and ")
	switch {
	case prefix != "":
		e.Msg = fmt.Sprintf("%s is missing %s; each edit needs old_string and new_string (\"\" to delete).", prefix, list)
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

// decodeValue decodes v into field (a *string, **string, *int, *bool or
// *[]EditOp). It reports false for null, which stands for an omitted
// argument.
func decodeValue(tool, field string, k kind, v []byte, dst any) (bool, *ArgError) {
	typ := jsonType(v)
	if typ == "null" {
		return false, nil
	}
	bad := func(msg string, args ...any) *ArgError {
		return &ArgError{Tool: tool, Field: field, Msg: fmt.Sprintf(msg, args...)}
	}
	switch k {
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
	case kindEdits:
		ops, err := decodeEdits(tool, field, v)
		if err != nil {
			return false, err
		}
		*dst.(*[]EditOp) = ops
	case kindStrings:
		if typ != "array" {
			if typ == "string" {
				return false, bad("%s must be an array of strings, not a string: send [%s].", field, truncate(string(v)))
			}
			return false, bad("%s must be an array of strings, not %s.", field, article(typ))
		}
		var items []json.RawMessage
		if err := json.Unmarshal(v, &items); err != nil {
			return false, bad("%s is not a valid JSON array: %v.", field, err)
		}
		out := make([]string, 0, len(items))
		for i, it := range items {
			if t := jsonType(it); t != "string" {
				return false, bad("%s[%d] must be a string, not %s.", field, i, article(t))
			}
			s, err := unquote(it)
			if err != nil {
				return false, bad("%s[%d] is not a valid JSON string: %v.", field, i, err)
			}
			out = append(out, s)
		}
		*dst.(*[]string) = out
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

func decodeEdits(tool, field string, v []byte) ([]EditOp, *ArgError) {
	typ := jsonType(v)
	if typ != "array" {
		msg := fmt.Sprintf("%s must be an array of {old_string, new_string, replace_all?} objects, not %s.", field, article(typ))
		if typ == "string" {
			msg += " Send the array itself, not JSON text inside a string."
		}
		return nil, &ArgError{Tool: tool, Field: field, Msg: msg}
	}
	elems, err := parseArray(v)
	if err != nil { // the whole input was scanned already; this is defensive
		return nil, &ArgError{Tool: tool, Field: field, Msg: fmt.Sprintf("%s is not valid JSON: %v.", field, err)}
	}
	if len(elems) == 0 {
		return nil, &ArgError{Tool: tool, Field: field,
			Msg: fmt.Sprintf("%s is empty; give at least one {old_string, new_string}, or leave %s out and pass old_string and new_string.", field, field)}
	}
	ops := make([]EditOp, len(elems))
	for i, e := range elems {
		prefix := fmt.Sprintf("%s[%d]", field, i)
		if jsonType(e) != "object" {
			return nil, &ArgError{Tool: tool, Field: prefix,
				Msg: fmt.Sprintf("%s must be an object {old_string, new_string, replace_all?}, not %s.", prefix, article(jsonType(e)))}
		}
		ms, err := parseObject(e)
		if err != nil {
			return nil, &ArgError{Tool: tool, Field: prefix, Msg: fmt.Sprintf("%s is not valid JSON: %v.", prefix, err)}
		}
		op := &ops[i]
		if err := bind(tool, prefix, editOpParams, []any{&op.OldString, &op.NewString, &op.ReplaceAll}, ms); err != nil {
			return nil, err
		}
	}
	return ops, nil
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
