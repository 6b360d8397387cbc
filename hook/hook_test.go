package hook

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/policy"
)

// fixtures are the payloads cmd/stet's tests share: captured from Claude
// Code, taken from the other clients' documentation (see SOURCES.md there).
const fixtures = "../cmd/stet/testdata/hooks"

func load(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestParse reads each client's payloads into stet's terms: what kind of
// event, which file, which window, which change.
func TestParse(t *testing.T) {
	for _, c := range []struct {
		client, file string
		kind         Kind
		path         string // suffix of Path, or of the first change's path
		offset       int
		limit        int
		change       string // the first change's type
		changes      int
		unseen       bool
	}{
		{client: "claude-code", file: "UserPromptSubmit.json", kind: Prompt},
		{client: "claude-code", file: "PreToolUse-Read.json", kind: BeforeRead, path: ".txt"},
		{client: "claude-code", file: "PostToolUse-Read-window.json", kind: AfterRead, path: "big.txt", offset: 2, limit: 3},
		{client: "claude-code", file: "PreToolUse-Edit.json", kind: BeforeChange, path: "notes.txt", change: "tools.EditArgs", changes: 1},
		{client: "claude-code", file: "PreToolUse-Write-create.json", kind: BeforeChange, path: "new.txt", change: "tools.WriteArgs", changes: 1},
		{client: "claude-code", file: "PreToolUse-NotebookEdit.json", kind: BeforeChange, path: "nb.ipynb", change: "stet.ClientRewrite", changes: 1},
		{client: "claude-code", file: "PostToolUse-Edit.json", kind: AfterChange},
		{client: "claude-code", file: "PostToolUseFailure-Edit-fails.json", kind: ChangeFailed},
		{client: "claude-code", file: "PostToolUseFailure-Read-missing.json", kind: Other},
		{client: "claude-code", file: "Stop.json", kind: Other},
		{client: "codex", file: "UserPromptSubmit.json", kind: Prompt},
		{client: "codex", file: "PreToolUse-apply_patch.json", kind: BeforeChange, change: "tools.PatchArgs", changes: 1, unseen: true},
		{client: "codex", file: "PostToolUse-apply_patch.json", kind: AfterChange},
		{client: "codex", file: "PreToolUse-Bash.json", kind: Other},
		{client: "gemini", file: "BeforeAgent.json", kind: Prompt},
		{client: "gemini", file: "BeforeTool-read_file.json", kind: BeforeRead, path: "a.txt"},
		{client: "gemini", file: "BeforeTool-write_file.json", kind: BeforeChange, change: "tools.WriteArgs", changes: 1},
		{client: "gemini", file: "BeforeTool-replace.json", kind: BeforeChange, change: "tools.EditArgs", changes: 1},
		{client: "gemini", file: "AfterTool-replace.json", kind: AfterChange},
		{client: "gemini", file: "BeforeTool-read_many_files.json", kind: Other},
		{client: "cursor", file: "beforeSubmitPrompt.json", kind: Prompt},
		{client: "cursor", file: "beforeReadFile.json", kind: BeforeRead, path: "a.txt"},
		{client: "cursor", file: "afterFileEdit.json", kind: Landed, path: "a.txt"},
		{client: "cursor", file: "preToolUse-Shell.json", kind: Other},
		{client: "vscode", file: "UserPromptSubmit.json", kind: Prompt},
		{client: "vscode", file: "copilot-UserPromptSubmit.json", kind: Prompt},
		{client: "vscode", file: "PreToolUse-read_file.json", kind: BeforeRead, path: "a.txt"},
		{client: "vscode", file: "PreToolUse-replace_string_in_file.json", kind: BeforeChange, change: "tools.EditArgs", changes: 1},
		{client: "vscode", file: "PreToolUse-multi_replace_string_in_file.json", kind: BeforeChange, change: "tools.EditArgs", changes: 1},
		{client: "vscode", file: "PreToolUse-create_file.json", kind: BeforeChange, change: "tools.WriteArgs", changes: 1},
		{client: "vscode", file: "PreToolUse-insert_edit_into_file.json", kind: BeforeChange, change: "stet.ClientRewrite", changes: 1},
		{client: "vscode", file: "PreToolUse-apply_patch.json", kind: BeforeChange, change: "tools.PatchArgs", changes: 1},
		{client: "vscode", file: "PostToolUse-replace_string_in_file.json", kind: AfterChange},
	} {
		t.Run(c.client+"/"+c.file, func(t *testing.T) {
			cl, err := Find(c.client)
			if err != nil {
				t.Fatal(err)
			}
			ev, err := cl.parse(load(t, c.client+"/"+c.file))
			if err != nil {
				t.Fatal(err)
			}
			if ev.Kind != c.kind {
				t.Errorf("kind %d, want %d", ev.Kind, c.kind)
			}
			if c.path != "" && ev.Path != "" && !strings.HasSuffix(ev.Path, c.path) {
				t.Errorf("path %q, want …%s", ev.Path, c.path)
			}
			if ev.Offset != c.offset || ev.Limit != c.limit {
				t.Errorf("window %d+%d, want %d+%d", ev.Offset, ev.Limit, c.offset, c.limit)
			}
			if len(ev.Changes) != c.changes {
				t.Fatalf("%d changes, want %d", len(ev.Changes), c.changes)
			}
			if c.changes > 0 {
				if got := fmt.Sprintf("%T", ev.Changes[0]); got != c.change {
					t.Errorf("change %s, want %s", got, c.change)
				}
			}
			if ev.ReadsUnseen != c.unseen {
				t.Errorf("reads unseen %v, want %v", ev.ReadsUnseen, c.unseen)
			}
			if ev.Kind != Other && ev.Kind != Prompt && ev.CallID == "" && ev.Kind != Landed && ev.Kind != BeforeRead && ev.Kind != AfterRead {
				t.Errorf("no call id")
			}
		})
	}
}

// TestParseTurnsInputsIntoStetsChanges checks the translation of each
// client's edit input: an empty old string creates, replace_all and
// Gemini's allow_multiple replace every match, VS Code's replacements of
// one file are one edit.
func TestParseTurnsInputsIntoStetsChanges(t *testing.T) {
	claude, _ := Find("claude-code")
	ev, err := claude.parse([]byte(`{"hook_event_name":"PreToolUse","tool_name":"Edit","tool_use_id":"t","tool_input":{"file_path":"/p/a","old_string":"","new_string":"hi"}}`))
	if err != nil || fmt.Sprintf("%+v", ev.Changes) != "[{Path:/p/a Content:hi Overwrite:false DryRun:false ExpectedVersion:}]" {
		t.Errorf("an Edit with an empty old_string: %+v %v, want a create", ev.Changes, err)
	}
	ev, _ = claude.parse(load(t, "claude-code/PreToolUse-Edit-replace_all.json"))
	if a := ev.Changes[0].(stet.EditArgs); !a.ReplaceAll || a.OldString == nil || a.NewString == nil {
		t.Errorf("replace_all: %+v", a)
	}
	gemini, _ := Find("gemini")
	ev, _ = gemini.parse(load(t, "gemini/BeforeTool-replace-allow_multiple.json"))
	if a := ev.Changes[0].(stet.EditArgs); !a.ReplaceAll {
		t.Errorf("allow_multiple: %+v", a)
	}
	vscode, _ := Find("vscode")
	ev, _ = vscode.parse(load(t, "vscode/PreToolUse-multi_replace_string_in_file.json"))
	if a := ev.Changes[0].(stet.EditArgs); len(a.Edits) != 2 || a.Edits[1].OldString != "gamma" {
		t.Errorf("two replacements of one file: %+v", a)
	}
	ev, _ = vscode.parse([]byte(`{"hookEventName":"PreToolUse","tool_name":"multi_replace_string_in_file","tool_use_id":"x","tool_input":{"replacements":[{"filePath":"/a","oldString":"1","newString":"2"},{"filePath":"/b","oldString":"3","newString":"4"},{"filePath":"/a","oldString":"5","newString":"6"}]}}`))
	if len(ev.Changes) != 2 || len(ev.Changes[0].(stet.EditArgs).Edits) != 2 {
		t.Errorf("replacements of two files: %+v, want one edit a file", ev.Changes)
	}
	gemini.parse(nil) // must not panic
	ev, _ = gemini.parse([]byte(`{"hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"file_path":"a","offset":4,"limit":2}}`))
	if ev.Offset != 5 || ev.Limit != 2 {
		t.Errorf("a 0-based offset: %d+%d, want 5+2", ev.Offset, ev.Limit)
	}
}

// TestReplies checks each client's words for a refusal, a note and no
// opinion.
func TestReplies(t *testing.T) {
	deny := Answer{Deny: "refused: <x> & y"}
	for _, c := range []struct {
		client string
		ev     Event
		a      Answer
		want   string
	}{
		{"claude-code", Event{Kind: BeforeChange, Name: "PreToolUse"}, deny, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"refused: <x> & y"}}`},
		{"claude-code", Event{Kind: AfterChange, Name: "PostToolUse"}, Answer{Note: "n"}, `{"hookSpecificOutput":{"hookEventName":"PostToolUse","additionalContext":"n"}}`},
		{"claude-code", Event{Kind: AfterChange, Name: "PostToolUse"}, deny, ``},
		{"claude-code", Event{Kind: Prompt, Name: "UserPromptSubmit"}, Answer{}, ``},
		{"claude-code", Event{Kind: BeforeRead, Name: "PreToolUse"}, Answer{Warn: "w"}, `{"systemMessage":"w"}`},
		{"codex", Event{Kind: BeforeChange, Name: "PreToolUse"}, deny, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"refused: <x> & y"}}`},
		{"gemini", Event{Kind: BeforeChange, Name: "BeforeTool"}, deny, `{"decision":"deny","reason":"refused: <x> & y"}`},
		{"gemini", Event{Kind: AfterChange, Name: "AfterTool"}, Answer{Note: "n"}, `{"systemMessage":"n"}`},
		{"gemini", Event{Kind: Prompt, Name: "BeforeAgent"}, Answer{}, ``},
		{"cursor", Event{Kind: BeforeRead, Name: "beforeReadFile"}, deny, `{"agent_message":"refused: <x> & y","permission":"deny","user_message":"refused: <x> & y"}`},
		{"cursor", Event{Kind: BeforeRead, Name: "beforeReadFile"}, Answer{}, `{"permission":"allow"}`},
		{"cursor", Event{Kind: Prompt, Name: "beforeSubmitPrompt"}, Answer{}, `{"continue":true}`},
		{"cursor", Event{Kind: Landed, Name: "afterFileEdit"}, Answer{}, ``},
		{"vscode", Event{Kind: BeforeChange, Name: "PreToolUse"}, deny, `{"hookSpecificOutput":{"hookEventName":"PreToolUse","permissionDecision":"deny","permissionDecisionReason":"refused: <x> & y"},"permissionDecision":"deny","permissionDecisionReason":"refused: <x> & y"}`},
		{"vscode", Event{Kind: AfterChange, Name: "PostToolUse"}, Answer{}, ``},
	} {
		cl, _ := Find(c.client)
		got := strings.TrimSpace(string(cl.reply(c.ev, c.a).Stdout))
		if got != c.want {
			t.Errorf("%s %s %+v:\n got %s\nwant %s", c.client, c.ev.Name, c.a, got, c.want)
		}
	}
	if _, err := Find("emacs"); err == nil || !strings.Contains(err.Error(), "claude-code") {
		t.Errorf("an unknown client: %v", err)
	}
}

// workspace opens a real stet workspace over a temp directory.
func workspace(t *testing.T, files map[string]string, o stet.Options) (string, Opener) {
	t.Helper()
	root := t.TempDir()
	for n, b := range files {
		os.WriteFile(filepath.Join(root, n), []byte(b), 0o644)
	}
	o.State = t.TempDir()
	return root, func(cwd, session string) (Session, func(), error) {
		ws, err := stet.Open([]string{root}, o)
		if err != nil {
			return nil, nil, err
		}
		s, err := ws.Session(session)
		if err != nil {
			ws.Close()
			return nil, nil, err
		}
		return s, func() { ws.Close() }, nil
	}
}

func event(t *testing.T, m map[string]any) []byte {
	b, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestHandle runs Claude Code's events through a real workspace: a
// refusal blocks with stet's words, a bad event is logged and answered
// with no opinion, a read outside the workspace is not stet's to judge,
// and a workspace that will not open refuses a change but not a read.
func TestHandle(t *testing.T) {
	root, open := workspace(t, map[string]string{"a.txt": "one\n", "keep.cfg": "x\n"}, stet.Options{Protect: []string{"keep.cfg"}})
	claude, _ := Find("claude-code")
	var logged []string
	logf := func(f string, a ...any) { logged = append(logged, fmt.Sprintf(f, a...)) }
	edit := func(path string) []byte {
		return event(t, map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Edit", "tool_use_id": "t1",
			"tool_input": map[string]any{"file_path": path, "old_string": "x", "new_string": "y"}})
	}
	r := Handle(context.Background(), claude, edit(filepath.Join(root, "keep.cfg")), open, logf)
	if !strings.Contains(string(r.Stdout), `"permissionDecision":"deny"`) || !strings.Contains(string(r.Stdout), "protected") {
		t.Errorf("an edit of a protected file: %s", r.Stdout)
	}
	r = Handle(context.Background(), claude, []byte("{"), open, logf)
	if len(r.Stdout) != 0 || r.Code != 0 || len(logged) != 1 || !strings.Contains(logged[0], "no opinion") {
		t.Errorf("a bad event: %+v, logged %q", r, logged)
	}
	r = Handle(context.Background(), claude, event(t, map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Read", "tool_use_id": "r",
		"tool_input": map[string]any{"file_path": filepath.Join(t.TempDir(), "elsewhere.txt")}}), open, logf)
	if len(r.Stdout) != 0 {
		t.Errorf("a read outside the workspace: %s, want no opinion", r.Stdout)
	}
	broken := func(cwd, session string) (Session, func(), error) {
		return nil, nil, fmt.Errorf("state directory unwritable")
	}
	r = Handle(context.Background(), claude, edit(filepath.Join(root, "a.txt")), broken, logf)
	if !strings.Contains(string(r.Stdout), "cannot check this change") {
		t.Errorf("a change stet cannot check: %s", r.Stdout)
	}
	r = Handle(context.Background(), claude, event(t, map[string]any{"session_id": "s", "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Read", "tool_use_id": "r",
		"tool_input": map[string]any{"file_path": filepath.Join(root, "a.txt")}}), broken, logf)
	if strings.Contains(string(r.Stdout), "deny") || !strings.Contains(string(r.Stdout), "systemMessage") {
		t.Errorf("a read stet cannot check: %s, want it let through with a warning", r.Stdout)
	}
}

// TestHandleRelativePaths: a client's relative path (Gemini CLI's) is
// taken from its working directory, and Codex's patch is resolved there.
func TestHandleRelativePaths(t *testing.T) {
	root, open := workspace(t, map[string]string{"a.txt": "alpha\nbeta\n"}, stet.Options{})
	os.Mkdir(filepath.Join(root, "sub"), 0o755)
	os.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("alpha\nbeta\n"), 0o644)
	codex, _ := Find("codex")
	patch := "*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n beta\n*** End Patch"
	ev := event(t, map[string]any{"session_id": "s", "cwd": filepath.Join(root, "sub"), "hook_event_name": "PreToolUse", "tool_name": "apply_patch", "tool_use_id": "p",
		"tool_input": map[string]any{"command": patch}})
	r := Handle(context.Background(), codex, ev, open, t.Logf)
	if len(r.Stdout) != 0 {
		t.Fatalf("a patch in sub/: %s", r.Stdout)
	}
	os.WriteFile(filepath.Join(root, "sub", "a.txt"), []byte("ALPHA\nbeta\n"), 0o644)
	post := event(t, map[string]any{"session_id": "s", "cwd": filepath.Join(root, "sub"), "hook_event_name": "PostToolUse", "tool_name": "apply_patch", "tool_use_id": "p",
		"tool_input": map[string]any{"command": patch}, "tool_response": "Success."})
	if r := Handle(context.Background(), codex, post, open, t.Logf); len(r.Stdout) != 0 {
		t.Fatalf("its readback: %s (the note of a receipt that is not verified: the patch was read in the wrong directory)", r.Stdout)
	}
	if b, _ := os.ReadFile(filepath.Join(root, "a.txt")); string(b) != "alpha\nbeta\n" {
		t.Errorf("the root's a.txt holds %q", b)
	}
}

// TestParseEdges pins the choices a parser makes where payloads differ.
func TestParseEdges(t *testing.T) {
	claude, _ := Find("claude-code")
	read := `{"hook_event_name":"PostToolUse","tool_name":"Read","tool_use_id":"r","tool_input":{"file_path":"/p/a","offset":3,"limit":2}%s}`
	ev, _ := claude.parse(fmt.Appendf(nil, read, ""))
	if ev.Offset != 3 || ev.Limit != 2 || ev.Shown != nil {
		t.Errorf("a Read without its response: %d+%d, want the window asked 3+2", ev.Offset, ev.Limit)
	}
	ev, _ = claude.parse(fmt.Appendf(nil, read, `,"tool_response":{"file":{"startLine":3,"numLines":1,"content":"x"}}`))
	if ev.Offset != 3 || ev.Limit != 1 || ev.Shown == nil || *ev.Shown != "x" {
		t.Errorf("a Read whose response reports a shorter window: %d+%d, want the window shown 3+1", ev.Offset, ev.Limit)
	}
	ev, _ = claude.parse(fmt.Appendf(nil, read, `,"tool_response":{"file":{"startLine":1,"numLines":0}}`))
	if ev.Offset != 3 || ev.Limit != 2 {
		t.Errorf("a Read whose response reports no lines: %d+%d, want the window asked", ev.Offset, ev.Limit)
	}
	gemini, _ := Find("gemini")
	ev, _ = gemini.parse([]byte(`{"hook_event_name":"BeforeTool","tool_name":"read_file","tool_input":{"absolute_path":"/p/b"}}`))
	if ev.Path != "/p/b" || ev.CallID != "read_file:/p/b" {
		t.Errorf("absolute_path: %q %q", ev.Path, ev.CallID)
	}
	for n, all := range map[int]bool{1: false, 2: true} {
		ev, _ = gemini.parse(fmt.Appendf(nil, `{"hook_event_name":"BeforeTool","tool_name":"replace","tool_input":{"file_path":"a","old_string":"x","new_string":"y","expected_replacements":%d}}`, n))
		if ev.Changes[0].(stet.EditArgs).ReplaceAll != all {
			t.Errorf("expected_replacements %d: replace all %v", n, !all)
		}
	}
	ev, _ = gemini.parse([]byte(`{"hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"file_path":"a","start_line":2,"end_line":4}}`))
	if ev.Kind != AfterRead || ev.Offset != 2 || ev.Limit != 3 {
		t.Errorf("gemini lines 2-4: %d+%d, want 2+3", ev.Offset, ev.Limit)
	}
	ev, _ = gemini.parse([]byte(`{"hook_event_name":"AfterTool","tool_name":"read_file","tool_input":{"file_path":"a","start_line":2}}`))
	if ev.Offset != 2 || ev.Limit != 0 {
		t.Errorf("gemini from line 2: %d+%d, want 2+0", ev.Offset, ev.Limit)
	}
	vscode, _ := Find("vscode")
	for in, want := range map[string][2]int{`"startLine":2,"endLine":4`: {2, 3}, `"startLine":2,"endLine":1`: {2, 0}, `"offset":5,"limit":7`: {5, 7}} {
		ev, _ = vscode.parse(fmt.Appendf(nil, `{"hookEventName":"PostToolUse","tool_name":"read_file","tool_use_id":"r","tool_input":{"filePath":"/a",%s}}`, in))
		if ev.Kind != AfterRead || ev.Offset != want[0] || ev.Limit != want[1] {
			t.Errorf("vscode read_file {%s}: %d+%d, want %d+%d", in, ev.Offset, ev.Limit, want[0], want[1])
		}
	}
	cursor, _ := Find("cursor")
	ev, _ = cursor.parse([]byte(`{"hook_event_name":"beforeSubmitPrompt","conversation_id":"c","prompt":"p"}`))
	if ev.Cwd != "" || ev.Prompt != "p" || ev.Session != "c" {
		t.Errorf("cursor without workspace_roots: %+v", ev)
	}
	for id, want := range map[string]string{"vscode-chat-session://local/abc": "abc", "plain": "plain", "ends/": "ends/"} {
		if got := sessionName(id); got != want {
			t.Errorf("sessionName(%q) = %q, want %q", id, got, want)
		}
	}
	gr := replyGemini(Event{Kind: AfterChange}, Answer{Deny: "d"})
	vr := replyVSCode(Event{Kind: AfterChange, Name: "PostToolUse"}, Answer{Deny: "d"})
	if len(gr.Stdout) != 0 || len(vr.Stdout) != 0 {
		t.Errorf("a refusal after the tool ran: gemini %s, vscode %s; want none", gr.Stdout, vr.Stdout)
	}
}

// TestPaths pins how a client's relative paths are made absolute.
func TestPaths(t *testing.T) {
	cwd := filepath.FromSlash("/w/sub")
	for _, c := range [][3]string{{cwd, "a.txt", filepath.Join(cwd, "a.txt")}, {cwd, filepath.FromSlash("/x/a"), filepath.FromSlash("/x/a")}, {"", "a.txt", "a.txt"}, {cwd, "", ""}} {
		if got := absIn(c[0], c[1]); got != c[2] && filepath.IsAbs(filepath.FromSlash("/x")) {
			t.Errorf("absIn(%q, %q) = %q, want %q", c[0], c[1], got, c[2])
		}
	}
	env := "*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\n*** End Patch"
	if got := changeIn("/w/sub", stet.PatchArgs{Patch: env}).(stet.PatchArgs).Patch; !strings.HasPrefix(got, "cd '/w/sub' && apply_patch <<'STET_PATCH_END'\n") {
		t.Errorf("a patch in /w/sub: %q", got)
	}
	for _, c := range []struct{ cwd, patch string }{{"/w/it's", env}, {"", env}, {"/w", "--- a/x\n+++ b/x\n"}} {
		if got := changeIn(c.cwd, stet.PatchArgs{Patch: c.patch}).(stet.PatchArgs).Patch; got != c.patch {
			t.Errorf("changeIn(%q) rewrote the patch: %q", c.cwd, got)
		}
	}
	if got := changeIn("/w", stet.PatchArgs{Patch: env + "\nSTET_PATCH_END"}).(stet.PatchArgs).Patch; !strings.Contains(got, "<<'STET_PATCH_END_'") {
		t.Errorf("a patch holding the heredoc's end: %q", got)
	}
}

// TestHandleSessionsAndDeniedReads: the client's session id names stet's
// session, prefixed with the client (the client alone without one), and a
// read of a deny-read file is refused.
func TestHandleSessionsAndDeniedReads(t *testing.T) {
	root, open := workspace(t, map[string]string{"a.txt": "one\n", "s.env": "K=1\n"}, stet.Options{DenyRead: []string{"*.env"}})
	var sessions []string
	spy := func(cwd, session string) (Session, func(), error) {
		sessions = append(sessions, session)
		return open(cwd, session)
	}
	claude, _ := Find("claude-code")
	read := func(session, path string) Reply {
		return Handle(context.Background(), claude, event(t, map[string]any{"session_id": session, "cwd": root, "hook_event_name": "PreToolUse", "tool_name": "Read", "tool_use_id": "r",
			"tool_input": map[string]any{"file_path": path}}), spy, t.Logf)
	}
	if r := read("abc", filepath.Join(root, "s.env")); !strings.Contains(string(r.Stdout), `"deny"`) {
		t.Errorf("a read of a deny-read file: %s", r.Stdout)
	}
	if r := read("", filepath.Join(root, "a.txt")); len(r.Stdout) != 0 {
		t.Errorf("a plain read: %s", r.Stdout)
	}
	if fmt.Sprint(sessions) != "[claude-code-abc claude-code]" {
		t.Errorf("sessions %q", sessions)
	}
}

// TestClientWordsFollowTheFacade: each rewrite of a refusal's next step
// still finds the facade's words (a rewording there would otherwise leave
// a next step the client's tools cannot take: overwrite: true, write).
func TestClientWordsFollowTheFacade(t *testing.T) {
	for _, msg := range []string{
		policy.RequestRefusal("sales.csv", "2 lines → 1 line"),
		policy.RequestRefusal("sales.csv", "2 lines → 1 line") + " (a patch cannot: use write with overwrite: true)",
		policy.RequestRefusal("sales.csv", "2 lines → 1 line") + " (a patch cannot: update the file with @@ hunks instead of *** Add File:, or use write with overwrite: true)",
	} {
		got := clientWords(msg)
		for _, gone := range []string{"overwrite: true", "(edit / patch)", "use write"} {
			if strings.Contains(got, gone) {
				t.Errorf("%q is left in %q", gone, got)
			}
		}
		if !strings.Contains(got, "next message") {
			t.Errorf("no way out in %q", got)
		}
	}
}
