package stet_test

import (
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// TestNotSeenShowsTheLinesAndTheRetryLands: a change of lines the model
// was not shown is refused showing them, and they now count as seen, so
// the same call sent again lands.
func TestNotSeenShowsTheLinesAndTheRetryLands(t *testing.T) {
	_, s, root := open(t, map[string]string{"long.txt": strings.Repeat("line\n", 50) + "target\n"}, stet.Options{})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "long.txt", Limit: 10}); err != nil {
		t.Fatal(err)
	}
	a := stet.EditArgs{Path: "long.txt", OldString: ptr("target"), NewString: ptr("hit")}
	_, err := s.Edit(ctx, a)
	if kindOf(err) != stet.KindNotSeen || !strings.Contains(err.Error(), "00051|target") {
		t.Fatalf("an edit of a line not shown: %v, want not_seen showing line 51", err)
	}
	if _, err := s.Edit(ctx, a); err != nil {
		t.Fatalf("the same edit again: %v", err)
	}
	if got := content(t, root, "long.txt"); !strings.HasSuffix(got, "hit\n") {
		t.Errorf("long.txt ends %q", got[len(got)-10:])
	}
}

// TestOldStringWithTheFramePrefixIsNamed: an old_string copied with the
// frame's line-number prefix is refused naming the prefix, in a single
// edit and in a list of them.
func TestOldStringWithTheFramePrefixIsNamed(t *testing.T) {
	_, s, _ := open(t, map[string]string{"a.go": "package a\nfunc f() {}\n"}, stet.Options{})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.go"}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Edit(ctx, stet.EditArgs{Path: "a.go", OldString: ptr("00002|func f() {}"), NewString: ptr("func g() {}")})
	if kindOf(err) != stet.KindNoMatch || !strings.Contains(err.Error(), "old_string starts with the read frame's line-number prefix `00002|`: drop it") {
		t.Errorf("old_string with the prefix: %v", err)
	}
	_, err = s.Edit(ctx, stet.EditArgs{Path: "a.go", Edits: []stet.EditOp{{OldString: "package a", NewString: "package b"}, {OldString: "00002|func f", NewString: "func g"}}})
	if !strings.Contains(err.Error(), "edits[1].old_string starts with the read frame's line-number prefix `00002|`") {
		t.Errorf("edits[1] with the prefix: %v", err)
	}
	// Text that merely holds digits and a bar elsewhere is an ordinary miss.
	_, err = s.Edit(ctx, stet.EditArgs{Path: "a.go", OldString: ptr("x 00002|y"), NewString: ptr("z")})
	if kindOf(err) != stet.KindNoMatch || strings.Contains(err.Error(), "prefix") {
		t.Errorf("an ordinary miss: %v", err)
	}
}

// TestPatchShowsEveryFileItNeedsAtOnce: a patch of three files, two of
// them never read, is refused once showing both, and the retry lands.
func TestPatchShowsEveryFileItNeedsAtOnce(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "a1\n", "b.txt": "b1\n", "c.txt": "c1\n"}, stet.Options{})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "b.txt"}); err != nil {
		t.Fatal(err)
	}
	p := stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n-a1\n+A1\n*** Update File: b.txt\n@@\n-b1\n+B1\n*** Update File: c.txt\n@@\n-c1\n+C1\n*** End Patch\n"}
	_, err := s.Patch(ctx, p)
	if kindOf(err) != stet.KindNotRead {
		t.Fatalf("a patch of unread files: %v, want not_read", err)
	}
	msg := err.Error()
	for _, want := range []string{"needs 2 files seen", "a.txt, c.txt", "00001|a1", "00001|c1"} {
		if !strings.Contains(msg, want) {
			t.Errorf("the refusal does not show %q:\n%s", want, msg)
		}
	}
	if _, err := s.Patch(ctx, p); err != nil {
		t.Fatalf("the same patch again: %v", err)
	}
	for name, want := range map[string]string{"a.txt": "A1\n", "b.txt": "B1\n", "c.txt": "C1\n"} {
		if got := content(t, root, name); got != want {
			t.Errorf("%s holds %q", name, got)
		}
	}
}

// TestPatchLineWithTheFramePrefixIsNamed: a hunk whose lines carry the
// frame's line numbers is refused naming them.
func TestPatchLineWithTheFramePrefixIsNamed(t *testing.T) {
	_, s, _ := open(t, map[string]string{"a.txt": "one\ntwo\n"}, stet.Options{})
	s.Read(ctx, stet.ReadArgs{Path: "a.txt"})
	_, err := s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: a.txt\n@@\n 00001|one\n-00002|two\n+00002|TWO\n*** End Patch\n"})
	if kindOf(err) != stet.KindNoMatch || !strings.Contains(err.Error(), "hunk 1 has a line that starts with the read frame's line-number prefix `00001|`: drop it") {
		t.Errorf("a hunk with the prefix: %v", err)
	}
}
