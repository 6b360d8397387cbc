package patch

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

func FuzzParse(f *testing.F) {
	seeds := []struct{ patch, text string }{
		{"*** Begin Patch\n*** Add File: a\n+x\n*** Delete File: b\n*** Update File: c\n*** Move to: d\n@@ def f():\n x\n-y\n+z\n*** End of File\n*** End Patch\n", "def f():\nx\ny\n"},
		{"apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: c\n@@ class A\n@@ def f\n-a\n+b\n*** End Patch\nEOF\n", "class A\ndef f\na\n"},
		{"*** Begin Patch\n*** Update File: c\n a\n\n-b\n+c\n*** End Patch", "a\n\nb\n"},
		{"*** Begin Patch\n*** Update File: c\n+only\n*** End Patch", "x\n"},
		{"diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@ sec\n a\n-b\n\\ No newline at end of file\n+c\n", "a\nb"},
		{"--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\r\n+b\r\n@@ -5,0 +6,2 @@\n+p\n+q\n", "a\r\n1\n2\n3\n4\n5\n"},
		{"diff --git a/n b/n\nnew file mode 100644\n--- /dev/null\n+++ b/n\n@@ -0,0 +1 @@\n+x\ndiff --git a/o b/p\nrename from o\nrename to p\n", ""},
		{"--- a/x\n+++ b/x\n@@\n-a\n+b\n", "a\n"},
		{"--- a/x\n+++ b/x\n@@ -1,3 +1,1 @@\n-a\n", "a\n"},
		{"```diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-\u201ca\u201d\n+b\n```", "\"a\"\n"},
		// Wrappers and markers as Codex accepts them.
		{"```bash\ncd \"my dir\" && apply_patch <<'EOF'\n *** Begin Patch\n  *** Update File: ../c\n@@\n-a\n+b\n  *** End of File\n *** End Patch \nEOF\n```\n", "a\n"},
		{"cd d && cat <<EOF | applypatch\n*** Begin Patch\n*** Update File: c\n@@\n-a\n+b\n@@\n+appended\n*** End Patch\nEOF\n", "a\nz"},
		{"cd $X; apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: c\n*** End Patch\nEOF\n", ""},
		// Hunks placed by their order, and a typographic near miss.
		{"--- a/x\n+++ b/x\n@@ @@\n-dup\n+one\n@@ @@\n-dup\n+two\n", "dup\nx\ndup\ndup\n"},
		{"--- a/x\n+++ b/x\n@@ @@\n-a - b \"c\"\n+d\n", "a \u2014 b \u201cc\u201d\u00a0\n"},
	}
	for _, s := range seeds {
		f.Add(s.patch, s.text)
	}
	f.Fuzz(func(t *testing.T, patch, text string) {
		files, err := Parse(patch)
		if err != nil {
			var pe *ParseError
			if !errors.As(err, &pe) || !errors.Is(err, ErrInvalidPatch) {
				t.Fatalf("Parse error %v (%T) is not a *ParseError", err, err)
			}
			if n := strings.Count(patch, "\n") + 1; pe.Line < 1 || pe.Line > n {
				t.Fatalf("ParseError line %d outside the patch's %d lines", pe.Line, n)
			}
			if files != nil {
				t.Fatalf("Parse returned files with an error")
			}
			return
		}
		if len(files) == 0 {
			t.Fatalf("Parse returned no files and no error")
		}
		for _, fl := range files {
			if fl.Path == "" || fl.Kind != Add && fl.Kind != Update && fl.Kind != Delete {
				t.Fatalf("bad file plan %+v", fl)
			}
			if fl.Kind != Update {
				continue
			}
			a, err := Apply([]byte(text), fl.Hunks)
			if err != nil {
				var he *HunkError
				if !errors.As(err, &he) || he.Kind != KindNoMatch && he.Kind != KindAmbiguous {
					t.Fatalf("Apply error %v (%T) is not a *HunkError", err, err)
				}
				continue
			}
			checkRegions(t, []byte(text), a)
		}
	})
}

// FuzzApply edits a random run of lines of a random text, writes the edit
// as a unified diff, and requires Parse + Apply to give the edited text
// back, with regions that splice to it.
func FuzzApply(f *testing.F) {
	f.Add("a\nb\nc\n", "X\n", uint64(1), uint8(3))
	f.Add("a\r\nb\r\nc", "X\r\nY", uint64(2), uint8(1))
	f.Add("", "new\n", uint64(3), uint8(0))
	f.Add("x\nx\nx\nx\n", "", uint64(4), uint8(2))
	f.Add("\ufefffunc f() {\n\treturn 1\n}\n", "\treturn 2\n", uint64(5), uint8(3))
	f.Add("a\n\n\nb\n \n", "\n", uint64(6), uint8(1))
	f.Fuzz(func(t *testing.T, text, repl string, seed uint64, ctx uint8) {
		// The test's diff is quadratic in the line count: keep it small.
		if strings.Count(text, "\n") > 200 || strings.Count(repl, "\n") > 50 {
			return
		}
		r := rand.New(rand.NewPCG(seed, seed>>32|1))
		lines := splitKeep(text)
		i := r.IntN(len(lines) + 1)
		j := i + r.IntN(len(lines)-i+1)
		edited := strings.Join(lines[:i], "") + repl + strings.Join(lines[j:], "")
		diff := unifiedDiff(text, edited, int(ctx%5))
		if diff == "" {
			return
		}
		files, err := Parse(diff)
		if err != nil {
			t.Fatalf("Parse: %v\ndiff:\n%s", err, diff)
		}
		if len(files) != 1 || files[0].Kind != Update || files[0].Path != "f" {
			t.Fatalf("Parse = %+v, want one update of f", files)
		}
		a, err := Apply([]byte(text), files[0].Hunks)
		if err != nil {
			t.Fatalf("Apply: %v\ntext %q\ndiff:\n%s", err, text, diff)
		}
		checkRegions(t, []byte(text), a)
		if !sameEdit(a, edited, ctx%5 == 0) {
			t.Fatalf("Apply gives %q (CRLFAdapted %v), want %q\ndiff:\n%s", a.Text, a.CRLFAdapted, edited, diff)
		}

		if hasInnerInsertion(files[0].Hunks) {
			return // a Codex chunk of only added lines goes at the end
		}
		codex := toCodex(files[0].Hunks)
		cf, err := Parse(codex)
		if err != nil {
			t.Fatalf("Parse(codex): %v\n%s", err, codex)
		}
		ca, err := Apply([]byte(text), cf[0].Hunks)
		switch {
		case err != nil && !isKind(err, KindAmbiguous):
			t.Fatalf("Apply(codex): %v\ntext %q\n%s", err, text, codex)
		case err == nil && !sameEdit(ca, edited, ctx%5 == 0):
			t.Fatalf("Apply(codex) gives %q, want %q\n%s", ca.Text, edited, codex)
		}
	})
}

// sameEdit reports whether Apply gave the edited text. A diff without
// context can add lines next to "\r\n" lines with no line of its own
// showing the file's line ending: Apply then gives them "\r\n" (and says
// so), where the edit may have used "\n".
func sameEdit(a Applied, edited string, noContext bool) bool {
	if string(a.Text) == edited {
		return true
	}
	lf := func(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }
	return noContext && a.CRLFAdapted && lf(string(a.Text)) == lf(edited)
}

// FuzzUnified makes a unified diff of two texts, rewrites its hunk headers
// as models write them, and applies it. The exact diff must give the new
// text. A garbled one may be refused (a ParseError, or a HunkError when its
// hunks are ambiguous or its bare headers cut a hunk short), but a hunk
// that is applied without line numbers went to the one place it matches,
// so whatever applies gives the new text.
func FuzzUnified(f *testing.F) {
	f.Add("a\nb\nc\n", "a\nB\nc\n", uint8(0))
	f.Add("x\n1\n2\n3\n4\n5\n6\n7\n8\nx\n", "y\n1\n2\n3\n4\n5\n6\n7\n8\nx\n", uint8(1))
	f.Add("a\r\nb\r\n", "a\r\nc\r\n", uint8(2))
	f.Add("a\nb", "a\nb\n", uint8(3))
	f.Add("-- \n- \n", "- \n", uint8(1))
	f.Add("}\n\n}\n\n}\n", "}\n\n}\nx\n\n}\n", uint8(4))
	f.Fuzz(func(t *testing.T, old, new string, form uint8) {
		diff := unifiedDiff(old, new, 3)
		if diff == "" {
			return
		}
		garbled := rewriteHeaders(diff, func(k, o, n int, oc, nc, sec string) string {
			switch form % 5 {
			case 1:
				return "@@ @@"
			case 2:
				return "@@ @@ func Foo() {"
			case 3:
				return fmt.Sprintf("@@ -%d +%d @@", o, n)
			case 4:
				return "@@"
			}
			return fmt.Sprintf("@@ -%d%s +%d%s @@%s", o, oc, n, nc, sec)
		})
		files, err := Parse(garbled)
		if err != nil {
			if form%5 == 0 {
				t.Fatalf("Parse of an exact diff: %v\n%s", err, garbled)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("Parse error %v is not a *ParseError", err)
			}
			return
		}
		if len(files) != 1 {
			if form%5 == 0 {
				t.Fatalf("Parse of an exact diff: %d files", len(files))
			}
			return
		}
		a, err := Apply([]byte(old), files[0].Hunks)
		if err != nil {
			var he *HunkError
			if form%5 == 0 || !errors.As(err, &he) {
				t.Fatalf("Apply: %v\nold %q\n%s", err, old, garbled)
			}
			return
		}
		checkRegions(t, []byte(old), a)
		if string(a.Text) != new {
			t.Fatalf("Apply gives %q, want %q\nold %q\n%s", a.Text, new, old, garbled)
		}
	})
}
