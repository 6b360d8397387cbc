package patch

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/bluekeyes/go-gitdiff/gitdiff"
)

// TestGitModes reads git's own diff of symlinks added and deleted, a mode
// change alone, a mode change with hunks and a new executable file: every
// section parses (none refuses the patch), with the modes git wrote, as
// go-gitdiff reads them too.
func TestGitModes(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	git := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "core.symlinks=true"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	in := func(name string) string { return filepath.Join(dir, name) }
	git("init", "-q")
	must(os.WriteFile(in("target.txt"), []byte("data\n"), 0o644))
	must(os.WriteFile(in("run.sh"), []byte("echo 1\n"), 0o644))
	must(os.WriteFile(in("edit.sh"), []byte("echo 1\necho 2\n"), 0o644))
	if err := os.Symlink("target.txt", in("old-link")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	git("add", "-A")
	git("commit", "-q", "-m", "before")
	must(os.Remove(in("old-link")))
	must(os.Symlink("target.txt", in("new-link")))
	must(os.Chmod(in("run.sh"), 0o755))
	must(os.WriteFile(in("edit.sh"), []byte("echo 1\necho two\n"), 0o644))
	must(os.Chmod(in("edit.sh"), 0o755))
	must(os.WriteFile(in("new.sh"), []byte("echo new\n"), 0o755))
	git("add", "-A")
	diff := git("diff", "--cached", "--no-ext-diff", "--no-renames")

	files, err := Parse(diff)
	if err != nil {
		t.Fatalf("Parse: %v\n%s", err, diff)
	}
	got := map[string]string{}
	for _, f := range files {
		got[f.Path] = fmt.Sprintf("%s %s>%s hunks=%d exact=%v", f.Kind, f.OldMode, f.NewMode, len(f.Hunks), f.Exact)
	}
	want := map[string]string{
		"old-link": "delete 120000> hunks=1 exact=true",
		"new-link": "add >120000 hunks=0 exact=false",
		"run.sh":   "update 100644>100755 hunks=0 exact=false",
		"edit.sh":  "update 100644>100755 hunks=1 exact=false",
		"new.sh":   "add >100755 hunks=0 exact=false",
	}
	for p, w := range want {
		if got[p] != w {
			t.Errorf("%s: %q, want %q", p, got[p], w)
		}
	}
	if len(got) != len(want) {
		t.Errorf("files %v, want %v", got, want)
	}
	for _, f := range files {
		if f.Path == "new-link" && string(f.Content) != "target.txt" {
			t.Errorf("new-link: content %q, want the link's target", f.Content)
		}
	}

	// go-gitdiff, another reader of git's format, sees the same modes.
	gfs, _, err := gitdiff.Parse(strings.NewReader(diff))
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range gfs {
		name := g.NewName
		if g.IsDelete {
			name = g.OldName
		}
		var f *File
		for i := range files {
			if files[i].Path == name {
				f = &files[i]
			}
		}
		if f == nil {
			t.Errorf("go-gitdiff reads %s, Parse does not", name)
			continue
		}
		mode := func(m os.FileMode) string {
			if m == 0 {
				return ""
			}
			return fmt.Sprintf("%o", m)
		}
		if om, nm := mode(g.OldMode), mode(g.NewMode); om != f.OldMode || nm != f.NewMode {
			t.Errorf("%s: go-gitdiff reads modes %q>%q, Parse %q>%q", name, om, nm, f.OldMode, f.NewMode)
		}
	}
}

// TestModeType: what a mode names, and whether it is executable.
func TestModeType(t *testing.T) {
	for _, tc := range []struct {
		mode, typ string
		exec      bool
	}{
		{"100644", TypeFile, false},
		{"100755", TypeFile, true},
		{"755", TypeFile, true},
		{"644", TypeFile, false},
		{"120000", TypeSymlink, false},
		{"160000", TypeSubmodule, false},
		{"", "", false},
		{"10064x", "", false},
		{"1006440", "", false},
	} {
		if typ, exec := ModeType(tc.mode), Executable(tc.mode); typ != tc.typ || exec != tc.exec {
			t.Errorf("%q: type %q, executable %v; want %q, %v", tc.mode, typ, exec, tc.typ, tc.exec)
		}
	}
}
