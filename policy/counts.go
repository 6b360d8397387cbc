package policy

import (
	"fmt"
	"strconv"
	"strings"
)

// SizeCountThreshold is the size above which a file is counted by size
// (MB) instead of lines in Count and Counts: 5 MiB.
const SizeCountThreshold = 5 << 20

// Count words the size of one state of a file for messages:
//
//	Count(120, 1, …)        == "1 line"
//	Count(90000, 2402, …)   == "2,402 lines"
//	Count(5<<20+1, …)       == "5.0 MB"     (over 5 MiB: by size)
//	Count(1234<<20, …)      == "1,234.0 MB"
//
// MB is 1<<20 bytes here, shown with one decimal. lines is the caller's
// line count (the receipt's).
func Count(bytes, lines int) string {
	if bytes > SizeCountThreshold {
		return megabytes(bytes)
	}
	if lines == 1 {
		return "1 line"
	}
	return Thousands(lines) + " lines"
}

// Counts words the before → after sizes of a replaced file for messages and
// refusals (the <counts> of SPEC section 4). When both sides are counted by
// lines, the unit is said once, on the before side:
//
//	Counts(…, 2402, …, 10)  == "2,402 lines → 10"
//	Counts(…, 1, …, 3)      == "1 line → 3"
//
// When either side is over 5 MiB it is counted by size, and then both sides
// carry their unit:
//
//	Counts(5<<20+1, …, 3, 1)  == "5.0 MB → 1 line"
//	Counts(100, 2, 6<<20, …)  == "2 lines → 6.0 MB"
func Counts(beforeBytes, beforeLines, afterBytes, afterLines int) string {
	before, after := Count(beforeBytes, beforeLines), Count(afterBytes, afterLines)
	if beforeBytes <= SizeCountThreshold && afterBytes <= SizeCountThreshold {
		after = Thousands(afterLines)
	}
	return before + " → " + after
}

func megabytes(n int) string {
	s := strconv.FormatFloat(float64(n)/(1<<20), 'f', 1, 64)
	whole, frac, _ := strings.Cut(s, ".")
	w, err := strconv.Atoi(whole)
	if err != nil { // cannot happen for a formatted non-negative float
		return s + " MB"
	}
	return fmt.Sprintf("%s.%s MB", Thousands(w), frac)
}

// Thousands formats n with "," between groups of three digits:
// Thousands(2402) == "2,402", Thousands(-1234567) == "-1,234,567".
func Thousands(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}
