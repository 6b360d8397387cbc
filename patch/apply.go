package patch

import (
	"bytes"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
)

// Region is one replaced byte region of a file. Offset and OldBytes address
// the original bytes; New replaces them. Line is the 1-based line of Offset
// in the original.
type Region struct {
	Offset, OldBytes int
	New              []byte
	Line             int
}

// Applied is the result of Apply.
type Applied struct {
	// Text is the new content of the file.
	Text []byte
	// Regions are the replaced regions, sorted, neither overlapping nor
	// touching; splicing them into the original bytes gives Text. Unchanged
	// context lines of a hunk are not part of its region.
	Regions []Region
	// CRLFAdapted says that some hunk matched only with the file's "\r\n"
	// line endings set aside, or only added lines below a "\r\n" line, and
	// that its new lines were written with "\r\n".
	CRLFAdapted bool
	// SpaceContext lists the hunks (1-based) that were located only with
	// trailing spaces and tabs of their context lines set aside. Their
	// context lines keep the file's bytes; their removed lines matched
	// exactly (or CRLF-adapted).
	SpaceContext []int
}

// Apply applies hunks, in order, to text. Each hunk's Old lines must be a
// run of whole lines of text, equal byte for byte apart from the line
// terminator, below the previous hunk. With an OldStart hint (moved by the
// offset the hunk before was found at), a run at the hinted line is taken;
// otherwise the run must be the only one below the previous hunk. When
// runs occur more than once, the hunks are placed by their order if
// exactly one placement keeps them in order and apart (placeInOrder);
// otherwise the hunk is refused as ambiguous with every candidate. With a Context anchor,
// the first run below the anchor line is taken. An AtEOF hunk must end at
// the end of the text. A hunk with no Old lines is inserted before line
// OldStart, below its Context line, or at the end when AtEOF; with none of
// these it is refused. A Codex chunk appended at the end (a bare "@@" of
// only added lines) does not count as the previous hunk: as Codex places
// it, the hunks after it are looked for below the hunk before it, and the
// appended lines follow every change at the end. Heading is never used.
//
// When a hunk's lines are not in text as written and text has "\r\n" line
// endings, they are compared with the "\r" of each "\r\n" set aside, and
// its new lines are then written with "\r\n". A hunk that only adds lines
// writes them with the line ending of the line above (below, at the top),
// unless its lines carry their own "\r". When a hunk is still not found,
// its context lines (the Old lines it keeps, found by aligning Old with
// New) may differ from the text's in trailing spaces and tabs; they keep
// the text's bytes and the hunk is listed in SpaceContext. The lines it
// removes are never compared more loosely. No other adaptation is made.
//
// Failures are *HunkError values; nothing is applied unless every hunk is.
// The hunks' line terminators follow the lines they replace: "\n" (or the
// "\r\n" of an adapted match), except that a hunk replacing the last line
// of a text without a final newline keeps it without one, unless the hunk's
// OldNoEOL/NewNoEOL markers say otherwise.
func Apply(text []byte, hunks []Hunk) (Applied, error) {
	fl := indexLines(text)
	pls, err := placeEach(fl, hunks)
	if he, ok := err.(*HunkError); ok && he.Kind == KindAmbiguous {
		if ordered, oerr := placeInOrder(fl, hunks); ordered != nil || oerr != nil {
			pls, err = ordered, oerr
		}
	}
	if err != nil {
		return Applied{}, err
	}
	var out Applied
	var regions []Region
	for k, h := range hunks {
		pl := pls[k]
		if pl.space {
			h = withFileContext(fl, h, keptLines(h), pl.at, pl.adapted)
			out.SpaceContext = append(out.SpaceContext, k+1)
		}
		r, ok, usedEOL := region(fl, h, pl)
		if ok {
			regions = append(regions, r)
		}
		// An insertion is adapted only if a line got the file's "\r\n".
		out.CRLFAdapted = out.CRLFAdapted || pl.adapted && (len(h.Old) > 0 || usedEOL)
	}
	// An appended chunk lies at the end before the hunks after it (see
	// appends): regions go in file order, appends after a region that ends
	// the file, in patch order among themselves.
	slices.SortStableFunc(regions, func(a, b Region) int { return a.Offset - b.Offset })
	for _, r := range regions {
		if n := len(out.Regions); n > 0 && out.Regions[n-1].Offset+out.Regions[n-1].OldBytes == r.Offset {
			last := &out.Regions[n-1]
			last.OldBytes += r.OldBytes
			last.New = append(last.New, r.New...)
		} else {
			out.Regions = append(out.Regions, r)
		}
	}
	out.Text = splice(text, out.Regions)
	return out, nil
}

// appends reports whether h is a Codex chunk of only added lines that
// goes at the end of the file (a bare "@@", or "*** End of File", with no
// "@@" text and no line number). As Codex places it, it does not move
// where the next hunk is looked for: a chunk after it may lie anywhere
// below the hunk before it.
func appends(h Hunk) bool {
	return len(h.Old) == 0 && h.AtEOF && h.Context == "" && h.OldStart == 0
}

// placeEach places the hunks one after the other: each below the one
// before, by its hint, its anchor, or as the only run of its lines there.
func placeEach(fl *fileLines, hunks []Hunk) ([]placement, error) {
	pls := make([]placement, len(hunks))
	from, drift := 0, 0
	for k, h := range hunks {
		pl, err := locate(fl, h, k, from, drift)
		if err != nil {
			return nil, err
		}
		if h.OldStart > 0 {
			drift = pl.at - (h.OldStart - 1)
		}
		pls[k] = pl
		if !appends(h) {
			from = pl.at + len(h.Old)
		}
	}
	return pls, nil
}

// placeInOrder places hunks whose lines occur more than once by the order
// of the hunks: each hunk's candidates are every run of its lines in the
// file, and a placement puts every hunk at one of them, in patch order,
// none overlapping the one before. When exactly one placement exists, it
// is returned. When several do, the first hunk that is not fixed by them
// is refused as ambiguous with the lines it could start at. nil, nil when
// the hunks cannot be placed this way (a hunk with an @@ anchor or no old
// lines, one whose lines are nowhere, or no placement in order): the
// caller's own refusal stands.
func placeInOrder(fl *fileLines, hunks []Hunk) ([]placement, error) {
	type cand struct {
		pl   placement
		size int
		// fwd: the hunks before can be placed in order above this one;
		// bwd: the hunks after can be placed in order below it.
		fwd, bwd bool
	}
	all := make([][]cand, len(hunks))
	for k, h := range hunks {
		if h.Context != "" || len(h.Old) == 0 {
			return nil, nil
		}
		// Line numbers already failed to tell the runs apart (placeEach
		// tried them with the offset of the hunks before): only order counts.
		s := search{ctxLine: -1, expected: -1, atEOF: h.AtEOF || h.OldNoEOL || h.NewNoEOL}
		ps, m := candidates(fl, h, s)
		for _, p := range ps {
			all[k] = append(all[k], cand{pl: placement{at: p, adapted: m.adapted, space: m.space}, size: len(h.Old)})
		}
	}
	// Candidates are in file order, so one pass each way suffices: a
	// candidate is reachable from above when some reachable candidate of
	// the hunk before ends at or above its start, and from below likewise.
	for i := range all[0] {
		all[0][i].fwd = true
	}
	for k := 1; k < len(all); k++ {
		prev, reach, j := all[k-1], false, 0
		for i := range all[k] {
			for j < len(prev) && prev[j].pl.at+prev[j].size <= all[k][i].pl.at {
				reach = reach || prev[j].fwd
				j++
			}
			all[k][i].fwd = reach
		}
	}
	last := len(all) - 1
	for i := range all[last] {
		all[last][i].bwd = true
	}
	for k := last - 1; k >= 0; k-- {
		next, reach, j := all[k+1], false, len(all[k+1])-1
		for i := len(all[k]) - 1; i >= 0; i-- {
			for j >= 0 && next[j].pl.at >= all[k][i].pl.at+all[k][i].size {
				reach = reach || next[j].bwd
				j--
			}
			all[k][i].bwd = reach
		}
	}
	pls := make([]placement, len(hunks))
	for k, cs := range all {
		var feasible []int
		for _, c := range cs {
			if c.fwd && c.bwd {
				feasible = append(feasible, c.pl.at)
				pls[k] = c.pl
			}
		}
		switch {
		case len(feasible) == 0:
			return nil, nil // no placement keeps them in order
		case len(feasible) == 1:
			continue
		case len(feasible) == len(cs):
			return nil, ambiguous(k, hunks[k], feasible) // order rules none out
		}
		return nil, ambiguousInOrder(k, hunks[k], feasible, len(cs))
	}
	return pls, nil
}

// splice replaces each region of text with its new bytes.
func splice(text []byte, regions []Region) []byte {
	size := len(text)
	for _, r := range regions {
		size += len(r.New) - r.OldBytes
	}
	b := make([]byte, 0, size)
	prev := 0
	for _, r := range regions {
		b = append(b, text[prev:r.Offset]...)
		b = append(b, r.New...)
		prev = r.Offset + r.OldBytes
	}
	return append(b, text[prev:]...)
}

// placement is where a hunk goes: its Old lines start at line at (0-based),
// compared as written or CRLF-adapted.
type placement struct {
	at      int
	adapted bool
	space   bool // found only with trailing space on context lines set aside
}

// search is what narrows a hunk's position.
type search struct {
	from     int // the first line the hunk may start at
	prevEnd  int // the end of the previous hunk
	ctxLine  int // the last @@ context line found, or -1
	ctxText  string
	atEOF    bool
	expected int // 0-based line the hint expects, or -1
}

func locate(fl *fileLines, h Hunk, k, prevEnd, drift int) (placement, error) {
	n := fl.n()
	s := search{from: prevEnd, prevEnd: prevEnd, ctxLine: -1, expected: -1,
		atEOF: h.AtEOF || h.OldNoEOL || h.NewNoEOL}
	if h.OldStart > 0 {
		s.expected = h.OldStart - 1 + drift
	}
	if h.OldStart == 0 && h.Context != "" {
		q := prevEnd
		for c := range strings.SplitSeq(h.Context, "\n") {
			c = strings.TrimSpace(c)
			if c == "" {
				continue
			}
			at := findContext(fl, c, q, n)
			if at < 0 && s.ctxLine < 0 {
				// The first @@ line may name the same line as the previous
				// hunk's (two changes in one function): above the previous
				// hunk, it still lies above this one.
				at = findContextAbove(fl, c, prevEnd)
			}
			if at < 0 {
				return placement{}, contextMiss(fl, k, c, q)
			}
			s.ctxLine, s.ctxText, q = at, c, at+1
		}
		if s.ctxLine >= 0 {
			// The hunk may begin at its context line itself.
			s.from = max(s.ctxLine, prevEnd)
		}
	}

	if len(h.Old) == 0 {
		var at int
		switch {
		case s.atEOF:
			at = n
		case s.ctxLine >= 0:
			at = s.ctxLine + 1
		case s.expected >= 0:
			at = s.expected
		default:
			return placement{}, &HunkError{Index: k, Kind: KindAmbiguous,
				Msg: "the hunk only adds lines and says nowhere where: include unchanged lines around the change, an @@ line naming a line above it, or end it with *** End of File"}
		}
		at = min(max(at, s.from), n)
		// Nothing to compare: the added lines take the line ending of the
		// line above them (below, at the top), unless they carry their own.
		return placement{at: at, adapted: fl.crlfNear(at) && !anyCR(h.New)}, nil
	}

	cands, m := candidates(fl, h, s)
	switch {
	case len(cands) == 0:
		return placement{}, diagnose(fl, h, k, s)
	case len(cands) == 1:
		return placement{at: cands[0], adapted: m.adapted, space: m.space}, nil
	}
	return placement{}, ambiguous(k, h, cands)
}

// mode is how a hunk's Old lines are compared with the file's lines.
type mode struct {
	// adapted: the "\r" of each file line's "\r\n" is set aside.
	adapted bool
	// space: a context line (one kept by the hunk) may also differ in
	// trailing spaces and tabs. Removed lines never may.
	space bool
}

// modes are tried in order until one finds the hunk.
var modes = []mode{{}, {adapted: true}, {space: true}, {adapted: true, space: true}}

// candidates returns where h's Old lines may start, as narrowed by s, and
// the mode that found them: the one run that ends the file when AtEOF; the
// first run below a Codex context line; the run at the hinted line when it
// is there; otherwise every run below s.from. Each mode is tried only when
// the ones before it found nothing: exact, CRLF-adapted (only when the file
// has "\r\n" line endings), then with trailing space on context lines set
// aside.
func candidates(fl *fileLines, h Hunk, s search) ([]int, mode) {
	n, k := fl.n(), len(h.Old)
	lo, hi := s.from, n-k // the range of start lines
	if s.atEOF {
		lo = max(lo, hi)
	}
	if lo > hi {
		return nil, mode{}
	}
	var kept []int
	for _, m := range modes {
		if m.adapted && !fl.crlf {
			continue
		}
		if m.space && kept == nil {
			// Only a hunk with context lines can match this way.
			if kept = keptLines(h); kept == nil || slices.Max(kept) < 0 {
				break
			}
		}
		ok := func(p int) bool { return matchIn(fl, h.Old, kept, p, m) && noEOLOK(fl, h, p) }
		var cands []int
		switch {
		case s.atEOF:
			if ok(hi) {
				cands = append(cands, hi)
			}
		case s.ctxLine >= 0:
			for p := lo; p <= hi; p++ {
				if ok(p) {
					cands = append(cands, p)
					break
				}
			}
		case s.expected >= lo && s.expected <= hi && ok(s.expected):
			// The header's line number, carried by the offset of the hunks
			// before, is right: that is where the hunk goes.
			cands = append(cands, s.expected)
		case m.space:
			for p := lo; p <= hi; p++ {
				if ok(p) {
					cands = append(cands, p)
				}
			}
		default:
			sums, first := fl.sums(m.adapted), maphash.String(fl.seed, h.Old[0])
			for p := lo; p <= hi; p++ {
				if sums[p] == first && ok(p) {
					cands = append(cands, p)
				}
			}
		}
		if len(cands) > 0 {
			return cands, m
		}
	}
	return nil, mode{}
}

// matchIn reports whether old matches the file's lines from line p in mode
// m; kept tells the context lines of old (see keptLines), used only when
// m.space.
func matchIn(fl *fileLines, old []string, kept []int, p int, m mode) bool {
	if !m.space {
		return matchAt(fl, old, p, m.adapted)
	}
	for j, o := range old {
		l := fl.line(p+j, m.adapted)
		if string(l) != o && !(kept[j] >= 0 && trimSpaceRight(string(l)) == trimSpaceRight(o)) {
			return false
		}
	}
	return true
}

func trimSpaceRight(s string) string { return strings.TrimRight(s, " \t") }

// maxKept bounds the work of keptLines: hunks larger than this are only
// matched exactly.
const maxKept = 1 << 22

// keptLines aligns the Old and New lines of h by a longest common
// subsequence: kept[i] is the New line that Old line i is kept as (h's
// context lines), or -1 for a removed line. nil when the hunk is too
// large to align.
func keptLines(h Hunk) []int {
	n, m := len(h.Old), len(h.New)
	if n*m > maxKept {
		return nil
	}
	kept := make([]int, n)
	for i := range kept {
		kept[i] = -1
	}
	if n == 0 || m == 0 {
		return kept
	}
	// lcs[i*w+j] is the length of the longest common subsequence of
	// Old[i:] and New[j:].
	w := m + 1
	lcs := make([]int32, (n+1)*w)
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if h.Old[i] == h.New[j] {
				lcs[i*w+j] = lcs[(i+1)*w+j+1] + 1
			} else {
				lcs[i*w+j] = max(lcs[(i+1)*w+j], lcs[i*w+j+1])
			}
		}
	}
	for i, j := 0, 0; i < n && j < m; {
		switch {
		case h.Old[i] == h.New[j]:
			kept[i] = j
			i, j = i+1, j+1
		case lcs[(i+1)*w+j] >= lcs[i*w+j+1]:
			i++
		default:
			j++
		}
	}
	return kept
}

// withFileContext returns h with its kept lines replaced by the file's
// lines from line p, so that context lines that matched only with trailing
// space set aside keep the file's bytes.
func withFileContext(fl *fileLines, h Hunk, kept []int, p int, adapted bool) Hunk {
	old, neu := slices.Clone(h.Old), slices.Clone(h.New)
	for i, j := range kept {
		if j >= 0 {
			old[i] = string(fl.line(p+i, adapted))
			neu[j] = old[i]
		}
	}
	h.Old, h.New = old, neu
	return h
}

func matchAt(fl *fileLines, old []string, p int, adapted bool) bool {
	for j, o := range old {
		if string(fl.line(p+j, adapted)) != o {
			return false
		}
	}
	return true
}

// noEOLOK checks the old side's "\ No newline at end of file" marker: the
// run must end the file, on a line without "\n".
func noEOLOK(fl *fileLines, h Hunk, p int) bool {
	if !h.OldNoEOL {
		return true
	}
	n := fl.n()
	return p+len(h.Old) == n && !fl.hasNL(n-1)
}

// findContext returns the first line at or after from that contains c or
// equals it once trimmed, or -1.
func findContext(fl *fileLines, c string, from, n int) int {
	cb := []byte(c)
	for i := from; i < n; i++ {
		l := fl.bare(i)
		if bytes.Contains(l, cb) || string(bytes.TrimSpace(l)) == c {
			return i
		}
	}
	return -1
}

// findContextAbove returns the last line above line end that contains c or
// equals it once trimmed, or -1.
func findContextAbove(fl *fileLines, c string, end int) int {
	cb := []byte(c)
	for i := end - 1; i >= 0; i-- {
		l := fl.bare(i)
		if bytes.Contains(l, cb) || string(bytes.TrimSpace(l)) == c {
			return i
		}
	}
	return -1
}

// region builds the replaced region of h placed at pl; ok is false when the
// hunk changes nothing. usedEOL says whether a line terminator was written.
func region(fl *fileLines, h Hunk, pl placement) (r Region, ok, usedEOL bool) {
	n := fl.n()
	eol := "\n"
	if pl.adapted {
		eol = "\r\n"
	}
	k := len(h.Old)
	if k == 0 && pl.at == n && n > 0 && !fl.hasNL(n-1) {
		// Lines added after a last line without a newline: the newline goes
		// before them, and the text still ends without one.
		if len(h.New) == 0 {
			return Region{}, false, false
		}
		return Region{Offset: len(fl.text), New: []byte(eol + strings.Join(h.New, eol)), Line: n}, true, true
	}
	endsBare := k > 0 && pl.at+k == n && !fl.hasNL(n-1) // the run ends the text without "\n"
	newLines := make([]string, len(h.New))
	for j, l := range h.New {
		last := j == len(h.New)-1
		switch {
		case last && h.NewNoEOL && pl.at+k == n:
		case last && endsBare && !h.OldNoEOL:
		default:
			l += eol
			usedEOL = true
		}
		newLines[j] = l
	}
	// Leave out the unchanged lines at both ends.
	pre := 0
	for pre < k && pre < len(newLines) && string(fl.raw(pl.at+pre)) == newLines[pre] {
		pre++
	}
	suf := 0
	for suf < k-pre && suf < len(newLines)-pre && string(fl.raw(pl.at+k-1-suf)) == newLines[len(newLines)-1-suf] {
		suf++
	}
	if pre+suf == k && pre+suf == len(newLines) {
		return Region{}, false, usedEOL
	}
	off := fl.start[pl.at+pre]
	end := fl.start[pl.at+k-suf]
	repl := strings.Join(newLines[pre:len(newLines)-suf], "")
	if string(fl.text[off:end]) == repl {
		return Region{}, false, usedEOL // e.g. an empty line added without its newline
	}
	return Region{Offset: off, OldBytes: end - off, New: []byte(repl), Line: fl.offsetLine(off)}, true, usedEOL
}

func anyCR(lines []string) bool {
	for _, l := range lines {
		if strings.HasSuffix(l, "\r") {
			return true
		}
	}
	return false
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func ambiguous(k int, h Hunk, cands []int) error {
	what := "its old lines occur"
	if len(h.Old) == 1 {
		what = "its old line occurs"
	}
	list, lines := candidateList(cands)
	return &HunkError{Index: k, Kind: KindAmbiguous, Lines: lines,
		Msg: fmt.Sprintf("%s %d times (at lines %s), and nothing says which is meant: %s", what, len(cands), list, ambiguousFix)}
}

// ambiguousInOrder refuses hunk k, whose lines occur total times, when
// cands are the lines it could start at with every hunk of the patch in
// order and apart.
func ambiguousInOrder(k int, h Hunk, cands []int, total int) error {
	what := "its old lines occur"
	if len(h.Old) == 1 {
		what = "its old line occurs"
	}
	list, lines := candidateList(cands)
	return &HunkError{Index: k, Kind: KindAmbiguous, Lines: lines,
		Msg: fmt.Sprintf("%s %d times, and with the patch's hunks in file order and apart it can still go at %d of them (at lines %s): %s",
			what, total, len(cands), list, ambiguousFix)}
}

const ambiguousFix = "include more unchanged lines around the change so that it matches once, " +
	"or give the line where it starts (a unified header \"@@ -N +N @@\" with N its first old line; in a Codex envelope, an \"@@\" line naming a line above it)"

// candidateList names 0-based candidate lines for people (the first ten)
// and returns them 1-based.
func candidateList(cands []int) (string, []int) {
	lines := make([]int, len(cands))
	shown := make([]string, 0, 10)
	for i, p := range cands {
		lines[i] = p + 1
		if i < 10 {
			shown = append(shown, fmt.Sprint(p+1))
		}
	}
	list := strings.Join(shown, ", ")
	if len(cands) > len(shown) {
		list += fmt.Sprintf(" and %d more", len(cands)-len(shown))
	}
	return list, lines
}
