package patch

import (
	"bytes"
	"fmt"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// The archives under testdata/git hold real "git diff -M" output of
// multi-file, multi-hunk commits of this repository, made with
// "git diff -M C~1 C -- FILES": a "diff" file, and the files before ("a/")
// and after ("b/") the commit. Their first line is the command.

// readArchive reads a txtar-style archive: a comment, then files each
// introduced by a "-- NAME --" line.
func readArchive(t *testing.T, path string) map[string][]byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string][]byte{}
	name := ""
	for _, l := range bytes.SplitAfter(data, []byte("\n")) {
		s := strings.TrimSuffix(string(l), "\n")
		if strings.HasPrefix(s, "-- ") && strings.HasSuffix(s, " --") && len(s) > 6 {
			name = s[3 : len(s)-3]
			files[name] = []byte{}
			continue
		}
		if name != "" {
			files[name] = append(files[name], l...)
		}
	}
	return files
}

// tree is a set of files by path.
type tree map[string][]byte

// side returns the files of an archive under prefix ("a/" or "b/").
func side(ar map[string][]byte, prefix string) tree {
	tr := tree{}
	for name, data := range ar {
		if p, ok := strings.CutPrefix(name, prefix); ok {
			tr[p] = data
		}
	}
	return tr
}

// applyTree applies a parsed patch to a copy of tr, as a caller of Parse
// and Apply does.
func applyTree(tr tree, files []File) (tree, error) {
	out := maps.Clone(tr)
	for _, f := range files {
		switch f.Kind {
		case Add:
			if _, ok := out[f.Path]; ok {
				return nil, fmt.Errorf("%s: added, but exists", f.Path)
			}
			out[f.Path] = f.Content
		case Delete:
			cur, ok := out[f.Path]
			if !ok {
				return nil, fmt.Errorf("%s: deleted, but missing", f.Path)
			}
			if len(f.Hunks) > 0 {
				a, err := Apply(cur, f.Hunks)
				if err != nil || len(a.Text) != 0 {
					return nil, fmt.Errorf("%s: the deletion's hunks do not remove the file: %v", f.Path, err)
				}
			}
			delete(out, f.Path)
		case Update:
			cur, ok := out[f.Path]
			if !ok {
				return nil, fmt.Errorf("%s: updated, but missing", f.Path)
			}
			text := cur
			if len(f.Hunks) > 0 {
				a, err := Apply(cur, f.Hunks)
				if err != nil {
					return nil, fmt.Errorf("%s: %w", f.Path, err)
				}
				text = a.Text
			}
			if f.MoveTo != "" {
				delete(out, f.Path)
				out[f.MoveTo] = text
			} else {
				out[f.Path] = text
			}
		}
	}
	return out, nil
}

var hunkHeader = regexp.MustCompile(`^@@ -(\d+)(,\d+)? \+(\d+)(,\d+)? @@(.*)$`)

// rewriteHeaders rewrites every hunk header of diff with fn, which gets
// the hunk's index and its old and new start lines and returns the new
// header.
func rewriteHeaders(diff string, fn func(k, oldLine, newLine int, oldCount, newCount, section string) string) string {
	lines := strings.Split(diff, "\n")
	k := 0
	for i, l := range lines {
		m := hunkHeader.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		o, _ := strconv.Atoi(m[1])
		n, _ := strconv.Atoi(m[3])
		lines[i] = fn(k, o, n, m[2], m[4], m[5])
		k++
	}
	return strings.Join(lines, "\n")
}

// shifted moves every hunk's numbers by d(k) lines (never below 1; a
// creation's "-0,0" stays).
func shifted(diff string, d func(k int) int) string {
	return rewriteHeaders(diff, func(k, o, n int, oc, nc, sec string) string {
		move := func(x int) int {
			if x == 0 {
				return 0
			}
			return max(1, x+d(k))
		}
		return fmt.Sprintf("@@ -%d%s +%d%s @@%s", move(o), oc, move(n), nc, sec)
	})
}

// TestGitHistory applies real git diffs of this repository's history, as
// git wrote them and as models garble their headers: every variant must
// give git's tree, byte for byte.
func TestGitHistory(t *testing.T) {
	archives, err := filepath.Glob(filepath.Join("testdata", "git", "*.txtar"))
	if err != nil || len(archives) < 5 {
		t.Fatalf("want at least 5 archives under testdata/git, have %d (%v)", len(archives), err)
	}
	variants := []struct {
		name string
		edit func(string) string
	}{
		{"exact", func(d string) string { return d }},
		{"bare @@ @@", func(d string) string {
			return rewriteHeaders(d, func(int, int, int, string, string, string) string { return "@@ @@" })
		}},
		{"bare @@ @@ with heading", func(d string) string {
			return rewriteHeaders(d, func(_, _, _ int, _, _, sec string) string { return "@@ @@" + sec })
		}},
		{"bare @@", func(d string) string {
			return rewriteHeaders(d, func(int, int, int, string, string, string) string { return "@@" })
		}},
		{"no counts", func(d string) string {
			return rewriteHeaders(d, func(_, o, n int, _, _, sec string) string { return fmt.Sprintf("@@ -%d +%d @@%s", o, n, sec) })
		}},
		{"+7", func(d string) string { return shifted(d, func(int) int { return 7 }) }},
		{"-7", func(d string) string { return shifted(d, func(int) int { return -7 }) }},
		{"+200", func(d string) string { return shifted(d, func(int) int { return 200 }) }},
		{"-200", func(d string) string { return shifted(d, func(int) int { return -200 }) }},
		{"±7 alternating", func(d string) string {
			return shifted(d, func(k int) int { return 7 - 14*(k%2) })
		}},
		{"±200 alternating", func(d string) string {
			return shifted(d, func(k int) int { return 200 - 400*(k%2) })
		}},
	}
	for _, path := range archives {
		ar := readArchive(t, path)
		pre, post := side(ar, "a/"), side(ar, "b/")
		diff := string(ar["diff"])
		if len(pre) == 0 || len(post) == 0 || strings.Count(diff, "\ndiff --git ") < 1 || strings.Count(diff, "\n@@ ") < 2 {
			t.Fatalf("%s: not a multi-file, multi-hunk archive", path)
		}
		for _, v := range variants {
			t.Run(filepath.Base(path)+"/"+v.name, func(t *testing.T) {
				d := v.edit(diff)
				if v.name != "exact" && d == diff {
					t.Fatal("the variant changed nothing")
				}
				files, err := Parse(d)
				if err != nil {
					t.Fatalf("Parse: %v", err)
				}
				got, err := applyTree(pre, files)
				if err != nil {
					t.Fatalf("apply: %v", err)
				}
				if !slices.Equal(slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(post))) {
					t.Fatalf("files %v, want %v", slices.Sorted(maps.Keys(got)), slices.Sorted(maps.Keys(post)))
				}
				for p, want := range post {
					if !bytes.Equal(got[p], want) {
						t.Errorf("%s differs from git's post-image", p)
					}
				}
			})
		}
	}
}

// gitTree runs git in a new repository: it commits files "before", changes
// them with change, and returns "git diff -M" of the change with the trees
// before and after. It skips the test when git is not installed.
func gitTree(t *testing.T, before tree, change func(dir string)) (string, tree, tree) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git is not installed")
	}
	dir := t.TempDir()
	run := func(args ...string) string {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "color.ui=false",
			"-c", "diff.noprefix=false", "-c", "diff.mnemonicPrefix=false", "-c", "core.autocrlf=false"}, args...)...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
		return string(out)
	}
	write := func(tr tree) {
		for p, data := range tr {
			if err := os.MkdirAll(filepath.Join(dir, filepath.Dir(p)), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, p), data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	run("init", "-q")
	write(before)
	run("add", "-A")
	run("commit", "-q", "-m", "before")
	change(dir)
	run("add", "-A")
	diff := run("diff", "-M", "--no-ext-diff", "--cached")
	after := tree{}
	for _, p := range strings.Fields(run("ls-files")) {
		data, err := os.ReadFile(filepath.Join(dir, p))
		if err != nil {
			t.Fatal(err)
		}
		after[p] = data
	}
	return diff, before, after
}

// TestGitExtendedHeaders applies git's own output for adds, deletes,
// renames (with and without changes), mode changes and files without a
// final newline, with exact and bare hunk headers.
func TestGitExtendedHeaders(t *testing.T) {
	long := lines(40, nil)
	before := tree{
		"keep.txt":     []byte(long),
		"gone.txt":     []byte("bye\nnow\n"),
		"old/name.txt": []byte(lines(30, map[int]string{1: "moved as is"})),
		"edited.txt":   []byte(lines(30, map[int]string{1: "moved and edited"})),
		"noeol.txt":    []byte("a\nb\nc"),
		"addeol.txt":   []byte("x\ny"),
		"dropeol.txt":  []byte("p\nq\n"),
		"mode.sh":      []byte("echo 1\necho 2\necho 3\necho 4\n"),
	}
	diff, pre, post := gitTree(t, before, func(dir string) {
		must := func(err error) {
			if err != nil {
				t.Fatal(err)
			}
		}
		must(os.WriteFile(filepath.Join(dir, "keep.txt"), []byte(lines(40, map[int]string{3: "three", 38: "thirty-eight"})), 0o644))
		must(os.Remove(filepath.Join(dir, "gone.txt")))
		must(os.MkdirAll(filepath.Join(dir, "new"), 0o755))
		must(os.Rename(filepath.Join(dir, "old/name.txt"), filepath.Join(dir, "new/name.txt")))
		must(os.Remove(filepath.Join(dir, "edited.txt")))
		must(os.WriteFile(filepath.Join(dir, "renamed.txt"), []byte(lines(30, map[int]string{1: "moved and edited", 29: "changed"})), 0o644))
		must(os.WriteFile(filepath.Join(dir, "noeol.txt"), []byte("a\nB\nc"), 0o644))
		must(os.WriteFile(filepath.Join(dir, "addeol.txt"), []byte("x\ny\n"), 0o644))
		must(os.WriteFile(filepath.Join(dir, "dropeol.txt"), []byte("p\nq"), 0o644))
		must(os.WriteFile(filepath.Join(dir, "added.txt"), []byte("new\nfile\n"), 0o644))
		must(os.WriteFile(filepath.Join(dir, "added-noeol.txt"), []byte("no newline"), 0o644))
		must(os.WriteFile(filepath.Join(dir, "mode.sh"), []byte("echo 1\necho two\necho 3\necho 4\n"), 0o644))
		must(os.Chmod(filepath.Join(dir, "mode.sh"), 0o755))
	})
	for _, want := range []string{"new file mode", "deleted file mode", "rename from", "similarity index 100%", "\\ No newline at end of file", "old mode", "index "} {
		if !strings.Contains(diff, want) {
			t.Fatalf("git's diff has no %q:\n%s", want, diff)
		}
	}
	for name, d := range map[string]string{
		"exact": diff,
		"bare":  rewriteHeaders(diff, func(int, int, int, string, string, string) string { return "@@ @@" }),
	} {
		files, err := Parse(d)
		if err != nil {
			t.Fatalf("%s: Parse: %v\n%s", name, err, d)
		}
		got, err := applyTree(pre, files)
		if err != nil {
			t.Fatalf("%s: apply: %v\n%s", name, err, d)
		}
		if !maps.EqualFunc(got, post, bytes.Equal) {
			t.Fatalf("%s: got %q\nwant %q\ndiff:\n%s", name, got, post, d)
		}
	}
}
