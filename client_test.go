package stet_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// clientEdit runs a client's Edit as its hooks see it: the check and save
// before, the client's own write, the readback after.
func clientEdit(t *testing.T, s *stet.Session, root, id, name, old, new string) ([]*stet.MutationResult, error) {
	t.Helper()
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: id, Tool: "Edit"}, stet.EditArgs{Path: name, OldString: ptr(old), NewString: ptr(new)}); err != nil {
		return nil, err
	}
	p := filepath.Join(root, name)
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	return s.FinishClient(ctx, id)
}

func TestClientEditLandsWithAVerifiedReceiptAndUndoes(t *testing.T) {
	ws, s, root := open(t, map[string]string{"a.txt": "alpha\nbeta\ngamma\n"}, stet.Options{})
	if err := s.ObserveClient(ctx, stet.ClientRead{Path: "a.txt", Offset: 0, Limit: 0}); err != nil {
		t.Fatal(err)
	}
	res, err := clientEdit(t, s, root, "call-1", "a.txt", "beta", "BETA")
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || !res[0].Receipt.Verified || res[0].Receipt.Tool != "Edit" {
		t.Fatalf("receipts %+v, want one verified receipt of Edit", res)
	}
	if got := res[0].Receipt.Matches; len(got) != 1 || got[0].Line != 2 {
		t.Errorf("matches %+v, want the one on line 2", got)
	}
	// The session carries its view through the change: a second edit of
	// the new text needs no read.
	if _, err := clientEdit(t, s, root, "call-2", "a.txt", "BETA", "Beta"); err != nil {
		t.Fatalf("a second edit after the client's own: %v", err)
	}
	st, err := ws.Stands(res[0].Receipt.ID)
	if err != nil || st.State != stet.StateChanged {
		t.Errorf("the first receipt stands %+v (%v), want changed since by the second", st, err)
	}
	for range 2 {
		if _, err := s.Undo(ctx, stet.UndoArgs{Path: "a.txt"}); err != nil {
			t.Fatal(err)
		}
	}
	if got := content(t, root, "a.txt"); got != "alpha\nbeta\ngamma\n" {
		t.Errorf("after two undos a.txt holds %q", got)
	}
}

func TestClientChangeRefusedByTheRulesInOrder(t *testing.T) {
	files := map[string]string{"a.txt": "one\ntwo\n", "keep.cfg": "x\n", "sales.csv": "a,b\n1,2\n"}
	_, s, root := open(t, files, stet.Options{Protect: []string{"keep.cfg"}})
	call := stet.ClientCall{ID: "c", Tool: "Edit"}
	// Not read: refused, and the refusal's frame counts as read.
	_, err := s.PrepareClient(ctx, call, stet.EditArgs{Path: "a.txt", OldString: ptr("two"), NewString: ptr("2")})
	if kindOf(err) != stet.KindNotRead || !strings.Contains(err.Error(), "00002|two") {
		t.Fatalf("an edit of an unread file: %v, want not_read showing the frame", err)
	}
	// Changed since that read: refused by content.
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
	if _, err := s.PrepareClient(ctx, call, stet.EditArgs{Path: "a.txt", OldString: ptr("two"), NewString: ptr("2")}); kindOf(err) != stet.KindChanged {
		t.Fatalf("an edit after the file changed: %v, want changed", err)
	}
	// Protected: refused before anything else is asked.
	if _, err := s.PrepareClient(ctx, call, stet.WriteArgs{Path: "keep.cfg", Content: "y\n"}); kindOf(err) != stet.KindProtected {
		t.Fatalf("a write of a protected file: %v, want protected", err)
	}
	// The input guard: a whole-file replace of a file the request names.
	if err := s.Turn("Update sales.csv with the new totals"); err != nil {
		t.Fatal(err)
	}
	s.ObserveClient(ctx, stet.ClientRead{Path: "sales.csv", Offset: 0, Limit: 0})
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: "w", Tool: "Write"}, stet.WriteArgs{Path: "sales.csv", Content: "x\n"}); kindOf(err) != stet.KindInput {
		t.Fatalf("a Write over a file the request names: %v, want input", err)
	}
	// Nothing was changed, and no intent stays open.
	for name, want := range map[string]string{"keep.cfg": "x\n", "sales.csv": "a,b\n1,2\n"} {
		if got := content(t, root, name); got != want {
			t.Errorf("%s holds %q, want %q", name, got, want)
		}
	}
	if res, err := s.FinishClient(ctx, "w"); err != nil || len(res) != 0 {
		t.Errorf("finishing a refused call: %v %v, want nothing", res, err)
	}
}

func TestClientChangeThatDoesNotHoldThePlanIsNotVerified(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.go": "package a\nfunc  f() {}\n"}, stet.Options{})
	s.ObserveClient(ctx, stet.ClientRead{Path: "a.go", Offset: 0, Limit: 0})
	call := stet.ClientCall{ID: "fmt", Tool: "Edit"}
	plan, err := s.PrepareClient(ctx, call, stet.EditArgs{Path: "a.go", OldString: ptr("f()"), NewString: ptr("g()")})
	if err != nil {
		t.Fatal(err)
	}
	// The client wrote the edit and a formatter changed more.
	os.WriteFile(filepath.Join(root, "a.go"), []byte("package a\n\nfunc g() {}\n"), 0o644)
	res, err := s.FinishClient(ctx, call.ID)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 1 || res[0].Receipt.Verified {
		t.Fatalf("receipts %+v, want one that is not verified", res)
	}
	r := res[0].Receipt
	if !strings.Contains(r.Notes[len(r.Notes)-1], plan.Receipts[0].After.Version) || r.After.Version == plan.Receipts[0].After.Version {
		t.Errorf("the receipt names %q after %v; want both the planned version and what the file holds", r.Notes, r.After)
	}
	if !strings.Contains(res[0].Message, "not verified") {
		t.Errorf("message %q does not say it is not verified", res[0].Message)
	}
}

func TestClientCallThatChangedNothingLeavesNoReceipt(t *testing.T) {
	ws, s, root := open(t, map[string]string{"a.txt": "one\n"}, stet.Options{})
	s.ObserveClient(ctx, stet.ClientRead{Path: "a.txt", Offset: 0, Limit: 0})
	call := stet.ClientCall{ID: "x", Tool: "Write"}
	if _, err := s.PrepareClient(ctx, call, stet.WriteArgs{Path: "a.txt", Content: "two\n"}); err != nil {
		t.Fatal(err)
	}
	// The tool failed: the file holds its old bytes.
	res, err := s.FinishClient(ctx, call.ID)
	if err != nil || len(res) != 0 {
		t.Fatalf("a call that changed nothing: %v %v, want no receipt", res, err)
	}
	log, err := ws.Log("", "")
	if err != nil || len(log) != 0 {
		t.Errorf("log %v (%v), want empty", log, err)
	}
	if got := content(t, root, "a.txt"); got != "one\n" {
		t.Errorf("a.txt holds %q", got)
	}
}

func TestClientIntentOutlivesTheProcess(t *testing.T) {
	root := t.TempDir()
	state := t.TempDir()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("one\ntwo\n"), 0o644)
	session := func() (*stet.Workspace, *stet.Session) {
		ws, err := stet.Open([]string{root}, stet.Options{State: state})
		if err != nil {
			t.Fatal(err)
		}
		s, err := ws.Session("claude-code-1")
		if err != nil {
			t.Fatal(err)
		}
		return ws, s
	}
	// Each hook event is its own process: the read, the check, the readback.
	ws, s := session()
	s.ObserveClient(ctx, stet.ClientRead{Path: "a.txt", Offset: 0, Limit: 0})
	ws.Close()
	ws, s = session()
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: "t1", Tool: "Write"}, stet.WriteArgs{Path: "a.txt", Content: "new\n"}); err != nil {
		t.Fatal(err)
	}
	ws.Close()
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("new\n"), 0o644)
	ws, s = session()
	defer ws.Close()
	res, err := s.FinishClient(ctx, "t1")
	if err != nil || len(res) != 1 || !res[0].Receipt.Verified {
		t.Fatalf("the readback in a later process: %+v %v", res, err)
	}
	if res[0].Receipt.Before == nil {
		t.Fatalf("receipt %+v has no before state", res[0].Receipt)
	}
	// The replaced bytes were saved before the client wrote: undo brings them back.
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	if got := content(t, root, "a.txt"); got != "one\ntwo\n" {
		t.Errorf("after undo a.txt holds %q", got)
	}
}

func TestClientReadOfAWindowCountsOnlyThoseLines(t *testing.T) {
	text := "l1\nl2\nl3\nl4\nl5\n"
	_, s, _ := open(t, map[string]string{"a.txt": text}, stet.Options{})
	if err := s.ObserveClient(ctx, stet.ClientRead{Path: "a.txt", Offset: 2, Limit: 2}); err != nil {
		t.Fatal(err)
	}
	call := stet.ClientCall{ID: "1", Tool: "Edit"}
	if _, err := s.PrepareClient(ctx, call, stet.EditArgs{Path: "a.txt", OldString: ptr("l3"), NewString: ptr("L3")}); err != nil {
		t.Errorf("an edit inside the lines shown: %v", err)
	}
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: "2", Tool: "Edit"}, stet.EditArgs{Path: "a.txt", OldString: ptr("l5"), NewString: ptr("L5")}); kindOf(err) != stet.KindNotSeen {
		t.Errorf("an edit of a line not shown: %v, want not_seen", err)
	}
}

func TestClientReadOfADeniedFileIsRefused(t *testing.T) {
	_, s, _ := open(t, map[string]string{"a.txt": "x\n", ".env": "SECRET=1\n"}, stet.Options{DenyRead: []string{".env"}})
	if err := s.CheckClientRead("Read", ".env"); kindOf(err) == "" {
		t.Errorf("a client's read of a deny-read file was let through")
	}
	if err := s.CheckClientRead("Read", "a.txt"); err != nil {
		t.Errorf("a client's read of a.txt: %v", err)
	}
	if err := s.ObserveClient(ctx, stet.ClientRead{Path: ".env", Offset: 0, Limit: 0}); err == nil {
		t.Errorf("a deny-read file was observed")
	}
}

// TestClientCallWithoutItsOutcomeIsSettledByTheNext: a call whose
// readback never came (the client stopped after writing) is settled
// against the disk when the next call of the same file is checked: its
// receipt is written then, so nothing is left unrecorded and no intent
// piles up.
func TestClientCallWithoutItsOutcomeIsSettledByTheNext(t *testing.T) {
	ws, s, root := open(t, map[string]string{"a.txt": "one\ntwo\n"}, stet.Options{})
	s.ObserveClient(ctx, stet.ClientRead{Path: "a.txt", Offset: 0, Limit: 0})
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: "lost", Tool: "Edit"}, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("ONE")}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("ONE\ntwo\n"), 0o644) // written; no PostToolUse follows
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: "next", Tool: "Edit"}, stet.EditArgs{Path: "a.txt", OldString: ptr("two"), NewString: ptr("TWO")}); err != nil {
		t.Fatalf("the next edit: %v", err)
	}
	log, err := ws.Log("", "")
	if err != nil || len(log) != 1 || !log[0].Receipt.Verified {
		t.Fatalf("log %+v (%v), want the lost call's verified receipt", log, err)
	}
	if res, _ := s.FinishClient(ctx, "lost"); len(res) != 0 {
		t.Errorf("the lost call was recorded twice")
	}
}

// TestClientFailedCallLeavesNoReceipt: a tool that failed (Claude Code's
// PostToolUseFailure) closes its intent with no receipt, even when the file
// was changed by something else meanwhile: that change is not the tool's.
func TestClientFailedCallLeavesNoReceipt(t *testing.T) {
	ws, s, root := open(t, map[string]string{"a.txt": "one\n"}, stet.Options{})
	s.ObserveClient(ctx, stet.ClientRead{Path: "a.txt"})
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: "f", Tool: "Edit"}, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("ONE")}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("theirs\n"), 0o644)
	if err := s.FailClient(ctx, "f"); err != nil {
		t.Fatal(err)
	}
	if log, err := ws.Log("", ""); err != nil || len(log) != 0 {
		t.Errorf("log %+v (%v), want no receipt for a failed call", log, err)
	}
	if res, _ := s.FinishClient(ctx, "f"); len(res) != 0 {
		t.Errorf("the failed call's intent is still open")
	}
}

// TestClientReadThatNoLongerHoldsWhatWasShownIsNotSeen: a read whose text
// the file no longer holds when its report comes observes nothing.
func TestClientReadThatNoLongerHoldsWhatWasShownIsNotSeen(t *testing.T) {
	ws, s, _ := open(t, map[string]string{"a.txt": "one\ntwo\n"}, stet.Options{})
	if err := s.ObserveClient(ctx, stet.ClientRead{Path: "a.txt", Offset: 1, Limit: 2, Shown: ptr("one\nTWO")}); err != nil {
		t.Fatal(err)
	}
	_, err := s.PrepareClient(ctx, stet.ClientCall{ID: "1", Tool: "Edit"}, stet.EditArgs{Path: "a.txt", OldString: ptr("two"), NewString: ptr("2")})
	if kindOf(err) != stet.KindNotRead {
		t.Fatalf("an edit after a read the file does not hold: %v, want not_read", err)
	}
	// Another session (the refusal above showed the file to this one).
	s, err = ws.Session("fresh")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.ObserveClient(ctx, stet.ClientRead{Path: "a.txt", Offset: 1, Limit: 2, Shown: ptr("one\r\ntwo")}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: "2", Tool: "Edit"}, stet.EditArgs{Path: "a.txt", OldString: ptr("two"), NewString: ptr("2")}); err != nil {
		t.Fatalf("an edit after a read the file holds: %v", err)
	}
}

// TestUndoOfAnUnverifiedClientChangeSaysWhy: undo takes back only
// verified changes; of a client's change that is not, it names the receipt.
func TestUndoOfAnUnverifiedClientChangeSaysWhy(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "one\n"}, stet.Options{})
	s.ObserveClient(ctx, stet.ClientRead{Path: "a.txt"})
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: "u", Tool: "Edit"}, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("ONE")}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("ONE!\n"), 0o644)
	res, err := s.FinishClient(ctx, "u")
	if err != nil || len(res) != 1 {
		t.Fatal(res, err)
	}
	_, err = s.Undo(ctx, stet.UndoArgs{Path: "a.txt"})
	if kindOf(err) != stet.KindNotFound || !strings.Contains(err.Error(), res[0].Receipt.ID) || !strings.Contains(err.Error(), "not verified") {
		t.Errorf("undo of an unverified change: %v", err)
	}
}

// TestClientCallThatFailedSilentlyIsNotCredited: a call whose tool failed
// without a word (Codex sends nothing after a patch it could not apply)
// is closed by the next call of the same file with no receipt, though
// another writer changed the file meanwhile.
func TestClientCallThatFailedSilentlyIsNotCredited(t *testing.T) {
	ws, s, root := open(t, map[string]string{"v.txt": "ours\n"}, stet.Options{})
	s.ObserveClient(ctx, stet.ClientRead{Path: "v.txt"})
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: "failed", Tool: "apply_patch"}, stet.EditArgs{Path: "v.txt", OldString: ptr("ours"), NewString: ptr("mine")}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(root, "v.txt"), []byte("theirs\n"), 0o644) // another writer; the patch failed
	s.ObserveClient(ctx, stet.ClientRead{Path: "v.txt"})
	if _, err := s.PrepareClient(ctx, stet.ClientCall{ID: "next", Tool: "apply_patch"}, stet.EditArgs{Path: "v.txt", OldString: ptr("theirs"), NewString: ptr("mine")}); err != nil {
		t.Fatal(err)
	}
	if log, err := ws.Log("", ""); err != nil || len(log) != 0 {
		t.Errorf("log %+v (%v): the failed call was credited with another writer's bytes", log, err)
	}
}
