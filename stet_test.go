package stet_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/brief"
	"github.com/stet-dev/stet/policy"
)

func ptr(s string) *string { return &s }

// open makes a workspace over a temp dir holding files, with its own state.
func open(t *testing.T, files map[string]string, opts stet.Options) (*stet.Workspace, *stet.Session, string) {
	t.Helper()
	root := t.TempDir()
	for name, content := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if opts.State == "" {
		opts.State = t.TempDir()
	}
	ws, err := stet.Open([]string{root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	s, err := ws.Session("test")
	if err != nil {
		t.Fatal(err)
	}
	return ws, s, root
}

func kindOf(err error) string {
	if r, ok := stet.AsRefusal(err); ok {
		return r.Kind
	}
	if err != nil {
		return "error: " + err.Error()
	}
	return ""
}

func content(t *testing.T, root, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

var ctx = context.Background()

func TestSeenRangesCarryThroughOwnEdits(t *testing.T) {
	text := strings.Repeat("a\n", 10) + "target one\n" + strings.Repeat("b\n", 10) + "target two\n"
	_, s, root := open(t, map[string]string{"f.txt": text}, stet.Options{})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "f.txt", Offset: 11, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "f.txt", OldString: ptr("target one"), NewString: ptr("TARGET ONE, longer")}); err != nil {
		t.Fatal(err)
	}
	// The edited line is still seen (shifted), the second target never was.
	_, err := s.Edit(ctx, stet.EditArgs{Path: "f.txt", OldString: ptr("TARGET ONE, longer"), NewString: ptr("T1")})
	if err != nil {
		t.Fatalf("editing the session's own new text: %v", err)
	}
	_, err = s.Edit(ctx, stet.EditArgs{Path: "f.txt", OldString: ptr("target two"), NewString: ptr("T2")})
	var r *stet.Refusal
	if !errors.As(err, &r) || r.Kind != stet.KindNotSeen || r.Details["offset"] != 22 {
		t.Fatalf("want not_seen at offset 22, got %v", err)
	}
	if !errors.Is(err, stet.ErrNotSeen) {
		t.Fatal("errors.Is with the kind sentinel failed")
	}
	if got := content(t, root, "f.txt"); !strings.Contains(got, "T1\n") || !strings.Contains(got, "target two") {
		t.Fatalf("file: %q", got)
	}
}

func TestBindingModes(t *testing.T) {
	text := "one\ntwo\nthree\n"
	for _, tc := range []struct {
		mode policy.Binding
		read stet.ReadArgs
		want string
	}{
		{policy.BindSeen, stet.ReadArgs{Path: "f.txt", Limit: 1}, stet.KindNotSeen},
		{policy.BindRead, stet.ReadArgs{Path: "f.txt", Limit: 1}, ""},
		{policy.BindFull, stet.ReadArgs{Path: "f.txt", Offset: 3, Limit: 1}, stet.KindNotSeen},
		{policy.BindFull, stet.ReadArgs{Path: "f.txt"}, ""},
	} {
		_, s, _ := open(t, map[string]string{"f.txt": text}, stet.Options{Binding: tc.mode})
		if _, err := s.Read(ctx, tc.read); err != nil {
			t.Fatal(err)
		}
		_, err := s.Edit(ctx, stet.EditArgs{Path: "f.txt", OldString: ptr("three"), NewString: ptr("3")})
		if got := kindOf(err); got != tc.want {
			t.Errorf("binding %s after %+v: got %q, want %q", tc.mode, tc.read, got, tc.want)
		}
	}
}

func TestGrepCountsAsSeen(t *testing.T) {
	_, s, root := open(t, map[string]string{"src/a.go": "package a\n\nfunc Old() {}\n"}, stet.Options{})
	res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "func Old"})
	if err != nil || len(res.Matches) != 1 || res.Matches[0].Path != "src/a.go" || res.Matches[0].Line != 3 {
		t.Fatalf("grep: %+v %v", res, err)
	}
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "src/a.go", OldString: ptr("func Old"), NewString: ptr("func New")}); err != nil {
		t.Fatalf("edit of a grep-shown line: %v", err)
	}
	_, err = s.Edit(ctx, stet.EditArgs{Path: "src/a.go", OldString: ptr("package a"), NewString: ptr("package b")})
	if kindOf(err) != stet.KindNotSeen {
		t.Fatalf("edit of a line grep did not show: %v", err)
	}
	if got := content(t, root, "src/a.go"); got != "package a\n\nfunc New() {}\n" {
		t.Fatalf("file: %q", got)
	}
}

func TestDryRunWritesNothing(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "x = 1\n"}, stet.Options{})
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	res, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("1"), NewString: ptr("2"), DryRun: true})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Receipt.DryRun || res.Receipt.Verified || !strings.Contains(res.Diff, "+x = 2") {
		t.Fatalf("dry run result: %+v", res)
	}
	if got := content(t, root, "a.txt"); got != "x = 1\n" {
		t.Fatalf("dry run wrote: %q", got)
	}
	// The dry run did not move the session forward: a real edit still lands.
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("1"), NewString: ptr("2")}); err != nil {
		t.Fatal(err)
	}
}

func TestExpectedVersion(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "v1\n"}, stet.Options{})
	r, _ := s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	os.WriteFile(filepath.Join(root, "a.txt"), []byte("v2\n"), 0o644)
	_, err := s.Write(ctx, stet.WriteArgs{Path: "a.txt", Content: "v3\n", ExpectedVersion: r.Version})
	if kindOf(err) != stet.KindChanged {
		t.Fatalf("stale expected_version: %v", err)
	}
	_, err = s.Write(ctx, stet.WriteArgs{Path: "a.txt", Content: "v3\n", ExpectedVersion: "sha256:nothex"})
	if kindOf(err) != stet.KindInvalid {
		t.Fatalf("malformed expected_version: %v", err)
	}
	if got := content(t, root, "a.txt"); got != "v2\n" {
		t.Fatalf("file: %q", got)
	}
}

func TestWarnAndSave(t *testing.T) {
	big := strings.Repeat("row,1\n", 100)
	_, s, root := open(t, map[string]string{"data.csv": "id,n\n" + big}, stet.Options{})
	s.Read(ctx, stet.ReadArgs{Path: "data.csv"})
	res, err := s.Write(ctx, stet.WriteArgs{Path: "data.csv", Content: "id,n\n"})
	if err != nil {
		t.Fatal(err)
	}
	want := "⚠ replaced the user's file data.csv (102 lines → 2); previous content saved — undo brings it back"
	if !strings.HasPrefix(res.Message, want) {
		t.Fatalf("message %q\nwant prefix %q", res.Message, want)
	}
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "data.csv"}); err != nil {
		t.Fatal(err)
	}
	if got := content(t, root, "data.csv"); got != "id,n\n"+big {
		t.Fatal("undo did not restore the saved bytes")
	}
}

func TestInputGuard(t *testing.T) {
	files := map[string]string{"sales.csv": "a,b\n1,2\n", "notes.txt": "n\n"}
	_, s, root := open(t, files, stet.Options{})
	if err := s.Turn("Update sales.csv with the March figures."); err != nil {
		t.Fatal(err)
	}
	s.Read(ctx, stet.ReadArgs{Path: "sales.csv"})
	_, err := s.Write(ctx, stet.WriteArgs{Path: "sales.csv", Content: "x\n"})
	var r *stet.Refusal
	if !errors.As(err, &r) || r.Kind != stet.KindInput ||
		r.Message != "refused: sales.csv is an input the request names (3 lines → 2); edit it in place (edit / patch), or pass overwrite: true if replacing it is really what the user asked for" {
		t.Fatalf("got %v", err)
	}
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "sales.csv", Content: "x\n", Overwrite: true}); err != nil {
		t.Fatalf("overwrite: true: %v", err)
	}
	// A declared input is refused whatever overwrite says.
	if err := s.Turn("tidy up", "notes.txt"); err != nil {
		t.Fatal(err)
	}
	s.Read(ctx, stet.ReadArgs{Path: "notes.txt"})
	_, err = s.Write(ctx, stet.WriteArgs{Path: "notes.txt", Content: "y\n", Overwrite: true})
	if !errors.As(err, &r) || r.Kind != stet.KindInput || !strings.Contains(r.Message, "is an input this fan-out declared (2 lines → 2)") {
		t.Fatalf("declared input: %v", err)
	}
	// Edits are never refused by the input guard.
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "notes.txt", OldString: ptr("n"), NewString: ptr("m")}); err != nil {
		t.Fatal(err)
	}
	if got := content(t, root, "notes.txt"); got != "m\n" {
		t.Fatalf("notes: %q", got)
	}
}

func TestPatchAllOrNothing(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "uno\ndos\n"}, stet.Options{})
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	s.Read(ctx, stet.ReadArgs{Path: "b.txt"})
	bad := "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b.txt\n@@\n-missing\n+x\n*** End Patch\n"
	_, err := s.Patch(ctx, stet.PatchArgs{Patch: bad})
	if kindOf(err) != stet.KindNoMatch {
		t.Fatalf("want no_match, got %v", err)
	}
	if content(t, root, "a.txt") != "one\ntwo\n" || content(t, root, "b.txt") != "uno\ndos\n" {
		t.Fatal("a refused patch changed a file")
	}
	good := "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+ONE\n*** Update File: b.txt\n@@\n-dos\n+DOS\n*** Add File: c.txt\n+new\n*** End Patch\n"
	res, err := s.Patch(ctx, stet.PatchArgs{Patch: good})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Receipts) != 3 || content(t, root, "a.txt") != "ONE\ntwo\n" || content(t, root, "b.txt") != "uno\nDOS\n" || content(t, root, "c.txt") != "new\n" {
		t.Fatalf("patch result %+v", res)
	}
	for _, r := range res.Receipts {
		if !r.Verified {
			t.Fatalf("unverified receipt %+v", r)
		}
	}
}

func TestMoveAndDelete(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "A\n", "b.txt": "B\n"}, stet.Options{})
	_, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "c.txt"})
	if kindOf(err) != stet.KindNotRead {
		t.Fatalf("move of an unread file: %v", err)
	}
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	if _, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "b.txt"}); kindOf(err) != stet.KindExists {
		t.Fatalf("move over a file: %v", err)
	}
	if _, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "c.txt"}); err != nil {
		t.Fatal(err)
	}
	if content(t, root, "c.txt") != "A\n" {
		t.Fatal("moved bytes differ")
	}
	// The observation moved with the file.
	if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "c.txt"}); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(root, "c.txt")); !os.IsNotExist(err) {
		t.Fatal("delete left the file")
	}
	if _, err := s.Undo(ctx, stet.UndoArgs{Path: "c.txt"}); err != nil {
		t.Fatal(err)
	}
	if content(t, root, "c.txt") != "A\n" {
		t.Fatal("undo of delete")
	}
}

func TestReadOnlyAndProtectedAndDenied(t *testing.T) {
	files := map[string]string{"a.txt": "a\n", ".git/HEAD": "ref\n", "secret.env": "KEY=1\n"}
	_, s, _ := open(t, files, stet.Options{Effects: policy.ReadOnly})
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("a"), NewString: ptr("b")}); kindOf(err) != stet.KindReadOnly {
		t.Fatalf("read-only: %v", err)
	}
	_, s, _ = open(t, files, stet.Options{DenyRead: []string{"*.env"}})
	s.Read(ctx, stet.ReadArgs{Path: ".git/HEAD"})
	if _, err := s.Write(ctx, stet.WriteArgs{Path: ".git/HEAD", Content: "x\n"}); kindOf(err) != stet.KindProtected {
		t.Fatalf("protected: %v", err)
	}
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "secret.env"}); kindOf(err) != stet.KindNotFound {
		t.Fatalf("deny-read: %v", err)
	}
	l, err := s.List(ctx, stet.ListArgs{})
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range l.Entries {
		if e.Name == "secret.env" {
			t.Fatal("list shows a deny-read file")
		}
	}
}

func TestTamperedReadbackFailsVerification(t *testing.T) {
	var root string
	opts := stet.Options{Hooks: stet.Hooks{BeforeReadback: func(p string) {
		os.WriteFile(filepath.Join(root, p), []byte("tampered\n"), 0o644)
	}}}
	_, s, r := open(t, map[string]string{"a.txt": "one\n"}, opts)
	root = r
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	_, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("two")})
	var ve *stet.VerifyError
	if !errors.As(err, &ve) || ve.Receipt.Verified {
		t.Fatalf("want a VerifyError, got %v", err)
	}
}

func TestParallelEditsOnDifferentFiles(t *testing.T) {
	files := map[string]string{}
	for i := 0; i < 8; i++ {
		files[string(rune('a'+i))+".txt"] = "value = 0\n"
	}
	_, s, root := open(t, files, stet.Options{})
	for name := range files {
		s.Read(ctx, stet.ReadArgs{Path: name})
	}
	var wg sync.WaitGroup
	errs := make(chan error, len(files))
	for name := range files {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := s.Edit(ctx, stet.EditArgs{Path: name, OldString: ptr("0"), NewString: ptr(name)})
			errs <- err
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name := range files {
		if got := content(t, root, name); got != "value = "+name+"\n" {
			t.Fatalf("%s: %q", name, got)
		}
	}
}

func TestCRLFAdapted(t *testing.T) {
	_, s, root := open(t, map[string]string{"w.txt": "one\r\ntwo\r\nthree\r\n"}, stet.Options{})
	s.Read(ctx, stet.ReadArgs{Path: "w.txt"})
	res, err := s.Edit(ctx, stet.EditArgs{Path: "w.txt", OldString: ptr("one\ntwo"), NewString: ptr("1\n2")})
	if err != nil {
		t.Fatal(err)
	}
	if res.Receipt.EOL != "crlf-adapted" || content(t, root, "w.txt") != "1\r\n2\r\nthree\r\n" {
		t.Fatalf("eol %q, file %q", res.Receipt.EOL, content(t, root, "w.txt"))
	}
}

func TestSessionsSurviveReopen(t *testing.T) {
	ws, s, root := open(t, map[string]string{"a.txt": "one\n"}, stet.Options{})
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	state := ws.StateDir()
	ws.Close()
	ws2, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.Close()
	s2, _ := ws2.Session("test")
	if _, err := s2.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("two")}); err != nil {
		t.Fatalf("a new process does not see the session's read: %v", err)
	}
	other, _ := ws2.Session("other")
	if _, err := other.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("two"), NewString: ptr("three")}); kindOf(err) != stet.KindNotRead {
		t.Fatalf("another session borrowed the read: %v", err)
	}
}

func TestWorkerRequestIsTheQuotedBlock(t *testing.T) {
	_, s, _ := open(t, map[string]string{"sales.csv": "a\nb\n", "report.md": "r\n"}, stet.Options{})
	b := brief.Render(brief.Brief{Request: "Summarise report.md for the board.", Task: "Regenerate sales.csv totals into a new file."})
	if err := s.Turn(b); err != nil {
		t.Fatal(err)
	}
	s.Read(ctx, stet.ReadArgs{Path: "sales.csv"})
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "sales.csv", Content: "x\n"}); err != nil {
		t.Fatalf("sales.csv is named only outside the ORIGINAL REQUEST block: %v", err)
	}
	s.Read(ctx, stet.ReadArgs{Path: "report.md"})
	if _, err := s.Write(ctx, stet.WriteArgs{Path: "report.md", Content: "x\n"}); kindOf(err) != stet.KindInput {
		t.Fatalf("report.md is named by the quoted request: %v", err)
	}
}

func TestConflictDuringSwap(t *testing.T) {
	var root string
	opts := stet.Options{Hooks: stet.Hooks{BeforeSwap: func(p string) {
		os.WriteFile(filepath.Join(root, p), []byte("the other writer\n"), 0o644)
	}}}
	_, s, r := open(t, map[string]string{"a.txt": "one\n"}, opts)
	root = r
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	_, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("two")})
	if kindOf(err) != stet.KindConflict {
		t.Fatalf("want conflict, got %v", err)
	}
	if got := content(t, root, "a.txt"); got != "the other writer\n" {
		t.Fatalf("the other writer's bytes were lost: %q", got)
	}
}

func TestLargeDiffsAreBounded(t *testing.T) {
	big := strings.Repeat("a line of text that is long enough\n", 30000) // about 1 MiB
	_, s, _ := open(t, map[string]string{"big.txt": big}, stet.Options{MaxReadBytes: 8 << 20})
	s.List(ctx, stet.ListArgs{})
	res, err := s.Write(ctx, stet.WriteArgs{Path: "new.txt", Content: big})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diff) > 70<<10 || !strings.Contains(res.Diff, "stet show") {
		t.Fatalf("create diff is %d bytes: %q", len(res.Diff), res.Diff[len(res.Diff)-200:])
	}
	s.Read(ctx, stet.ReadArgs{Path: "big.txt", Limit: 100000})
	res, err = s.Write(ctx, stet.WriteArgs{Path: "big.txt", Content: strings.ToUpper(big)})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Diff) > 1<<10 || !strings.Contains(res.Diff, "the whole file was replaced") {
		t.Fatalf("replace diff: %q", res.Diff)
	}
}

// TestCallFitRecordsOnlyWhatWasSent: a read shrunk to fit a surface's size
// bound counts as seen only for the window finally sent.
func TestCallFitRecordsOnlyWhatWasSent(t *testing.T) {
	text := strings.Repeat("0123456789\n", 100) + "tail marker\n"
	_, s, _ := open(t, map[string]string{"f.txt": text}, stet.Options{})
	tries := 0
	fit := func(out stet.Output) int {
		tries++
		if r := out.Structured.(*stet.ReadResult); r.To > 50 {
			return 500 // bytes: about 45 lines
		}
		return 0
	}
	out, err := s.CallFit(ctx, "read", []byte(`{"path":"f.txt"}`), fit, 0)
	if err != nil || out.Refused != nil {
		t.Fatal(err, out.Refused)
	}
	r := out.Structured.(*stet.ReadResult)
	if tries != 2 || r.To >= 50 || !strings.Contains(r.Frame, "next: offset") {
		t.Fatalf("tries %d, window to %d: %s", tries, r.To, r.Frame[len(r.Frame)-60:])
	}
	_, err = s.Edit(ctx, stet.EditArgs{Path: "f.txt", OldString: ptr("tail marker"), NewString: ptr("end")})
	if kindOf(err) != stet.KindNotSeen {
		t.Fatalf("the dropped window counted as seen: %v", err)
	}
}
