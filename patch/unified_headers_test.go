package patch

import (
	"strings"
	"testing"
)

// TestUnifiedHeadersAsGitWritesThem: what git format-patch and git diff
// write around a file section is read as git means it. A mail signature
// after the last hunk ends the patch (it is no hunk line); a quoted name
// with an escaped quote is the file's own name; a "---" line with no path
// is refused naming what to write.
func TestUnifiedHeadersAsGitWritesThem(t *testing.T) {
	t.Run("a mail signature ends the patch", func(t *testing.T) {
		files, err := Parse("Subject: fix\n\n--- a/x.txt\n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n-- \n2.43.0\n")
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Path != "x.txt" || len(files[0].Hunks) != 1 {
			t.Fatalf("files = %+v, want one update of x.txt with one hunk", files)
		}
		h := files[0].Hunks[0]
		if strings.Join(h.Old, "|") != "a" || strings.Join(h.New, "|") != "b" {
			t.Errorf("hunk = %q → %q, want %q → %q (the signature is not part of it)", h.Old, h.New, "a", "b")
		}
	})
	t.Run("a quoted name with an escaped quote", func(t *testing.T) {
		files, err := Parse("diff --git \"a/q\\\"x\" \"b/q\\\"x\"\nnew file mode 100644\n")
		if err != nil {
			t.Fatal(err)
		}
		if len(files) != 1 || files[0].Kind != Add || files[0].Path != `q"x` {
			t.Fatalf("files = %+v, want the add of q\"x", files)
		}
	})
	t.Run("a --- line without a path", func(t *testing.T) {
		_, err := Parse("--- \n+++ b/x.txt\n@@ -1 +1 @@\n-a\n+b\n")
		if err == nil || !strings.Contains(err.Error(), "patch line 1") || !strings.Contains(err.Error(), `need a path (or /dev/null)`) {
			t.Fatalf("err = %v, want patch line 1 refused as needing a path", err)
		}
	})
}
