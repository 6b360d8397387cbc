package patch

import (
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// envelope is the patch every wrapper below carries.
const envelope = "*** Begin Patch\n*** Update File: src/a.txt\n@@\n-old\n+new\n*** Add File: src/b.txt\n+made\n*** End Patch\n"

const diffText = "--- a/src/a.txt\n+++ b/src/a.txt\n@@ -1 +1 @@\n-old\n+new\n"

// TestWrappers: the wrappers models put around a patch are taken off, and
// the patch inside reads the same; a "cd DIR &&" before a heredoc resolves
// the paths in DIR.
func TestWrappers(t *testing.T) {
	plain := func(dir string) []File {
		p := func(s string) string {
			if dir == "" {
				return s
			}
			return dir + "/" + s
		}
		return []File{
			{Kind: Update, Path: p("src/a.txt"), Line: 0, Hunks: []Hunk{{Old: []string{"old"}, New: []string{"new"}}}},
			{Kind: Add, Path: p("src/b.txt"), Content: []byte("made\n")},
		}
	}
	unified := []File{{Kind: Update, Path: "src/a.txt", Hunks: []Hunk{{OldStart: 1, Old: []string{"old"}, New: []string{"new"}}}}}
	heredoc := func(open, body, closer string) string { return open + "\n" + body + closer + "\n" }
	tests := []struct {
		name, patch string
		want        []File
	}{
		{"bare", envelope, plain("")},
		{"blank lines around", "\n\n" + envelope + "\n\n", plain("")},
		{"no final newline", strings.TrimSuffix(envelope, "\n"), plain("")},
		{"CRLF transport", strings.ReplaceAll(envelope, "\n", "\r\n"), plain("")},
		{"code fence", "```\n" + envelope + "```\n", plain("")},
		{"code fence with a language", "```patch\n" + envelope + "```", plain("")},
		{"code fence, unclosed", "```diff\n" + envelope, plain("")},
		{"heredoc, quoted tag", heredoc("apply_patch <<'EOF'", envelope, "EOF"), plain("")},
		{"heredoc, bare tag", heredoc("apply_patch <<EOF", envelope, "EOF"), plain("")},
		{"heredoc, double-quoted tag", heredoc(`apply_patch <<"PATCH"`, envelope, "PATCH"), plain("")},
		{"heredoc, tab-stripping", heredoc("apply_patch <<-'EOF'", envelope, "EOF"), plain("")},
		{"heredoc, space before the tag", heredoc("apply_patch << 'EOF'", envelope, "EOF"), plain("")},
		{"heredoc, applypatch", heredoc("applypatch <<'EOF'", envelope, "EOF"), plain("")},
		{"heredoc, unclosed", "apply_patch <<'EOF'\n" + envelope, plain("")},
		{"heredoc, closer then blank lines", heredoc("apply_patch <<'EOF'", envelope, "EOF") + "\n\n", plain("")},
		{"heredoc in a fence", "```bash\n" + heredoc("apply_patch <<'EOF'", envelope, "EOF") + "```\n", plain("")},
		{"heredoc in a fence, blank lines inside", "```sh\n\n" + heredoc("apply_patch <<'EOF'", envelope, "EOF") + "\n```\n", plain("")},
		{"cat piped to apply_patch", heredoc("cat <<'EOF' | apply_patch", envelope, "EOF"), plain("")},
		{"cat piped, no spaces", heredoc("cat <<'EOF'|apply_patch", envelope, "EOF"), plain("")},
		{"cat piped to applypatch, bare tag", heredoc("cat <<EOF | applypatch", envelope, "EOF"), plain("")},
		{"cd DIR &&", heredoc("cd app && apply_patch <<'EOF'", envelope, "EOF"), plain("app")},
		{"cd DIR/ &&", heredoc("cd app/ && apply_patch <<'EOF'", envelope, "EOF"), plain("app")},
		{"cd nested DIR &&", heredoc("cd app/pkg && apply_patch <<'EOF'", envelope, "EOF"), plain("app/pkg")},
		{"cd \"DIR\" &&", heredoc(`cd "my app" && apply_patch <<'EOF'`, envelope, "EOF"), plain("my app")},
		{"cd 'DIR' &&", heredoc(`cd 'my app' && apply_patch <<'EOF'`, envelope, "EOF"), plain("my app")},
		{"cd DIR&&, no spaces", heredoc("cd app&&apply_patch <<'EOF'", envelope, "EOF"), plain("app")},
		{"cd DIR && cat | apply_patch", heredoc("cd app && cat <<'EOF' | apply_patch", envelope, "EOF"), plain("app")},
		{"cd . &&", heredoc("cd . && apply_patch <<'EOF'", envelope, "EOF"), plain("")},
		{"cd DIR && in a fence", "```bash\n" + heredoc("cd app && apply_patch <<'EOF'", envelope, "EOF") + "```\n", plain("app")},
		{"markers padded with whitespace", " *** Begin Patch \n  *** Update File: src/a.txt\n@@\n-old\n+new\n *** Add File: src/b.txt\n+made\n  *** End Patch  \n", plain("")},
		{"unified diff", diffText, unified},
		{"unified diff in a fence", "```diff\n" + diffText + "```\n", unified},
		{"unified diff in a heredoc", heredoc("apply_patch <<'EOF'", diffText, "EOF"), unified},
		{"unified diff after a commit message", "Fix the greeting\n\nIt said old.\n\n" + diffText, unified},
		{"git diff", "diff --git a/src/a.txt b/src/a.txt\nindex 3367afd..3e75765 100644\n" + diffText,
			[]File{{Kind: Update, Path: "src/a.txt", OldMode: "100644", NewMode: "100644", Hunks: unified[0].Hunks}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := Parse(tc.patch)
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			for i := range got {
				got[i].Line = 0
			}
			if d := cmp.Diff(tc.want, got); d != "" {
				t.Errorf("Parse (-want +got):\n%s", d)
			}
		})
	}
}

// TestWrapperRefusals: a cd the patch cannot honour is refused on its
// line, naming what to do, never dropped (dropping it puts files in the
// wrong place).
func TestWrapperRefusals(t *testing.T) {
	for _, tc := range []struct{ name, first, msg string }{
		{"cd joined by ;", "cd app; apply_patch <<'EOF'", "join the cd with &&"},
		{"cd joined by ||", "cd app || apply_patch <<'EOF'", "join the cd with &&"},
		{"cd with two arguments", "cd app other && apply_patch <<'EOF'", "join the cd with &&"},
		{"cd to a variable", "cd $APP && apply_patch <<'EOF'", "which a shell would expand"},
		{"cd home", "cd ~/app && apply_patch <<'EOF'", "which a shell would expand"},
		{"cd to a glob", "cd app* && apply_patch <<'EOF'", "which a shell would expand"},
		{"cd with a backslash", `cd my\ app && apply_patch <<'EOF'`, "which a shell would expand"},
		{"cd to a command", "cd `pwd` && apply_patch <<'EOF'", "which a shell would expand"},
		{"cd to an empty name", `cd "" && apply_patch <<'EOF'`, "which a shell would expand"},
		{"cd with an unclosed quote", `cd "app && apply_patch <<'EOF'`, "unclosed quote"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(tc.first + "\n" + envelope + "EOF\n")
			var pe *ParseError
			if !errors.As(err, &pe) || pe.Line != 1 || !strings.Contains(pe.Msg, tc.msg) {
				t.Fatalf("Parse = %v, want a refusal of line 1 containing %q", err, tc.msg)
			}
		})
	}
}

// TestNotWrappers: lines that only look like a wrapper's are left to the
// patch reader, which then says what it expected.
func TestNotWrappers(t *testing.T) {
	for _, first := range []string{
		"cat <<'EOF' | patch -p1",   // piped to another command
		"apply_patch <<'E O F'",     // a tag no heredoc has
		"apply_patch <<'EOF",        // an unclosed quote
		"apply_patch <<'EOF' extra", // words after the tag
		"apply_patch <<",            // no tag
	} {
		_, err := Parse(first + "\n" + envelope)
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 1 || !strings.Contains(pe.Msg, "expected \"*** Begin Patch\" as the first line") {
			t.Errorf("%q: Parse = %v, want the first line refused", first, err)
		}
	}
	// A heredoc's body is the patch: a fence or heredoc line inside it is
	// patch text, as the shell would hand it over.
	for _, inner := range []string{"```\n", "cat <<'X' | apply_patch\n"} {
		_, err := Parse("apply_patch <<'EOF'\n" + inner + envelope + "EOF\n")
		var pe *ParseError
		if !errors.As(err, &pe) || pe.Line != 2 {
			t.Errorf("%q inside a heredoc: Parse = %v, want line 2 refused", inner, err)
		}
	}
	// A command whose name starts with cd is no cd.
	files, err := Parse("cdk_apply <<'EOF'\n" + envelope + "EOF\n")
	if err != nil || files[0].Path != "src/a.txt" {
		t.Errorf("cdk_apply: %v %+v", err, files)
	}
}

// TestInDir pins how a cd wrapper's directory joins a patch's paths.
func TestInDir(t *testing.T) {
	for _, tc := range []struct{ dir, p, want string }{
		{"app", "a.txt", "app/a.txt"},
		{"app", "../a.txt", "a.txt"},
		{"app", "../../a.txt", "../a.txt"},
		{"app", "/abs/a.txt", "/abs/a.txt"},
		{"/abs", "a.txt", "/abs/a.txt"},
		{"/", "a.txt", "/a.txt"},
		{".", "a.txt", "a.txt"},
		{"app/", "./x/../a.txt", "app/a.txt"},
	} {
		if got := inDir(tc.dir, tc.p); got != tc.want {
			t.Errorf("inDir(%q, %q) = %q, want %q", tc.dir, tc.p, got, tc.want)
		}
	}
	// Both names of a move are resolved, and a move and a path that meet
	// there are one path named twice.
	files, err := Parse("cd app && apply_patch <<'EOF'\n*** Begin Patch\n*** Update File: a\n*** Move to: ../b\n@@\n-x\n+y\n*** End Patch\nEOF\n")
	if err != nil || files[0].Path != "app/a" || files[0].MoveTo != "b" {
		t.Fatalf("move under cd: %v %+v", err, files)
	}
	_, err = Parse("cd app && apply_patch <<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** Delete File: ../app/a\n*** End Patch\nEOF\n")
	if !errors.Is(err, ErrInvalidPatch) || !strings.Contains(err.Error(), "app/a is named again") {
		t.Fatalf("one path twice under cd: %v", err)
	}
}

// TestCodexAppendChunk: a Codex chunk of only added lines with nothing
// saying where goes at the end of the file; one with an @@ line or a
// unified header inside the envelope keeps its place.
func TestCodexAppendChunk(t *testing.T) {
	for _, tc := range []struct {
		name, body string
		atEOF      bool
	}{
		{"bare @@", "@@\n+x\n", true},
		{"first chunk without @@", "+x\n", true},
		{"after another chunk", "@@\n-a\n+A\n@@\n+x\n", true},
		{"@@ naming a line", "@@ def f\n+x\n", false},
		{"unified header inside", "@@ -2,0 +3 @@\n+x\n", false},
		{"with a context line", "@@\n a\n+x\n", false},
	} {
		files, err := Parse("*** Begin Patch\n*** Update File: f\n" + tc.body + "*** End Patch\n")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		hs := files[0].Hunks
		if h := hs[len(hs)-1]; h.AtEOF != tc.atEOF {
			t.Errorf("%s: AtEOF = %v, want %v", tc.name, h.AtEOF, tc.atEOF)
		}
	}
	a, err := Apply([]byte("a\nb\n"), hunksOf(t, "*** Begin Patch\n*** Update File: f\n@@\n-a\n+A\n@@\n+x\n+y\n*** End Patch\n"))
	if err != nil || string(a.Text) != "A\nb\nx\ny\n" {
		t.Fatalf("Apply: %q, %v", a.Text, err)
	}
	a, err = Apply([]byte("a\nb"), hunksOf(t, "*** Begin Patch\n*** Update File: f\n@@\n+x\n*** End Patch\n"))
	if err != nil || string(a.Text) != "a\nb\nx" {
		t.Fatalf("Apply after a last line without newline: %q, %v", a.Text, err)
	}
}

// TestPaddedMarkers: every envelope marker may carry whitespace around it;
// a hunk line that only contains marker-like text is still a hunk line.
func TestPaddedMarkers(t *testing.T) {
	files, err := Parse("*** Begin Patch\n*** Update File: f\n@@\n-a\n+b\n\t*** End of File\n  *** Delete File: g\n*** End Patch\n")
	if err != nil || len(files) != 2 || !files[0].Hunks[0].AtEOF || files[1].Kind != Delete {
		t.Fatalf("Parse: %v %+v", err, files)
	}
	files, err = Parse("*** Begin Patch\n*** Update File: f\n@@\n  *** Move to: g\n-a\n+b\n*** End Patch\n")
	if err == nil {
		t.Fatalf("a Move to: line inside a hunk read as %+v, want a refusal", files)
	}
	files, err = Parse("*** Begin Patch\n*** Update File: f\n@@\n ***not a marker\n-a\n+b\n*** End Patch\n")
	if err != nil || files[0].Hunks[0].Old[0] != "***not a marker" {
		t.Fatalf("context line with stars: %v %+v", err, files)
	}
}
