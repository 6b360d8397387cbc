package patch

import (
	"fmt"
	"strings"
	"testing"
)

// benchFile is a Go-like text of about size bytes with many repeated lines.
func benchFile(size int) (string, []string) {
	var b strings.Builder
	var lines []string
	for i := 0; b.Len() < size; i++ {
		var l string
		switch i % 6 {
		case 0:
			l = fmt.Sprintf("func f%d(x int) int {", i)
		case 1, 2:
			l = "\tif x > 0 {"
		case 3:
			l = fmt.Sprintf("\t\treturn x + %d", i)
		case 4:
			l = "\t}"
		default:
			l = "}"
		}
		lines = append(lines, l)
		b.WriteString(l + "\n")
	}
	return b.String(), lines
}

// benchDiff replaces every step-th line (from the middle of each function)
// with a unified diff of 3 context lines.
func benchDiff(lines []string, hunks int) string {
	var b strings.Builder
	b.WriteString("--- a/f.go\n+++ b/f.go\n")
	step := len(lines) / (hunks + 1)
	for h := 1; h <= hunks; h++ {
		at := h*step/6*6 + 3 // a "return" line
		fmt.Fprintf(&b, "@@ -%d,7 +%d,7 @@\n", at-2, at-2)
		for i := at - 3; i <= at+3; i++ {
			if i == at {
				fmt.Fprintf(&b, "-%s\n+%s // changed\n", lines[i], lines[i])
				continue
			}
			fmt.Fprintf(&b, " %s\n", lines[i])
		}
	}
	return b.String()
}

func BenchmarkApply(b *testing.B) {
	for _, size := range []int{64 << 10, 1 << 20, 16 << 20} {
		text, lines := benchFile(size)
		files, err := Parse(benchDiff(lines, 20))
		if err != nil {
			b.Fatal(err)
		}
		codex, err := Parse(toCodex(files[0].Hunks))
		if err != nil {
			b.Fatal(err)
		}
		for _, c := range []struct {
			name  string
			hunks []Hunk
		}{{"unified", files[0].Hunks}, {"codex", codex[0].Hunks}} {
			b.Run(fmt.Sprintf("%s-%dKiB-20hunks", c.name, size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(text)))
				src := []byte(text)
				for b.Loop() {
					if _, err := Apply(src, c.hunks); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

func BenchmarkParse(b *testing.B) {
	_, lines := benchFile(1 << 20)
	diff := benchDiff(lines, 200)
	b.SetBytes(int64(len(diff)))
	for b.Loop() {
		if _, err := Parse(diff); err != nil {
			b.Fatal(err)
		}
	}
}
