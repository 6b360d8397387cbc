package engine

import (
	"fmt"
	"strings"

	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/receipt"
)

func FrameLines(b []byte) int { return receipt.Lines(b) }

func LinesWord(n int) string {
	if n == 1 {
		return "1 line"
	}
	return policy.Thousands(n) + " lines"
}

func Plural(n int, word string) string {
	if n == 1 {
		return "1 " + word
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func LineList(ms []receipt.Match) string {
	var b strings.Builder
	b.WriteString("line")
	if len(ms) > 1 {
		b.WriteString("s")
	}
	for i, m := range ms {
		if i == 5 {
			fmt.Fprintf(&b, ", … (%d in all)", len(ms))
			break
		}
		if i > 0 {
			b.WriteString(",")
		}
		fmt.Fprintf(&b, " %d", m.Line)
	}
	return b.String()
}

// maxDetailLines bounds the line numbers a refusal's details list: a
// pattern that matches a million times must not make a megabyte answer.
const maxDetailLines = 100

// firstLines returns at most maxDetailLines of lines (the count is given
// beside them).
func FirstLines(lines []int) []int {
	if len(lines) > maxDetailLines {
		return lines[:maxDetailLines]
	}
	return lines
}
