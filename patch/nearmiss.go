package patch

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"unicode"
)

// contextMiss reports an @@ context line that is not in the file below
// line from.
func contextMiss(fl *fileLines, k int, c string, from int) error {
	if from > 0 {
		if at := findContext(fl, c, 0, from); at >= 0 {
			return &HunkError{Index: k, Kind: KindNoMatch, Lines: []int{at + 1}, Near: render(fl, at, at+1),
				Msg: fmt.Sprintf("its @@ line %q is at line %d, above the @@ line before it: nested @@ lines go from the outside in", clip(c, 80), at+1)}
		}
	}
	return &HunkError{Index: k, Kind: KindNoMatch,
		Msg: fmt.Sprintf("its @@ line %q is not in the file: name a line that is in the file, as it is written there", clip(c, 80))}
}

// diagnose explains why h's Old lines matched nowhere acceptable: they are
// in the file but out of place, or the nearest region differs (and how).
func diagnose(fl *fileLines, h Hunk, k int, s search) error {
	n, size := fl.n(), len(h.Old)
	nearest := -1
	for _, adapted := range []bool{false, true} {
		for p := 0; p+size <= n; p++ {
			if matchAt(fl, h.Old, p, adapted) && (nearest < 0 || abs(p-s.from) < abs(nearest-s.from)) {
				nearest = p
			}
		}
		if nearest >= 0 || !fl.crlf {
			break
		}
	}
	if nearest >= 0 {
		var why string
		switch {
		case nearest < s.from && s.ctxLine >= 0 && nearest >= s.prevEnd:
			why = fmt.Sprintf("above its @@ line %q (line %d): a hunk's lines are searched below its @@ line", clip(s.ctxText, 80), s.ctxLine+1)
		case nearest < s.from:
			why = fmt.Sprintf("above the end of the previous hunk (line %d): hunks must be in file order", s.prevEnd)
		case s.atEOF && nearest+size != n:
			why = fmt.Sprintf("but the hunk must end at the end of the file (line %d), as *** End of File or \"\\ No newline at end of file\" says", n)
		case h.OldNoEOL:
			why = "but the patch says \"\\ No newline at end of file\" after them, and the file has a newline there"
		default:
			why = "but not where the hunk may go"
		}
		return &HunkError{Index: k, Kind: KindNoMatch, Lines: span(nearest, nearest+size),
			Near: render(fl, nearest, nearest+size),
			Msg:  fmt.Sprintf("its old lines are in the file at line %d, %s", nearest+1, why)}
	}

	p, equal := nearestRegion(fl, h.Old, s)
	if p == noRegion {
		msg := fmt.Sprintf("its old line %q is not in the file", clip(h.Old[0], 80))
		if size > 1 {
			msg = fmt.Sprintf("none of its %d old lines is in the file (the first is %q)", size, clip(h.Old[0], 80))
		}
		return &HunkError{Index: k, Kind: KindNoMatch, Msg: msg + ": read the file again and copy the lines exactly"}
	}
	lo, hi := max(p, 0), min(p+size, n)
	kept := keptLines(h)
	var diffs []string
	differing, removedSpace := 0, false
	for j, o := range h.Old {
		i := p + j
		if i < 0 || i >= n {
			continue
		}
		d := lineDiff(fl.content(i), o)
		if d == "" {
			continue
		}
		differing++
		role := ""
		if kept != nil && kept[j] < 0 {
			role = " (a removed line)"
			if trimSpaceRight(strings.TrimSuffix(string(fl.content(i)), "\r")) == trimSpaceRight(o) {
				removedSpace = true
			}
		}
		if len(diffs) < 3 {
			diffs = append(diffs, fmt.Sprintf("line %d%s differs in %s", i+1, role, d))
		}
	}
	if differing > len(diffs) {
		diffs = append(diffs, fmt.Sprintf("%d more lines differ", differing-len(diffs)))
	}
	if removedSpace {
		diffs = append(diffs, "removed lines must match the file byte for byte, trailing spaces and tabs included (only context lines may differ there)")
	}
	if outside := size - (hi - lo); outside > 0 {
		diffs = append(diffs, fmt.Sprintf("%d of its lines would lie outside the file", outside))
	}
	return &HunkError{Index: k, Kind: KindNoMatch, Lines: span(lo, hi), Near: render(fl, lo, hi),
		Msg: fmt.Sprintf("%s not in the file as written; nearest: %s (%d of %d equal); %s",
			oldLines(size), lineRange(lo, hi), equal, size, strings.Join(diffs, "; "))}
}

const noRegion = -1 << 62

// nearestRegion returns where the Old lines come closest to matching: the
// start line (which may lie before 0 or run past the end) with the most lines
// equal once whitespace is trimmed and quotes folded, the nearest to where
// the hunk was expected among equals; and how many lines are equal as
// written. noRegion when no line is close.
func nearestRegion(fl *fileLines, old []string, s search) (int, int) {
	want := make(map[string][]int)
	allBlank := true
	for _, o := range old {
		if looseKey([]byte(o)) != "" {
			allBlank = false
		}
	}
	for j, o := range old {
		if key := looseKey([]byte(o)); key != "" || allBlank {
			want[key] = append(want[key], j)
		}
	}
	votes := make(map[int]int)
	for i := range fl.n() {
		for _, j := range want[looseKey(fl.content(i))] {
			votes[i-j]++
		}
	}
	target := s.from
	if s.expected >= 0 {
		target = s.expected
	}
	best, bestVotes := noRegion, 0
	for p, v := range votes {
		if v > bestVotes || v == bestVotes && (abs(p-target) < abs(best-target) || abs(p-target) == abs(best-target) && p < best) {
			best, bestVotes = p, v
		}
	}
	if best == noRegion {
		return noRegion, 0
	}
	equal := 0
	for j, o := range old {
		if i := best + j; i >= 0 && i < fl.n() && string(fl.content(i)) == o {
			equal++
		}
	}
	return best, equal
}

// looseKey is a line with surrounding whitespace trimmed and typographic
// characters folded (foldTypo): only for finding the nearest region, never
// for matching.
func looseKey(l []byte) string {
	l = bytes.TrimSpace(l)
	if hasTypo(string(l)) {
		return string(bytes.TrimSpace([]byte(foldTypo(string(l)))))
	}
	return string(l)
}

// The typographic characters a model writes as ASCII (or the other way
// round), by what they are named in a message.
var typoClasses = []struct {
	name  string
	chars string
	fold  *strings.Replacer
}{
	{"quotes", "‘’“”", strings.NewReplacer("‘", "'", "’", "'", "“", `"`, "”", `"`)},
	{"dashes", "‐‑‒–—―−", strings.NewReplacer("‐", "-", "‑", "-", "‒", "-", "–", "-", "—", "-", "―", "-", "−", "-")},
	{"no-break spaces", "\u00a0\u2007\u202f", strings.NewReplacer("\u00a0", " ", "\u2007", " ", "\u202f", " ")},
}

func hasTypo(s string) bool {
	for _, c := range typoClasses {
		if strings.ContainsAny(s, c.chars) {
			return true
		}
	}
	return false
}

// foldTypo writes curly quotes, dashes and no-break spaces as their ASCII
// look-alikes.
func foldTypo(s string) string {
	for _, c := range typoClasses {
		if strings.ContainsAny(s, c.chars) {
			s = c.fold.Replace(s)
		}
	}
	return s
}

// typoDiff names the typographic characters that make file and patch
// differ when they are equal once folded, or returns "".
func typoDiff(file, patch string) string {
	if foldTypo(file) != foldTypo(patch) {
		return ""
	}
	var kinds []string
	for _, c := range typoClasses {
		if strings.ContainsAny(file, c.chars) || strings.ContainsAny(patch, c.chars) {
			kinds = append(kinds, c.name)
		}
	}
	return strings.Join(kinds, " and ")
}

// lineDiff names what differs between a file line (without its "\n") and a
// patch line, or returns "" when they are equal.
func lineDiff(file []byte, patch string) string {
	f := string(file)
	if f == patch {
		return ""
	}
	if strings.TrimSuffix(f, "\r") == strings.TrimSuffix(patch, "\r") {
		if strings.HasSuffix(f, "\r") {
			return "line ending (the file's ends in \\r\\n, the patch's in \\n)"
		}
		return "line ending (the patch's ends in \\r\\n, the file's in \\n)"
	}
	if kinds := typoDiff(strings.TrimSuffix(f, "\r"), strings.TrimSuffix(patch, "\r")); kinds != "" {
		return fmt.Sprintf("%s (file %s, patch %s): copy the file's characters", kinds, showTypo(f), showTypo(patch))
	}
	fLead, fCore, fTrail := splitSpace(strings.TrimSuffix(f, "\r"))
	pLead, pCore, pTrail := splitSpace(strings.TrimSuffix(patch, "\r"))
	if fCore == pCore {
		var parts []string
		if fLead != pLead {
			parts = append(parts, fmt.Sprintf("indentation (file %s, patch %s)", describeSpace(fLead), describeSpace(pLead)))
		}
		if fTrail != pTrail {
			parts = append(parts, fmt.Sprintf("trailing space (file %s, patch %s)", describeSpace(fTrail), describeSpace(pTrail)))
		}
		return strings.Join(parts, " and ")
	}
	if strings.Join(strings.Fields(fCore), "") == strings.Join(strings.Fields(pCore), "") {
		return fmt.Sprintf("spacing inside the line (file %q, patch %q)", clip(fCore, 60), clip(pCore, 60))
	}
	return fmt.Sprintf("text (file %q, patch %q)", clip(f, 60), clip(patch, 60))
}

// showTypo quotes a line for a message, its no-break spaces made visible
// ("\u00a0"), since they print as spaces; other characters show as they are.
func showTypo(s string) string {
	q := strconv.QuoteToGraphic(clip(strings.TrimSuffix(s, "\r"), 60))
	for _, r := range typoClasses[2].chars {
		q = strings.ReplaceAll(q, string(r), fmt.Sprintf("\\u%04x", r))
	}
	return q
}

func splitSpace(s string) (lead, core, trail string) {
	core = strings.TrimLeftFunc(s, unicode.IsSpace)
	lead = s[:len(s)-len(core)]
	trimmed := strings.TrimRightFunc(core, unicode.IsSpace)
	return lead, trimmed, core[len(trimmed):]
}

// describeSpace names a run of whitespace: "none", "4 spaces", "1 tab",
// "1 tab + 2 spaces", or a quoted mix.
func describeSpace(s string) string {
	if s == "" {
		return "none"
	}
	tabs, spaces := strings.Count(s, "\t"), strings.Count(s, " ")
	if s != strings.Repeat("\t", tabs)+strings.Repeat(" ", spaces) {
		return fmt.Sprintf("%q", s)
	}
	var parts []string
	if tabs > 0 {
		parts = append(parts, plural(tabs, "tab"))
	}
	if spaces > 0 {
		parts = append(parts, plural(spaces, "space"))
	}
	return strings.Join(parts, " + ")
}

func plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

// oldLines is the subject of a sentence about a hunk's old lines.
func oldLines(n int) string {
	if n == 1 {
		return "its old line is"
	}
	return fmt.Sprintf("its %d old lines are", n)
}

// lineRange names 0-based lines lo..hi-1 for people: "line 3", "lines 3-7".
func lineRange(lo, hi int) string {
	if hi-lo == 1 {
		return fmt.Sprintf("line %d", lo+1)
	}
	return fmt.Sprintf("lines %d-%d", lo+1, hi)
}

func span(lo, hi int) []int {
	lines := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		lines = append(lines, i+1)
	}
	return lines
}

// render shows lines lo..hi-1 as numbered lines, like the read frame; a long
// region shows its first and last lines.
func render(fl *fileLines, lo, hi int) string {
	width := max(5, len(fmt.Sprint(fl.n())))
	var b strings.Builder
	for i := lo; i < hi; i++ {
		if hi-lo > 24 && i == lo+12 {
			fmt.Fprintf(&b, "... (%d lines)\n", hi-lo-20)
			i = hi - 8
		}
		fmt.Fprintf(&b, "%0*d|%s\n", width, i+1, fl.content(i))
	}
	return b.String()
}
