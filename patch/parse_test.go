package patch

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseCodex(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []File
	}{
		{
			name: "add update delete move",
			patch: `*** Begin Patch
*** Add File: path/new.txt
+line one
+line two
*** Delete File: path/old.txt
*** Update File: path/a.go
*** Move to: path/b.go
@@ func main() {
 context line
-removed line
+added line
*** End of File
*** End Patch
`,
			want: []File{
				{Kind: Add, Path: "path/new.txt", Content: []byte("line one\nline two\n"), Line: 2},
				{Kind: Delete, Path: "path/old.txt", Line: 5},
				{Kind: Update, Path: "path/a.go", MoveTo: "path/b.go", Line: 6, Hunks: []Hunk{{
					Context: "func main() {",
					Old:     []string{"context line", "removed line"},
					New:     []string{"context line", "added line"},
					AtEOF:   true,
				}}},
			},
		},
		{
			name: "first hunk without @@, several hunks, empty line is context",
			patch: `*** Begin Patch
*** Update File: a.py
 import os
-import sys

@@ def f():
-    return 1
+    return 2
@@
+# end
*** End of File
*** End Patch`,
			want: []File{{Kind: Update, Path: "a.py", Line: 2, Hunks: []Hunk{
				{Old: []string{"import os", "import sys"}, New: []string{"import os"}},
				{Context: "def f():", Old: []string{"    return 1"}, New: []string{"    return 2"}},
				{Old: nil, New: []string{"# end"}, AtEOF: true},
			}}},
		},
		{
			name: "empty line inside a hunk is an empty context line",
			patch: `*** Begin Patch
*** Update File: a.txt
@@
 a

-b
+c
*** End Patch`,
			want: []File{{Kind: Update, Path: "a.txt", Line: 2, Hunks: []Hunk{
				{Old: []string{"a", "", "b"}, New: []string{"a", "", "c"}},
			}}},
		},
		{
			name: "consecutive @@ lines narrow in turn",
			patch: `*** Begin Patch
*** Update File: a.py
@@ class B:
@@     def run(self):
-        pass
+        return 1
*** End Patch`,
			want: []File{{Kind: Update, Path: "a.py", Line: 2, Hunks: []Hunk{
				{Context: "class B:\ndef run(self):", Old: []string{"        pass"}, New: []string{"        return 1"}},
			}}},
		},
		{
			name:  "heredoc wrapper, CRLF transport, blank lines",
			patch: "\r\napply_patch <<'EOF'\r\n*** Begin Patch\r\n*** Add File: x\r\n+hi\r\n*** End Patch\r\nEOF\r\n\r\n",
			want:  []File{{Kind: Add, Path: "x", Content: []byte("hi\n"), Line: 4}},
		},
		{
			name:  "code fence wrapper",
			patch: "```\n*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch\n```",
			want:  []File{{Kind: Delete, Path: "gone.txt", Line: 3}},
		},
		{
			name:  "add with an empty line between + lines, empty add",
			patch: "*** Begin Patch\n*** Add File: a\n+x\n\n+y\n\n*** Add File: empty\n*** End Patch",
			want: []File{
				{Kind: Add, Path: "a", Content: []byte("x\n\ny\n"), Line: 2},
				{Kind: Add, Path: "empty", Content: []byte{}, Line: 7},
			},
		},
		{
			name:  "move without hunks",
			patch: "*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch",
			want:  []File{{Kind: Update, Path: "a", MoveTo: "b", Line: 2}},
		},
		{
			name:  "move after a blank line",
			patch: "*** Begin Patch\n*** Update File: a\n\n  \n*** Move to: b\n@@\n-x\n+y\n*** End Patch",
			want:  []File{{Kind: Update, Path: "a", MoveTo: "b", Line: 2, Hunks: []Hunk{{Old: []string{"x"}, New: []string{"y"}}}}},
		},
		{
			name:  "move to the same path is no move",
			patch: "*** Begin Patch\n*** Update File: a\n*** Move to: a\n@@\n-x\n+y\n*** End Patch",
			want:  []File{{Kind: Update, Path: "a", Line: 2, Hunks: []Hunk{{Old: []string{"x"}, New: []string{"y"}}}}},
		},
		{
			name:  "unified header inside the envelope is a hint",
			patch: "*** Begin Patch\n*** Update File: a\n@@ -3,2 +3,2 @@ func f() {\n x\n-y\n+z\n*** End Patch",
			want: []File{{Kind: Update, Path: "a", Line: 2, Hunks: []Hunk{
				{Heading: "func f() {", OldStart: 3, Old: []string{"x", "y"}, New: []string{"x", "z"}},
			}}},
		},
		{
			name:  "hunk line keeps its carriage return",
			patch: "*** Begin Patch\n*** Update File: a\n@@\n-x\r\n+y\r\n*** End Patch\n",
			want: []File{{Kind: Update, Path: "a", Line: 2, Hunks: []Hunk{
				{Old: []string{"x\r"}, New: []string{"y\r"}},
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.patch)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseUnified(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		want  []File
	}{
		{
			name: "git diff: update with two hunks, section heading",
			patch: `diff --git a/main.go b/main.go
index 3b18e51..a0b2c3d 100644
--- a/main.go
+++ b/main.go
@@ -1,3 +1,3 @@
 package main
-import "fmt"
+import "os"
 
@@ -10,2 +10,3 @@ func main() {
 	x := 1
+	y := 2
 	_ = x
`,
			want: []File{{Kind: Update, Path: "main.go", Line: 1, OldMode: "100644", NewMode: "100644", Hunks: []Hunk{
				{OldStart: 1, Old: []string{"package main", `import "fmt"`, ""}, New: []string{"package main", `import "os"`, ""}},
				{Heading: "func main() {", OldStart: 10, Old: []string{"\tx := 1", "\t_ = x"}, New: []string{"\tx := 1", "\ty := 2", "\t_ = x"}},
			}}},
		},
		{
			name: "git add, delete, rename, several files",
			patch: `From 1234 Mon Sep 17 00:00:00 2001
Subject: [PATCH] things

 a | 1 +
---
diff --git a/new.txt b/new.txt
new file mode 100644
index 0000000..3b18e51
--- /dev/null
+++ b/new.txt
@@ -0,0 +1,2 @@
+hello
+world
\ No newline at end of file
diff --git a/old.txt b/old.txt
deleted file mode 100644
--- a/old.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/x.go b/y.go
similarity index 90%
rename from x.go
rename to y.go
--- a/x.go
+++ b/y.go
@@ -2 +2 @@
-a
+b
diff --git a/same.go b/moved.go
similarity index 100%
rename from same.go
rename to moved.go
diff --git a/empty b/empty
new file mode 100644
index 0000000..e69de29
-- 
2.43.0
`,
			want: []File{
				{Kind: Add, Path: "new.txt", Content: []byte("hello\nworld"), Line: 6, NewMode: "100644"},
				{Kind: Delete, Path: "old.txt", Line: 15, Hunks: []Hunk{{OldStart: 1, Old: []string{"bye"}}}, Exact: true, OldMode: "100644"},
				{Kind: Update, Path: "x.go", MoveTo: "y.go", Line: 21, Hunks: []Hunk{{OldStart: 2, Old: []string{"a"}, New: []string{"b"}}}},
				{Kind: Update, Path: "same.go", MoveTo: "moved.go", Line: 30},
				{Kind: Add, Path: "empty", Content: []byte{}, Line: 34, NewMode: "100644"},
			},
		},
		{
			name:  "plain diff -u with timestamps, no-newline markers, CRLF content",
			patch: "--- a.txt\t2024-01-01 10:00:00.000000000 +0000\n+++ a.txt\t2024-01-02 10:00:00.000000000 +0000\n@@ -1,2 +1,2 @@\n x\r\n-y\n\\ No newline at end of file\n+y\n",
			want: []File{{Kind: Update, Path: "a.txt", Line: 1, Hunks: []Hunk{
				{OldStart: 1, Old: []string{"x\r", "y"}, New: []string{"x\r", "y"}, OldNoEOL: true, AtEOF: true},
			}}},
		},
		{
			name:  "context marker applies to both sides",
			patch: "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n+b\n c\n\\ No newline at end of file\n",
			want: []File{{Kind: Update, Path: "f", Line: 1, Hunks: []Hunk{
				{OldStart: 1, Old: []string{"a", "c"}, New: []string{"b", "c"}, OldNoEOL: true, NewNoEOL: true, AtEOF: true},
			}}},
		},
		{
			name:  "pure insertion header names the line after",
			patch: "--- a/f\n+++ b/f\n@@ -5,0 +6,1 @@\n+new\n",
			want: []File{{Kind: Update, Path: "f", Line: 1, Hunks: []Hunk{
				{OldStart: 6, New: []string{"new"}},
			}}},
		},
		{
			name:  "empty line counted as context, quoted names",
			patch: "diff --git \"a/sp ace.txt\" \"b/sp ace.txt\"\n--- \"a/sp ace.txt\"\n+++ \"b/sp ace.txt\"\n@@ -1,3 +1,3 @@\n a\n\n-b\n+c\n",
			want: []File{{Kind: Update, Path: "sp ace.txt", Line: 1, Hunks: []Hunk{
				{OldStart: 1, Old: []string{"a", "", "b"}, New: []string{"a", "", "c"}},
			}}},
		},
		{
			name:  "bare @@ without numbers",
			patch: "--- a/f\n+++ b/f\n@@ def g():\n-x\n+y\n\n",
			want: []File{{Kind: Update, Path: "f", Line: 1, Hunks: []Hunk{
				{Heading: "def g():", Old: []string{"x"}, New: []string{"y"}},
			}}},
		},
		{
			name:  "a unified diff of a file that holds envelope lines",
			patch: "--- a/doc.md\n+++ b/doc.md\n@@ -1,2 +1,2 @@\n *** Begin Patch\n-*** Add File: x\n+*** Add File: y\n",
			want: []File{{Kind: Update, Path: "doc.md", Line: 1, Hunks: []Hunk{
				{OldStart: 1, Old: []string{"*** Begin Patch", "*** Add File: x"}, New: []string{"*** Begin Patch", "*** Add File: y"}},
			}}},
		},
		{
			name:  "blank line between hunks",
			patch: "--- a/f\n+++ b/f\n@@ -1 +1 @@\n-x\n+y\n\n@@ -9 +9 @@\n-p\n+q\n",
			want: []File{{Kind: Update, Path: "f", Line: 1, Hunks: []Hunk{
				{OldStart: 1, Old: []string{"x"}, New: []string{"y"}},
				{OldStart: 9, Old: []string{"p"}, New: []string{"q"}},
			}}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Parse(tt.patch)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Parse mismatch (-want +got):\n%s", diff)
			}
		})
	}
}

func TestParseErrors(t *testing.T) {
	tests := []struct {
		name  string
		patch string
		line  int
		msg   string // a part of the message
	}{
		{"empty", "\n\n", 1, "empty patch"},
		{"not a patch", "hello\nworld\n", 1, "not a patch"},
		{"junk before Begin", "Here it is:\n*** Begin Patch\n*** Delete File: a\n*** End Patch", 1, `expected "*** Begin Patch"`},
		{"missing End Patch", "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n", 5, `ends without "*** End Patch"`},
		{"missing End Patch after an added file", "*** Begin Patch\n*** Add File: a\n+x\n", 3, `ends without "*** End Patch"`},
		{"missing End Patch after a move", "*** Begin Patch\n*** Update File: a\n*** Move to: b\n", 3, `ends without "*** End Patch"`},
		{"bad hunk line", "*** Begin Patch\n*** Update File: a\n@@\n-x\ny\n*** End Patch", 5, "bad hunk line \"y\""},
		{"unknown header", "*** Begin Patch\n*** Rename File: a\n*** End Patch", 2, "unknown header"},
		{"unknown header after hunk", "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** Frobnicate\n*** End Patch", 6, "unknown header"},
		{"add line without plus", "*** Begin Patch\n*** Add File: a\n+x\ny\n*** End Patch", 4, "starts with '+'"},
		{"update without hunks", "*** Begin Patch\n*** Update File: a\n*** End Patch", 2, "has no hunks"},
		{"empty hunk", "*** Begin Patch\n*** Update File: a\n@@ f\n*** End Patch", 3, "empty hunk"},
		{"missing path", "*** Begin Patch\n*** Delete File:\n*** End Patch", 2, "needs a path"},
		{"text after End Patch", "*** Begin Patch\n*** Delete File: a\n*** End Patch\nmore", 4, "after \"*** End Patch\""},
		{"text after End Patch and a blank line", "*** Begin Patch\n*** Delete File: a\n*** End Patch\n\nmore", 5, "after \"*** End Patch\""},
		{"codex removed line after the no-newline marker", "*** Begin Patch\n*** Update File: a\n-x\n\\ No newline at end of file\n-y\n*** End Patch", 5, "follows"},
		{"same path twice", "*** Begin Patch\n*** Delete File: a\n*** Add File: a\n+x\n*** End Patch", 3, "named again"},
		{"End of File without lines", "*** Begin Patch\n*** Update File: a\n@@\n*** End of File\n*** End Patch", 4, "must end a hunk"},
		{"hunk after End of File needs @@", "*** Begin Patch\n*** Update File: a\n-x\n*** End of File\n+y\n*** End Patch", 5, "must start with an \"@@\""},
		{"unified bad header", "--- a/f\n+++ b/f\n@@ -x +1 @@\n-a\n", 3, "bad hunk header"},
		{"unified junk inside counted hunk", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\nzz\n+b\n", 6, "hunk line outside any hunk"},
		{"unified combined diff", "--- a/f\n+++ b/f\n@@@ -1 -1 +1 @@@\n-a\n", 3, "bad hunk header"},
		{"unified bad new range", "--- a/f\n+++ b/f\n@@ -1 +x @@\n-a\n", 3, "bad hunk header"},
		{"hunk before file header", "@@ -1 +1 @@\n-a\n+b\n", 1, "without a file header"},
		{"binary", "diff --git a/i.png b/i.png\nindex 1..2 100644\nBinary files a/i.png and b/i.png differ\n", 3, "binary"},
		{"copy", "diff --git a/x b/y\nsimilarity index 100%\ncopy from x\ncopy to y\n", 3, "copy"},
		{"nothing changed", "diff --git a/x b/x\nindex 1111111..2222222 100644\n", 1, "changes nothing"},
		{"same mode twice", "diff --git a/x b/x\nold mode 100644\nnew mode 100644\n", 1, "changes nothing"},
		{"bad mode", "diff --git a/x b/x\nold mode 100644\nnew mode rwxr-xr-x\n", 3, "bad mode"},
		{"bad new file mode", "diff --git a/x b/x\nnew file mode 1007555\n--- /dev/null\n+++ b/x\n@@ -0,0 +1 @@\n+a\n", 2, "bad mode"},
		{"plain diff with two names", "--- a/x\n+++ b/y\n@@ -1 +1 @@\n-a\n+b\n", 1, "one file on both sides"},
		{"line after no-newline marker", "--- a/f\n+++ b/f\n@@ -1,2 +1,2 @@\n-a\n\\ No newline at end of file\n-b\n+c\n+d\n", 6, "follows"},
		{"add with removed lines", "--- /dev/null\n+++ b/n\n@@ -1 +1 @@\n-a\n+b\n", 1, "creation of n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			files, err := Parse(tt.patch)
			if err == nil {
				t.Fatalf("Parse = %+v, want an error", files)
			}
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) is not a *ParseError", err, err)
			}
			if !errors.Is(err, ErrInvalidPatch) {
				t.Errorf("error %v does not wrap ErrInvalidPatch", err)
			}
			if pe.Line != tt.line || !strings.Contains(pe.Msg, tt.msg) {
				t.Errorf("error = line %d %q, want line %d containing %q", pe.Line, pe.Msg, tt.line, tt.msg)
			}
		})
	}
}
