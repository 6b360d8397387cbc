package textedit

import (
	"bytes"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	udiff "github.com/aymanbagabas/go-udiff"
)

// Label is the header label of path under prefix ("a/", "b/"): prefix and
// path as they are, or, when the path holds a control character, invalid
// UTF-8, a line or paragraph separator, or starts with a double quote, the
// whole label quoted and escaped as git quotes such names ("a/x\ny"), so
// that a name cannot end its header line and pass for more lines of the
// diff.
func Label(prefix, path string) string {
	if strings.HasPrefix(path, `"`) || !utf8.ValidString(path) || strings.ContainsFunc(path, func(r rune) bool {
		return unicode.IsControl(r) || r == '\u2028' || r == '\u2029'
	}) {
		return strconv.Quote(prefix + path)
	}
	return prefix + path
}

// contextLines is the number of unchanged lines shown around each hunk.
const contextLines = 3

// Diff returns the unified diff from before to after for the file at path,
// headed "--- a/<path>" and "+++ b/<path>", with 3 lines of context and
// "\ No newline at end of file" where a side ends without one. It returns ""
// when the bytes are equal.
//
// Only the lines between the common prefix and suffix (plus their context)
// reach the diff algorithm, so a small change in a large file is cheap. The
// diff is computed line by line; a change of line endings alone shows as
// changed lines.
func Diff(path string, before, after []byte) string {
	return DiffLabels(Label("a/", path), Label("b/", path), before, after)
}

// DiffCreate returns the diff that creates path with content, headed
// "--- /dev/null". It returns "" for empty content.
func DiffCreate(path string, content []byte) string {
	return DiffLabels("/dev/null", Label("b/", path), nil, content)
}

// DiffDelete returns the diff that deletes path holding content, headed
// "+++ /dev/null". It returns "" for empty content.
func DiffDelete(path string, content []byte) string {
	return DiffLabels(Label("a/", path), "/dev/null", content, nil)
}

// DiffLabels is Diff with the header labels given as they are to appear.
func DiffLabels(oldLabel, newLabel string, before, after []byte) string {
	if bytes.Equal(before, after) {
		return ""
	}
	// Whole lines shared at the start.
	pre := commonPrefix(before, after)
	pre = bytes.LastIndexByte(before[:pre], '\n') + 1

	// Whole lines shared at the end, not overlapping the prefix. The shared
	// bytes must begin at a line start on both sides.
	suf := commonSuffix(before[pre:], after[pre:])
	lineStart := func(t []byte, at int) bool { return at == pre || t[at-1] == '\n' }
	if suf > 0 && !(lineStart(before, len(before)-suf) && lineStart(after, len(after)-suf)) {
		tail := before[len(before)-suf:]
		if nl := bytes.IndexByte(tail, '\n'); nl >= 0 {
			suf -= nl + 1
		} else {
			suf = 0
		}
	}

	// Keep up to contextLines lines on each side for the hunks' context.
	from := pre
	for n := 0; n < contextLines && from > 0; n++ {
		from = bytes.LastIndexByte(before[:from-1], '\n') + 1
	}
	tail := before[len(before)-suf:]
	keep := 0
	for n := 0; n < contextLines && keep < len(tail); n++ {
		if nl := bytes.IndexByte(tail[keep:], '\n'); nl >= 0 {
			keep += nl + 1
		} else {
			keep = len(tail)
		}
	}
	window := before[from : len(before)-suf+keep]

	// The edits cover only the changed middle, so the context lines around
	// them are never part of a change.
	edits := udiff.Lines(string(before[pre:len(before)-suf]), string(after[pre:len(after)-suf]))
	shift := pre - from
	for i := range edits {
		edits[i].Start += shift
		edits[i].End += shift
	}
	u, err := udiff.ToUnifiedDiff(oldLabel, newLabel, string(window), edits, contextLines)
	if err != nil {
		// Unreachable: the edits come from the same text, shifted into range.
		panic("textedit: inconsistent diff edits: " + err.Error())
	}
	// Renumber the hunks for the whole file. The new-side start is derived
	// from the old-side start and the hunks before it, because go-udiff
	// v0.4.1 miscounts it after a hunk that joined two nearby changes.
	skipped := bytes.Count(before[:from], []byte("\n"))
	delta := 0
	for _, h := range u.Hunks {
		h.FromLine += skipped
		h.ToLine = h.FromLine + delta
		for _, l := range h.Lines {
			switch l.Kind {
			case udiff.Insert:
				delta++
			case udiff.Delete:
				delta--
			}
		}
	}
	return u.String()
}

// commonPrefix returns the length of the longest common prefix of a and b.
func commonPrefix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	// Compare in blocks first: bytes.Equal is vectorized, a byte loop is not.
	const block = 4096
	for i+block <= n && bytes.Equal(a[i:i+block], b[i:i+block]) {
		i += block
	}
	for i < n && a[i] == b[i] {
		i++
	}
	return i
}

// commonSuffix returns the length of the longest common suffix of a and b.
func commonSuffix(a, b []byte) int {
	n := min(len(a), len(b))
	i := 0
	const block = 4096
	for i+block <= n && bytes.Equal(a[len(a)-i-block:len(a)-i], b[len(b)-i-block:len(b)-i]) {
		i += block
	}
	for i < n && a[len(a)-1-i] == b[len(b)-1-i] {
		i++
	}
	return i
}
