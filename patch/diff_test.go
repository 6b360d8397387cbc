package patch

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// splitKeep cuts text into lines that keep their "\n".
func splitKeep(text string) []string {
	var lines []string
	for text != "" {
		i := strings.IndexByte(text, '\n')
		if i < 0 {
			lines = append(lines, text)
			break
		}
		lines = append(lines, text[:i+1])
		text = text[i+1:]
	}
	return lines
}

// op is one line of a line diff: ' ' kept, '-' removed, '+' added.
type op struct {
	kind byte
	line string // with its "\n", if it has one
	a, b int    // 0-based index in the old and new lines
}

// lineDiffOps computes a shortest edit script between old and new lines
// by longest common subsequence (quadratic: for tests only).
func lineDiffOps(a, b []string) []op {
	n, m := len(a), len(b)
	lcs := make([][]int, n+1)
	for i := range lcs {
		lcs[i] = make([]int, m+1)
	}
	for i := n - 1; i >= 0; i-- {
		for j := m - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	var ops []op
	i, j := 0, 0
	for i < n || j < m {
		switch {
		case i < n && j < m && a[i] == b[j]:
			ops = append(ops, op{' ', a[i], i, j})
			i, j = i+1, j+1
		case j < m && (i == n || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, op{'+', b[j], i, j})
			j++
		default:
			ops = append(ops, op{'-', a[i], i, j})
			i++
		}
	}
	return ops
}

// unifiedDiff writes a git-style unified diff of one file from old to new
// with ctx lines of context, "" when they are equal.
func unifiedDiff(old, new string, ctx int) string {
	ops := lineDiffOps(splitKeep(old), splitKeep(new))
	var out strings.Builder
	for k := 0; k < len(ops); {
		if ops[k].kind == ' ' {
			k++
			continue
		}
		// A hunk: from ctx kept lines before the change to ctx kept lines
		// after the last change that is within 2*ctx kept lines of the next.
		start := k
		for start > 0 && ops[start-1].kind == ' ' && k-start < ctx {
			start--
		}
		end := k
		for {
			for end < len(ops) && ops[end].kind != ' ' {
				end++
			}
			gap := end
			for gap < len(ops) && ops[gap].kind == ' ' {
				gap++
			}
			if gap < len(ops) && gap-end <= 2*ctx {
				end = gap
				continue
			}
			end = min(end+ctx, gap)
			break
		}
		if out.Len() == 0 {
			out.WriteString("--- a/f\n+++ b/f\n")
		}
		oldN, newN := 0, 0
		for _, o := range ops[start:end] {
			if o.kind != '+' {
				oldN++
			}
			if o.kind != '-' {
				newN++
			}
		}
		oldL, newL := ops[start].a+1, ops[start].b+1
		if oldN == 0 {
			oldL--
		}
		if newN == 0 {
			newL--
		}
		fmt.Fprintf(&out, "@@ -%d,%d +%d,%d @@\n", oldL, oldN, newL, newN)
		for _, o := range ops[start:end] {
			out.WriteByte(o.kind)
			out.WriteString(strings.TrimSuffix(o.line, "\n"))
			out.WriteByte('\n')
			if !strings.HasSuffix(o.line, "\n") {
				out.WriteString("\\ No newline at end of file\n")
			}
		}
		k = end
	}
	return out.String()
}

// applyOracle applies a unified diff with go-gitdiff.
func applyOracle(old, diff string) (string, error) {
	files, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil {
		return "", err
	}
	if len(files) != 1 {
		return "", fmt.Errorf("gitdiff: %d files", len(files))
	}
	var b bytes.Buffer
	if err := gitdiff.Apply(&b, strings.NewReader(old), files[0]); err != nil {
		return "", err
	}
	return b.String(), nil
}

// randomText builds a text from a few repeated lines, so hunks often match
// in several places and only the line numbers tell them apart.
func randomText(r *rand.Rand, maxLines int) string {
	words := []string{"a", "b", "x", "", "\tindented", "  spaced  ", "}", "return nil"}
	eol := "\n"
	if r.IntN(4) == 0 {
		eol = "\r\n"
	}
	var b strings.Builder
	n := r.IntN(maxLines + 1)
	for i := range n {
		b.WriteString(words[r.IntN(len(words))])
		if i < n-1 || r.IntN(3) > 0 {
			b.WriteString(eol)
		}
	}
	return b.String()
}

// randomEdit changes a few runs of lines of text.
func randomEdit(r *rand.Rand, text string) string {
	lines := splitKeep(text)
	eol := "\n"
	if strings.Contains(text, "\r\n") {
		eol = "\r\n"
	}
	for range 1 + r.IntN(3) {
		i := r.IntN(len(lines) + 1)
		j := min(len(lines), i+r.IntN(4))
		var repl []string
		for range r.IntN(4) {
			repl = append(repl, fmt.Sprintf("new %d%s", r.IntN(5), eol))
		}
		lines = append(lines[:i], append(repl, lines[j:]...)...)
	}
	if len(lines) > 0 && r.IntN(4) == 0 {
		last := &lines[len(lines)-1]
		if strings.HasSuffix(*last, "\n") {
			*last = strings.TrimSuffix(strings.TrimSuffix(*last, "\n"), "\r")
		} else {
			*last += eol
		}
	}
	return strings.Join(lines, "")
}

// TestApplyAgainstGitdiff applies generated unified diffs with Apply and with
// go-gitdiff and requires both to give the edited text.
func TestApplyAgainstGitdiff(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	oracled := 0
	defer func() {
		if oracled < 1000 {
			t.Errorf("only %d of the cases were checked against go-gitdiff", oracled)
		}
	}()
	for i := range 3000 {
		old := randomText(r, 30)
		new := randomEdit(r, old)
		ctx := []int{0, 1, 3}[r.IntN(3)]
		diff := unifiedDiff(old, new, ctx)
		if diff == "" {
			continue
		}
		files, err := Parse(diff)
		if err != nil {
			t.Fatalf("case %d: Parse: %v\ndiff:\n%s", i, err, diff)
		}
		want := new
		// go-gitdiff misreads zero-context hunks (git -U0 output): it places
		// a hunk with no old lines before its line instead of after it, and
		// takes "+0,0" for a whole-file delete. No oracle for those.
		if ctx > 0 && !hasPureInsertion(files[0].Hunks) {
			oracled++
			got, err := applyOracle(old, diff)
			if err != nil {
				t.Fatalf("case %d: go-gitdiff: %v\nold %q\ndiff:\n%s", i, err, old, diff)
			}
			if got != want {
				t.Fatalf("case %d: go-gitdiff gives %q, the edit was %q\ndiff:\n%s", i, got, want, diff)
			}
		}
		a, err := Apply([]byte(old), files[0].Hunks)
		if err != nil {
			t.Fatalf("case %d: Apply: %v\nold %q\ndiff:\n%s", i, err, old, diff)
		}
		checkRegions(t, []byte(old), a)
		if !sameEdit(a, want, ctx == 0) {
			t.Fatalf("case %d: Apply gives %q, want %q\nold %q\ndiff:\n%s", i, a.Text, want, old, diff)
		}
		if a.CRLFAdapted && ctx > 0 {
			t.Errorf("case %d: CRLFAdapted on a diff with context made from the file itself", i)
		}

		// The same hunks as a Codex envelope, without line numbers: either the
		// same result, or refused as ambiguous. A chunk of only added lines
		// has no place in a Codex envelope but the end of the file.
		if hasInnerInsertion(files[0].Hunks) {
			continue
		}
		codex := toCodex(files[0].Hunks)
		cf, err := Parse(codex)
		if err != nil {
			t.Fatalf("case %d: Parse(codex): %v\n%s", i, err, codex)
		}
		ca, err := Apply([]byte(old), cf[0].Hunks)
		switch {
		case err != nil && !isKind(err, KindAmbiguous):
			t.Fatalf("case %d: Apply(codex): %v\nold %q\n%s", i, err, old, codex)
		case err == nil && !sameEdit(ca, want, ctx == 0):
			t.Fatalf("case %d: Apply(codex) gives %q, want %q\nold %q\n%s", i, ca.Text, want, old, codex)
		}
	}
}

func hasPureInsertion(hunks []Hunk) bool {
	for _, h := range hunks {
		if len(h.Old) == 0 {
			return true
		}
	}
	return false
}

func hasInnerInsertion(hunks []Hunk) bool {
	for _, h := range hunks {
		if len(h.Old) == 0 && !h.AtEOF {
			return true
		}
	}
	return false
}

func isKind(err error, kind string) bool {
	he, ok := err.(*HunkError)
	return ok && he.Kind == kind
}

// toCodex writes hunks as a Codex envelope updating "f", dropping line
// numbers and keeping the end-of-file anchors.
func toCodex(hunks []Hunk) string {
	var b strings.Builder
	b.WriteString("*** Begin Patch\n*** Update File: f\n")
	for _, h := range hunks {
		b.WriteString("@@\n")
		writeSide := func(kind byte, lines []string, noEOL bool) {
			for _, l := range lines {
				b.WriteByte(kind)
				b.WriteString(l)
				b.WriteByte('\n')
			}
			if noEOL && len(lines) > 0 {
				b.WriteString("\\ No newline at end of file\n")
			}
		}
		writeSide('-', h.Old, h.OldNoEOL)
		writeSide('+', h.New, h.NewNoEOL)
		if h.AtEOF {
			b.WriteString("*** End of File\n")
		}
	}
	b.WriteString("*** End Patch\n")
	return b.String()
}
