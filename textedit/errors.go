package textedit

import (
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// Kinds of edit failure. Argument errors (ErrEmptyOld, ErrNoChange) come
// wrapped in an *EditError; ErrNoMatch and ErrAmbiguous are what a
// *NoMatchError and an *AmbiguousError unwrap to, so callers may branch with
// errors.Is or, for the details, errors.As.
var (
	// ErrEmptyOld: an edit's old_string is empty.
	ErrEmptyOld = errors.New("old_string is empty")
	// ErrNoChange: an edit's old_string equals its new_string.
	ErrNoChange = errors.New("old_string and new_string are the same")
	// ErrNoEdits: ApplyContext was given no edits.
	ErrNoEdits = errors.New("no edits given")
	// ErrNoMatch: old_string does not occur in the text.
	ErrNoMatch = errors.New("old_string not found")
	// ErrAmbiguous: old_string occurs more than once and replace_all is off.
	ErrAmbiguous = errors.New("old_string is not unique")
	// ErrTooLarge: an edit's result would be larger than the bound given
	// to ApplyContext.
	ErrTooLarge = errors.New("result too large")
	// ErrBadRegion: Splice was given a region outside the text, out of
	// order, overlapping another, or whose Old bytes are not the text's.
	ErrBadRegion = errors.New("bad region")
)

// EditError reports an edit whose arguments are unusable whatever the text
// holds. Err is ErrEmptyOld or ErrNoChange.
//
// Like every error of this package, its message names neither the file nor
// the edit's index: callers with several edits prefix "edits[i]: " from
// Index.
type EditError struct {
	Index int // 0-based index of the edit
	Err   error
}

// Error returns the kind's message.
func (e *EditError) Error() string { return e.Err.Error() }

// Unwrap returns the kind.
func (e *EditError) Unwrap() error { return e.Err }

// NoMatchError reports an edit whose old_string occurs nowhere in the text
// it applied to, not even after CRLF adaptation. Near, when not nil,
// describes the most similar region.
type NoMatchError struct {
	Index int    // 0-based index of the edit
	Old   string // the edit's old_string as given
	Near  *Near
}

// Error says that old_string was not found and, when Near is set, where
// the nearest region is and what it differs in.
func (e *NoMatchError) Error() string {
	if e.Near == nil {
		return "old_string not found"
	}
	n := e.Near
	var where, verb string
	if n.StartLine == n.EndLine {
		where, verb = "line "+strconv.Itoa(n.StartLine), "differs"
	} else {
		where, verb = fmt.Sprintf("lines %d-%d", n.StartLine, n.EndLine), "differ"
	}
	return fmt.Sprintf("old_string not found; nearest is %s, which %s in %s", where, verb, joinAnd(n.Differences))
}

// Unwrap returns ErrNoMatch.
func (e *NoMatchError) Unwrap() error { return ErrNoMatch }

// AmbiguousError reports an edit without replace_all whose old_string
// occurs Count times. Occurrences are counted at every byte offset, so
// overlapping ones count too ("aa" occurs twice in "aaa").
type AmbiguousError struct {
	Index int   // 0-based index of the edit
	Count int   // number of occurrences
	Lines []int // 1-based line of each occurrence, in the text the edit applied to
}

// maxListedLines bounds the lines an AmbiguousError message lists.
const maxListedLines = 10

// Error gives the count, the distinct lines (at most ten) and the next step.
func (e *AmbiguousError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "old_string matches %d times (", e.Count)
	listed, prev := 0, 0
	for _, l := range e.Lines {
		if l == prev {
			continue
		}
		if listed == maxListedLines {
			b.WriteString(", …")
			break
		}
		if listed == 0 {
			b.WriteString("line")
			if hasTwoDistinct(e.Lines) {
				b.WriteString("s")
			}
			b.WriteString(" ")
		} else {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(l))
		listed++
		prev = l
	}
	b.WriteString("); add surrounding lines to make it unique, or pass replace_all")
	return b.String()
}

// Unwrap returns ErrAmbiguous.
func (e *AmbiguousError) Unwrap() error { return ErrAmbiguous }

func hasTwoDistinct(xs []int) bool {
	for _, x := range xs {
		if x != xs[0] {
			return true
		}
	}
	return false
}

// joinAnd renders ["a"] as "a", ["a","b"] as "a and b", ["a","b","c"] as
// "a, b and c".
func joinAnd(xs []string) string {
	switch len(xs) {
	case 0:
		return "content"
	case 1:
		return xs[0]
	}
	return strings.Join(xs[:len(xs)-1], ", ") + " and " + xs[len(xs)-1]
}

// TooLargeError reports an edit whose result would exceed the size bound,
// found from the match count before the result is built.
type TooLargeError struct {
	Index int // 0-based index of the edit
	Count int // replacements the edit would make
	Old   int // bytes of old_string as matched
	New   int // bytes of new_string as applied
	Size  int // bytes the result would have
	Max   int // the bound
}

// Error states the sizes and the next step.
func (e *TooLargeError) Error() string {
	return fmt.Sprintf("%s × %s-byte new_string would make the file %s bytes, over the %s-byte edit limit; replace fewer matches at a time or use a shorter new_string",
		count(e.Count, "replacement"), thousands(e.New), thousands(e.Size), thousands(e.Max))
}

// Unwrap returns ErrTooLarge.
func (e *TooLargeError) Unwrap() error { return ErrTooLarge }

func count(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return thousands(n) + " " + what + "s"
}

// thousands renders n with comma separators: 1234567 → "1,234,567".
func thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	if neg {
		s = "-" + s
	}
	return s
}
