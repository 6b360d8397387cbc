package stet_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/reviewfixture"
)

// fixture plays the review fixture's three sessions in a fresh workspace.
func fixture(t *testing.T) (*stet.Workspace, string) {
	t.Helper()
	root := t.TempDir()
	if err := reviewfixture.Write(root); err != nil {
		t.Fatal(err)
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	if err := reviewfixture.Run(ctx, ws, root); err != nil {
		t.Fatal(err)
	}
	return ws, root
}

func TestSessionsView(t *testing.T) {
	ws, _ := fixture(t)
	ss, err := ws.Sessions()
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, s := range ss {
		ids = append(ids, s.ID)
	}
	if strings.Join(ids, ",") != "agent-c,agent-b,agent-a" {
		t.Fatalf("sessions %v, want newest first", ids)
	}
	a := ss[2]
	if len(a.Turns) != 2 || a.Turns[0].Request != "Add a greeting to the app" || len(a.Turns[0].Inputs) != 1 {
		t.Fatalf("agent-a turns: %+v", a.Turns)
	}
	files := map[string]stet.FileChange{}
	for _, f := range a.Files {
		files[f.Path] = f
	}
	if f := files["src/app.go"]; f.Added != 2 || f.Removed != 1 || !f.Exact {
		t.Errorf("src/app.go: %+v", f)
	}
	if f := files["src/greet.go"]; !f.Created || f.Added != 5 {
		t.Errorf("src/greet.go: %+v", f)
	}
	if f := files["old.txt"]; !f.Deleted || f.Removed != 1 {
		t.Errorf("old.txt: %+v", f)
	}
	if f := files["src/helpers.go"]; f.From != "src/util.go" {
		t.Errorf("src/helpers.go: %+v", f)
	}
	groups, err := ws.Refusals(stet.RefusalQuery{})
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]int{}
	for _, g := range groups {
		kinds[g.Kind] = g.Count
	}
	for _, k := range []string{stet.KindInput, stet.KindOutside, stet.KindProtected, stet.KindNotSeen, stet.KindChanged} {
		if kinds[k] == 0 {
			t.Errorf("no %s refusal recorded: %v", k, kinds)
		}
	}
}

func TestStandsAndDiff(t *testing.T) {
	ws, _ := fixture(t)
	st, err := ws.SessionStands("agent-b")
	if err != nil {
		t.Fatal(err)
	}
	if len(st) == 0 {
		t.Fatal("agent-b has no receipts to judge")
	}
	for _, s := range st {
		if s.State != stet.StateChanged || s.Now == nil || !strings.Contains(s.Message, "did not see") {
			t.Errorf("agent-b %s: %+v", s.Receipt, s)
		}
	}
	st, err = ws.SessionStands("agent-c")
	if err != nil || len(st) == 0 {
		t.Fatalf("agent-c: %v, %d receipts", err, len(st))
	}
	for _, s := range st {
		if s.State != stet.StateStands {
			t.Errorf("agent-c %s: %+v", s.Receipt, s)
		}
	}
	page, err := ws.Diff(stet.DiffSpec{Session: "agent-c", Limit: 1})
	if err != nil {
		t.Fatal(err)
	}
	if page.Total != 2 || len(page.Files) != 1 || !strings.Contains(page.Files[0].Diff, "+debug: true") {
		t.Fatalf("diff page: %+v", page)
	}
	h, err := ws.History("README.md")
	if err != nil || len(h) != 2 {
		t.Fatalf("history: %v %+v", err, h)
	}
}

// A session undo where one file was edited by a person afterwards changes
// nothing and names that file; the other sessions' undo works, and undoing
// the undo restores the agent's bytes exactly.
func TestUndoSessionAllOrNothingAndRedo(t *testing.T) {
	ws, root := fixture(t)
	_, err := ws.UndoChanges(ctx, stet.UndoSpec{Session: "agent-b"})
	r, ok := stet.AsRefusal(err)
	if !ok || r.Kind != stet.KindChanged || r.Path != "README.md" || !strings.Contains(r.Message, "README.md") {
		t.Fatalf("undo agent-b: %v", err)
	}
	if got := content(t, root, "README.md"); got != reviewfixture.HumanREADME {
		t.Fatalf("README.md changed: %q", got)
	}

	before := map[string]string{}
	for _, p := range []string{"src/app.go", "src/greet.go", "src/helpers.go"} {
		before[p] = content(t, root, p)
	}
	pre, err := ws.UndoChanges(ctx, stet.UndoSpec{Session: "agent-a", DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(pre.Steps) != 4 || len(pre.Receipts) != 0 {
		t.Fatalf("preview: %+v", pre)
	}
	if content(t, root, "src/greet.go") != before["src/greet.go"] {
		t.Fatal("dry run changed a file")
	}
	res, err := ws.UndoChanges(ctx, stet.UndoSpec{Session: "agent-a"})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Receipts) != 4 {
		t.Fatalf("undo receipts: %+v", res.Receipts)
	}
	for name, want := range map[string]string{"src/app.go": reviewfixture.Files["src/app.go"], "old.txt": "obsolete\n", "src/util.go": reviewfixture.Files["src/util.go"]} {
		if got := content(t, root, name); got != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "src/greet.go")); !os.IsNotExist(err) {
		t.Errorf("src/greet.go still there: %v", err)
	}
	// Redo: undo the undo receipts, all at once.
	var ids []string
	for _, rc := range res.Receipts {
		if rc.Session != stet.ReviewSession {
			t.Errorf("undo receipt in session %s", rc.Session)
		}
		ids = append(ids, rc.ID)
	}
	undoneIn := func(session string) int {
		log, err := ws.Log(session, "")
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, e := range log {
			if e.Undone {
				n++
			}
		}
		return n
	}
	if n := undoneIn("agent-a"); n != 4 {
		t.Errorf("stet log --session agent-a after the undo: %d receipts undone, want 4", n)
	}
	if _, err := ws.UndoChanges(ctx, stet.UndoSpec{Receipts: ids}); err != nil {
		t.Fatal(err)
	}
	if n := undoneIn("agent-a"); n != 0 {
		t.Errorf("stet log --session agent-a after the redo: %d receipts still shown undone, want 0", n)
	}
	for p, want := range before {
		if got := content(t, root, p); got != want {
			t.Errorf("after redo %s = %q, want %q", p, got, want)
		}
	}
	if _, err := os.Stat(filepath.Join(root, "old.txt")); !os.IsNotExist(err) {
		t.Errorf("old.txt back after redo: %v", err)
	}
	rep, err := ws.Verify("")
	if err != nil || !rep.OK() {
		t.Fatalf("verify: %v %+v", err, rep.Problems)
	}
}

// One receipt out of order: refused while a later change holds the file,
// taken back alone when it still stands.
func TestUndoOutOfOrder(t *testing.T) {
	ws, s, root := open(t, map[string]string{"a.txt": "one\n", "b.txt": "two\n"}, stet.Options{})
	readAll(t, s, "a.txt", "b.txt")
	e1 := must[*stet.MutationResult](t)(s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("ONE")}))
	e2 := must[*stet.MutationResult](t)(s.Edit(ctx, stet.EditArgs{Path: "b.txt", OldString: ptr("two"), NewString: ptr("TWO")}))
	e3 := must[*stet.MutationResult](t)(s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("ONE"), NewString: ptr("ONE!")}))
	_, err := ws.UndoChanges(ctx, stet.UndoSpec{Receipts: []string{e1.Receipt.ID}})
	if r, ok := stet.AsRefusal(err); !ok || r.Kind != stet.KindChanged || !strings.Contains(r.Message, e3.Receipt.ID) {
		t.Fatalf("undo of a change a later one holds: %v", err)
	}
	if _, err := ws.UndoChanges(ctx, stet.UndoSpec{Receipts: []string{e2.Receipt.ID}}); err != nil {
		t.Fatal(err)
	}
	if content(t, root, "b.txt") != "two\n" || content(t, root, "a.txt") != "ONE!\n" {
		t.Fatal("out-of-order undo touched the wrong file")
	}
	// Both of a.txt's changes, chained newest first.
	if _, err := ws.UndoChanges(ctx, stet.UndoSpec{Receipts: []string{e1.Receipt.ID, e3.Receipt.ID}}); err != nil {
		t.Fatal(err)
	}
	if content(t, root, "a.txt") != "one\n" {
		t.Fatalf("a.txt = %q", content(t, root, "a.txt"))
	}
	st, err := ws.Stands(e1.Receipt.ID)
	if err != nil || st.State != stet.StateUndone {
		t.Fatalf("stands: %v %+v", err, st)
	}
}

// After the review page took back an agent's last change, the agent's own
// undo goes on from the change before it.
func TestAgentUndoAfterReviewUndo(t *testing.T) {
	ws, s, root := open(t, map[string]string{"a.txt": "one\n"}, stet.Options{})
	readAll(t, s, "a.txt")
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("two")}); err != nil {
		t.Fatal(err)
	}
	second, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("two"), NewString: ptr("three")})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := ws.UndoChanges(ctx, stet.UndoSpec{Receipts: []string{second.Receipt.ID}}); err != nil {
		t.Fatal(err)
	}
	if got := content(t, root, "a.txt"); got != "two\n" {
		t.Fatalf("after the review undo: %q", got)
	}
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "a.txt"}); err != nil {
		t.Fatalf("the agent's undo after the review undo: %v", err)
	}
	if got := content(t, root, "a.txt"); got != "one\n" {
		t.Errorf("after the agent's undo: %q, want the first bytes", got)
	}
}

// A changed file that now leads to a denied one is not shown by the review:
// its bytes never reach a stands answer or a diff.
func TestReviewHidesDeniedFiles(t *testing.T) {
	ws, s, root := open(t, map[string]string{"a.txt": "one\n", "secrets/key": "TOPSECRET\n"}, stet.Options{DenyRead: []string{"secrets/**"}})
	readAll(t, s, "a.txt")
	res, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("two")})
	if err != nil {
		t.Fatal(err)
	}
	os.Remove(filepath.Join(root, "a.txt"))
	if err := os.Symlink("secrets/key", filepath.Join(root, "a.txt")); err != nil {
		t.Skip("no symlinks:", err)
	}
	st, err := ws.Stands(res.Receipt.ID)
	if err != nil {
		t.Fatal(err)
	}
	page, err := ws.Diff(stet.DiffSpec{Session: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for what, v := range map[string]any{"stands": st, "diff": page} {
		secretVersion := string(fsys.VersionOf([]byte("TOPSECRET\n")))
		if b, _ := json.Marshal(v); strings.Contains(string(b), "TOPSECRET") || strings.Contains(string(b), secretVersion) {
			t.Errorf("the review's %s shows a denied file: %s", what, b)
		}
	}
}

// A file that a deny-read rule hides now shows no bytes through the faces
// over the journal either: not its stored previous bytes, not its diff,
// in stet show or the review's diffs, whatever it was when it changed.
func TestFacesHideWhatDenyReadHides(t *testing.T) {
	root, state := t.TempDir(), t.TempDir()
	if err := os.WriteFile(filepath.Join(root, "app.env"), []byte("TOKEN=old-secret\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	s, _ := ws.Session("agent")
	if _, err := s.Do(ctx, stet.ReadArgs{Path: "app.env"}); err != nil {
		t.Fatal(err)
	}
	out, err := s.Write(ctx, stet.WriteArgs{Path: "app.env", Content: "TOKEN=new-secret\n", Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	id := out.Receipt.ID
	ws.Close()

	ws, err = stet.Open([]string{root}, stet.Options{State: state, DenyRead: []string{"*.env"}})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	_, diff, err := ws.Show(id)
	if err != nil {
		t.Fatal(err)
	}
	page, err := ws.Diff(stet.DiffSpec{Session: "agent", Limit: 20})
	if err != nil || len(page.Files) != 1 {
		t.Fatalf("diff: %+v %v", page, err)
	}
	for face, text := range map[string]string{"show": diff, "review diff": page.Files[0].Diff} {
		if strings.Contains(text, "secret") || !strings.Contains(text, "deny-read") {
			t.Errorf("%s of a deny-read file: %q", face, text)
		}
	}
}
