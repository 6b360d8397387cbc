package textedit

import (
	"bytes"
	"cmp"
	"fmt"
	"slices"
	"sort"
	"strings"
	"unicode/utf8"
)

// Near describes the region of a text most like an old_string that was not
// found.
type Near struct {
	StartLine, EndLine int // 1-based, inclusive
	// Text is the region as numbered lines, "00012|..." as in the read frame
	// (wider numbers for texts of 100,000 lines or more), joined by "\n".
	// Very long regions and lines are shortened, with "…" saying so.
	Text string
	// Differences names what separates the region from old_string, in this
	// order: DiffIndentation, DiffTabs, DiffSpacing, DiffTrailingSpace,
	// DiffLineEndings, DiffQuotes, DiffDashes, DiffNoBreakSpaces; or
	// DiffContent alone when the region is
	// only similar.
	Differences []string
}

// What a Near region can differ in.
const (
	DiffIndentation   = "indentation"     // leading whitespace of a line
	DiffTabs          = "tabs vs spaces"  // a tab where old_string has spaces, or the reverse
	DiffSpacing       = "spacing"         // runs of blanks inside a line
	DiffTrailingSpace = "trailing space"  // blanks at the end of a line
	DiffLineEndings   = "line endings"    // "\r\n" against "\n", beyond what CRLF adaptation covers
	DiffQuotes        = "quotes"          // straight against curly quotes
	DiffDashes        = "dashes"          // "-" against an en or em dash, a hyphen or minus sign
	DiffNoBreakSpaces = "no-break spaces" // " " against a no-break space
	DiffContent       = "content"         // anything else
)

// Bounds that keep a miss cheap on large texts.
const (
	maxTokens        = 8   // distinct words of old_string used as anchors
	maxTokenHits     = 256 // occurrences of one word before it counts as too common
	maxCandidates    = 32  // windows examined
	maxFragmented    = 3   // long words whose start and end are also anchors
	fragmentLen      = 6
	exhaustiveLimit  = 2 << 20 // texts up to this size are also scanned line by line
	exhaustiveBudget = 1 << 21 // line comparisons in that scan
	similarityBudget = 16 << 20
	minSimilarity    = 0.3
	maxShownLines    = 40
	maxShownLineLen  = 400
)

// norm is a set of normalizations applied to a line before comparing.
type norm uint8

const (
	normCR     norm = 1 << iota // drop a final "\r"
	normQuotes                  // curly quotes become straight
	normDashes                  // typographic dashes become "-"
	normNBSP                    // no-break spaces become " "
	normInner                   // runs of blanks inside the line become one space
	normTrail                   // drop blanks at the end
	normLead                    // drop blanks at the start
	normAll    = normCR | normQuotes | normDashes | normNBSP | normInner | normTrail | normLead
)

// nearest finds the region of text most like old, or nil. It is best
// effort with bounded cost: a few substring scans for the longest words of
// old pick candidate windows; windows equal to old up to whitespace, line
// endings and quotes are preferred (small texts are also scanned line by
// line for one); otherwise the candidate with the most byte bigrams in
// common wins, if it is similar enough.
func nearest(text, old []byte) *Near {
	m := newMiss(text, old)
	cands := m.candidates()
	for _, s := range cands {
		if m.match(s, normAll) {
			return m.near(s, m.classify(s))
		}
	}
	if len(text) <= exhaustiveLimit {
		if s, ok := m.scan(); ok {
			return m.near(s, m.classify(s))
		}
	}
	if len(cands) == 0 && len(text) <= exhaustiveLimit {
		// No word of old occurs: compare every window, within the budget.
		for s := 0; s+len(m.pieces) <= len(m.starts); s++ {
			cands = append(cands, s)
		}
	}
	if len(cands) == 0 {
		return nil
	}
	best, bestScore := -1, 0.0
	sim := newSimilarity(m.canon(m.pieces))
	budget := similarityBudget
	for _, s := range cands {
		w := m.window(s)
		if budget -= len(w); budget < 0 {
			break
		}
		if score := sim.score(w); score > bestScore {
			best, bestScore = s, score
		}
	}
	if best < 0 || bestScore < minSimilarity {
		return nil
	}
	return m.near(best, []string{DiffContent})
}

// miss holds a text split into lines and an old_string split into pieces at
// "\n". A window of the text starting at line s matches when line s ends
// with the first piece, the lines between equal the middle pieces, and the
// last line starts with the last piece (or equals it when old ends in a
// newline). A single piece need only occur inside a line.
type miss struct {
	text      []byte
	starts    []int // byte offset of each line
	pieces    [][]byte
	crPieces  [][]byte // pieces of old after LF→CRLF, or nil
	endsNL    bool
	buf1      []byte
	normCache map[norm][][]byte
	crCache   map[norm][][]byte
}

func newMiss(text, old []byte) *miss {
	m := &miss{text: text, starts: []int{0}, normCache: map[norm][][]byte{}, crCache: map[norm][][]byte{}}
	for i := 0; ; {
		j := bytes.IndexByte(text[i:], '\n')
		if j < 0 {
			break
		}
		i += j + 1
		m.starts = append(m.starts, i)
	}
	m.pieces = bytes.Split(old, []byte("\n"))
	if len(m.pieces) > 1 && len(m.pieces[len(m.pieces)-1]) == 0 {
		m.pieces, m.endsNL = m.pieces[:len(m.pieces)-1], true
	}
	if bytes.Contains(text, []byte("\r\n")) {
		cr := make([][]byte, len(m.pieces))
		changed := false
		for i, p := range m.pieces {
			cr[i] = p
			last := i == len(m.pieces)-1
			if (!last || m.endsNL) && !bytes.HasSuffix(p, []byte("\r")) {
				cr[i], changed = append(bytes.Clone(p), '\r'), true
			}
		}
		if changed {
			m.crPieces = cr
		}
	}
	return m
}

// line returns line i without its "\n".
func (m *miss) line(i int) []byte {
	end := len(m.text)
	if i+1 < len(m.starts) {
		end = m.starts[i+1] - 1
	}
	return m.text[m.starts[i]:end]
}

func (m *miss) lineOf(off int) int {
	return sort.SearchInts(m.starts, off+1) - 1
}

// span returns the window's first and one-past-last line, clipped to the text.
func (m *miss) span(s int) (int, int) {
	return s, min(s+len(m.pieces), len(m.starts))
}

// window returns the canonical bytes of the window starting at line s.
func (m *miss) window(s int) []byte {
	a, b := m.span(s)
	var w []byte
	for i := a; i < b; i++ {
		if i > a {
			w = append(w, '\n')
		}
		w = normalize(w, m.line(i), normAll)
	}
	return w
}

func (m *miss) canon(pieces [][]byte) []byte {
	var w []byte
	for i, p := range pieces {
		if i > 0 {
			w = append(w, '\n')
		}
		w = normalize(w, p, normAll)
	}
	return w
}

func (m *miss) normPieces(f norm, cr bool) [][]byte {
	cache, src := m.normCache, m.pieces
	if cr {
		cache, src = m.crCache, m.crPieces
	}
	if ps, ok := cache[f]; ok {
		return ps
	}
	ps := make([][]byte, len(src))
	for i, p := range src {
		ps[i] = normalize(nil, p, f)
	}
	cache[f] = ps
	return ps
}

// match reports whether the window at line s matches under f. Without
// normCR, the CRLF-adapted pieces are tried too, since ApplyContext would
// have accepted them.
func (m *miss) match(s int, f norm) bool {
	if m.matchPieces(s, f, m.normPieces(f, false)) {
		return true
	}
	return f&normCR == 0 && m.crPieces != nil && m.matchPieces(s, f, m.normPieces(f, true))
}

func (m *miss) matchPieces(s int, f norm, ps [][]byte) bool {
	if s < 0 || s+len(ps) > len(m.starts) {
		return false
	}
	if m.endsNL && s+len(ps) == len(m.starts) {
		// old ends in a newline, but the text's last line has none.
		return false
	}
	for i, p := range ps {
		if !m.matchLine(s+i, i, f, p) {
			return false
		}
	}
	return true
}

func (m *miss) matchLine(line, i int, f norm, p []byte) bool {
	m.buf1 = normalize(m.buf1[:0], m.line(line), f)
	t := m.buf1
	k := len(m.pieces)
	switch {
	case k == 1 && !m.endsNL:
		return bytes.Contains(t, p)
	case i == 0 && k > 1 || k == 1:
		return bytes.HasSuffix(t, p)
	case i == k-1 && !m.endsNL:
		return bytes.HasPrefix(t, p)
	}
	return bytes.Equal(t, p)
}

// scan looks at every line of the text for a window that matches under
// every normalization, within a budget of line comparisons.
func (m *miss) scan() (int, bool) {
	budget := exhaustiveBudget
	ps := m.normPieces(normAll, false)
	last := len(m.starts) - len(ps) // the last start, whose window ends the text
	if m.endsNL {
		last--
	}
	for s := 0; s <= last; s++ {
		for i, p := range ps {
			if budget--; budget < 0 {
				return 0, false
			}
			if !m.matchLine(s+i, i, normAll, p) {
				break
			}
			if i == len(ps)-1 {
				return s, true
			}
		}
	}
	return 0, false
}

// candidates returns window starts worth examining, best first: the lines
// where the longest distinct words of old occur, aligned to the piece each
// word comes from, ranked by how many distinct words agree.
func (m *miss) candidates() []int {
	type token struct {
		word  []byte
		piece int
	}
	var toks []token
	seen := map[string]bool{}
	for i, p := range m.pieces {
		for _, w := range words(p) {
			if !seen[string(w)] {
				seen[string(w)] = true
				toks = append(toks, token{w, i})
			}
		}
	}
	slices.SortStableFunc(toks, func(a, b token) int { return cmp.Compare(len(b.word), len(a.word)) })
	if len(toks) > maxTokens {
		toks = toks[:maxTokens]
	}
	votes := map[int]int{}
	common := map[int]int{} // votes of words too common to trust alone
	for k := 0; k < len(toks); k++ {
		t := toks[k]
		var lines []int
		for at := 0; len(lines) <= maxTokenHits; {
			j := bytes.Index(m.text[at:], t.word)
			if j < 0 {
				break
			}
			lines = append(lines, m.lineOf(at+j))
			at += j + len(t.word)
		}
		if len(lines) == 0 && k < maxFragmented && len(t.word) > 2*fragmentLen {
			// A misspelt long word may still share its start or its end.
			toks = append(toks, token{t.word[:fragmentLen], t.piece}, token{t.word[len(t.word)-fragmentLen:], t.piece})
		}
		into := votes
		if len(lines) > maxTokenHits {
			into = common
		}
		prev := -1
		for _, l := range lines {
			if l == prev {
				continue
			}
			prev = l
			into[clamp(l-t.piece, 0, len(m.starts)-len(m.pieces))]++
		}
	}
	if len(votes) == 0 {
		votes = common
	}
	starts := make([]int, 0, len(votes))
	for s := range votes {
		starts = append(starts, s)
	}
	slices.SortFunc(starts, func(a, b int) int {
		if c := cmp.Compare(votes[b], votes[a]); c != 0 {
			return c
		}
		return cmp.Compare(a, b)
	})
	if len(starts) > maxCandidates {
		starts = starts[:maxCandidates]
	}
	return starts
}

func clamp(x, lo, hi int) int {
	return max(lo, min(x, hi))
}

// words returns the runs of letters, digits, '_' and non-ASCII bytes in p,
// split at curly quotes.
func words(p []byte) [][]byte {
	var ws [][]byte
	start := -1
	for i := 0; i <= len(p); i++ {
		word := false
		if i < len(p) {
			c := p[i]
			word = c == '_' || '0' <= c && c <= '9' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || c >= 0x80
			if typoLen(p[i:]) > 0 {
				word = false
			}
		}
		if word && start < 0 {
			start = i
		}
		if !word && start >= 0 {
			ws = append(ws, p[start:i])
			start = -1
		}
		if i < len(p) && typoLen(p[i:]) > 0 {
			i += typoLen(p[i:]) - 1
		}
	}
	return ws
}

// typoLen returns the length of the curly quote, typographic dash or
// no-break space p starts with, or 0.
func typoLen(p []byte) int {
	return max(quoteLen(p), dashLen(p), nbspLen(p))
}

// dashLen returns the length of the typographic dash p starts with
// (U+2010 to U+2015, U+2212 minus sign), or 0.
func dashLen(p []byte) int {
	if len(p) >= 3 && p[0] == 0xE2 && (p[1] == 0x80 && 0x90 <= p[2] && p[2] <= 0x95 || p[1] == 0x88 && p[2] == 0x92) {
		return 3
	}
	return 0
}

// nbspLen returns the length of the no-break space p starts with (U+00A0,
// U+2007, U+202F), or 0.
func nbspLen(p []byte) int {
	switch {
	case len(p) >= 2 && p[0] == 0xC2 && p[1] == 0xA0:
		return 2
	case len(p) >= 3 && p[0] == 0xE2 && p[1] == 0x80 && (p[2] == 0x87 || p[2] == 0xAF):
		return 3
	}
	return 0
}

// quoteLen returns the length of the curly quote p starts with, or 0.
func quoteLen(p []byte) int {
	if len(p) >= 3 && p[0] == 0xE2 && p[1] == 0x80 && 0x98 <= p[2] && p[2] <= 0x9F {
		return 3
	}
	return 0
}

// classify names what the window at s differs in: it drops normalizations
// one by one while the window still matches, and names those it cannot
// drop.
func (m *miss) classify(s int) []string {
	need := normAll
	for _, f := range []norm{normCR, normQuotes, normDashes, normNBSP, normInner, normTrail, normLead} {
		if m.match(s, need&^f) {
			need &^= f
		}
	}
	var out []string
	add := func(d string) {
		if !slices.Contains(out, d) {
			out = append(out, d)
		}
	}
	if need&normLead != 0 {
		add(m.blankKind(s, leadingBlanks, DiffIndentation))
	}
	if need&normInner != 0 {
		add(m.blankKind(s, innerBlanks, DiffSpacing))
	}
	if need&normTrail != 0 {
		add(DiffTrailingSpace)
	}
	if need&normCR != 0 {
		add(DiffLineEndings)
	}
	if need&normQuotes != 0 {
		add(DiffQuotes)
	}
	if need&normDashes != 0 {
		add(DiffDashes)
	}
	if need&normNBSP != 0 {
		add(DiffNoBreakSpaces)
	}
	if len(out) == 0 {
		// Unreachable while the line model is exact: a window that matches
		// without normalization is a literal match.
		out = append(out, DiffContent)
	}
	// Keep the documented order even when blankKind answered DiffTabs twice
	// or in a different position.
	order := []string{DiffIndentation, DiffTabs, DiffSpacing, DiffTrailingSpace, DiffLineEndings, DiffQuotes, DiffDashes, DiffNoBreakSpaces}
	slices.SortFunc(out, func(a, b string) int {
		return cmp.Compare(slices.Index(order, a), slices.Index(order, b))
	})
	return out
}

// blankKind returns DiffTabs when, on some line of the window, the blanks
// picked by part use tabs on one side where the other uses spaces; else
// otherwise.
func (m *miss) blankKind(s int, part func([]byte) []byte, otherwise string) string {
	for i, p := range m.pieces {
		if s+i >= len(m.starts) {
			break
		}
		t, o := part(m.line(s+i)), part(p)
		if bytes.Equal(t, o) {
			continue
		}
		if hasTab(t) && !hasTab(o) && hasSpace(o) || hasTab(o) && !hasTab(t) && hasSpace(t) {
			return DiffTabs
		}
	}
	return otherwise
}

func hasTab(b []byte) bool   { return bytes.IndexByte(b, '\t') >= 0 }
func hasSpace(b []byte) bool { return bytes.IndexByte(b, ' ') >= 0 }

func isBlank(c byte) bool { return c == ' ' || c == '\t' }

func leadingBlanks(line []byte) []byte {
	i := 0
	for i < len(line) && isBlank(line[i]) {
		i++
	}
	return line[:i]
}

// innerBlanks returns the blanks between the first and last non-blank byte.
func innerBlanks(line []byte) []byte {
	line = bytes.TrimRight(bytes.TrimLeft(line, " \t"), " \t\r")
	var out []byte
	for _, c := range line {
		if isBlank(c) {
			out = append(out, c)
		}
	}
	return out
}

// normalize appends line to dst with the normalizations f applied.
func normalize(dst, line []byte, f norm) []byte {
	if f&normCR != 0 && len(line) > 0 && line[len(line)-1] == '\r' {
		line = line[:len(line)-1]
	}
	end := len(line)
	for end > 0 && isBlank(line[end-1]) {
		end--
	}
	start := 0
	for start < end && isBlank(line[start]) {
		start++
	}
	if f&normLead == 0 {
		dst = append(dst, line[:start]...)
	}
	for i := start; i < end; i++ {
		c := line[i]
		switch {
		case f&normInner != 0 && isBlank(c):
			if !isBlank(line[i-1]) {
				dst = append(dst, ' ')
			}
			continue
		case f&normQuotes != 0 && quoteLen(line[i:]) > 0:
			if line[i+2] <= 0x9B {
				dst = append(dst, '\'')
			} else {
				dst = append(dst, '"')
			}
			i += 2
			continue
		case f&normDashes != 0 && dashLen(line[i:]) > 0:
			dst = append(dst, '-')
			i += 2
			continue
		case f&normNBSP != 0 && nbspLen(line[i:]) > 0:
			dst = append(dst, ' ')
			i += nbspLen(line[i:]) - 1
			continue
		}
		dst = append(dst, c)
	}
	if f&normTrail == 0 {
		dst = append(dst, line[end:]...)
	}
	return dst
}

// near renders the window at line s.
func (m *miss) near(s int, diffs []string) *Near {
	a, b := m.span(s)
	width := 5
	if n := len(m.starts); n >= 100000 {
		width = len(fmt.Sprint(n))
	}
	var sb strings.Builder
	for i := a; i < b; i++ {
		if i > a {
			sb.WriteByte('\n')
		}
		if i-a == maxShownLines {
			fmt.Fprintf(&sb, "… (%d more lines)", b-i)
			break
		}
		fmt.Fprintf(&sb, "%0*d|", width, i+1)
		l := m.line(i)
		if len(l) > maxShownLineLen {
			cut := maxShownLineLen
			for cut > 0 && !utf8.RuneStart(l[cut]) {
				cut--
			}
			sb.Write(l[:cut])
			fmt.Fprintf(&sb, "… (%d more bytes)", len(l)-cut)
			continue
		}
		sb.Write(l)
	}
	return &Near{StartLine: a + 1, EndLine: max(a+1, b), Text: sb.String(), Differences: diffs}
}

// similarity scores texts against a reference by the Dice coefficient of
// their byte bigrams.
type similarity struct {
	ref     []int32
	refN    int
	win     []int32
	touched []uint16
}

func newSimilarity(ref []byte) *similarity {
	s := &similarity{ref: make([]int32, 1<<16), win: make([]int32, 1<<16)}
	for i := 0; i+1 < len(ref); i++ {
		s.ref[uint16(ref[i])<<8|uint16(ref[i+1])]++
		s.refN++
	}
	return s
}

func (s *similarity) score(w []byte) float64 {
	n := len(w) - 1
	if n <= 0 || s.refN == 0 {
		return 0
	}
	common := 0
	for i := 0; i+1 < len(w); i++ {
		k := uint16(w[i])<<8 | uint16(w[i+1])
		if s.win[k] == 0 {
			s.touched = append(s.touched, k)
		}
		s.win[k]++
		if s.win[k] <= s.ref[k] {
			common++
		}
	}
	for _, k := range s.touched {
		s.win[k] = 0
	}
	s.touched = s.touched[:0]
	return 2 * float64(common) / float64(n+s.refN)
}
