package ignore

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// bom is the UTF-8 byte-order mark.
const bom = "\xef\xbb\xbf"

// bomCases are ignore files' texts with a byte-order mark where editors
// put one (Windows' "UTF-8 with BOM", PowerShell's Out-File) and where
// they do not: the first pattern, a comment, a negation, an anchor or a
// directory pattern right after the mark, CRLF lines, a mark alone, two
// marks, a mark on a later line.
var bomCases = []string{
	bom + "a.txt\nb.txt\n",
	bom + "a.txt\r\nb.txt\r\n",
	bom + "#c.txt\nd.txt\n",
	bom + "\\#c.txt\n",
	bom + "*.txt\n!a.txt\n",
	bom + "!a.txt\n",
	bom + "/a.txt\n",
	bom + "dir/\n",
	bom + "\n",
	bom,
	bom + bom + "a.txt\nb.txt\n",
	"a.txt\n" + bom + "b.txt\n",
	bom + " a.txt\n",
	"\ufeff\u00e9.txt\n", // the mark, then a non-ASCII name
}

// bomNames are the paths checked against each case (all at the root, and
// under sub/ for the root's patterns that match at any depth).
var bomNames = []string{"a.txt", "b.txt", "#c.txt", "d.txt", "dir", " a.txt", "\u00e9.txt", bom + "a.txt", "sub/a.txt", "sub/b.txt", "sub/dir"}

// TestBOMAsGit: a byte-order mark at the start of .gitignore,
// .git/info/exclude or the global excludes file is skipped as git skips it
// (git check-ignore is the reference): the first pattern still ignores
// what it names. Without the fix, "\ufeffa.txt" matches no file named
// a.txt.
func TestBOMAsGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: the reference of this test")
	}
	home := t.TempDir()
	for k, v := range map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "xdg"), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": ""} {
		t.Setenv(k, v)
	}
	global := filepath.Join(home, "xdg", "git", "ignore")
	if err := os.MkdirAll(filepath.Dir(global), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, file := range []string{".gitignore", ".git/info/exclude", "sub/.gitignore", "global"} {
		for _, text := range bomCases {
			root := t.TempDir()
			git := func(stdin string, args ...string) string {
				cmd := exec.Command(gitBin, args...)
				cmd.Dir = root
				cmd.Stdin = strings.NewReader(stdin)
				var out, errb bytes.Buffer
				cmd.Stdout, cmd.Stderr = &out, &errb
				err := cmd.Run()
				if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 1 {
					err = nil // check-ignore: nothing is ignored
				}
				if err != nil {
					t.Fatalf("git %v: %v\n%s", args, err, errb.String())
				}
				return out.String()
			}
			git("", "init", "-q")
			if err := os.MkdirAll(filepath.Join(root, "sub", "dir"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(root, "dir"), 0o755); err != nil {
				t.Fatal(err)
			}
			where := filepath.Join(root, file)
			if file == "global" {
				where = global
			}
			if err := os.WriteFile(where, []byte(text), 0o644); err != nil {
				t.Fatal(err)
			}
			// The stack stet's walk builds for these files.
			var s Stack
			if file == "global" {
				s = Stack{}.Push(GlobalExcludes())
			} else {
				dir := ""
				if strings.HasPrefix(file, "sub/") {
					dir = "sub"
				}
				s = Stack{}.Push(Parse(dir, []byte(text)))
			}
			out := git(strings.Join(bomNames, "\x00")+"\x00", "check-ignore", "--no-index", "--stdin", "-z")
			ignored := map[string]bool{}
			for _, p := range strings.Split(out, "\x00") {
				ignored[p] = true
			}
			for _, name := range bomNames {
				isDir := name == "dir" || name == "sub/dir"
				if got := s.Ignored(name, isDir); got != ignored[name] {
					t.Errorf("%s holding %q: %q ignored %v, git check-ignore says %v", file, text, name, got, ignored[name])
				}
			}
			if file == "global" {
				os.Remove(global)
			}
		}
	}
}

// TestBOMOtherIgnoreFiles: the mark is skipped in every file Parse reads,
// .ignore included (ripgrep's ignore crate skips it there since 14.1.1,
// BurntSushi/ripgrep#2177), and only at the very start.
func TestBOMOtherIgnoreFiles(t *testing.T) {
	for _, c := range []struct {
		text, name string
		want       bool
	}{
		{bom + "a.txt\n", "a.txt", true},
		{bom + "!a.txt\n", "a.txt", false},
		{bom + "#a.txt\n", "a.txt", false},
		{bom + "#a.txt\n", "#a.txt", false},
		{bom + bom + "a.txt\n", "a.txt", false},
		{bom + bom + "a.txt\n", bom + "a.txt", true},
		{"x\n" + bom + "a.txt\n", bom + "a.txt", true},
		{"x\n" + bom + "a.txt\n", "a.txt", false},
	} {
		l := Parse("", []byte(c.text))
		if got := (Stack{l}).Ignored(c.name, false); got != c.want {
			t.Errorf("Parse(%q): %q ignored %v, want %v", c.text, c.name, got, c.want)
		}
	}
	if n := Parse("", []byte(bom)).Len(); n != 0 {
		t.Errorf("a file holding only the mark has %d patterns, want 0", n)
	}
}
