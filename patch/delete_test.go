package patch

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// gitApplies reports whether "git apply --check" accepts diff on a
// directory holding the file f with text. ok is false when git is not
// installed.
func gitApplies(t *testing.T, text, diff string) (applies, ok bool) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return false, false
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "p.diff"), []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "apply", "--check", "p.diff")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	return cmd.Run() == nil, true
}

// TestCheckDelete: a unified diff's deletion is checked against the file
// it deletes, as git apply checks it: its removed lines must be exactly
// the file's lines, the final newline (or its absence, "\ No newline at
// end of file") included. Each case is also given to git apply, which
// must agree, except where a stet rule decides otherwise (differs names
// it, as docs/patch.md states it).
func TestCheckDelete(t *testing.T) {
	const head = "diff --git a/f b/f\ndeleted file mode 100644\n"
	const names = "--- a/f\n+++ /dev/null\n"
	doc, err := os.ReadFile(filepath.Join("..", "docs", "patch.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, text, diff string
		ok               bool
		msg              string // part of the refusal
		differs          string // where git apply decides otherwise: the docs/patch.md line of the stet rule
	}{
		{"exact", "real\ncontent\n", head + names + "@@ -1,2 +0,0 @@\n-real\n-content\n", true, "", ""},
		{"other lines", "real\ncontent\n", head + names + "@@ -1,2 +0,0 @@\n-something\n-else\n", false, `line 1 differs in text (file "real", patch "something")`, ""},
		{"one line of two", "real\ncontent\n", head + names + "@@ -1 +0,0 @@\n-real\n", false, "line 2 would remain", ""},
		{"an empty last line left", "a\n\n", head + names + "@@ -1 +0,0 @@\n-a\n", false, "line 2 would remain", ""},
		{"no hunks, a file with lines", "real\ncontent\n", head, false, "removes no lines, but the file has 2 lines", ""},
		{"no hunks, an empty file", "", head, true, "", ""},
		{"no final newline, no marker", "real\ncontent", head + names + "@@ -1,2 +0,0 @@\n-real\n-content\n", false, "has no newline at its end", ""},
		{"no final newline, marker", "real\ncontent", head + names + "@@ -1,2 +0,0 @@\n-real\n-content\n\\ No newline at end of file\n", true, "", ""},
		{"marker, but a final newline", "real\ncontent\n", head + names + "@@ -1,2 +0,0 @@\n-real\n-content\n\\ No newline at end of file\n", false, "", ""},
		{"wrong line number", "a\nb\n", head + names + "@@ -5,2 +0,0 @@\n-a\n-b\n", true, "", ""},
		{"plain diff to /dev/null", "a\n\n", names + "@@ -1,2 +0,0 @@\n-a\n-\n", true, "", ""},
		{"changed in the middle", "a\nb\nc\n", head + names + "@@ -1,3 +0,0 @@\n-a\n-B\n-c\n", false, "", ""},
		{"two hunks that remove every line", "a\nb\n", head + names + "@@ -1 +0,0 @@\n-a\n@@ -2 +0,0 @@\n-b\n", true, "",
			"| a deletion split into hunks that together remove every line | refused | deleted: the lines are checked, not how hunks carry them |"},
		{"CRLF file, LF patch", "a\r\nb\r\n", head + names + "@@ -1,2 +0,0 @@\n-a\n-b\n", true, "",
			"the lines a hunk removes must be\n  in the file byte for byte (a CRLF file's `\\r` aside)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			files, err := Parse(tc.diff)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			if f := files[0]; f.Kind != Delete || !f.Exact {
				t.Fatalf("Parse = %+v, want an exact Delete", f)
			}
			err = CheckDelete([]byte(tc.text), files[0].Hunks)
			if tc.ok != (err == nil) {
				t.Fatalf("CheckDelete = %v, want ok %v", err, tc.ok)
			}
			if err != nil {
				var he *HunkError
				if !errors.As(err, &he) || he.Kind != KindNoMatch || len(he.Lines) == 0 {
					t.Fatalf("CheckDelete = %#v, want a no_match *HunkError naming lines", err)
				}
				if !strings.Contains(he.Msg, tc.msg) {
					t.Errorf("message %q lacks %q", he.Msg, tc.msg)
				}
				if he.Near == "" {
					t.Errorf("no region shown: %q", he.Msg)
				}
			}
			if tc.differs != "" && !strings.Contains(string(doc), tc.differs) {
				t.Errorf("docs/patch.md does not state the rule %q", tc.differs)
			}
			applies, ok := gitApplies(t, tc.text, tc.diff)
			switch {
			case !ok:
				t.Log("git is not installed: not compared with git apply")
			case applies == tc.ok && tc.differs != "":
				t.Errorf("git apply agrees now (applies %v); drop the rule %q", applies, tc.differs)
			case applies != tc.ok && tc.differs == "":
				t.Errorf("git apply --check: applies %v, stet %v", applies, tc.ok)
			}
		})
	}
}

// TestCodexDeleteIsNotExact: a Codex "*** Delete File:" names the file
// only; nothing in it can be checked against the file.
func TestCodexDeleteIsNotExact(t *testing.T) {
	files, err := Parse("*** Begin Patch\n*** Delete File: f\n*** End Patch\n")
	if err != nil || len(files) != 1 || files[0].Kind != Delete || files[0].Exact {
		t.Fatalf("Parse = %+v, %v; want a Delete that is not Exact", files, err)
	}
}
