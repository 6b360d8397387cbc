package main

import (
	"encoding/json"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// codexHookEvents are the Codex hook events the capture records.
var codexHookEvents = []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "Stop"}

// codexTeeHooks writes CODEX_HOME/hooks.json with a hook on every event
// of codexHookEvents that saves its stdin in dir, one file per call,
// named so that they sort in the order of the calls.
func codexTeeHooks(t *testing.T, h *home, dir string) {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	cmd := `cat > "` + dir + `/$(date +%s%N)-$$.json"`
	hooks := map[string]any{}
	for _, ev := range codexHookEvents {
		entry := map[string]any{"hooks": []any{map[string]any{"type": "command", "command": cmd}}}
		switch ev {
		case "PreToolUse", "PostToolUse", "PermissionRequest":
			entry["matcher"] = "*"
		}
		hooks[ev] = []any{entry}
	}
	b, err := json.MarshalIndent(map[string]any{"hooks": hooks}, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	h.put(filepath.Join(codexHome(h), "hooks.json"), string(b)+"\n")
}

// TestCodexHookPayloads runs Codex with hooks that save what they get,
// over a script of a shell read, an apply_patch that lands and one that
// fails, and compares the payloads with the fixtures
// testdata/hooks/codex/*-captured.json (the shape: the keys,
// recursively). With STET_CAPTURE_HOOKS=1 it writes them instead, the
// machine's paths replaced with /PROJECT and /HOME, Codex's ids and
// dates with fixed ones. It also pins what Codex does on its own.
func TestCodexHookPayloads(t *testing.T) {
	codexBin := codexCLI(t)
	h := newHome(t)
	capDir := filepath.Join(h.dir, "captured")
	codexTeeHooks(t, h, capDir)
	a := filepath.Join(h.proj, "a.txt")
	h.put(a, "alpha\nbeta\ngamma\n")

	label := map[string]string{codexCallID(0): "Bash", codexCallID(1): "apply_patch"}
	fails := codexCallID(2) // a patch whose lines are not in the file
	script := []codexStep{
		shellCall("cat a.txt"),
		applyPatch("*** Begin Patch\n*** Update File: a.txt\n@@\n-alpha\n+ALPHA\n beta\n*** End Patch\n"),
		applyPatch("*** Begin Patch\n*** Update File: a.txt\n@@\n-no such line\n+x\n*** End Patch\n"),
		codexSay("Updated a.txt."),
	}
	f := newFakeResponses(t, script...)
	run := runCodex(t, codexBin, h, f, "Capitalize alpha in a.txt")
	if run.Last != "Updated a.txt." || run.Failed != "" {
		t.Errorf("codex exec ended with %q (failed %q), want the script's last words\n%s", run.Last, run.Failed, run.Output)
	}
	for i, s := range script {
		if s.kind != "" {
			r, ok := f.result(i)
			t.Logf("step %d %s: the model saw (%v) %q", i, s.name, ok, r)
		}
	}
	if got := h.get(a); got != "ALPHA\nbeta\ngamma\n" {
		t.Errorf("a.txt = %q after the patches, want the first one applied", got)
	}
	if r := f.mustResult(2); !strings.Contains(r, "Failed to find expected lines") {
		t.Logf("Codex words a patch that does not apply differently now: %q", r)
	}

	// The fixtures: one per event and call label, the first call of each.
	fixtures := map[string][]byte{}
	turns := map[string]string{}
	var failEvents []string
	for _, c := range readCaptured(t, capDir) {
		name := c.Event
		if c.ToolUseID == fails {
			failEvents = append(failEvents, c.Event)
			continue
		}
		if c.ToolUseID != "" {
			l, ok := label[c.ToolUseID]
			if !ok {
				t.Errorf("a %s hook payload of call %q, which the script did not make", c.Event, c.ToolUseID)
				continue
			}
			name += "-" + l
		} else if c.Tool != "" {
			name += "-" + c.Tool
		}
		t.Logf("hook %s (%s)", name, c.ToolUseID)
		var p struct {
			Session string `json:"session_id"`
			Turn    string `json:"turn_id"`
		}
		json.Unmarshal(c.Raw, &p)
		if p.Session != run.ThreadID {
			t.Errorf("the %s hook payload names session %q, codex exec printed thread %q", name, p.Session, run.ThreadID)
		}
		if _, dup := fixtures[name]; !dup {
			fixtures[name] = codexPlaceholders(t, h, c.Raw, run.ThreadID, turns)
		}
	}
	// Codex 0.171.0 checks a patch against the file after PreToolUse, and
	// tells no hook of one that fails there: no PostToolUse, and no
	// failure event (it has none).
	if !slices.Equal(failEvents, []string{"PreToolUse"}) {
		t.Errorf("the hook events of an apply_patch that fails in Codex: %v, want [PreToolUse] alone", failEvents)
	}
	for _, want := range []string{"UserPromptSubmit", "PreToolUse-apply_patch", "PostToolUse-apply_patch"} {
		if fixtures[want] == nil {
			t.Errorf("Codex sent no %s hook payload: stet's hooks need it", want)
		}
	}
	dir := filepath.Join("testdata", "hooks", "codex")
	if os.Getenv("STET_CAPTURE_HOOKS") == "1" {
		for name, b := range fixtures {
			if err := os.WriteFile(filepath.Join(dir, name+"-captured.json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		t.Logf("wrote %d fixtures in %s", len(fixtures), dir)
		return
	}
	old, err := filepath.Glob(filepath.Join(dir, "*-captured.json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range old {
		if name := strings.TrimSuffix(filepath.Base(p), "-captured.json"); fixtures[name] == nil {
			t.Errorf("Codex sent no %s hook payload this time (fixture %s)", name, p)
		}
	}
	for name, got := range fixtures {
		want, err := os.ReadFile(filepath.Join(dir, name+"-captured.json"))
		if err != nil {
			t.Errorf("Codex sent a %s hook payload that has no fixture (%v); STET_CAPTURE_HOOKS=1 records it:\n%s", name, err, got)
			continue
		}
		if g, w := jsonShape(t, got), jsonShape(t, want); g != w {
			t.Errorf("the %s hook payload is no longer shaped as its fixture (STET_CAPTURE_HOOKS=1 records it again):\ngot  %s\nwant %s", name, g, w)
		}
	}
}

// rolloutDay matches the date in the folders and the name of a Codex
// transcript, codexTurnID a turn id.
var (
	rolloutDay  = regexp.MustCompile(`/sessions/\d{4}/\d{2}/\d{2}/rollout-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-`)
	codexTurnID = regexp.MustCompile(`"turn_id":"([^"]+)"`)
)

// codexPlaceholders is placeholders with Codex's session id, turn ids
// and transcript dates made the fixtures' (SOURCES.md).
func codexPlaceholders(t *testing.T, h *home, raw []byte, thread string, turns map[string]string) []byte {
	t.Helper()
	s := strings.ReplaceAll(string(raw), thread, fixtureSession)
	s = rolloutDay.ReplaceAllString(s, "/sessions/2026/12/01/rollout-2026-12-01T00-00-00-")
	s = codexTurnID.ReplaceAllStringFunc(s, func(m string) string {
		id := codexTurnID.FindStringSubmatch(m)[1]
		if turns[id] == "" {
			turns[id] = strings.Replace(fixtureSession, "c1a5", "7a0"+string(rune('0'+len(turns)+1)), 1)
		}
		return `"turn_id":"` + turns[id] + `"`
	})
	return placeholders(t, h, []byte(s))
}

// codexRig is one project guarded by the hooks `stet setup codex --hooks
// --project` writes, and the Codex runs in it. Its receipts, noReceipt
// and review are hookRig's.
type codexRig struct {
	*hookRig
	codexBin string
	thread   string // Codex's session id, once it ran
}

// newCodexRig makes a home with files in its project, and writes stet's
// hooks into the project's .codex/hooks.json as a user would, with stet
// setup codex --hooks --project --write and flags.
func newCodexRig(t *testing.T, codexBin string, files map[string]string, flags ...string) *codexRig {
	t.Helper()
	h := newHome(t)
	for name, content := range files {
		h.put(filepath.Join(h.proj, name), content)
	}
	args := append([]string{"setup", "codex", "--hooks", "--project", "--write", "--root", h.proj}, flags...)
	code, out, errOut := h.run("", args...)
	if code != 0 {
		t.Fatalf("stet %s: exit %d\n%s%s", strings.Join(args, " "), code, out, errOut)
	}
	cfg := filepath.Join(h.proj, ".codex", "hooks.json")
	b, err := os.ReadFile(cfg)
	if err != nil {
		t.Fatalf("stet setup codex --hooks --project --write wrote no %s: %v\n%s", cfg, err, out)
	}
	if !strings.Contains(string(b), "hook codex") || !strings.Contains(string(b), binPath(t)) {
		t.Fatalf("%s does not run %s hook codex:\n%s", cfg, binPath(t), b)
	}
	t.Cleanup(func() {
		if t.Failed() {
			t.Logf("%s:\n%s", cfg, b)
		}
	})
	return &codexRig{hookRig: &hookRig{t: t, h: h}, codexBin: codexBin}
}

// session is the stet session of the Codex session.
func (r *codexRig) session() string { return "codex-" + r.thread }

// codex runs `codex exec prompt` against the script, and checks it
// played to its final text.
func (r *codexRig) codex(prompt string, script ...codexStep) *fakeResponses {
	r.t.Helper()
	f := newFakeResponses(r.t, script...)
	run := runCodex(r.t, r.codexBin, r.h, f, prompt)
	r.thread = run.ThreadID
	last := script[len(script)-1]
	if run.Failed != "" || run.Last != last.text {
		r.t.Errorf("codex exec %q ended with %q (failed %q); want the script's last words %q\n%s", prompt, run.Last, run.Failed, last.text, run.Output)
	}
	if r.t.Failed() {
		r.t.Logf("codex exec %q:\n%s", prompt, run.Output)
	}
	return f
}

// codexRefused checks the output of an apply_patch is stet's refusal
// (Codex: "Command blocked by PreToolUse hook: refused: ...") holding
// words.
func codexRefused(t *testing.T, what, out string, words ...string) {
	t.Helper()
	t.Logf("%s: the model saw: %s", what, out)
	if !strings.Contains(out, "refused:") {
		t.Errorf("%s: the model saw %q; want stet's refusal (\"refused: ...\")", what, out)
		return
	}
	for _, w := range words {
		if !strings.Contains(out, w) {
			t.Errorf("%s: stet's refusal %q does not say %q", what, out, w)
		}
	}
}

// refusals is what the review API lists of the session's refusals.
func (r *codexRig) refusals() []stet.RefusalEntry {
	r.t.Helper()
	b := r.review()("/api/refusals?session=" + url.QueryEscape(r.session()))
	var groups []stet.RefusalGroup
	if err := json.Unmarshal(b, &groups); err != nil {
		r.t.Fatalf("review /api/refusals: %v\n%s", err, b)
	}
	var out []stet.RefusalEntry
	for _, g := range groups {
		out = append(out, g.Refusals...)
	}
	return out
}

// journaledRefusal checks the journal holds the session's refusal of
// name, of kind.
func (r *codexRig) journaledRefusal(name, kind string) {
	r.t.Helper()
	refs := r.refusals()
	for _, ref := range refs {
		if filepath.Base(ref.Path) == name && ref.Kind == kind {
			return
		}
	}
	r.t.Errorf("the review API lists no %q refusal of %s in session %s: %+v", kind, name, r.session(), refs)
}

// TestCodexHooks runs the real Codex CLI (`codex exec`), driven by a
// scripted model, in a project whose .codex/hooks.json holds the hooks
// stet setup codex --hooks wrote: Codex's apply_patch passes stet's
// rules, a refusal reaches the model as the tool's output, and a patch
// that lands has its receipt, its undo and its place in review.
func TestCodexHooks(t *testing.T) {
	codexBin := codexCLI(t)

	t.Run("protected", func(t *testing.T) {
		const orig = "do not touch\n"
		r := newCodexRig(t, codexBin, map[string]string{"locked.txt": orig}, "--protect", "locked.txt")
		file := r.path("locked.txt")
		f := r.codex("Fix the typo in locked.txt",
			shellCall("cat locked.txt"),
			applyPatch("*** Begin Patch\n*** Update File: locked.txt\n@@\n-do not touch\n+do not change\n*** End Patch\n"),
			codexSay("I could not edit it."))
		if out := f.mustResult(0); !strings.Contains(out, orig) {
			t.Errorf("the shell's cat of locked.txt: %q, want its bytes", out)
		}
		codexRefused(t, "an apply_patch of a --protect file", f.mustResult(1), "protected")
		if got := r.h.get(file); got != orig {
			t.Errorf("locked.txt = %q after a refused apply_patch, want %q", got, orig)
		}
		r.noReceipt("locked.txt")
		r.journaledRefusal("locked.txt", "protected")
	})

	t.Run("patch-lands", func(t *testing.T) {
		const orig = "alpha\nbeta\ngamma\n"
		r := newCodexRig(t, codexBin, map[string]string{"b.txt": orig})
		file := r.path("b.txt")
		f := r.codex("Change beta to BETA in b.txt",
			shellCall("cat b.txt"),
			applyPatch("*** Begin Patch\n*** Update File: b.txt\n@@\n alpha\n-beta\n+BETA\n gamma\n*** End Patch\n"),
			codexSay("Done."))
		if out := f.mustResult(1); strings.Contains(out, "refused") || !strings.Contains(out, "b.txt") {
			t.Errorf("the apply_patch: the model saw %q, want Codex's success naming b.txt", out)
		}
		const want = "alpha\nBETA\ngamma\n"
		if got := r.h.get(file); got != want {
			t.Fatalf("b.txt = %q after the apply_patch, want %q", got, want)
		}
		rs := r.receipts("b.txt")
		if len(rs) != 1 || rs[0].Receipt.Tool != "apply_patch" || !rs[0].Receipt.Verified || rs[0].Receipt.Session != r.session() {
			t.Errorf("stet log --path b.txt: %v; want one verified receipt of tool apply_patch in session %s", rs, r.session())
		}

		// The review API lists the session and its change.
		var sessions []stet.SessionView
		if b := r.review()("/api/sessions"); json.Unmarshal(b, &sessions) != nil {
			t.Fatalf("review /api/sessions: %s", b)
		}
		var found bool
		for _, s := range sessions {
			for _, fc := range s.Files {
				found = found || s.ID == r.session() && fc.Path == "b.txt" && fc.Added == 1 && fc.Removed == 1
			}
		}
		if !found {
			t.Errorf("review /api/sessions lists no session %s changing b.txt +1 -1: %+v", r.session(), sessions)
		}

		// stet undo takes it back.
		code, out, errOut := r.h.run("", "undo", "--root", r.h.proj, "--session", r.session(), "b.txt")
		if code != 0 {
			t.Fatalf("stet undo --session %s b.txt: exit %d\n%s%s", r.session(), code, out, errOut)
		}
		if got := r.h.get(file); got != orig {
			t.Errorf("b.txt = %q after stet undo, want the original %q", got, orig)
		}
	})

	t.Run("delete-not-read", func(t *testing.T) {
		// Codex reads through its shell, which stet's hooks do not watch:
		// an update's context lines count as the read, but a delete has
		// none. The refusal shows the file, which counts as read: the same
		// delete again lands.
		const orig = "obsolete settings\n"
		r := newCodexRig(t, codexBin, map[string]string{"old.txt": orig, "keep.txt": "kept\n"})
		file := r.path("old.txt")
		del := applyPatch("*** Begin Patch\n*** Delete File: old.txt\n*** End Patch\n")
		again := del
		var between string
		again.before = func() { between = r.h.get(file) }
		f := r.codex("Remove old.txt", del, again, codexSay("Removed."))
		codexRefused(t, "a delete of a file never read", f.mustResult(0), "not been read", "obsolete settings")
		if between != orig {
			t.Errorf("old.txt = %q after the refused delete, want it still there, %q", between, orig)
		}
		r.journaledRefusal("old.txt", "not_read")
		if out := f.mustResult(1); strings.Contains(out, "refused") {
			t.Errorf("the delete again, after the refusal showed the file: the model saw %q, want it to land", out)
		}
		if _, err := os.Stat(file); !os.IsNotExist(err) {
			t.Errorf("old.txt after the second delete: %v, want it gone", err)
		}
		rs := r.receipts("old.txt")
		if len(rs) != 1 || rs[0].Receipt.Tool != "apply_patch" || rs[0].Receipt.Session != r.session() || rs[0].Receipt.After != nil {
			t.Errorf("stet log --path old.txt: %v; want one receipt of tool apply_patch deleting it in session %s", rs, r.session())
		}
		if got := r.h.get(r.path("keep.txt")); got != "kept\n" {
			t.Errorf("keep.txt = %q", got)
		}
	})

	t.Run("failed-patch", func(t *testing.T) {
		// Another writer changes the file after stet's PreToolUse hook let
		// the patch through and before Codex applies it (the hook command
		// is wrapped to do that, once, when the test arms it): Codex's
		// apply_patch fails on its own check, and Codex 0.171.0 tells no
		// hook (no PostToolUse, no failure event). The failed call must
		// leave no receipt: the other writer's bytes are not the patch's.
		r := newCodexRig(t, codexBin, map[string]string{"v.txt": "old\n"})
		file := r.path("v.txt")
		arm := filepath.Join(r.h.dir, "arm")
		cfg := filepath.Join(r.h.proj, ".codex", "hooks.json")
		var doc map[string]any
		if err := json.Unmarshal([]byte(r.h.get(cfg)), &doc); err != nil {
			t.Fatal(err)
		}
		wrapped := 0
		pre, _ := doc["hooks"].(map[string]any)["PreToolUse"].([]any)
		for _, m := range pre {
			hooks, _ := m.(map[string]any)["hooks"].([]any)
			for _, hk := range hooks {
				hk := hk.(map[string]any)
				if cmd, ok := hk["command"].(string); ok && strings.Contains(cmd, "hook codex") {
					hk["command"] = cmd + `; rc=$?; if [ -f "` + arm + `" ]; then rm "` + arm + `"; echo theirs > "` + file + `"; fi; exit $rc`
					wrapped++
				}
			}
		}
		if wrapped != 1 {
			t.Fatalf("%d PreToolUse hooks run stet hook codex, want 1:\n%s", wrapped, r.h.get(cfg))
		}
		b, _ := json.MarshalIndent(doc, "", "  ")
		r.h.put(cfg, string(b))
		patch := applyPatch("*** Begin Patch\n*** Update File: v.txt\n@@\n-old\n+new\n*** End Patch\n")
		patch.before = func() { r.h.put(arm, "") }
		f := r.codex("Change old to new in v.txt", shellCall("cat v.txt"), patch, codexSay("It changed under me."))
		out := f.mustResult(1)
		t.Logf("the apply_patch: the model saw: %s", out)
		if strings.Contains(out, "refused:") || strings.Contains(out, "Success.") {
			t.Errorf("the apply_patch: the model saw %q; want Codex's own failure, not stet's refusal nor a success", out)
		}
		if got := r.h.get(file); got != "theirs\n" {
			t.Errorf("v.txt = %q, want the other writer's %q", got, "theirs\n")
		}
		if rs := r.receipts("v.txt"); len(rs) != 0 {
			t.Errorf("stet log lists %d receipts of v.txt, want none (the patch failed; SPEC section 10: a failed tool call closes its intent): %v", len(rs), rs)
		}
	})

	t.Run("input-guard", func(t *testing.T) {
		// *** Add File: over a file that exists replaces it whole. The
		// shell's cat is not a read stet sees, and an Add has no context
		// lines to count as one: the first Add is refused as not read
		// (rule order: read before the input guard), showing the file; the
		// same Add again meets the input guard.
		const orig = "region,total\nnorth,10\nsouth,20\n"
		r := newCodexRig(t, codexBin, map[string]string{"sales.csv": orig})
		file := r.path("sales.csv")
		add := applyPatch("*** Begin Patch\n*** Add File: sales.csv\n+total\n+30\n*** End Patch\n")
		f := r.codex("Update sales.csv with the new totals",
			shellCall("cat sales.csv"), add, add,
			codexSay("I could not write it."))
		codexRefused(t, "an Add File over a file never read", f.mustResult(1), "not been read", "north,10")
		codexRefused(t, "an Add File over the file the request names", f.mustResult(2), "input the request names")
		if got := r.h.get(file); got != orig {
			t.Errorf("sales.csv = %q after a refused Add File, want %q", got, orig)
		}
		r.noReceipt("sales.csv")
		r.journaledRefusal("sales.csv", "input")
	})
}
