package patch

import (
	"bytes"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// hunksOf parses a one-file patch and returns its hunks.
func hunksOf(t *testing.T, patch string) []Hunk {
	t.Helper()
	files, err := Parse(patch)
	if err != nil {
		t.Fatalf("Parse: %v", err)
	}
	if len(files) != 1 {
		t.Fatalf("Parse: %d files, want 1", len(files))
	}
	return files[0].Hunks
}

// checkRegions verifies what every Applied must satisfy: the regions are
// sorted, apart, inside the original, hold the lines they say, and splicing
// them into the original gives Text, which is allocated at its size.
func checkRegions(t testing.TB, orig []byte, a Applied) {
	t.Helper()
	prevEnd := -1
	for i, r := range a.Regions {
		if r.Offset <= prevEnd || r.OldBytes < 0 || r.Offset+r.OldBytes > len(orig) {
			t.Fatalf("region %d %+v: out of order, touching the previous one, or outside the text (%d bytes)", i, r, len(orig))
		}
		if r.OldBytes == 0 && len(r.New) == 0 {
			t.Errorf("region %d changes nothing", i)
		}
		if want := 1 + bytes.Count(orig[:r.Offset], []byte("\n")); r.Line != want {
			t.Errorf("region %d: Line = %d, want %d", i, r.Line, want)
		}
		prevEnd = r.Offset + r.OldBytes
	}
	var b []byte
	prev := 0
	for _, r := range a.Regions {
		b = append(b, orig[prev:r.Offset]...)
		b = append(b, r.New...)
		prev = r.Offset + r.OldBytes
	}
	b = append(b, orig[prev:]...)
	if !bytes.Equal(b, a.Text) {
		t.Fatalf("splicing the regions gives %q, Text is %q", b, a.Text)
	}
	// Text is allocated at its size: a large file's result holds no slack.
	if cap(a.Text) != len(a.Text) {
		t.Errorf("Text has capacity %d for %d bytes", cap(a.Text), len(a.Text))
	}
}

func TestApply(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		patch   string
		want    string
		adapted bool
		regions []Region // checked when not nil
	}{
		{
			name:    "codex replace with context; context lines are not in the region",
			text:    "a\nb\nc\nd\n",
			patch:   "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n c\n*** End Patch",
			want:    "a\nB\nc\nd\n",
			regions: []Region{{Offset: 2, OldBytes: 2, New: []byte("B\n"), Line: 2}},
		},
		{
			name:  "several hunks in order",
			text:  "1\n2\n3\n4\n5\n6\n7\n8\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n 1\n-2\n+two\n@@\n 7\n-8\n+eight\n*** End Patch",
			want:  "1\ntwo\n3\n4\n5\n6\n7\neight\n",
			regions: []Region{
				{Offset: 2, OldBytes: 2, New: []byte("two\n"), Line: 2},
				{Offset: 14, OldBytes: 2, New: []byte("eight\n"), Line: 8},
			},
		},
		{
			name:  "context narrows to the second function",
			text:  "def f():\n    return 1\n\ndef g():\n    return 1\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@ def g():\n-    return 1\n+    return 2\n*** End Patch",
			want:  "def f():\n    return 1\n\ndef g():\n    return 2\n",
		},
		{
			name:  "consecutive context lines narrow in turn",
			text:  "class A:\n    def run(self):\n        pass\nclass B:\n    def run(self):\n        pass\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@ class B:\n@@ def run(self):\n-        pass\n+        return 1\n*** End Patch",
			want:  "class A:\n    def run(self):\n        pass\nclass B:\n    def run(self):\n        return 1\n",
		},
		{
			name:  "two hunks under the same context line",
			text:  "def f():\n    a = 1\n    b = 1\n    c = 1\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@ def f():\n-    a = 1\n+    a = 2\n@@ def f():\n-    c = 1\n+    c = 2\n*** End Patch",
			want:  "def f():\n    a = 2\n    b = 1\n    c = 2\n",
		},
		{
			name:  "hunk may start at its context line",
			text:  "x\nfunc f() {\n\treturn\n}\nfunc f() {\n\treturn\n}\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@ func f() {\n func f() {\n-\treturn\n+\treturn 1\n*** End Patch",
			want:  "x\nfunc f() {\n\treturn 1\n}\nfunc f() {\n\treturn\n}\n",
		},
		{
			name:  "End of File anchors at the last occurrence",
			text:  "x\ny\nx\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-x\n+z\n*** End of File\n*** End Patch",
			want:  "x\ny\nz\n",
		},
		{
			name:    "CRLF file, LF patch: adapted",
			text:    "a\r\nb\r\nc\r\n",
			patch:   "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n+B2\n c\n*** End Patch",
			want:    "a\r\nB\r\nB2\r\nc\r\n",
			adapted: true,
			regions: []Region{{Offset: 3, OldBytes: 3, New: []byte("B\r\nB2\r\n"), Line: 2}},
		},
		{
			name:  "CRLF file, git diff carrying the CRs: exact",
			text:  "a\r\nb\r\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+c\r\n",
			want:  "a\r\nc\r\n",
		},
		{
			name:  "add the final newline where the diff says",
			text:  "a\nb",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+b\n",
			want:  "a\nb\n",
		},
		{
			name:  "remove the final newline where the diff says",
			text:  "a\nb\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n+b\n\\ No newline at end of file\n",
			want:  "a\nb",
		},
		{
			name:  "change the last line of a file without a final newline, marked on both sides",
			text:  "a\nb",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\n-b\n\\ No newline at end of file\n+c\n\\ No newline at end of file\n",
			want:  "a\nc",
		},
		{
			name:  "codex keeps a missing final newline missing",
			text:  "a\nb",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+c\n+d\n*** End Patch",
			want:  "a\nc\nd",
		},
		{
			name:  "codex append to a file without a final newline",
			text:  "a\nb",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n+c\n*** End of File\n*** End Patch",
			want:  "a\nb\nc",
		},
		{
			name:  "unified pure insertion after line 1",
			text:  "a\nb\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,0 +2,1 @@\n+new\n",
			want:  "a\nnew\nb\n",
		},
		{
			name:  "unified pure insertion at the top",
			text:  "a\n",
			patch: "--- a/f\n+++ b/f\n@@ -0,0 +1,1 @@\n+top\n",
			want:  "top\na\n",
		},
		{
			name:    "codex insertion below its context line, in a CRLF file",
			text:    "import x\r\nbody\r\n",
			patch:   "*** Begin Patch\n*** Update File: f\n@@ import x\n+import y\n*** End Patch",
			want:    "import x\r\nimport y\r\nbody\r\n",
			adapted: true,
		},
		{
			name:  "line hint picks the nearest occurrence",
			text:  "x\n1\n2\nx\n3\n",
			patch: "--- a/f\n+++ b/f\n@@ -4 +4 @@\n-x\n+y\n",
			want:  "x\n1\n2\ny\n3\n",
		},
		{
			name:  "a wrong line hint is only a hint",
			text:  "p\nq\nr\ns\nt\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n s\n-t\n+T\n",
			want:  "p\nq\nr\ns\nT\n",
		},
		{
			name:  "drift of one hunk carries to the next",
			text:  "h\nh\nx\na\nb\nx\nc\n",
			patch: "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-a\n+A\n@@ -4 +4 @@\n-x\n+X\n",
			want:  "h\nh\nx\nA\nb\nX\nc\n",
		},
		{
			name:  "BOM, tabs and other lines keep their bytes",
			text:  "\ufeffa\t\n  b \nc",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-  b \n+  B \n*** End Patch",
			want:  "\ufeffa\t\n  B \nc",
		},
		{
			name:    "a hunk of context only changes nothing",
			text:    "a\nb\n",
			patch:   "*** Begin Patch\n*** Update File: f\n@@\n a\n b\n*** End Patch",
			want:    "a\nb\n",
			regions: []Region{},
		},
		{
			name:    "adjacent hunks merge into one region",
			text:    "a\nb\nc\n",
			patch:   "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-a\n+A\n@@ -2 +2 @@\n-b\n+B\n",
			want:    "A\nB\nc\n",
			regions: []Region{{Offset: 0, OldBytes: 4, New: []byte("A\nB\n"), Line: 1}},
		},
		{
			name:  "delete everything",
			text:  "a\nb",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-a\n-b\n*** End Patch",
			want:  "",
		},
		{
			name:  "the hunks of a unified delete empty the file",
			text:  "bye\n",
			patch: "diff --git a/old.txt b/old.txt\ndeleted file mode 100644\n--- a/old.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-bye\n",
			want:  "",
		},
		{
			name:  "empty file gets content",
			text:  "",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n+x\n*** End of File\n*** End Patch",
			want:  "x\n",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Apply([]byte(tt.text), hunksOf(t, tt.patch))
			if err != nil {
				t.Fatalf("Apply: %v", err)
			}
			if string(a.Text) != tt.want {
				t.Errorf("Text = %q, want %q", a.Text, tt.want)
			}
			if a.CRLFAdapted != tt.adapted {
				t.Errorf("CRLFAdapted = %v, want %v", a.CRLFAdapted, tt.adapted)
			}
			checkRegions(t, []byte(tt.text), a)
			if tt.regions != nil && (len(tt.regions) > 0 || len(a.Regions) > 0) {
				if diff := cmp.Diff(tt.regions, a.Regions); diff != "" {
					t.Errorf("Regions mismatch (-want +got):\n%s", diff)
				}
			}
		})
	}
}

func TestApplyErrors(t *testing.T) {
	tests := []struct {
		name  string
		text  string
		patch string
		kind  string
		index int
		lines []int
		msg   []string // parts of the message
		near  string   // a part of Near
	}{
		{
			name:  "ambiguous without hint or context",
			text:  "x\na\nx\nb\nx\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-x\n+y\n*** End Patch",
			kind:  KindAmbiguous, lines: []int{1, 3, 5},
			msg: []string{"3 times", "1, 3, 5"},
		},
		{
			name:  "pure insertion without a position",
			text:  "a\n",
			patch: "--- a/f\n+++ b/f\n@@\n+b\n",
			kind:  KindAmbiguous,
			msg:   []string{"only adds lines"},
		},
		{
			name:  "indentation differs",
			text:  "func f() {\n\treturn 1\n}\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n func f() {\n-    return 1\n+    return 2\n*** End Patch",
			kind:  KindNoMatch, lines: []int{1, 2},
			msg:  []string{"nearest: lines 1-2 (1 of 2 equal)", "line 2 (a removed line) differs in indentation (file 1 tab, patch 4 spaces)"},
			near: "00002|\treturn 1",
		},
		{
			name:  "trailing space differs",
			text:  "a\nb  \nc\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n a\n-b\n+B\n c\n*** End Patch",
			kind:  KindNoMatch, lines: []int{1, 2, 3},
			msg: []string{"line 2 (a removed line) differs in trailing space (file 2 spaces, patch none)", "2 of 3 equal"},
		},
		{
			name:  "line ending differs in a mixed file",
			text:  "a\r\nb\nc\n",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n a\r\n-b\r\n+B\r\n",
			kind:  KindNoMatch,
			msg:   []string{"line 2 (a removed line) differs in line ending"},
		},
		{
			name:  "quotes differ",
			text:  "say(\u201chi\u201d)\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-say(\"hi\")\n+say(\"ho\")\n*** End Patch",
			kind:  KindNoMatch, lines: []int{1},
			msg: []string{"line 1 (a removed line) differs in quotes"},
		},
		{
			name:  "nothing alike",
			text:  "a\nb\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-zzz\n+y\n*** End Patch",
			kind:  KindNoMatch,
			msg:   []string{`its old line "zzz" is not in the file`},
		},
		{
			name:  "hunks out of file order",
			text:  "a\nb\nc\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-c\n+C\n@@\n-a\n+A\n*** End Patch",
			kind:  KindNoMatch, index: 1, lines: []int{1},
			msg: []string{"at line 1", "file order"},
		},
		{
			name:  "context line missing",
			text:  "def f():\n    pass\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@ def g():\n-    pass\n+    return\n*** End Patch",
			kind:  KindNoMatch,
			msg:   []string{`@@ line "def g():" is not in the file`},
		},
		{
			name:  "nested context lines out of order",
			text:  "class A:\n    def run(self):\n        pass\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@ def run(self):\n@@ class A:\n-        pass\n+        return\n*** End Patch",
			kind:  KindNoMatch, lines: []int{1},
			msg: []string{`@@ line "class A:" is at line 1, above the @@ line before it`},
		},
		{
			name:  "lines above their context line",
			text:  "x = 1\ndef f():\n    pass\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@ def f():\n-x = 1\n+x = 2\n*** End Patch",
			kind:  KindNoMatch, lines: []int{1},
			msg: []string{"above its @@ line"},
		},
		{
			name:  "End of File but the lines are elsewhere",
			text:  "a\nb\nc\n",
			patch: "*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n*** End of File\n*** End Patch",
			kind:  KindNoMatch, lines: []int{1},
			msg: []string{"must end at the end of the file"},
		},
		{
			name:  "no-newline marker but the file has a newline",
			text:  "a\nb\n",
			patch: "--- a/f\n+++ b/f\n@@ -2 +2 @@\n-b\n\\ No newline at end of file\n+c\n",
			kind:  KindNoMatch, lines: []int{2},
			msg: []string{"No newline at end of file"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, err := Apply([]byte(tt.text), hunksOf(t, tt.patch))
			if err == nil {
				t.Fatalf("Apply = %q, want an error", a.Text)
			}
			var he *HunkError
			if !errors.As(err, &he) {
				t.Fatalf("error %v (%T) is not a *HunkError", err, err)
			}
			sentinel := ErrNoMatch
			if tt.kind == KindAmbiguous {
				sentinel = ErrAmbiguous
			}
			if he.Kind != tt.kind || he.Index != tt.index || !errors.Is(err, sentinel) {
				t.Errorf("error = kind %q index %d (%v), want kind %q index %d", he.Kind, he.Index, err, tt.kind, tt.index)
			}
			if tt.lines != nil && !cmp.Equal(he.Lines, tt.lines) {
				t.Errorf("Lines = %v, want %v", he.Lines, tt.lines)
			}
			for _, m := range tt.msg {
				if !strings.Contains(he.Msg, m) {
					t.Errorf("Msg = %q, want it to contain %q", he.Msg, m)
				}
			}
			if !strings.Contains(he.Near, tt.near) {
				t.Errorf("Near = %q, want it to contain %q", he.Near, tt.near)
			}
		})
	}
}
