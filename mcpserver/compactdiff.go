package mcpserver

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// hunkHeader matches a unified diff's hunk header: "@@ -a[,b] +c[,d] @@",
// with anything after it.
var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@(.*)$`)

// compactDiff returns diff with each hunk's leading and trailing context
// cut to one line and its header counted again: a change's result as a
// model needs it (the lines that went and came, where), for fewer tokens.
// Context between two changes of one hunk stays, so each hunk is still a
// valid unified hunk. A diff it does not read (no hunks, a note instead) is
// returned as it is.
func compactDiff(diff string) string {
	lines := strings.SplitAfter(diff, "\n")
	var b strings.Builder
	for i := 0; i < len(lines); {
		m := hunkHeader.FindStringSubmatch(strings.TrimRight(lines[i], "\n"))
		if m == nil {
			b.WriteString(lines[i])
			i++
			continue
		}
		// The hunk's lines are as many as its header counts (a file's next
		// "--- a/" line starts with '-' too), and a "\ No newline" marker.
		oldLeft, newLeft := count(m[2]), count(m[4])
		j := i + 1
		for j < len(lines) && lines[j] != "" && (oldLeft > 0 || newLeft > 0 || lines[j][0] == '\\') {
			switch lines[j][0] {
			case ' ':
				oldLeft--
				newLeft--
			case '-':
				oldLeft--
			case '+':
				newLeft--
			case '\\':
			default:
				oldLeft, newLeft = 0, 0 // not a hunk line: the hunk ends here
				j--
			}
			j++
		}
		body := lines[i+1 : j]
		lead, trail := 0, 0
		for lead < len(body) && body[lead][0] == ' ' {
			lead++
		}
		for trail < len(body)-lead && body[len(body)-1-trail][0] == ' ' {
			trail++
		}
		// One line of context stays on each side: every applier reads the
		// hunk (a hunk with none needs git's --unidiff-zero), for a third of
		// the context's lines. A "\ No newline" marker after the last
		// context line keeps that line with it.
		dropLead, dropTrail := max(lead-1, 0), max(trail-1, 0)
		if len(body) > 0 && strings.HasPrefix(body[len(body)-1], "\\") {
			dropTrail = 0
		}
		if lead == len(body) || dropLead+dropTrail == 0 {
			b.WriteString(lines[i])
			for _, l := range body {
				b.WriteString(l)
			}
			i = j
			continue
		}
		kept := body[dropLead : len(body)-dropTrail]
		oldStart, _ := strconv.Atoi(m[1])
		newStart, _ := strconv.Atoi(m[3])
		var oldN, newN int
		for _, l := range kept {
			switch l[0] {
			case ' ':
				oldN++
				newN++
			case '-':
				oldN++
			case '+':
				newN++
			}
		}
		fmt.Fprintf(&b, "@@ -%s +%s @@%s\n", span(oldStart+dropLead, oldN), span(newStart+dropLead, newN), m[5])
		for _, l := range kept {
			b.WriteString(l)
		}
		i = j
	}
	return b.String()
}

// count is a hunk header's count: 1 when it is left out.
func count(s string) int {
	if s == "" {
		return 1
	}
	n, _ := strconv.Atoi(s)
	return n
}

// span is a hunk header's "start,count", as diff writes it: a count of 1
// is left out. (A compacted hunk keeps a context line, so it never has an
// empty range.)
func span(start, n int) string {
	if n == 1 {
		return strconv.Itoa(start)
	}
	return fmt.Sprintf("%d,%d", start, n)
}
