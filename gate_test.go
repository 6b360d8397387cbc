package stet_test

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
)

// symlink makes link (relative to root) point at target, or skips.
func symlink(t *testing.T, root, target, link string) {
	t.Helper()
	p := filepath.Join(root, filepath.FromSlash(link))
	os.MkdirAll(filepath.Dir(p), 0o755)
	if err := os.Symlink(target, p); err != nil {
		t.Skipf("symlinks: %v", err)
	}
}

// mustList lists dir so the session may create or move there.
func mustList(t *testing.T, s *stet.Session, dir string) *stet.ListResult {
	t.Helper()
	l, err := s.List(ctx, stet.ListArgs{Path: dir, Depth: 8})
	if err != nil {
		t.Fatalf("list %s: %v", dir, err)
	}
	return l
}

// assertHidden checks that no read-only tool shows name or its bytes.
func assertHidden(t *testing.T, s *stet.Session, name, secret string) {
	t.Helper()
	if _, err := s.Read(ctx, stet.ReadArgs{Path: name}); kindOf(err) != stet.KindNotFound {
		t.Errorf("read %s: %v, want not_found", name, err)
	}
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: secret, Path: name}); kindOf(err) != stet.KindNotFound {
		t.Errorf("grep path=%s: %v, want not_found", name, err)
	}
	g, err := s.Grep(ctx, stet.GrepArgs{Pattern: secret})
	if err != nil {
		t.Fatalf("grep: %v", err)
	}
	if len(g.Matches) > 0 {
		t.Errorf("grep of the workspace shows %v", g.Matches)
	}
}

func TestDenyReadThroughSymlink(t *testing.T) {
	_, s, root := open(t, map[string]string{"secrets/db.env": "PASSWORD=hunter2\n", "a.txt": "a\n"},
		stet.Options{DenyRead: []string{"secrets/**"}})
	symlink(t, root, "secrets/db.env", "link.env")
	symlink(t, root, "secrets", "alias")
	assertHidden(t, s, "link.env", "hunter2")
	assertHidden(t, s, "alias/db.env", "hunter2")
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "link.env", OldString: ptr("hunter2"), NewString: ptr("x")}); kindOf(err) != stet.KindNotFound {
		t.Error("edit through a symlink to a denied file landed")
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "link.env", Content: "x\n", Overwrite: true}); kindOf(err) != stet.KindNotFound {
		t.Error("write through a symlink to a denied file landed")
	}
	if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "link.env"}); kindOf(err) != stet.KindNotFound {
		t.Error("delete through a symlink to a denied file landed")
	}
	if got := content(t, root, "secrets/db.env"); got != "PASSWORD=hunter2\n" {
		t.Fatalf("denied file now %q", got)
	}
}

func TestSlashlessPatternCoversDirectory(t *testing.T) {
	_, s, root := open(t, map[string]string{"secrets/key.txt": "k1\n", "app/secrets/key.txt": "k2\n", "app/main.go": "package main\n"},
		stet.Options{DenyRead: []string{"secrets"}})
	assertHidden(t, s, "secrets/key.txt", "k1")
	assertHidden(t, s, "app/secrets/key.txt", "k2")
	f, err := s.Find(ctx, stet.FindArgs{Pattern: "**/key.txt"})
	if err != nil || len(f.Paths) != 0 {
		t.Errorf("find shows %v, %v", f, err)
	}
	for _, e := range mustList(t, s, ".").Entries {
		if strings.Contains(e.Name, "secrets") {
			t.Errorf("list shows %s", e.Name)
		}
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "app/secrets/new.txt", Content: "x\n"}); kindOf(err) != stet.KindNotFound {
		t.Error("created a file under a denied directory")
	}
	if _, err := os.Stat(filepath.Join(root, "app/secrets/new.txt")); err == nil {
		t.Error("file created under a denied directory")
	}
}

func TestDirectoryMoveCarryingRuledPaths(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts stet.Options
	}{
		{"deny-read", stet.Options{DenyRead: []string{"app/secrets/**"}}},
		{"protect", stet.Options{Protect: []string{"app/secrets/**"}}},
		{"nested .git", stet.Options{}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			files := map[string]string{"app/secrets/db.env": "PASSWORD=hunter2\n", "app/main.go": "package main\n", "app/.git/config": "[core]\n"}
			if tt.name != "nested .git" {
				delete(files, "app/.git/config")
			}
			_, s, root := open(t, files, tt.opts)
			mustList(t, s, ".")
			_, err := s.Move(ctx, stet.MoveArgs{From: "app", To: "app2"})
			if kindOf(err) != stet.KindProtected {
				t.Fatalf("a directory move carrying a ruled path: %v, want protected", err)
			}
			if _, err := os.Stat(filepath.Join(root, "app2")); err == nil {
				t.Fatal("app2 exists")
			}
			if got := content(t, root, "app/secrets/db.env"); got != "PASSWORD=hunter2\n" {
				t.Fatalf("db.env now %q", got)
			}
			// Deleting the tree is refused too (delete never removes a tree).
			if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "app"}); err == nil {
				t.Fatal("deleted a directory")
			}
		})
	}
}

func TestMoveIntoOrOutOfRuledPaths(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "a\n", "secrets/x.txt": "x\n", "locked/b.txt": "b\n"},
		stet.Options{DenyRead: []string{"secrets"}, Protect: []string{"locked"}})
	mustList(t, s, ".")
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	if _, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "secrets/a.txt"}); kindOf(err) != stet.KindNotFound {
		t.Error("moved a file into a denied directory")
	}
	if _, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "locked/a.txt"}); kindOf(err) != stet.KindProtected {
		t.Errorf("move into a protected directory: %v", err)
	}
	if _, err := s.Move(ctx, stet.MoveArgs{From: "locked/b.txt", To: "b.txt"}); kindOf(err) != stet.KindProtected {
		t.Errorf("move out of a protected directory: %v", err)
	}
	if got := content(t, root, "a.txt"); got != "a\n" {
		t.Fatalf("a.txt now %q", got)
	}
}

func TestGitProtection(t *testing.T) {
	files := map[string]string{
		"repo.git/config":  "[core]\n",
		"sub/.git/config":  "[core]\n",
		"weird/.GIT/HEAD":  "ref\n",
		"gitlink/.Git/x":   "x\n",
		"plain/notgit.txt": "n\n",
	}
	_, s, root := open(t, files, stet.Options{})
	symlink(t, root, "repo.git", ".git")
	for _, name := range []string{".git/config", "repo.git/config", "sub/.git/config", "weird/.GIT/HEAD", "gitlink/.Git/x"} {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: name}); err != nil {
			t.Fatalf("read %s: %v", name, err)
		}
		_, err := s.Write(ctx, stet.WriteArgs{Path: name, Content: "[core]\n\tfsmonitor = sh -c evil\n", Overwrite: true})
		if kindOf(err) != stet.KindProtected {
			t.Errorf("write %s: %v, want protected", name, err)
		}
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "sub/.git/hooks/pre-commit", Content: "evil\n"}); kindOf(err) != stet.KindProtected {
		t.Errorf("create in a nested .git: %v, want protected", err)
	}
	if got := content(t, root, "repo.git/config"); got != "[core]\n" {
		t.Fatalf("repo.git/config now %q", got)
	}
	// The rule is the .git name, not a substring.
	s.Read(ctx, stet.ReadArgs{Path: "plain/notgit.txt"})
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "plain/notgit.txt", Content: "m\n", Overwrite: true}); err != nil {
		t.Errorf("write plain/notgit.txt: %v", err)
	}
}

// TestStateDirInsideRoot: the journal under a root is hidden and protected
// whatever the flags say.
func TestStateDirInsideRoot(t *testing.T) {
	for _, tt := range []struct {
		name string
		opts stet.Options
	}{
		{"default", stet.Options{}},
		{"no default protect", stet.Options{NoDefaultProtect: true}},
		{"no gate", stet.Options{NoGate: true}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			os.WriteFile(filepath.Join(root, "a.txt"), []byte("a\n"), 0o644)
			opts := tt.opts
			opts.State = filepath.Join(root, ".stet")
			ws, err := stet.Open([]string{root}, opts)
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			s, _ := ws.Session("test")
			if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
				t.Fatal(err)
			}
			for _, e := range mustList(t, s, ".").Entries {
				if strings.HasPrefix(e.Name, ".stet") {
					t.Errorf("list shows %s", e.Name)
				}
			}
			assertHidden(t, s, ".stet/journal.jsonl", "observe")
			if _, err := s.List(ctx, stet.ListArgs{Path: ".stet"}); kindOf(err) != stet.KindNotFound {
				t.Errorf("list .stet: %v", err)
			}
			before, _ := os.ReadFile(filepath.Join(root, ".stet/journal.jsonl"))
			if _, err := s.Write(ctx, stet.WriteArgs{Path: ".stet/journal.jsonl", Content: "forged\n", Overwrite: true}); kindOf(err) != stet.KindNotFound {
				t.Error("wrote the journal through stet")
			}
			if _, err := s.Write(ctx, stet.WriteArgs{Path: ".stet/sessions/x.jsonl", Content: "forged\n"}); kindOf(err) != stet.KindNotFound {
				t.Error("created a file in the state directory")
			}
			if _, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: ".stet/a.txt"}); kindOf(err) != stet.KindNotFound {
				t.Error("moved a file into the state directory")
			}
			after, _ := os.ReadFile(filepath.Join(root, ".stet/journal.jsonl"))
			if !bytes.HasPrefix(after, before) {
				t.Error("journal changed")
			}
		})
	}
}

// TestExpectedVersionFromRefusal: under --binding read, the version named by
// a changed refusal is not an observation.
func TestExpectedVersionFromRefusal(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "keep me\n"}, stet.Options{Binding: policy.BindRead})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("keep me\nuser's new line\n"), 0o644)
	_, err := s.Write(ctx, stet.WriteArgs{Path: "a.txt", Content: "replaced\n", Overwrite: true})
	r, ok := stet.AsRefusal(err)
	if !ok || r.Kind != stet.KindChanged {
		t.Fatalf("write over a changed file: %v", err)
	}
	now, _ := r.Details["now"].(map[string]any)
	ver, _ := now["version"].(string)
	if ver == "" {
		t.Fatalf("refusal names no current version: %+v", r.Details)
	}
	_, err = s.Write(ctx, stet.WriteArgs{Path: "a.txt", Content: "replaced\n", Overwrite: true, ExpectedVersion: ver})
	if err == nil {
		t.Error("expected_version from a refusal replaced text the session never saw")
	}
	_, err = s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("user's new line"), NewString: ptr("gone"), ExpectedVersion: ver})
	if err == nil {
		t.Error("edit with expected_version from a refusal landed")
	}
	if got := content(t, root, "a.txt"); got != "keep me\nuser's new line\n" {
		t.Fatalf("a.txt now %q", got)
	}
	// Once read, the version binds.
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "a.txt", Content: "replaced\n", Overwrite: true, ExpectedVersion: ver}); err != nil {
		t.Errorf("write after reading: %v", err)
	}
}

// TestNoGateKeepsTheFloor: NoGate drops rules 5-9 only.
func TestNoGateKeepsTheFloor(t *testing.T) {
	files := map[string]string{"a.txt": "a\n", ".git/config": "[core]\n", "secret.env": "S=1\n", "locked/x": "x\n"}
	_, s, root := open(t, files, stet.Options{NoGate: true, DenyRead: []string{"*.env"}, Protect: []string{"locked"}})
	if _, err := s.Write(ctx, stet.WriteArgs{Path: ".git/config", Content: "evil\n", Overwrite: true}); kindOf(err) != stet.KindProtected {
		t.Errorf("write .git/config: %v, want protected", err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "locked/x", Content: "evil\n", Overwrite: true}); kindOf(err) != stet.KindProtected {
		t.Errorf("write locked/x: %v, want protected", err)
	}
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "secret.env"}); kindOf(err) != stet.KindNotFound {
		t.Errorf("read secret.env: %v, want not_found", err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "secret.env", Content: "S=2\n", Overwrite: true}); err == nil {
		t.Error("write secret.env landed")
	}
	// Rules 5-9 are gone: an unread file may be replaced.
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "a.txt", Content: "b\n", Overwrite: true}); err != nil {
		t.Errorf("write a.txt without reading under NoGate: %v", err)
	}
	for name, want := range map[string]string{".git/config": "[core]\n", "secret.env": "S=1\n", "locked/x": "x\n", "a.txt": "b\n"} {
		if got := content(t, root, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	_, s, root = open(t, files, stet.Options{NoGate: true, Effects: policy.ReadOnly})
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "a.txt", Content: "b\n", Overwrite: true}); kindOf(err) != stet.KindReadOnly {
		t.Errorf("read-only under NoGate: %v, want read_only", err)
	}
	if got := content(t, root, "a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q", got)
	}
}

// TestUndoIgnoresForgedIndexLine: a receipt appended to a session index
// (not in the log) is never acted on.
func TestUndoIgnoresForgedIndexLine(t *testing.T) {
	state := t.TempDir()
	_, s, root := open(t, map[string]string{"a.txt": "one\n", "b.txt": "ONE\n"}, stet.Options{State: state})
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("ONE")}); err != nil {
		t.Fatal(err)
	}
	s.Read(ctx, stet.ReadArgs{Path: "b.txt"})
	// The session's index lines wait for a sync of the log; another handle
	// completes the index on disk, so that the test can forge a line in it.
	if j, err := journal.Open(state, journal.Options{}); err != nil {
		t.Fatal(err)
	} else if _, err := j.Verify(); err != nil || j.Close() != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256([]byte("test"))
	index := filepath.Join(state, "sessions", hex.EncodeToString(sum[:])+".jsonl")
	data, err := os.ReadFile(index)
	if err != nil {
		t.Fatal(err)
	}
	var last, receipt []byte
	var lastSeq int64
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := append([]byte(nil), sc.Bytes()...)
		var r struct {
			Seq  int64  `json:"seq"`
			Type string `json:"type"`
		}
		json.Unmarshal(line, &r)
		if r.Type == "receipt" {
			receipt = line
		}
		last, lastSeq = line, r.Seq
	}
	if receipt == nil {
		t.Fatal("no receipt in the index")
	}
	var rec map[string]any
	json.Unmarshal(receipt, &rec)
	h := sha256.Sum256(last)
	rec["seq"] = lastSeq + 1
	rec["prev"] = "sha256:" + hex.EncodeToString(h[:])
	rec["path"] = strings.Replace(rec["path"].(string), "a.txt", "b.txt", 1)
	forged, _ := json.Marshal(rec)
	os.WriteFile(index, append(append(data, forged...), '\n'), 0o600)

	_, err = s.Undo(ctx, stet.UndoArgs{Path: "b.txt"})
	if r, ok := stet.AsRefusal(err); !ok || r.Kind != stet.KindConflict || !strings.Contains(r.Message, "stet verify --all") {
		t.Errorf("undo over a forged index line: %v, want a conflict refusal naming stet verify --all", err)
	}
	// A new process does not rebuild the session from it either.
	ws2, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.Close()
	s2, err := ws2.Session("test")
	if err == nil {
		_, err = s2.Undo(ctx, stet.UndoArgs{Path: "b.txt"})
	}
	if err == nil {
		t.Error("undo acted on a forged index line")
	}
	if got := content(t, root, "b.txt"); got != "ONE\n" {
		t.Fatalf("b.txt now %q", got)
	}
}

// A hard link is another name of the same file: a link to a hidden file is
// hidden from every tool too, wherever it stands; a hard link to a file no
// rule hides (a package manager's store) is served as usual.
func TestDenyReadThroughHardLink(t *testing.T) {
	_, s, root := open(t, map[string]string{"secrets/db.env": "PASSWORD=hunter2\n", "store/pkg.js": "exports.ok = 1\n"},
		stet.Options{DenyRead: []string{"secrets/**"}})
	for old, link := range map[string]string{"secrets/db.env": "leak.txt", "store/pkg.js": "node_modules/pkg.js"} {
		os.MkdirAll(filepath.Dir(filepath.Join(root, link)), 0o755)
		if err := os.Link(filepath.Join(root, old), filepath.Join(root, link)); err != nil {
			t.Skipf("hard links: %v", err)
		}
	}
	assertHidden(t, s, "leak.txt", "hunter2")
	for _, e := range mustList(t, s, ".").Entries {
		if strings.Contains(e.Name, "leak.txt") {
			t.Errorf("list shows the hard link to a hidden file: %+v", e)
		}
	}
	if f, err := s.Find(ctx, stet.FindArgs{Pattern: "**"}); err != nil || slices.Contains(f.Paths, "leak.txt") || len(f.Paths) == 0 {
		t.Errorf("find: %v %+v; want the other files and not the hard link to a hidden file", err, f)
	}
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "leak.txt", OldString: ptr("hunter2"), NewString: ptr("x")}); kindOf(err) != stet.KindNotFound {
		t.Errorf("edit of a hard link to a denied file: %v, want not_found", err)
	}
	if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "leak.txt"}); kindOf(err) != stet.KindNotFound {
		t.Errorf("delete of a hard link to a denied file: %v, want not_found", err)
	}
	if r, err := s.Read(ctx, stet.ReadArgs{Path: "node_modules/pkg.js"}); err != nil || !strings.Contains(r.Frame, "exports.ok") {
		t.Errorf("read of a hard link to an ordinary file: %v", err)
	}
	if g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "exports", NoIgnore: true}); err != nil || len(g.Matches) != 2 {
		t.Errorf("grep of ordinary hard-linked files: %v %+v", err, g)
	}
	if got := content(t, root, "secrets/db.env"); got != "PASSWORD=hunter2\n" {
		t.Fatalf("denied file now %q", got)
	}
}
