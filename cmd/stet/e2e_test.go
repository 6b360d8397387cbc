package main

import (
	"github.com/stet-dev/stet/internal/pgtest"

	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"sync"
	"testing"

	"github.com/stet-dev/stet/internal/fstree"
)

// bin is the stet binary built once for the end-to-end tests.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "stet-e2e-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "stet")
	if runtime.GOOS == "windows" {
		bin += ".exe"
	}
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building stet:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	pgtest.Cleanup()
	os.Exit(code)
}

// ws is a workspace and a state directory for one test.
type ws struct {
	t     *testing.T
	root  string
	state string
	env   []string
}

func newWS(t *testing.T, files map[string]string) *ws {
	t.Helper()
	w := &ws{t: t, root: t.TempDir(), state: t.TempDir()}
	for name, content := range files {
		w.put(name, content)
	}
	return w
}

func (w *ws) put(name, content string) {
	w.t.Helper()
	p := filepath.Join(w.root, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		w.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		w.t.Fatal(err)
	}
}

func (w *ws) get(name string) string {
	w.t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, filepath.FromSlash(name)))
	if err != nil {
		w.t.Fatal(err)
	}
	return string(b)
}

// result of one stet run.
type result struct {
	code   int
	stdout string
	stderr string
}

func (r result) json(t *testing.T) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &m); err != nil {
		t.Fatalf("stdout is not a JSON object: %v\n%s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return m
}

// run runs stet in the workspace root with its own state directory.
func (w *ws) run(stdin string, args ...string) result {
	w.t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Dir = w.root
	cmd.Env = append(os.Environ(), "STET_STATE="+w.state, "STET_SESSION=", "STET_EFFECTS=")
	cmd.Env = append(cmd.Env, w.env...)
	cmd.Stdin = strings.NewReader(stdin)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		w.t.Fatal(err)
	}
	return result{code: code, stdout: out.String(), stderr: errb.String()}
}

func (w *ws) ok(args ...string) result {
	w.t.Helper()
	r := w.run("", args...)
	if r.code != 0 {
		w.t.Fatalf("stet %s: exit %d\nstdout: %s\nstderr: %s", strings.Join(args, " "), r.code, r.stdout, r.stderr)
	}
	return r
}

// treeHash hashes every file, directory and link under dir.
func treeHash(t *testing.T, dir string) string {
	t.Helper()
	h := sha256.New()
	var names []string
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		names = append(names, p)
		return nil
	})
	sort.Strings(names)
	for _, p := range names {
		info, err := os.Lstat(p)
		if err != nil {
			t.Fatal(err)
		}
		rel, _ := filepath.Rel(dir, p)
		fmt.Fprintf(h, "%s %v\n", rel, info.Mode())
		switch {
		case info.Mode()&fs.ModeSymlink != 0:
			target, _ := os.Readlink(p)
			fmt.Fprintf(h, "-> %s\n", target)
		case info.Mode().IsRegular():
			b, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			h.Write(b)
		}
	}
	return hex.EncodeToString(h.Sum(nil))
}

func TestReadEditFlow(t *testing.T) {
	w := newWS(t, map[string]string{"notes.txt": "alpha\nbeta\ngamma\n"})
	r := w.ok("read", "notes.txt")
	want := "00001|alpha\n00002|beta\n00003|gamma\n00004|\n(4 lines)\n"
	if r.stdout != want {
		t.Fatalf("read printed\n%q\nwant\n%q", r.stdout, want)
	}
	r = w.ok("edit", "notes.txt", "--old-string", "beta", "--new-string", "BETA", "--json")
	m := r.json(t)
	rc := m["receipt"].(map[string]any)
	if rc["verified"] != true || rc["tool"] != "edit" || rc["path"] != "notes.txt" {
		t.Fatalf("receipt: %v", rc)
	}
	if got := w.get("notes.txt"); got != "alpha\nBETA\ngamma\n" {
		t.Fatalf("file holds %q", got)
	}
	if !strings.Contains(m["diff"].(string), "-beta\n+BETA") {
		t.Fatalf("diff: %s", m["diff"])
	}
	// Someone else changes the file: the next edit is refused, nothing lost.
	w.put("notes.txt", "alpha\nBETA\ngamma\ndelta\n")
	r = w.run("", "edit", "notes.txt", "--old-string", "alpha", "--new-string", "ALPHA")
	if r.code != 3 || !strings.Contains(r.stderr, "changed since you read it") || !strings.Contains(r.stderr, "read it again") {
		t.Fatalf("stale edit: exit %d, stderr %q", r.code, r.stderr)
	}
	if got := w.get("notes.txt"); got != "alpha\nBETA\ngamma\ndelta\n" {
		t.Fatalf("refused edit changed the file: %q", got)
	}
	w.ok("read", "notes.txt")
	w.ok("edit", "notes.txt", "--old-string", "alpha", "--new-string", "ALPHA")
	if got := w.get("notes.txt"); got != "ALPHA\nBETA\ngamma\ndelta\n" {
		t.Fatalf("file holds %q", got)
	}
	r = w.ok("log", "--json")
	if n := len(r.json(t)["receipts"].([]any)); n != 2 {
		t.Fatalf("log lists %d receipts, want 2:\n%s", n, r.stdout)
	}
	w.ok("undo", "notes.txt")
	if got := w.get("notes.txt"); got != "alpha\nBETA\ngamma\ndelta\n" {
		t.Fatalf("undo left %q", got)
	}
	w.ok("verify", "--all")
}

// TestRefusals runs one refusal of each kind the CLI owns through the
// binary: exit 3, the right kind, a next step, and the workspace unchanged.
func TestRefusals(t *testing.T) {
	type tc struct {
		name  string
		setup func(w *ws)
		args  []string
		kind  string
		hint  string // a word of the next step
	}
	bigLine := strings.Repeat("x", 300<<10)
	cases := []tc{
		{"invalid", nil, []string{"call", "edit", "--json", `{"path":"a.txt","old_str":"x","new_string":"y"}`}, "invalid", "old_string"},
		{"invalid-edits-key", func(w *ws) { w.ok("read", "a.txt") }, []string{"edit", "a.txt", "--edits", `[{"old_sting":"one","new_string":"two"}]`}, "invalid", `did you mean "old_string"`},
		{"invalid-same", func(w *ws) { w.ok("read", "a.txt") }, []string{"edit", "a.txt", "--old-string", "one", "--new-string", "one"}, "invalid", "would change nothing"},
		{"outside-dotdot", nil, []string{"read", "../x.txt"}, "outside", "inside"},
		{"outside-abs", nil, []string{"read", "/etc/hostname"}, "outside", "inside"},
		{"outside-symlink", func(w *ws) {
			os.Symlink(filepath.Join(filepath.Dir(w.root), "elsewhere.txt"), filepath.Join(w.root, "link.txt"))
		}, []string{"read", "link.txt"}, "outside", "inside"},
		{"not_found", nil, []string{"read", "missing.txt"}, "not_found", "list"},
		{"not_regular", func(w *ws) {
			if err := fstree.Mkfifo(filepath.Join(w.root, "pipe")); err != nil {
				t.Skip("no FIFOs here")
			}
		}, []string{"read", "pipe"}, "not_regular", "regular"},
		{"read_only", func(w *ws) { w.ok("read", "a.txt") }, []string{"--effects", "read-only", "edit", "a.txt", "--old-string", "one", "--new-string", "two"}, "read_only", "report"},
		{"protected", func(w *ws) { w.put(".git/config", "[core]\n"); w.ok("read", ".git/config") }, []string{"edit", ".git/config", "--old-string", "core", "--new-string", "x"}, "protected", "leave it alone"},
		{"not_read", nil, []string{"edit", "a.txt", "--old-string", "one", "--new-string", "two"}, "not_read", "its frame follows"},
		{"not_read-create", nil, []string{"write", "new.txt", "--content", "hi\n"}, "not_read", "its listing follows"},
		{"changed", func(w *ws) { w.ok("read", "a.txt"); w.put("a.txt", "one\nchanged\n") }, []string{"edit", "a.txt", "--old-string", "one", "--new-string", "two"}, "changed", "read it again"},
		{"not_seen", func(w *ws) {
			w.put("long.txt", strings.Repeat("line\n", 50)+"target\n")
			w.ok("read", "long.txt", "--limit", "10")
		}, []string{"edit", "long.txt", "--old-string", "target", "--new-string", "hit"}, "not_seen", "it follows now"},
		{"exists", func(w *ws) { w.put("b.txt", "bee\n"); w.ok("read", "a.txt") }, []string{"move", "a.txt", "b.txt"}, "exists", "overwrite"},
		{"no_match", func(w *ws) { w.ok("read", "a.txt") }, []string{"edit", "a.txt", "--old-string", "  one", "--new-string", "two"}, "no_match", "indentation"},
		{"ambiguous", func(w *ws) { w.put("d.txt", "x = 1\ny\nx = 1\n"); w.ok("read", "d.txt") }, []string{"edit", "d.txt", "--old-string", "x = 1", "--new-string", "x = 2"}, "ambiguous", "replace_all"},
		{"binary", func(w *ws) { w.put("bin.dat", "ab\x00cd") }, []string{"read", "bin.dat"}, "binary", "text"},
		{"not_utf8", func(w *ws) { w.put("latin.txt", "caf\xe9\n") }, []string{"read", "latin.txt"}, "not_utf8", "offset 3"},
		{"too_large", func(w *ws) { w.put("wide.txt", bigLine+"\n") }, []string{"read", "wide.txt"}, "too_large", "grep"},
		{"input", func(w *ws) {
			w.ok("turn", "--request", "tidy the notes", "--inputs", "a.txt")
			w.ok("read", "a.txt")
		}, []string{"write", "a.txt", "--content", "short\n", "--overwrite"}, "input", "edit it in place"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			w := newWS(t, map[string]string{"a.txt": "one\ntwo\n"})
			if c.setup != nil {
				c.setup(w)
			}
			before := treeHash(t, w.root)
			jsonArgs := c.args
			if c.args[0] != "call" { // call always prints JSON; its --json takes the arguments
				jsonArgs = append(append([]string{}, c.args...), "--json")
			}
			r := w.run("", jsonArgs...)
			if r.code != 3 {
				t.Fatalf("exit %d, want 3\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
			}
			m := r.json(t)
			if m["refused"] != c.kind {
				t.Fatalf("refused %v, want %s: %s", m["refused"], c.kind, r.stdout)
			}
			msg, _ := m["message"].(string)
			if !strings.HasPrefix(msg, "refused: ") || !strings.Contains(msg, c.hint) {
				t.Fatalf("message %q lacks %q", msg, c.hint)
			}
			if after := treeHash(t, w.root); after != before {
				t.Fatalf("a refused call changed the workspace")
			}
			// Without --json the message goes to stderr, still exit 3 (in
			// another session: a not_read refusal counts as the look it
			// asked for, so the same session's retry would land).
			r = w.run("", append([]string{"--session", "text-mode"}, c.args...)...)
			if c.args[0] == "call" {
				r.stderr = r.stdout // call prints the refusal object on stdout
			}
			if r.code != 3 || !strings.Contains(r.stderr, "refused: ") {
				t.Fatalf("text mode: exit %d stderr %q", r.code, r.stderr)
			}
			// What a not_read refusal shows, it shows in text too.
			if shown := map[string]string{"not_read": "\n\n00001|one\n", "not_read-create": "\n\na.txt  ("}[c.name]; !strings.Contains(r.stderr, shown) {
				t.Fatalf("text mode: stderr %q lacks %q", r.stderr, shown)
			}
		})
	}
}

func TestExitCodes(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\n"})
	if r := w.run("", "frobnicate"); r.code != 2 {
		t.Fatalf("unknown command: exit %d", r.code)
	}
	if r := w.run("", "read", "--no-such-flag", "a.txt"); r.code != 2 {
		t.Fatalf("unknown flag: exit %d", r.code)
	}
	if r := w.run("", "read"); r.code != 2 {
		t.Fatalf("missing path: exit %d", r.code)
	}
	if r := w.ok("version"); !strings.HasPrefix(r.stdout, "stet ") {
		t.Fatalf("version: %q", r.stdout)
	}
	// Global flags before or after the command.
	a := w.ok("--json", "read", "a.txt")
	b := w.ok("read", "a.txt", "--json")
	if a.json(t)["frame"] != b.json(t)["frame"] {
		t.Fatal("--json before and after the command differ")
	}
}

func TestBindingNotSeenThenLands(t *testing.T) {
	w := newWS(t, map[string]string{"long.txt": strings.Repeat("filler\n", 30) + "needle\n" + strings.Repeat("filler\n", 30)})
	w.ok("read", "long.txt", "--limit", "5")
	r := w.run("", "edit", "long.txt", "--old-string", "needle", "--new-string", "pin", "--json")
	m := r.json(t)
	if r.code != 3 || m["refused"] != "not_seen" || m["offset"] != float64(31) || m["limit"] != float64(1) {
		t.Fatalf("want not_seen with offset 31 limit 1, got exit %d %v", r.code, m)
	}
	w.ok("read", "long.txt", "--offset", "31", "--limit", "1")
	w.ok("edit", "long.txt", "--old-string", "needle", "--new-string", "pin")
	if !strings.Contains(w.get("long.txt"), "\npin\n") {
		t.Fatal("edit did not land after reading the lines")
	}
}

// TestTwoProcessesOneFile: two sessions edit one file at once; one lands,
// the other is refused, and no update is lost.
func TestTwoProcessesOneFile(t *testing.T) {
	for round := 0; round < 5; round++ {
		w := newWS(t, map[string]string{"shared.txt": "count: 0\n"})
		w.ok("read", "shared.txt", "--session", "a")
		w.ok("read", "shared.txt", "--session", "b")
		var wg sync.WaitGroup
		res := make([]result, 2)
		for i, s := range []string{"a", "b"} {
			wg.Add(1)
			go func() {
				defer wg.Done()
				res[i] = w.run("", "edit", "shared.txt", "--session", s, "--old-string", "count: 0", "--new-string", "count: "+s, "--json")
			}()
		}
		wg.Wait()
		landed, refused := 0, 0
		for _, r := range res {
			switch r.code {
			case 0:
				landed++
			case 3:
				kind := r.json(t)["refused"]
				if kind != "changed" && kind != "conflict" && kind != "no_match" {
					t.Fatalf("refused as %v", kind)
				}
				refused++
			default:
				t.Fatalf("exit %d: %s %s", r.code, r.stdout, r.stderr)
			}
		}
		got := w.get("shared.txt")
		if landed != 1 || refused != 1 || (got != "count: a\n" && got != "count: b\n") {
			t.Fatalf("round %d: %d landed, %d refused, file %q", round, landed, refused, got)
		}
		w.ok("verify", "--all")
	}
}

func TestVerifyCatchesTampering(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\n"})
	w.ok("read", "a.txt")
	w.ok("write", "a.txt", "--content", "uno\n")
	w.ok("verify", "--all")
	// A blob altered by hand.
	var blobs []string
	filepath.WalkDir(filepath.Join(w.state, "objects"), func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			blobs = append(blobs, p)
		}
		return nil
	})
	if len(blobs) == 0 {
		t.Fatal("the replaced content was not saved as a blob")
	}
	orig, _ := os.ReadFile(blobs[0])
	os.Chmod(blobs[0], 0o644)
	os.WriteFile(blobs[0], []byte("tampered"), 0o644)
	if r := w.run("", "verify", "--all"); r.code == 0 || !strings.Contains(r.stdout, "PROBLEM") {
		t.Fatalf("verify missed a tampered blob: exit %d\n%s", r.code, r.stdout)
	}
	os.WriteFile(blobs[0], orig, 0o644)
	w.ok("verify", "--all")
	// A journal line altered by hand.
	jp := filepath.Join(w.state, "journal.jsonl")
	j, err := os.ReadFile(jp)
	if err != nil {
		t.Fatal(err)
	}
	changed := bytes.Replace(j, []byte(`"tool":"write"`), []byte(`"tool":"edit"`), 1)
	if bytes.Equal(changed, j) {
		t.Fatal("no receipt line to alter")
	}
	os.WriteFile(jp, changed, 0o644)
	if r := w.run("", "verify", "--all"); r.code == 0 || !strings.Contains(r.stdout, "journal line") {
		t.Fatalf("verify missed an altered line: exit %d\n%s", r.code, r.stdout)
	}
}

func TestUndo(t *testing.T) {
	orig := "one\r\ntwo\r\n\tthree"
	w := newWS(t, map[string]string{"a.txt": orig})
	w.ok("read", "a.txt")
	w.ok("write", "a.txt", "--content", "replaced\n")
	w.ok("undo", "a.txt")
	if got := w.get("a.txt"); got != orig {
		t.Fatalf("undo restored %q, want %q", got, orig)
	}
	// Undo refuses when the file no longer holds the change's result.
	w.ok("read", "a.txt")
	w.ok("edit", "a.txt", "--old-string", "two", "--new-string", "TWO")
	w.put("a.txt", "someone else\n")
	r := w.run("", "undo", "a.txt", "--json")
	if r.code != 3 || r.json(t)["refused"] != "changed" {
		t.Fatalf("undo over a foreign change: exit %d %s", r.code, r.stdout)
	}
	if got := w.get("a.txt"); got != "someone else\n" {
		t.Fatalf("refused undo changed the file: %q", got)
	}
	// Undo of a delete brings the bytes back; undo of a create removes the file.
	w.ok("read", "a.txt")
	w.ok("delete", "a.txt")
	if _, err := os.Stat(filepath.Join(w.root, "a.txt")); !os.IsNotExist(err) {
		t.Fatal("delete left the file")
	}
	w.ok("undo", "a.txt")
	if got := w.get("a.txt"); got != "someone else\n" {
		t.Fatalf("undo of delete: %q", got)
	}
	w.ok("list")
	w.ok("write", "fresh.txt", "--content", "new\n")
	w.ok("undo", "fresh.txt")
	if _, err := os.Stat(filepath.Join(w.root, "fresh.txt")); !os.IsNotExist(err) {
		t.Fatal("undo of create left the file")
	}
	w.ok("verify", "--all")
}

func TestCallAndTools(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\n"})
	r := w.ok("call", "read", "--json", `{"path":"a.txt"}`)
	m := r.json(t)
	if m["frame"] != "00001|one\n00002|\n(2 lines)" || m["lines"] != float64(2) {
		t.Fatalf("call read: %v", m)
	}
	for _, f := range []string{"mcp", "openai", "anthropic", "openai-responses"} {
		r := w.ok("tools", "--format", f)
		var defs []any
		if err := json.Unmarshal([]byte(r.stdout), &defs); err != nil || len(defs) != 13 {
			t.Fatalf("tools --format %s: %d defs, %v", f, len(defs), err)
		}
	}
	r = w.ok("tools", "--format", "mcp", "--effects", "read-only")
	var defs []any
	json.Unmarshal([]byte(r.stdout), &defs)
	if len(defs) != 6 {
		t.Fatalf("read-only tools: %d, want 6 (read, info, roots, list, find, grep)", len(defs))
	}
}

// TestArgumentsSameWords: a subcommand and `stet call` refuse bad arguments
// with the same message (rule 1 has one home).
func TestArgumentsSameWords(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\n"})
	w.ok("read", "a.txt")
	for _, tc := range []struct {
		args []string
		json string
		tool string
	}{
		{[]string{"edit", "a.txt", "--old-string", "one", "--new-string", "one"}, `{"path":"a.txt","old_string":"one","new_string":"one"}`, "edit"},
		{[]string{"read", "a.txt", "--offset", "-1"}, `{"path":"a.txt","offset":-1}`, "read"},
		{[]string{"grep", "one", "--context", "5000"}, `{"pattern":"one","context":5000}`, "grep"},
		{[]string{"edit", "a.txt", "--old-string", "one", "--new-string", "1", "--expected-version", "sha256:" + strings.Repeat("A", 64)},
			`{"path":"a.txt","old_string":"one","new_string":"1","expected_version":"sha256:` + strings.Repeat("A", 64) + `"}`, "edit"},
	} {
		sub := w.run("", tc.args...)
		call := w.run("", "call", tc.tool, "--json", tc.json)
		if sub.code != 3 || call.code != 3 {
			t.Errorf("%v: exit %d, call exit %d; want 3 (refused)", tc.args, sub.code, call.code)
			continue
		}
		msg, _ := call.json(t)["message"].(string)
		if strings.TrimSpace(sub.stderr) != msg || !strings.HasPrefix(msg, "refused: "+tc.tool+": ") {
			t.Errorf("%v:\n subcommand: %q\n call:       %q", tc.args, strings.TrimSpace(sub.stderr), msg)
		}
	}
}

// TestListSortFlag: list takes sort as --sort, as every tool argument has
// its flag (SPEC section 2).
func TestListSortFlag(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "a\n", "b.txt": "bbbb\n"})
	m := w.ok("list", "--sort", "size", "--json").json(t)
	entries, _ := m["entries"].([]any)
	if len(entries) != 2 || entries[0].(map[string]any)["name"] != "b.txt" {
		t.Fatalf("list --sort size: %v", m)
	}
	if r := w.run("", "list", "--sort", "sise", "--json"); r.code != 3 || r.json(t)["refused"] != "invalid" {
		t.Fatalf("list --sort sise: exit %d %s", r.code, r.stdout)
	}
}

// verify and gc speak of what they counted in words a person reads: one
// receipt is "1 receipt", and a gc that dropped nothing says so instead of
// reporting negative bytes freed.
func TestAuditWording(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\n"})
	w.ok("read", "a.txt")
	w.ok("edit", "a.txt", "--old-string", "one", "--new-string", "two")
	r := w.ok("verify", "--all")
	if !strings.Contains(r.stdout, "1 receipt (") {
		t.Errorf("verify: %q, want \"1 receipt (\"", r.stdout)
	}
	r = w.ok("gc")
	if strings.Contains(r.stdout, "freed -") {
		t.Errorf("gc: %q", r.stdout)
	}
}
