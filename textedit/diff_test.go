package textedit

import (
	"bytes"
	"fmt"
	"strconv"
	"strings"
	"testing"
)

func TestDiff(t *testing.T) {
	ten := "1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n"
	tests := []struct {
		name          string
		before, after string
		want          string
	}{
		{"equal", ten, ten, ""},
		{"both empty", "", "", ""},
		{
			"one line in the middle", ten, strings.Replace(ten, "5\n", "five\n", 1),
			"--- a/f.txt\n+++ b/f.txt\n@@ -2,7 +2,7 @@\n 2\n 3\n 4\n-5\n+five\n 6\n 7\n 8\n",
		},
		{
			"first line", ten, strings.Replace(ten, "1\n", "one\n", 1),
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n",
		},
		{
			"two hunks", ten, strings.Replace(strings.Replace(ten, "1\n", "one\n", 1), "10\n", "ten\n", 1),
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,4 +1,4 @@\n-1\n+one\n 2\n 3\n 4\n@@ -7,4 +7,4 @@\n 7\n 8\n 9\n-10\n+ten\n",
		},
		{
			"close changes share a hunk", ten, strings.Replace(strings.Replace(ten, "3\n", "three\n", 1), "8\n", "eight\n", 1),
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,10 +1,10 @@\n 1\n 2\n-3\n+three\n 4\n 5\n 6\n 7\n-8\n+eight\n 9\n 10\n",
		},
		{
			"inserted lines shift later numbers", ten, strings.Replace(ten, "2\n", "2\nx\ny\n", 1),
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,5 +1,7 @@\n 1\n 2\n+x\n+y\n 3\n 4\n 5\n",
		},
		{
			"deleted lines", ten, strings.Replace(ten, "4\n5\n", "", 1),
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,8 +1,6 @@\n 1\n 2\n 3\n-4\n-5\n 6\n 7\n 8\n",
		},
		{
			"last line without newline changed", "a\nb\nc", "a\nb\nd",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n a\n b\n-c\n\\ No newline at end of file\n+d\n\\ No newline at end of file\n",
		},
		{
			"final newline added", "a\nb", "a\nb\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
		},
		{
			"final newline removed", "a\nb\n", "a\nb",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n",
		},
		{
			"context line without newline", "a\nb\nc", "A\nb\nc",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,3 +1,3 @@\n-a\n+A\n b\n c\n\\ No newline at end of file\n",
		},
		{
			"line endings change", "a\r\nb\r\n", "a\r\nb\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+b\n",
		},
		{
			"emptied", "a\nb\n", "",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,2 +0,0 @@\n-a\n-b\n",
		},
		{
			"filled", "", "a\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -0,0 +1 @@\n+a\n",
		},
		{
			"a hunk after one that joined two changes",
			"1\n2\n3\n4\n5\n6\n7\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\n19\n20\n",
			"1\nX\n3\n4\n5\n6\nY\nY2\n8\n9\n10\n11\n12\n13\n14\n15\n16\n17\n18\nZ\n20\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -1,10 +1,11 @@\n 1\n-2\n+X\n 3\n 4\n 5\n 6\n-7\n+Y\n+Y2\n 8\n 9\n 10\n" +
				"@@ -16,5 +17,5 @@\n 16\n 17\n 18\n-19\n+Z\n 20\n",
		},
		{
			"repeated lines around a deletion", "a\na\na\na\na\nb\n", "a\na\na\na\nb\n",
			"--- a/f.txt\n+++ b/f.txt\n@@ -2,5 +2,4 @@\n a\n a\n a\n-a\n b\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff("f.txt", []byte(tt.before), []byte(tt.after))
			if got != tt.want {
				t.Errorf("Diff =\n%s\nwant\n%s", got, tt.want)
			}
			checkDiff(t, tt.before, tt.after, got)
		})
	}
}

func TestDiffCreateDelete(t *testing.T) {
	if got, want := DiffCreate("dir/new.txt", []byte("x\ny\n")), "--- /dev/null\n+++ b/dir/new.txt\n@@ -0,0 +1,2 @@\n+x\n+y\n"; got != want {
		t.Errorf("DiffCreate = %q, want %q", got, want)
	}
	if got, want := DiffDelete("old.txt", []byte("x")), "--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-x\n\\ No newline at end of file\n"; got != want {
		t.Errorf("DiffDelete = %q, want %q", got, want)
	}
	if got := DiffCreate("empty.txt", nil); got != "" {
		t.Errorf("DiffCreate of an empty file = %q, want empty", got)
	}
}

func TestDiffBigFile(t *testing.T) {
	before := numbered(100000)
	after := bytes.Replace(before, []byte("line 50000\n"), []byte("line 50000 changed\n"), 1)
	got := Diff("big.txt", before, after)
	want := "--- a/big.txt\n+++ b/big.txt\n@@ -49997,7 +49997,7 @@\n" +
		" line 49997\n line 49998\n line 49999\n-line 50000\n+line 50000 changed\n line 50001\n line 50002\n line 50003\n"
	if got != want {
		t.Errorf("Diff =\n%s\nwant\n%s", got, want)
	}

	// Lines inserted early shift the new-side numbers of a later hunk.
	after = bytes.Replace(before, []byte("line 10\n"), []byte("line 10\nnew a\nnew b\n"), 1)
	after = bytes.Replace(after, []byte("line 90000\n"), nil, 1)
	got = Diff("big.txt", before, after)
	want = "--- a/big.txt\n+++ b/big.txt\n@@ -8,6 +8,8 @@\n line 8\n line 9\n line 10\n+new a\n+new b\n line 11\n line 12\n line 13\n" +
		"@@ -89997,7 +89999,6 @@\n line 89997\n line 89998\n line 89999\n-line 90000\n line 90001\n line 90002\n line 90003\n"
	if got != want {
		t.Errorf("Diff =\n%s\nwant\n%s", got, want)
	}
	checkDiff(t, string(before), string(after), got)
}

// numbered returns "line 1\n" ... "line n\n".
func numbered(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	return b.Bytes()
}

// checkDiff applies a unified diff to before with a strict reader written
// for these tests: every context and deleted line must be where the hunk
// header says, and the new-side numbers must agree with the output so far.
func checkDiff(t *testing.T, before, after, diff string) {
	t.Helper()
	got, err := applyUnified(before, diff)
	if err != nil {
		t.Fatalf("diff does not apply: %v\n%s", err, diff)
	}
	if got != after {
		t.Fatalf("applying the diff gives %q, want %q\n%s", got, after, diff)
	}
}

func applyUnified(before, diff string) (string, error) {
	if diff == "" {
		return before, nil
	}
	src := splitKeep(before)
	lines := splitKeep(diff)
	if len(lines) < 2 || !strings.HasPrefix(lines[0], "--- ") || !strings.HasPrefix(lines[1], "+++ ") {
		return "", fmt.Errorf("missing headers")
	}
	var out []string
	pos := 0 // next unread line of src
	i := 2
	for i < len(lines) {
		var oldStart, oldCount, newStart, newCount int
		h := strings.TrimSuffix(lines[i], "\n")
		if _, err := parseHunk(h, &oldStart, &oldCount, &newStart, &newCount); err != nil {
			return "", err
		}
		i++
		first := oldStart - 1
		if oldCount == 0 {
			first = oldStart
		}
		if first < pos || first > len(src) {
			return "", fmt.Errorf("hunk %q out of order", h)
		}
		out = append(out, src[pos:first]...)
		pos = first
		if wantNew := newStart - 1; newCount != 0 && wantNew != len(out) || newCount == 0 && newStart != len(out) {
			return "", fmt.Errorf("hunk %q: new side starts at line %d, output has %d lines", h, newStart, len(out))
		}
		seenOld, seenNew := 0, 0
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			i++
			if i < len(lines) && lines[i] == "\\ No newline at end of file\n" {
				l = strings.TrimSuffix(l, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				if pos >= len(src) || src[pos] != l[1:] {
					return "", fmt.Errorf("hunk %q: line %d is %q, diff says %q", h, pos+1, at(src, pos), l[1:])
				}
				pos++
				seenOld++
				if l[0] == ' ' {
					out = append(out, l[1:])
					seenNew++
				}
			case '+':
				out = append(out, l[1:])
				seenNew++
			default:
				return "", fmt.Errorf("bad line %q", l)
			}
		}
		if seenOld != oldCount || seenNew != newCount {
			return "", fmt.Errorf("hunk %q has %d old and %d new lines", h, seenOld, seenNew)
		}
	}
	out = append(out, src[pos:]...)
	return strings.Join(out, ""), nil
}

func at(src []string, i int) string {
	if i < len(src) {
		return src[i]
	}
	return "<EOF>"
}

func parseHunk(h string, os, oc, ns, nc *int) (int, error) {
	f := strings.Fields(h)
	if len(f) != 4 || f[0] != "@@" || f[3] != "@@" || f[1][0] != '-' || f[2][0] != '+' {
		return 0, fmt.Errorf("bad hunk header %q", h)
	}
	parse := func(s string, start, count *int) error {
		a, b, ok := strings.Cut(s, ",")
		var err error
		if *start, err = strconv.Atoi(a); err != nil {
			return err
		}
		*count = 1
		if ok {
			*count, err = strconv.Atoi(b)
		}
		return err
	}
	if err := parse(f[1][1:], os, oc); err != nil {
		return 0, err
	}
	return 0, parse(f[2][1:], ns, nc)
}

// splitKeep splits s into lines that keep their "\n".
func splitKeep(s string) []string {
	var out []string
	for s != "" {
		i := strings.IndexByte(s, '\n') + 1
		if i == 0 {
			i = len(s)
		}
		out = append(out, s[:i])
		s = s[i:]
	}
	return out
}
