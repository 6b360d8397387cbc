package patch

import (
	"fmt"
	"strings"
)

// CheckDelete checks a unified diff's deletion (a Delete whose Exact is
// set) against text, the file it deletes, as git apply does: the hunks'
// removed lines must be exactly the file's lines, in order, none left
// over, byte for byte (a CRLF file's "\r" aside, as Apply compares), and
// the file must end without a newline exactly when the last hunk says so
// ("\ No newline at end of file"). A deletion without hunks deletes an
// empty file only.
//
// It returns nil when they are, else the *HunkError of Apply for a hunk
// that does not match, or a *HunkError of KindNoMatch, Index -1, that
// names and shows the lines the deletion would leave or the final newline
// that differs.
func CheckDelete(text []byte, hunks []Hunk) error {
	fl := indexLines(text)
	n := fl.n()
	if len(hunks) == 0 {
		if n == 0 {
			return nil
		}
		return &HunkError{Index: -1, Kind: KindNoMatch, Lines: span(0, min(n, 50)), Near: render(fl, 0, n),
			Msg: fmt.Sprintf("the deletion removes no lines, but the file has %s: a deletion must remove every line of the file (git apply refuses it too)", plural(n, "line"))}
	}
	ap, err := Apply(text, hunks)
	if he, ok := err.(*HunkError); ok && he.Kind == KindNoMatch && he.Near == "" && n > 0 {
		// Nothing in the file is near the hunk's lines: since a deletion
		// is the whole file, they are compared with it from the top.
		return fromTop(fl, hunks, he.Index)
	}
	if err != nil {
		return err
	}
	if len(ap.Text) > 0 {
		return leftOver(fl, ap.Regions)
	}
	if last := hunks[len(hunks)-1]; n > 0 && !fl.hasNL(n-1) && !last.OldNoEOL {
		return &HunkError{Index: -1, Kind: KindNoMatch, Lines: []int{n}, Near: render(fl, n-1, n),
			Msg: fmt.Sprintf("the file's last line (line %d) has no newline at its end, and the deletion's last removed line does: add the line \"\\ No newline at end of file\" after it, as git writes it", n)}
	}
	return nil
}

// leftOver is the refusal of a deletion whose hunks, placed at regions,
// leave lines of the file: it shows the first run of them.
func leftOver(fl *fileLines, regions []Region) error {
	n := fl.n()
	removed := make([]bool, n)
	for _, r := range regions {
		for i := fl.offsetLine(r.Offset) - 1; i < n && fl.start[i] < r.Offset+r.OldBytes; i++ {
			removed[i] = true
		}
	}
	lo, left := -1, 0
	for i, gone := range removed {
		if !gone {
			left++
			if lo < 0 {
				lo = i
			}
		}
	}
	if lo < 0 { // only a final newline is left
		return &HunkError{Index: -1, Kind: KindNoMatch, Lines: []int{n}, Near: render(fl, n-1, n),
			Msg: fmt.Sprintf("the file's last line (line %d) ends with a newline, and the deletion says it does not: drop the \"\\ No newline at end of file\" line after it", n)}
	}
	hi := lo
	for hi < n && !removed[hi] {
		hi++
	}
	what := lineRange(lo, hi)
	if left > hi-lo {
		what += fmt.Sprintf(" (and %s more)", plural(left-(hi-lo), "line"))
	}
	return &HunkError{Index: -1, Kind: KindNoMatch, Lines: span(lo, hi), Near: render(fl, lo, hi),
		Msg: fmt.Sprintf("the deletion's removed lines are not the whole file: %s would remain; a deletion must remove every line of the file, as git apply checks", what)}
}

// fromTop is the refusal of a deletion whose hunk k is near nothing in
// the file: its removed lines, all hunks' in order, are compared with the
// file's lines from the first, and the first that differ are named and
// shown.
func fromTop(fl *fileLines, hunks []Hunk, k int) error {
	var removed []string
	for _, h := range hunks {
		removed = append(removed, h.Old...)
	}
	n, first, differing := fl.n(), -1, 0
	var diffs []string
	for i := 0; i < min(n, len(removed)); i++ {
		d := lineDiff(fl.content(i), removed[i])
		if d == "" {
			continue
		}
		if first < 0 {
			first = i
		}
		if differing++; len(diffs) < 3 {
			diffs = append(diffs, fmt.Sprintf("line %d differs in %s", i+1, d))
		}
	}
	if differing > len(diffs) {
		diffs = append(diffs, fmt.Sprintf("%d more lines differ", differing-len(diffs)))
	}
	if len(removed) != n {
		diffs = append(diffs, fmt.Sprintf("the file has %s, the deletion removes %d", plural(n, "line"), len(removed)))
	}
	lo := max(first, 0)
	hi := min(n, lo+5)
	return &HunkError{Index: k, Kind: KindNoMatch, Lines: span(lo, hi), Near: render(fl, lo, hi),
		Msg: fmt.Sprintf("the deletion's removed lines are not the file's lines, from its first: %s", strings.Join(diffs, "; "))}
}
