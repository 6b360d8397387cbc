package stet_test

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"golang.org/x/text/unicode/norm"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys/memfs"
	"github.com/stet-dev/stet/internal/fstree"
)

// The names of one file on a normalization-insensitive volume (APFS, HFS+,
// ext4 casefold): "café.env" with a precomposed é, and the same name
// decomposed (e and a combining acute accent).
const (
	cafeNFC = "caf\u00e9.env"
	cafeNFD = "cafe\u0301.env"
)

// volumeFold is how the fake folding volume of these tests compares
// names: decomposed, then upper-cased, as HFS+ and NTFS do more or less.
// It is not the key the rules compare on (glob.Fold), so that a test does
// not pass only because both sides share one function.
func volumeFold(s string) string { return strings.ToUpper(norm.NFD.String(s)) }

// foldFirsts are entries that sort before every other name of the root:
// the probe that once decided whether a root folds case looked only at the
// first entry whose name changes with case, and took the error of a
// symlink that leaves the root, or of a dangling one, as "does not fold".
var foldFirsts = []struct {
	name    string
	entries []string
}{
	{"no link first", nil},
	{"dangling link first", []string{".#file => .#gone"}}, // Emacs's lock file
	{"link leaving first", []string{".cache => /tmp"}},    // a cache kept outside
}

// foldTree is what the folding tests build: files stored under one
// spelling, rules written in another, and the spellings a call uses.
var foldTree = []string{
	keepFile + "=keep\n",
	"plain.txt=hello\n",
	"a/.env=hello\n" + ruleSecret + "\n", // stored as the rule spells it
	"a/" + cafeNFC + "=hello\n" + ruleSecret + "\n",
	"b/.Env=hello\n" + ruleSecret + "\n",            // stored in another case
	"b/" + cafeNFD + "=hello\n" + ruleSecret + "\n", // stored decomposed (HFS+ does)
	"deploy.yaml=hello\n",
	"c/Deploy.yaml=hello\n",
}

// foldOpts are the rules of the folding tests.
var foldOpts = stet.Options{DenyRead: []string{".env", cafeNFC}, Protect: []string{"deploy.yaml"}}

// foldCalls are the spellings that name a guarded file of foldTree on a
// folding volume, and the refusal every mutating tool must give.
var foldCalls = []struct {
	path, kind string
	hidden     bool
}{
	{"a/.ENV", stet.KindNotFound, true},
	{"a/.Env", stet.KindNotFound, true},
	{"a/" + cafeNFD, stet.KindNotFound, true},
	{"a/CAFE\u0301.ENV", stet.KindNotFound, true},
	{"b/.env", stet.KindNotFound, true},
	{"b/.ENV", stet.KindNotFound, true},
	{"b/" + cafeNFC, stet.KindNotFound, true},
	{"B/" + cafeNFC, stet.KindNotFound, true},
	{"DEPLOY.YAML", stet.KindProtected, false},
	{"Deploy.yaml", stet.KindProtected, false},
	{"c/deploy.yaml", stet.KindProtected, false},
	{"C/DEPLOY.YAML", stet.KindProtected, false},
}

// TestRulesOnFoldingVolume: on a case- and normalization-insensitive
// volume, a deny-read or protect rule holds whatever spelling a call
// uses, through every tool that names a path (read, edit, write, patch,
// move from and onto, delete, undo), and the walks (list, find, grep) hide
// a denied file stored under another spelling; whatever entry the root
// lists first.
func TestRulesOnFoldingVolume(t *testing.T) {
	for _, first := range foldFirsts {
		t.Run(first.name, func(t *testing.T) {
			t.Parallel()
			for _, c := range foldCalls {
				for _, tool := range tableTools {
					if tool.name == "mkdir" {
						continue
					}
					t.Run(tool.name+" "+c.path, func(t *testing.T) {
						tr := fstree.MemWith(t, memfs.Options{Fold: volumeFold})
						tr.Build(t, append(append([]string{}, first.entries...), foldTree...)...)
						// The fake volume serves the file under this
						// spelling: without the rule, the call would reach it.
						if b, err := tr.Mem.ReadFile(c.path); err != nil || !strings.HasPrefix(string(b), "hello\n") {
							t.Fatalf("the folding volume does not serve %s: %q %v", c.path, b, err)
						}
						_, s := openTree(t, tr, foldOpts)
						before := snapMap(t, tr)
						want := c.kind
						if !tool.mutates && !c.hidden {
							want = ""
						}
						arg := c.path
						if tool.name == "list" || tool.name == "find" {
							arg, want = ".", ""
						}
						res, err := tool.call(s, arg)
						if got := kindOf(err); !kindMatches(want, got) {
							t.Errorf("%s %q: got %q, want %q", tool.name, arg, got, want)
						}
						if c.hidden && shows(res, err, ruleSecret) {
							t.Errorf("%s %q showed the hidden bytes", tool.name, arg)
						}
						checkAfter(t, tr, "", []treeMap{before})
					})
				}
			}
		})
	}
}

// TestRulesOnFoldingVolumeWalks: the walks hide a denied file stored
// under a spelling the rule does not use (b/.Env for ".env", the
// decomposed café.env for the precomposed rule), and a directory move
// that would carry one away is refused.
func TestRulesOnFoldingVolumeWalks(t *testing.T) {
	for _, first := range foldFirsts {
		t.Run(first.name, func(t *testing.T) {
			tr := fstree.MemWith(t, memfs.Options{Fold: volumeFold})
			tr.Build(t, append(append([]string{}, first.entries...), foldTree...)...)
			_, s := openTree(t, tr, foldOpts)
			for _, dir := range []string{".", "b", "B"} {
				l, err := s.List(ctx, stet.ListArgs{Path: dir, Depth: 5})
				f, ferr := s.Find(ctx, stet.FindArgs{Pattern: "**", Path: dir})
				g, gerr := s.Grep(ctx, stet.GrepArgs{Pattern: "[A-Za-z]", Path: dir})
				for _, r := range []struct {
					tool string
					res  any
					err  error
				}{{"list", l, err}, {"find", f, ferr}, {"grep", g, gerr}} {
					if r.err != nil {
						t.Errorf("%s %s: %v", r.tool, dir, r.err)
						continue
					}
					b, _ := json.Marshal(r.res)
					for _, hidden := range []string{ruleSecret, ".Env", ".env", cafeNFD, cafeNFC} {
						if strings.Contains(string(b), hidden) {
							t.Errorf("%s %s shows %q: %s", r.tool, dir, hidden, b)
						}
					}
					if r.tool != "grep" && !strings.Contains(string(b), "Deploy.yaml") && dir == "." {
						t.Errorf("%s %s hides c/Deploy.yaml, which is only protected: %s", r.tool, dir, b)
					}
				}
			}
			before := snapMap(t, tr)
			s.List(ctx, stet.ListArgs{Path: ".", Depth: 5})
			if _, err := s.Move(ctx, stet.MoveArgs{From: "b", To: "b2"}); kindOf(err) != stet.KindProtected {
				t.Errorf("moving b, which holds b/.Env, away from ... its rule: %v", err)
			}
			if _, err := s.Move(ctx, stet.MoveArgs{From: "c", To: "c2"}); kindOf(err) != stet.KindProtected {
				t.Errorf("moving c, which holds c/Deploy.yaml: %v", err)
			}
			checkAfter(t, tr, "", []treeMap{before})
		})
	}
}

// TestRulesOnCaseSensitiveVolume: on a volume that tells ".ENV" from
// ".env" and the two forms of "café.env" apart (Linux's ext4, the
// in-memory tree), the rules still cover every spelling of the names they
// give: deliberately a refusal too many there (docs/platforms.md), since
// no probe can tell for every directory whether it folds. Names that are
// not another spelling of a guarded one are served as before.
func TestRulesOnCaseSensitiveVolume(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			tr := b.mk(t)
			tr.Build(t,
				".env=hello\n"+ruleSecret+"\n",
				".ENV=hello\n"+ruleSecret+"\n", // another file here
				cafeNFD+"=hello\n"+ruleSecret+"\n",
				"cafe.env=hello\n", ".env2=hello\n", "env=hello\n", "x.env=hello\n",
				"deploy.yaml=hello\n", "DEPLOY.YAML=hello\n", "deploy.yml=hello\n",
			)
			_, s := openTree(t, tr, foldOpts)
			for _, p := range []string{".ENV", cafeNFD} {
				if res, err := s.Read(ctx, stet.ReadArgs{Path: p}); kindOf(err) != stet.KindNotFound || shows(res, err, ruleSecret) {
					t.Errorf("read %q, another spelling of a denied name: %v", p, err)
				}
			}
			s.List(ctx, stet.ListArgs{Path: "."})
			for _, p := range []string{"cafe.env", ".env2", "env", "x.env", "DEPLOY.YAML", "deploy.yml"} {
				if _, err := s.Read(ctx, stet.ReadArgs{Path: p}); err != nil {
					t.Errorf("read %q, which no rule names: %v", p, err)
				}
			}
			if _, err := s.Edit(ctx, stet.EditArgs{Path: "DEPLOY.YAML", OldString: ptr("hello"), NewString: ptr("HELLO")}); kindOf(err) != stet.KindProtected {
				t.Errorf("edit DEPLOY.YAML, another spelling of a protected name: %v", err)
			}
			for _, p := range []string{"cafe.env", ".env2", "env", "x.env", "deploy.yml"} {
				if _, err := s.Edit(ctx, stet.EditArgs{Path: p, OldString: ptr("hello"), NewString: ptr("HELLO")}); err != nil {
					t.Errorf("edit %q, which no rule names: %v", p, err)
				}
			}
			l, err := s.List(ctx, stet.ListArgs{Path: "."})
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, e := range l.Entries {
				names = append(names, e.Name)
			}
			want := []string{".env2", "DEPLOY.YAML", "cafe.env", "deploy.yaml", "deploy.yml", "env", "x.env"}
			if strings.Join(names, " ") != strings.Join(want, " ") {
				t.Errorf("list . = %q, want %q", names, want)
			}
		})
	}
}

// TestRulesOnRealFoldingDir runs the rules on a directory of a real volume
// that folds case: STET_TEST_FOLDING_DIR when set (an empty directory on a
// FAT or case-insensitive APFS mount, or one made with `chattr +F` on an
// ext4 with the casefold feature), else a temp directory, made folding
// with `chattr +F` on Linux. It skips, saying why, where no such directory
// can be had (a kernel without CONFIG_UNICODE, a filesystem without the
// casefold feature, a case-sensitive macOS volume).
func TestRulesOnRealFoldingDir(t *testing.T) {
	dir := os.Getenv("STET_TEST_FOLDING_DIR")
	if dir == "" {
		dir = t.TempDir()
		if runtime.GOOS == "linux" {
			if out, err := exec.Command("chattr", "+F", dir).CombinedOutput(); err != nil {
				t.Skipf("no folding directory: chattr +F %s: %v %s(set STET_TEST_FOLDING_DIR to an empty directory on a volume that folds case)", dir, err, out)
			}
		}
	} else {
		dir = filepath.Join(dir, fmt.Sprintf("stet-fold-%d", os.Getpid()))
		if err := os.Mkdir(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { os.RemoveAll(dir) })
	}
	files := map[string]string{".env": "hello\n" + ruleSecret + "\n", cafeNFC: "hello\n" + ruleSecret + "\n", "deploy.yaml": "hello\n", keepFile: "keep\n"}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, ".ENV")); err != nil {
		t.Skipf("%s does not fold case: %v", dir, err)
	}
	paths := []string{".ENV", ".Env", "DEPLOY.YAML"}
	if _, err := os.Stat(filepath.Join(dir, cafeNFD)); err == nil {
		paths = append(paths, cafeNFD, "CAFE\u0301.ENV")
	} else {
		t.Logf("%s folds case but not Unicode forms: %v", dir, err)
	}
	ws, err := stet.Open([]string{dir}, stet.Options{State: t.TempDir(), DenyRead: foldOpts.DenyRead, Protect: foldOpts.Protect})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("fold")
	for _, p := range paths {
		want := stet.KindNotFound
		if strings.EqualFold(p, "deploy.yaml") {
			want = stet.KindProtected
		}
		for _, tool := range tableTools {
			switch tool.name {
			case "mkdir", "list", "find":
				continue
			case "read", "grep":
				if want == stet.KindProtected {
					continue
				}
			}
			res, err := tool.call(s, p)
			if got := kindOf(err); got != want {
				t.Errorf("%s %q: got %q, want %q", tool.name, p, got, want)
			}
			if shows(res, err, ruleSecret) {
				t.Errorf("%s %q showed the hidden bytes", tool.name, p)
			}
		}
	}
	for name, data := range files {
		if b, err := os.ReadFile(filepath.Join(dir, name)); err != nil || string(b) != data {
			t.Errorf("%s changed: %q %v", name, b, err)
		}
	}
}

// TestStateSpelledOtherwise: a state directory inside the root given in
// another letter case (one directory on a volume that folds case) is still
// hidden and protected under the root's spelling.
func TestStateSpelledOtherwise(t *testing.T) {
	tr := fstree.Host(t)
	tr.Build(t, ".stet-state/x=journal\n", "a.txt=a\n")
	state := filepath.Join(filepath.Dir(tr.Root), "WS", ".STET-STATE")
	ws, err := stet.Open([]string{tr.Root}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("state")
	if _, err := s.Read(ctx, stet.ReadArgs{Path: ".stet-state/x"}); kindOf(err) != stet.KindNotFound {
		t.Errorf("read in the state directory spelled otherwise: %v", err)
	}
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
		t.Errorf("read a.txt: %v", err)
	}
}
