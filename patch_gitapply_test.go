package stet_test

import (
	"fmt"
	"io/fs"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// The patch cases of issue 27, each compared with what git apply (for a
// unified diff) or Codex (for an envelope, from its own apply-patch tests)
// does with it. Where stet departs on purpose, the case names the rule,
// which docs/patch.md states.

// entry is one node of a tree as a test sees it: a file with its bytes and
// whether it is executable, or a symlink with its target.
type entry struct {
	link string // the target, for a symlink
	data string
	exec bool
}

func (e entry) String() string {
	if e.link != "" {
		return "-> " + e.link
	}
	x := ""
	if e.exec {
		x = " (executable)"
	}
	return fmt.Sprintf("%q%s", e.data, x)
}

// build makes the tree under dir: a value "-> T" is a symlink to T, "x:" a
// prefix for an executable file.
func build(t *testing.T, dir string, tree map[string]string) {
	t.Helper()
	for name, v := range tree {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if target, ok := strings.CutPrefix(v, "-> "); ok {
			if err := os.Symlink(target, p); err != nil {
				t.Skip("no symlinks here:", err)
			}
			continue
		}
		mode := fs.FileMode(0o644)
		if data, ok := strings.CutPrefix(v, "x:"); ok {
			v, mode = data, 0o755
		}
		if err := os.WriteFile(p, []byte(v), mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil {
			t.Fatal(err)
		}
	}
}

// treeOf reads the tree under dir (no .git, no directories).
func treeOf(t *testing.T, dir string) map[string]entry {
	t.Helper()
	out := map[string]entry{}
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(dir, p)
		rel = filepath.ToSlash(rel)
		switch {
		case d.IsDir() && d.Name() == ".git":
			return filepath.SkipDir
		case d.IsDir():
			return nil
		case d.Type()&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[rel] = entry{link: target}
		default:
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			info, err := d.Info()
			if err != nil {
				return err
			}
			out[rel] = entry{data: string(b), exec: info.Mode()&0o100 != 0}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// entriesDiff lists how got differs from want, "" when it does not; noExec
// compares files without their executable bit.
func entriesDiff(want, got map[string]entry, noExec bool) string {
	var d []string
	for _, p := range slices.Sorted(maps.Keys(want)) {
		w, g := want[p], got[p]
		if noExec {
			w.exec, g.exec = false, false
		}
		if _, ok := got[p]; !ok {
			d = append(d, fmt.Sprintf("%s: missing, want %v", p, w))
		} else if w != g {
			d = append(d, fmt.Sprintf("%s: %v, want %v", p, g, w))
		}
	}
	for _, p := range slices.Sorted(maps.Keys(got)) {
		if _, ok := want[p]; !ok {
			d = append(d, fmt.Sprintf("%s: %v, not wanted", p, got[p]))
		}
	}
	return strings.Join(d, "\n")
}

// gitApply runs git apply with diff in dir; ok is false when git is not
// installed.
func gitApply(t *testing.T, dir, diff string) (applied, ok bool) {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		return false, false
	}
	pf := filepath.Join(t.TempDir(), "p.diff")
	if err := os.WriteFile(pf, []byte(diff), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("git", "-c", "core.symlinks=true", "apply", pf)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_CEILING_DIRECTORIES="+filepath.Dir(dir))
	return cmd.Run() == nil, true
}

// patchRules are the stet rules a case may depart from git apply or Codex
// by, each with the docs/patch.md line that states it.
var patchRules = map[string]string{
	"symlinks":  "**A symlink is never written as a file, and never deleted through.**",
	"modes":     "**Modes are noted, not applied.**",
	"protected": "A section on a link that leads to a protected or\n  denied file is refused as that file would be (`protected`)",
}

// TestPatchRulesDocumented: every rule a case departs by is stated in
// docs/patch.md.
func TestPatchRulesDocumented(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("docs", "patch.md"))
	if err != nil {
		t.Fatal(err)
	}
	for name, line := range patchRules {
		if !strings.Contains(string(doc), line) {
			t.Errorf("rule %s: docs/patch.md does not say %q", name, line)
		}
	}
}

// patchCase is one patch on one tree.
type patchCase struct {
	name  string
	tree  map[string]string
	patch string
	// refused is the kind stet refuses with, "" when it lands; msg a part
	// of its text.
	refused, msg string
	// codex, for an envelope, is the tree Codex leaves (nil: it fails).
	codex map[string]string
	// rule names the stet rule (patchRules) where stet departs from git
	// apply or Codex.
	rule string
}

// runPatch applies c.patch with stet on a copy of c.tree, the session having
// read every file and listed every directory, and checks the result against
// c: a refusal changes nothing and leaves no receipt. It returns the
// workspace, the session, the root, and the result text.
func runPatch(t *testing.T, c patchCase) (*stet.Workspace, *stet.Session, string, string) {
	t.Helper()
	ws, s, root := open(t, nil, stet.Options{})
	build(t, root, c.tree)
	for name, v := range c.tree {
		if _, err := s.List(ctx, stet.ListArgs{Path: filepath.Dir(name)}); err != nil {
			t.Fatalf("list %s: %v", filepath.Dir(name), err)
		}
		if !strings.HasPrefix(v, "-> ") {
			readAll(t, s, name)
		}
	}
	before := treeOf(t, root)
	res, err := s.Patch(ctx, stet.PatchArgs{Patch: c.patch})
	if c.refused != "" {
		r, ok := stet.AsRefusal(err)
		if !ok || r.Kind != c.refused {
			t.Fatalf("Patch = %+v, %v; want refused %s", res, err, c.refused)
		}
		if !strings.Contains(r.Message, c.msg) {
			t.Errorf("refusal lacks %q:\n%s", c.msg, r.Message)
		}
		if d := entriesDiff(before, treeOf(t, root), false); d != "" {
			t.Errorf("a refused patch changed the tree:\n%s", d)
		}
		if log, err := ws.Log("", ""); err != nil || len(log) > 0 {
			t.Errorf("a refused patch left receipts: %v, %v", log, err)
		}
		return ws, s, root, r.Message
	}
	if err != nil {
		t.Fatalf("Patch: %v", err)
	}
	if !strings.Contains(res.Message, c.msg) {
		t.Errorf("result lacks %q:\n%s", c.msg, res.Message)
	}
	return ws, s, root, res.Message + "\n" + res.Diff
}

// compareGit applies c.patch with git apply on another copy of the tree and
// compares the trees: stet must leave git's, refuse where git refuses, or
// depart by c.rule.
func compareGit(t *testing.T, c patchCase, stetRoot string) {
	t.Helper()
	checkRule(t, c)
	dir := t.TempDir()
	build(t, dir, c.tree)
	applied, ok := gitApply(t, dir, c.patch)
	if !ok {
		t.Log("git is not installed: not compared with git apply")
		return
	}
	gitTree, stetTree := treeOf(t, dir), treeOf(t, stetRoot)
	switch {
	case !applied && c.refused == "":
		t.Errorf("git apply refuses the patch, stet applies it")
	case !applied:
		// Both refuse.
	case c.rule == "modes":
		if d := entriesDiff(gitTree, stetTree, true); d != "" {
			t.Errorf("stet's tree, modes aside, is not git's:\n%s", d)
		}
		if d := entriesDiff(gitTree, stetTree, false); d == "" {
			t.Errorf("git and stet agree on modes now; drop the rule %q", c.rule)
		}
	case c.refused != "" && c.rule == "":
		t.Errorf("git apply applies the patch, stet refuses it, and no rule says why")
	case c.refused == "":
		if d := entriesDiff(gitTree, stetTree, false); d != "" {
			t.Errorf("stet's tree is not git's:\n%s", d)
		}
	}
}

// compareCodex compares stet's tree with the one Codex leaves: equal, or
// a refusal by c.rule.
func compareCodex(t *testing.T, c patchCase, stetRoot string) {
	t.Helper()
	checkRule(t, c)
	switch {
	case c.codex == nil && c.refused == "":
		t.Errorf("Codex fails on the patch, stet applies it")
	case c.codex != nil && c.refused != "" && c.rule == "":
		t.Errorf("Codex applies the patch, stet refuses it, and no rule says why")
	case c.codex != nil && c.refused == "":
		dir := t.TempDir()
		build(t, dir, c.codex)
		if d := entriesDiff(treeOf(t, dir), treeOf(t, stetRoot), false); d != "" {
			t.Errorf("stet's tree is not Codex's:\n%s", d)
		}
	}
}

// checkRule fails a case whose rule is none of patchRules.
func checkRule(t *testing.T, c patchCase) {
	t.Helper()
	if _, ok := patchRules[c.rule]; c.rule != "" && !ok {
		t.Fatalf("rule %q is not one of patchRules", c.rule)
	}
}

const linkTree = "secret data\n"

func TestPatchSymlinkDelete(t *testing.T) {
	tree := map[string]string{"target.txt": linkTree, "link": "-> target.txt", "other.txt": "a\nb\n"}
	gitDelete := "diff --git a/link b/link\ndeleted file mode 120000\nindex 4cbb553..0000000\n--- a/link\n+++ /dev/null\n@@ -1 +0,0 @@\n-target.txt\n\\ No newline at end of file\n"
	for _, c := range []patchCase{
		{name: "git: deleted file mode 120000", tree: tree, patch: gitDelete,
			refused: stet.KindNotRegular, msg: "removes no symlinks", rule: "symlinks"},
		{name: "git: a link deleted with an update before it", tree: tree,
			patch:   "diff --git a/other.txt b/other.txt\n--- a/other.txt\n+++ b/other.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n" + gitDelete,
			refused: stet.KindNotRegular, msg: "nothing in the patch was applied: 2 files", rule: "symlinks"},
		{name: "git: a link deleted as a regular file", tree: tree,
			patch:   "diff --git a/link b/link\ndeleted file mode 100644\n--- a/link\n+++ /dev/null\n@@ -1 +0,0 @@\n-secret data\n",
			refused: stet.KindNotRegular, msg: "link is a symlink (to target.txt)"},
		{name: "codex: Delete File on a link", tree: tree, patch: "*** Begin Patch\n*** Delete File: link\n*** End Patch\n",
			refused: stet.KindNotRegular, msg: "link is a symlink (to target.txt)", rule: "symlinks",
			codex: map[string]string{"target.txt": linkTree, "other.txt": "a\nb\n"}},
		{name: "codex: Delete File on a dangling link", tree: map[string]string{"link": "-> gone.txt", "other.txt": "a\n"},
			patch:   "*** Begin Patch\n*** Delete File: link\n*** End Patch\n",
			refused: stet.KindNotRegular, msg: "link is a symlink (to gone.txt)", rule: "symlinks",
			codex: map[string]string{"other.txt": "a\n"}},
		{name: "codex: Delete File on a link in a multi-file patch", tree: tree,
			patch:   "*** Begin Patch\n*** Update File: other.txt\n@@\n-b\n+B\n*** Delete File: link\n*** End Patch\n",
			refused: stet.KindNotRegular, msg: "link is a symlink", rule: "symlinks",
			codex: map[string]string{"target.txt": linkTree, "other.txt": "a\nB\n"}},
		{name: "codex: Delete File on a link to a protected file", tree: map[string]string{".git/config": "[core]\n", "link": "-> .git/config"},
			patch:   "*** Begin Patch\n*** Delete File: link\n*** End Patch\n",
			refused: stet.KindProtected, msg: ".git", rule: "protected",
			codex: map[string]string{".git/config": "[core]\n"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, root, _ := runPatch(t, c)
			if c.tree["link"] == "-> target.txt" {
				if got := content(t, root, "target.txt"); got != linkTree {
					t.Errorf("the link's target holds %q", got)
				}
			}
			if strings.HasPrefix(c.patch, "diff ") {
				compareGit(t, c, root)
			} else {
				compareCodex(t, c, root)
			}
		})
	}
}

func TestPatchGitDeleteChecked(t *testing.T) {
	head := "diff --git a/a.txt b/a.txt\ndeleted file mode 100644\n"
	names := "--- a/a.txt\n+++ /dev/null\n"
	tree := map[string]string{"a.txt": "real\ncontent\n"}
	for _, c := range []patchCase{
		{name: "other lines", tree: tree, patch: head + "index 1111111..0000000\n" + names + "@@ -1,2 +0,0 @@\n-something\n-else\n",
			refused: stet.KindNoMatch, msg: "00001|real"},
		{name: "the first line only", tree: tree, patch: head + names + "@@ -1 +0,0 @@\n-real\n",
			refused: stet.KindNoMatch, msg: "line 2 would remain"},
		{name: "no hunks", tree: tree, patch: head, refused: stet.KindNoMatch, msg: "removes no lines, but the file has 2 lines"},
		{name: "no hunks, an empty file", tree: map[string]string{"a.txt": ""}, patch: head, msg: "deleted"},
		{name: "missing no-newline marker", tree: map[string]string{"a.txt": "real\ncontent"}, patch: head + names + "@@ -1,2 +0,0 @@\n-real\n-content\n",
			refused: stet.KindNoMatch, msg: "no newline at its end"},
		{name: "exact", tree: tree, patch: head + names + "@@ -1,2 +0,0 @@\n-real\n-content\n", msg: "deleted"},
		{name: "exact, with an update", tree: map[string]string{"a.txt": "real\ncontent\n", "b.txt": "x\n"},
			patch: "diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-x\n+y\n" + head + names + "@@ -1,2 +0,0 @@\n-real\n-content\n", msg: "deleted"},
		{name: "wrong in a multi-file patch", tree: map[string]string{"a.txt": "real\ncontent\n", "b.txt": "x\n"},
			patch:   "diff --git a/b.txt b/b.txt\n--- a/b.txt\n+++ b/b.txt\n@@ -1 +1 @@\n-x\n+y\n" + head + names + "@@ -1,2 +0,0 @@\n-real\n-contents\n",
			refused: stet.KindNoMatch, msg: "nothing in the patch was applied: 2 files"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, s, root, _ := runPatch(t, c)
			compareGit(t, c, root)
			if c.refused != "" {
				return
			}
			// Undo brings every file back.
			for _, name := range slices.Sorted(maps.Keys(c.tree)) {
				if _, err := s.Undo(ctx, stet.UndoArgs{Path: name}); err != nil {
					t.Fatalf("undo %s: %v", name, err)
				}
			}
			for name, want := range c.tree {
				if got := content(t, root, name); got != want {
					t.Errorf("%s after undo: %q, want %q", name, got, want)
				}
			}
		})
	}
}

func TestPatchSymlinkAdd(t *testing.T) {
	tree := map[string]string{"target.txt": linkTree}
	add := func(name, target string) string {
		return fmt.Sprintf("diff --git a/%s b/%s\nnew file mode 120000\nindex 0000000..4cbb553\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1 @@\n+%s\n\\ No newline at end of file\n", name, name, name, target)
	}
	for _, c := range []patchCase{
		{name: "a link inside the workspace", tree: tree, patch: add("newlink", "target.txt"),
			refused: stet.KindNotRegular, msg: `the patch makes newlink a symlink to "target.txt"`, rule: "symlinks"},
		{name: "a link out of the workspace", tree: tree, patch: add("outlink", "/etc/passwd"),
			refused: stet.KindNotRegular, msg: "creates no symlinks", rule: "symlinks"},
		{name: "a link beside a new file", tree: tree,
			patch:   "diff --git a/n.txt b/n.txt\nnew file mode 100644\n--- /dev/null\n+++ b/n.txt\n@@ -0,0 +1 @@\n+n\n" + add("newlink", "../../x"),
			refused: stet.KindNotRegular, msg: "nothing in the patch was applied: 2 files", rule: "symlinks"},
		{name: "a link retargeted", tree: map[string]string{"target.txt": linkTree, "other.txt": "o\n", "link": "-> target.txt"},
			patch:   "diff --git a/link b/link\nindex 4cbb553..1111111 120000\n--- a/link\n+++ b/link\n@@ -1 +1 @@\n-target.txt\n\\ No newline at end of file\n+other.txt\n\\ No newline at end of file\n",
			refused: stet.KindNotRegular, msg: "changes no symlinks", rule: "symlinks"},
		{name: "a submodule", tree: tree,
			patch:   "diff --git a/sub b/sub\nnew file mode 160000\nindex 0000000..1234567\n--- /dev/null\n+++ b/sub\n@@ -0,0 +1 @@\n+Subproject commit 1234567890123456789012345678901234567890\n",
			refused: stet.KindNotRegular, msg: "submodule sub", rule: "symlinks"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, root, _ := runPatch(t, c)
			if c.name != "a submodule" {
				compareGit(t, c, root)
			}
		})
	}
}

func TestPatchModes(t *testing.T) {
	tree := map[string]string{"run.sh": "echo hi\n", "other.txt": "a\nb\n"}
	modeOnly := "diff --git a/run.sh b/run.sh\nold mode 100644\nnew mode 100755\n"
	newExec := "diff --git a/new.sh b/new.sh\nnew file mode 100755\nindex 0000000..05cfd7f\n--- /dev/null\n+++ b/new.sh\n@@ -0,0 +1,2 @@\n+#!/bin/sh\n+echo new\n"
	update := "diff --git a/other.txt b/other.txt\nindex 422c2b7..55dce13 100644\n--- a/other.txt\n+++ b/other.txt\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n"
	for _, c := range []patchCase{
		{name: "a mode change beside an update and a new executable", tree: tree, patch: newExec + update + modeOnly,
			msg: "patched 2 files: added new.sh, updated other.txt (1 hunk); modes not applied (stet's patch sets no file modes): new.sh 100755 (chmod +x new.sh), run.sh 100644 → 100755 (chmod +x run.sh)", rule: "modes"},
		{name: "a mode change alone", tree: tree, patch: modeOnly, msg: "no file changed; modes not applied", rule: "modes"},
		{name: "a mode change with hunks", tree: map[string]string{"run.sh": "x:echo hi\n"},
			patch: "diff --git a/run.sh b/run.sh\nold mode 100755\nnew mode 100644\nindex 1..2\n--- a/run.sh\n+++ b/run.sh\n@@ -1 +1 @@\n-echo hi\n+echo bye\n",
			msg:   "run.sh 100755 → 100644 (chmod -x run.sh)", rule: "modes"},
		{name: "a mode change of a file that is not there", tree: tree, patch: strings.ReplaceAll(modeOnly, "run.sh", "gone.sh"),
			refused: stet.KindNotFound, msg: "gone.sh does not exist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			ws, _, root, _ := runPatch(t, c)
			compareGit(t, c, root)
			if c.refused != "" {
				return
			}
			log, err := ws.Log("", "")
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range log {
				if strings.Contains(e.Receipt.Path, ".sh") && !slices.ContainsFunc(e.Receipt.Notes, func(n string) bool { return strings.Contains(n, "not applied") }) {
					t.Errorf("receipt %s of %s does not note the mode: %q", e.Receipt.ID, e.Receipt.Path, e.Receipt.Notes)
				}
			}
		})
	}
}

// TestPatchAppendThenChange: Codex's unit test
// test_pure_addition_chunk_followed_by_removal (codex-rs/apply-patch): a
// chunk appended at the end, then a change above it, in one envelope,
// lands as Codex lands it; undo brings the file back.
func TestPatchAppendThenChange(t *testing.T) {
	c := patchCase{name: "codex", tree: map[string]string{"panic.txt": "line1\nline2\nline3\n"},
		patch: "*** Begin Patch\n*** Update File: panic.txt\n@@\n+after-context\n+second-line\n@@\n line1\n-line2\n-line3\n+line2-replacement\n*** End Patch\n",
		msg:   "updated panic.txt (2 hunks)",
		codex: map[string]string{"panic.txt": "line1\nline2-replacement\nafter-context\nsecond-line\n"}}
	_, s, root, _ := runPatch(t, c)
	compareCodex(t, c, root)
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "panic.txt"}); err != nil {
		t.Fatal(err)
	}
	if got := content(t, root, "panic.txt"); got != c.tree["panic.txt"] {
		t.Errorf("after undo: %q", got)
	}
}

// TestPatchMoveOfLink: an update that moves a symlink moves the link by
// name, as the move tool does: within its directory it lands (the file it
// leads to is updated, the link keeps leading to it under its new name),
// and undo takes both back; to another directory, where a relative link
// would lead elsewhere, it is refused before anything moves.
func TestPatchMoveOfLink(t *testing.T) {
	tree := map[string]string{"target.txt": linkTree, "link": "-> target.txt", "sub/keep": "k\n"}
	body := "@@\n-secret data\n+changed\n*** End Patch\n"
	_, _, root, _ := runPatch(t, patchCase{name: "elsewhere", tree: tree,
		patch:   "*** Begin Patch\n*** Update File: link\n*** Move to: sub/moved\n" + body,
		refused: stet.KindNotRegular, msg: "a link moves only within its directory"})
	if got := content(t, root, "target.txt"); got != linkTree {
		t.Errorf("target.txt: %q", got)
	}

	_, s, root, _ := runPatch(t, patchCase{name: "beside", tree: tree,
		patch: "*** Begin Patch\n*** Update File: link\n*** Move to: moved\n" + body, msg: "moved it to moved"})
	want := map[string]entry{"target.txt": {data: "changed\n"}, "moved": {link: "target.txt"}, "sub/keep": {data: "k\n"}}
	if d := entriesDiff(want, treeOf(t, root), false); d != "" {
		t.Errorf("after the patch:\n%s", d)
	}
	for _, p := range []string{"moved", "link"} {
		if _, err := s.Undo(ctx, stet.UndoArgs{Path: p}); err != nil {
			t.Fatalf("undo %s: %v", p, err)
		}
	}
	want = map[string]entry{"target.txt": {data: linkTree}, "link": {link: "target.txt"}, "sub/keep": {data: "k\n"}}
	if d := entriesDiff(want, treeOf(t, root), false); d != "" {
		t.Errorf("after undo:\n%s", d)
	}
}

// TestPatchModeOfLargeFile: a section that only changes a mode reads no
// bytes, so a file stet could not edit (over the edit limit) does not make
// the patch refused.
func TestPatchModeOfLargeFile(t *testing.T) {
	_, s, root := open(t, map[string]string{"big.bin": strings.Repeat("x", 100), "a.txt": "a\n"}, stet.Options{MaxFileBytes: 64})
	readAll(t, s, "a.txt")
	res, err := s.Patch(ctx, stet.PatchArgs{Patch: "diff --git a/big.bin b/big.bin\nold mode 100644\nnew mode 100755\n" +
		"diff --git a/a.txt b/a.txt\n--- a/a.txt\n+++ b/a.txt\n@@ -1 +1 @@\n-a\n+A\n"})
	if err != nil {
		t.Fatalf("Patch: %v", err)
	}
	if !strings.Contains(res.Message, "big.bin 100644 → 100755 (chmod +x big.bin)") || content(t, root, "a.txt") != "A\n" {
		t.Fatalf("Patch: %s", res.Message)
	}
}
