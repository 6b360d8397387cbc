package patch

import (
	"bytes"
	"hash/maphash"
)

// fileLines indexes a file's lines. Line i (0-based) is
// text[start[i]:start[i+1]], its terminator included; only the last line
// may lack a "\n". An empty text has no lines; a text ending in "\n" has no
// empty line after it.
type fileLines struct {
	text  []byte
	start []int // len n+1; start[n] == len(text)
	crlf  bool  // some line ends in "\r\n"

	seed maphash.Seed
	sum  [2][]uint64 // hashes of the lines as written / CRLF-adapted, once needed
}

func indexLines(text []byte) *fileLines {
	fl := &fileLines{text: text, start: make([]int, 1, bytes.Count(text, []byte{'\n'})+2), seed: maphash.MakeSeed()}
	for i, c := range text {
		if c == '\n' && i+1 < len(text) {
			fl.start = append(fl.start, i+1)
		}
	}
	if len(text) > 0 {
		fl.start = append(fl.start, len(text))
	}
	fl.crlf = bytes.Contains(text, []byte("\r\n"))
	return fl
}

// n is the number of lines.
func (fl *fileLines) n() int { return len(fl.start) - 1 }

// hasNL reports whether line i ends in "\n".
func (fl *fileLines) hasNL(i int) bool { return fl.text[fl.start[i+1]-1] == '\n' }

// raw is line i with its terminator.
func (fl *fileLines) raw(i int) []byte { return fl.text[fl.start[i]:fl.start[i+1]] }

// content is line i without its "\n" (a "\r" before it stays).
func (fl *fileLines) content(i int) []byte {
	end := fl.start[i+1]
	if fl.hasNL(i) {
		end--
	}
	return fl.text[fl.start[i]:end]
}

// bare is line i without its "\n" or "\r\n".
func (fl *fileLines) bare(i int) []byte {
	c := fl.content(i)
	if fl.hasNL(i) && len(c) > 0 && c[len(c)-1] == '\r' {
		c = c[:len(c)-1]
	}
	return c
}

// line is line i as compared in a mode: as it is, or, CRLF-adapted, without
// the "\r" of its "\r\n".
func (fl *fileLines) line(i int, adapted bool) []byte {
	if adapted {
		return fl.bare(i)
	}
	return fl.content(i)
}

// sums returns a hash of every line as compared in a mode, so that a scan
// over the whole file compares one word per line.
func (fl *fileLines) sums(adapted bool) []uint64 {
	m := 0
	if adapted {
		m = 1
	}
	if fl.sum[m] == nil {
		sum := make([]uint64, fl.n())
		for i := range sum {
			sum[i] = maphash.Bytes(fl.seed, fl.line(i, adapted))
		}
		fl.sum[m] = sum
	}
	return fl.sum[m]
}

// crlfNear reports whether the terminated line nearest above line at (or,
// at the top, line at itself) ends in "\r\n".
func (fl *fileLines) crlfNear(at int) bool {
	for _, i := range []int{at - 1, at - 2, at} {
		if i >= 0 && i < fl.n() && fl.hasNL(i) {
			c := fl.content(i)
			return len(c) > 0 && c[len(c)-1] == '\r'
		}
	}
	return false
}

// offsetLine is the 1-based line number of a byte offset that starts a line
// (or is the end of the text): line i+1 for start[i]; for the end of a text
// without a final newline, the last line.
func (fl *fileLines) offsetLine(off int) int {
	n := fl.n()
	if off == len(fl.text) && n > 0 && !fl.hasNL(n-1) {
		return n
	}
	// start is sorted; binary search for off.
	lo, hi := 0, n
	for lo < hi {
		mid := (lo + hi) / 2
		if fl.start[mid] < off {
			lo = mid + 1
		} else {
			hi = mid
		}
	}
	return lo + 1
}
