package policy

import (
	"errors"
	"fmt"
	"path"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MaxInputs is the most paths a session may declare as inputs.
const MaxInputs = 32

// ErrTooManyInputs is returned by NormalizeInputs for more than MaxInputs
// paths.
var ErrTooManyInputs = errors.New("too many inputs")

// InputError names one bad entry of a declared inputs list by its index.
type InputError struct {
	Index  int    // position in the list as given, from 0
	Reason string // "must be a non-empty path", ...
}

// Error returns the message, as the error interface asks.
func (e *InputError) Error() string { return fmt.Sprintf("inputs[%d] %s", e.Index, e.Reason) }

// NormalizeInputs cleans a session's declared inputs (rule 8): each entry is
// trimmed of surrounding space; entries containing a glob character (* ? [)
// are ignored; duplicates (equal after path.Clean) are dropped, keeping the
// first spelling. Every bad entry is reported by index as an *InputError,
// joined into one error ("inputs[3] must be a non-empty path"); more than
// MaxInputs paths wraps ErrTooManyInputs. On error the returned list is nil.
func NormalizeInputs(in []string) ([]string, error) {
	var (
		out  []string
		errs []error
		seen = make(map[string]bool)
	)
	for i, s := range in {
		s = strings.TrimSpace(s)
		switch {
		case s == "":
			errs = append(errs, &InputError{i, "must be a non-empty path"})
			continue
		case strings.IndexByte(s, 0) >= 0:
			errs = append(errs, &InputError{i, "must not contain a NUL byte"})
			continue
		case !utf8.ValidString(s):
			errs = append(errs, &InputError{i, "must be valid UTF-8"})
			continue
		case strings.ContainsAny(s, "*?["):
			continue
		}
		key := path.Clean(strings.ReplaceAll(s, `\`, "/"))
		if seen[key] {
			continue
		}
		seen[key] = true
		out = append(out, s)
	}
	if len(out) > MaxInputs {
		errs = append(errs, fmt.Errorf("inputs: at most %d paths, got %d: %w", MaxInputs, len(out), ErrTooManyInputs))
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return out, nil
}

// InputRefusal is the refusal text (kind input) for a whole-file replace of
// a declared input. path is as the call spelled it; counts comes from
// Counts.
func InputRefusal(path, counts string) string {
	return "refused: " + path + " is an input this fan-out declared (" + counts + "); edit it in place (edit / patch)" +
		" — a worker cannot replace a declared input; if the task needs it replaced, say so in your reply so the" +
		" orchestrator can redeclare it"
}

// RequestRefusal is the refusal text (kind input) for a whole-file replace
// of a file the pinned request names, without overwrite: true.
func RequestRefusal(path, counts string) string {
	return "refused: " + path + " is an input the request names (" + counts + "); edit it in place (edit / patch)," +
		" or pass overwrite: true if replacing it is really what the user asked for"
}

// GuardReplace decides rule 8 for a whole-file replace of an existing
// non-empty file the session did not create (the caller checks that, and
// resolves whether the file is one of the declared inputs). request is the
// pinned request (for a worker, its brief's ORIGINAL REQUEST block). It
// returns the refusal text, or "" when the replace may go ahead:
//
//   - a declared input is refused whatever overwrite says (InputRefusal);
//   - a file the request names is refused unless overwrite is set or the
//     request asks to replace it (RequestRefusal).
func GuardReplace(path, counts, request string, declared, overwrite bool) string {
	switch {
	case declared:
		return InputRefusal(path, counts)
	case !overwrite && NamesFile(request, path) && !AsksToReplace(request, path):
		return RequestRefusal(path, counts)
	}
	return ""
}

// NamesFile reports whether request names the file at path: whether the
// file's base name (the part after the last "/" or "\") stands in request
// as a whole name, compared case-insensitively.
//
// A whole name is not preceded by a letter, digit or one of _ - . + ~, and
// not followed by one of those either, except that a "." followed by
// something other than a letter, digit or _ - + ~ ends it (the end of a
// sentence). A directory prefix, quotes, backticks, brackets and other
// punctuation around the name do not matter. So for data/sales.csv:
// "data/sales.csv", "`Sales.CSV`" and "Update sales.csv." name it;
// "old-sales.csv", "sales.csv.bak" and "sales.csv2" do not.
func NamesFile(request, path string) bool {
	return len(nameOffsets(strings.ToLower(request), path)) > 0
}

// nameOffsets returns the offsets in lower (a lower-cased request) where
// path's base name stands as a whole name.
func nameOffsets(lower, p string) []int {
	base := strings.ToLower(baseName(p))
	if base == "" {
		return nil
	}
	var offs []int
	for from := 0; from+len(base) <= len(lower); {
		i := strings.Index(lower[from:], base)
		if i < 0 {
			break
		}
		start := from + i
		end := start + len(base)
		if wholeName(lower, start, end) {
			offs = append(offs, start)
		}
		_, size := utf8.DecodeRuneInString(lower[start:])
		from = start + size
	}
	return offs
}

func baseName(p string) string {
	p = strings.TrimSpace(p)
	p = strings.TrimRight(p, `/\`)
	if i := strings.LastIndexAny(p, `/\`); i >= 0 {
		p = p[i+1:]
	}
	return p
}

func wholeName(s string, start, end int) bool {
	if before, _ := utf8.DecodeLastRuneInString(s[:start]); start > 0 && nameRune(before) {
		return false
	}
	after, size := utf8.DecodeRuneInString(s[end:])
	if end == len(s) || !nameRune(after) {
		return true
	}
	if after != '.' {
		return false
	}
	next, _ := utf8.DecodeRuneInString(s[end+size:])
	return end+size == len(s) || next == '.' || !nameRune(next)
}

// nameRune reports whether r can continue a file name.
func nameRune(r rune) bool {
	return unicode.IsLetter(r) || unicode.IsDigit(r) || unicode.IsMark(r) || strings.ContainsRune("_-.+~", r)
}
