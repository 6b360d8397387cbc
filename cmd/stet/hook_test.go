package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// hookRun runs `stet hook CLIENT` in process with event on stdin.
func hookRun(t *testing.T, state, root, client, event string, flags ...string) (code int, stdout, stderr string) {
	t.Helper()
	args := append([]string{"hook", client, "--root", root, "--state", state}, flags...)
	var out, errb bytes.Buffer
	code = run(context.Background(), args, strings.NewReader(event), &out, &errb)
	return code, out.String(), errb.String()
}

// fixture is a hook payload of testdata/hooks with its placeholders
// (/PROJECT, /HOME) made this test's directories.
func fixture(t *testing.T, name, root string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "hooks", name))
	if err != nil {
		t.Fatal(err)
	}
	s := strings.ReplaceAll(string(b), "/PROJECT", filepath.ToSlash(root))
	return strings.ReplaceAll(s, "/HOME", filepath.ToSlash(filepath.Dir(root)))
}

// hookTree makes the tree the fixtures name: src/a.txt, a protected file
// and a secret.
func hookTree(t *testing.T) (root, state string) {
	t.Helper()
	dir := t.TempDir()
	if r, err := filepath.EvalSymlinks(dir); err == nil {
		dir = r
	}
	root = filepath.Join(dir, "PROJECT")
	for name, body := range map[string]string{"src/a.txt": "alpha\nbeta\ngamma\n", "secret.env": "TOKEN=1\n", "deploy.yaml": "prod: true\n"} {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root, filepath.Join(dir, "state")
}

// decision is the block a client's answer carries, in any client's words.
func decision(t *testing.T, stdout string) string {
	t.Helper()
	if strings.TrimSpace(stdout) == "" {
		return ""
	}
	var m map[string]any
	if err := json.Unmarshal([]byte(stdout), &m); err != nil {
		t.Fatalf("the answer is not JSON: %v\n%s", err, stdout)
	}
	if h, ok := m["hookSpecificOutput"].(map[string]any); ok {
		if d, _ := h["permissionDecision"].(string); d != "" {
			return d + ": " + h["permissionDecisionReason"].(string)
		}
	}
	if d, _ := m["decision"].(string); d != "" {
		return d + ": " + m["reason"].(string)
	}
	if d, _ := m["permission"].(string); d == "deny" {
		return d + ": " + m["agent_message"].(string)
	}
	return ""
}

// TestHookAnswersEveryFixture runs every payload of testdata/hooks (taken
// from each client's documentation or captured from it) through stet hook:
// each is answered with exit 0 and nothing or JSON in the client's form,
// never a crash.
func TestHookAnswersEveryFixture(t *testing.T) {
	for _, client := range []string{"claude-code", "codex", "gemini", "cursor", "vscode"} {
		files, _ := filepath.Glob(filepath.Join("testdata", "hooks", client, "*.json"))
		if len(files) == 0 {
			t.Fatalf("no fixtures for %s", client)
		}
		for _, f := range files {
			t.Run(client+"/"+filepath.Base(f), func(t *testing.T) {
				root, state := hookTree(t)
				code, out, errOut := hookRun(t, state, root, client, fixture(t, client+"/"+filepath.Base(f), root))
				if code != 0 {
					t.Fatalf("exit %d\n%s%s", code, out, errOut)
				}
				if out != "" && !json.Valid([]byte(out)) {
					t.Fatalf("stdout is not JSON:\n%s", out)
				}
			})
		}
	}
}

// TestHookBadEventIsNoOpinion: an event that does not read is answered "no
// opinion" in the client's form and reported on stderr, never an exit that
// blocks the user's agent.
func TestHookBadEventIsNoOpinion(t *testing.T) {
	for _, client := range []string{"claude-code", "codex", "gemini", "cursor", "vscode"} {
		for _, ev := range []string{"", "not json", `{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_input":"x"}`, `[1,2]`} {
			root, state := hookTree(t)
			code, out, errOut := hookRun(t, state, root, client, ev)
			if code != 0 || decision(t, out) != "" {
				t.Errorf("%s, event %q: exit %d, answer %q; want exit 0 and no decision", client, ev, code, out)
			}
			// An Edit event is Claude Code's (and VS Code's, which reads its
			// payloads); the others have no such tool and say nothing of it.
			noted := ev != "" && (!strings.Contains(ev, "Edit") || client == "claude-code" || client == "vscode")
			if noted && !strings.Contains(errOut, "no opinion") {
				t.Errorf("%s, event %q: stderr %q does not report it", client, ev, errOut)
			}
		}
	}
	code, _, errOut := hookRun(t, t.TempDir(), t.TempDir(), "emacs", "{}")
	if code != exitUsage || !strings.Contains(errOut, "claude-code") {
		t.Errorf("an unknown client: exit %d %q, want usage naming the clients", code, errOut)
	}
}

// TestHookCodexFlow: Codex's apply_patch is checked before it runs (a
// protected file refused, the disk untouched), and an allowed patch lands
// with a verified receipt once its PostToolUse comes.
func TestHookCodexFlow(t *testing.T) {
	root, state := hookTree(t)
	pre := fixture(t, "codex/PreToolUse-apply_patch.json", root)
	code, out, _ := hookRun(t, state, root, "codex", strings.Replace(pre, "src/a.txt", "deploy.yaml", 1), "--protect", "deploy.yaml")
	if d := decision(t, out); code != 0 || !strings.HasPrefix(d, "deny: refused:") || !strings.Contains(d, "protected") {
		t.Fatalf("a patch of a protected file: exit %d, %q", code, d)
	}
	// The patch's context lines are its read: Codex reads through its shell.
	code, out, errOut := hookRun(t, state, root, "codex", pre)
	if code != 0 || decision(t, out) != "" {
		t.Fatalf("an allowed patch: exit %d %q %s", code, out, errOut)
	}
	os.WriteFile(filepath.Join(root, "src", "a.txt"), []byte("ALPHA\nbeta\ngamma\n"), 0o644) // Codex applies it
	if code, out, errOut := hookRun(t, state, root, "codex", fixture(t, "codex/PostToolUse-apply_patch.json", root)); code != 0 || out != "" {
		t.Fatalf("PostToolUse: exit %d %q %s", code, out, errOut)
	}
	log := runLog(t, state, root)
	if !strings.Contains(log, "apply_patch") || !strings.Contains(log, "verified") {
		t.Errorf("stet log does not list a verified apply_patch:\n%s", log)
	}
}

// runLog is `stet log` of the workspace, every session.
func runLog(t *testing.T, state, root string) string {
	t.Helper()
	var out, errb bytes.Buffer
	if code := run(context.Background(), []string{"log", "--root", root, "--state", state}, nil, &out, &errb); code != 0 {
		t.Fatalf("stet log: exit %d %s", code, errb.String())
	}
	return out.String()
}

// TestHookGeminiFlow: a read of a deny-read file is refused, an edit of a
// file the model did not read is refused showing it, and the retry lands.
func TestHookGeminiFlow(t *testing.T) {
	root, state := hookTree(t)
	read := fixture(t, "gemini/BeforeTool-read_file.json", root)
	_, out, _ := hookRun(t, state, root, "gemini", strings.Replace(read, "src/a.txt", "secret.env", 1), "--deny-read", "*.env")
	if d := decision(t, out); !strings.HasPrefix(d, "deny:") {
		t.Fatalf("a read of a deny-read file: %q", out)
	}
	replace := fixture(t, "gemini/BeforeTool-replace.json", root)
	_, out, _ = hookRun(t, state, root, "gemini", replace)
	if d := decision(t, out); !strings.Contains(d, "not been read") || !strings.Contains(d, "00001|alpha") {
		t.Fatalf("an edit of an unread file: %q, want a refusal showing the file", d)
	}
	_, out, _ = hookRun(t, state, root, "gemini", replace)
	if d := decision(t, out); d != "" {
		t.Fatalf("the retry after the refusal showed the file: %q", d)
	}
}

// TestHookCursorFlow: Cursor's reads of deny-read files are refused in its
// words; its edits, told after they landed, get receipts that undo takes
// back.
func TestHookCursorFlow(t *testing.T) {
	root, state := hookTree(t)
	read := fixture(t, "cursor/beforeReadFile.json", root)
	_, out, _ := hookRun(t, state, root, "cursor", strings.Replace(read, "src/a.txt", "secret.env", 1), "--deny-read", "*.env")
	if d := decision(t, out); !strings.HasPrefix(d, "deny:") {
		t.Fatalf("a read of a deny-read file: %q", out)
	}
	_, out, _ = hookRun(t, state, root, "cursor", read)
	if !strings.Contains(out, `"permission":"allow"`) {
		t.Fatalf("a plain read: %q, want allow", out)
	}
	os.WriteFile(filepath.Join(root, "src", "a.txt"), []byte("ALPHA\nbeta\ngamma\n"), 0o644)
	if code, out, errOut := hookRun(t, state, root, "cursor", fixture(t, "cursor/afterFileEdit.json", root)); code != 0 || errOut != "" {
		t.Fatalf("afterFileEdit: exit %d %q %s", code, out, errOut)
	}
	var o, e bytes.Buffer
	code := run(context.Background(), []string{"undo", "--root", root, "--state", state, "--session", "cursor-5e7e7e57-0000-4000-8000-00000000c1a5", "src/a.txt"}, nil, &o, &e)
	if code != 0 {
		t.Fatalf("undo: exit %d %s%s", code, o.String(), e.String())
	}
	if b, _ := os.ReadFile(filepath.Join(root, "src", "a.txt")); string(b) != "alpha\nbeta\ngamma\n" {
		t.Errorf("after undo src/a.txt holds %q", b)
	}
}

// TestHookVSCodeFlow: VS Code's replace tool is refused before the file
// was read, then lands once its read_file came back.
func TestHookVSCodeFlow(t *testing.T) {
	root, state := hookTree(t)
	pre := fixture(t, "vscode/PreToolUse-replace_string_in_file.json", root)
	read := strings.Replace(fixture(t, "vscode/PreToolUse-read_file.json", root), `"PreToolUse"`, `"PostToolUse"`, 1)
	read = strings.Replace(read, `"endLine": 2`, `"endLine": 4`, 1)
	if _, out, _ := hookRun(t, state, root, "vscode", read); out != "" {
		t.Fatalf("PostToolUse of read_file: %q", out)
	}
	if _, out, errOut := hookRun(t, state, root, "vscode", pre); decision(t, out) != "" {
		t.Fatalf("an edit of a file read: %q %s", out, errOut)
	}
	os.WriteFile(filepath.Join(root, "src", "a.txt"), []byte("ALPHA\nbeta\ngamma\n"), 0o644)
	post := strings.Replace(pre, `"PreToolUse"`, `"PostToolUse"`, 1)
	if code, out, errOut := hookRun(t, state, root, "vscode", post); code != 0 || out != "" {
		t.Fatalf("PostToolUse: exit %d %q %s", code, out, errOut)
	}
	if log := runLog(t, state, root); !strings.Contains(log, "replace_string_in_file") || !strings.Contains(log, "verified") {
		t.Errorf("stet log does not list the verified change:\n%s", log)
	}
}

// TestHookFailsSafe: when stet cannot open its journal, a change is
// refused with the reason and the way out, and a read passes with a
// warning.
func TestHookFailsSafe(t *testing.T) {
	root, _ := hookTree(t)
	state := filepath.Join(t.TempDir(), "a-file")
	os.WriteFile(state, []byte("not a directory"), 0o644)
	_, out, _ := hookRun(t, state, root, "claude-code", fixture(t, "claude-code/PreToolUse-Edit.json", root))
	if d := decision(t, out); !strings.Contains(d, "cannot check this change") || !strings.Contains(d, "stet verify --all") {
		t.Errorf("a change stet cannot check: %q, want a refusal naming the way out", out)
	}
	code, out, _ := hookRun(t, state, root, "claude-code", fixture(t, "claude-code/PreToolUse-Read.json", root))
	if code != 0 || decision(t, out) != "" || !strings.Contains(out, "systemMessage") {
		t.Errorf("a read stet cannot check: exit %d %q, want it let through with a warning", code, out)
	}
}
