package stet_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// refusalOf runs a tool both ways, from Go (typed arguments) and from JSON
// (Session.Call), and returns both refusals.
func refusalOf(t *testing.T, s *stet.Session, name string, args any) (fromGo, fromJSON *stet.Refusal) {
	t.Helper()
	_, err := s.Do(ctx, args)
	fromGo, _ = stet.AsRefusal(err)
	raw, err := json.Marshal(args)
	if err != nil {
		t.Fatal(err)
	}
	out, err := s.Call(ctx, name, raw)
	if err != nil {
		t.Fatal(err)
	}
	return fromGo, out.Refused
}

// TestArgumentsOneRule: rule 1 gives the same answer, in the same words,
// whether the arguments come from Go or from JSON.
func TestArgumentsOneRule(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": "one\ntwo\n", "d/b.txt": "x\n"}, stet.Options{})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	upper := "sha256:" + strings.Repeat("AB", 32)
	for _, tc := range []struct {
		name string
		args any
		want string // in the message
	}{
		{"edit", stet.EditArgs{Path: "a.txt", OldString: ptr("one"), NewString: ptr("1"), ExpectedVersion: upper}, "expected_version"},
		{"write", stet.WriteArgs{Path: "a.txt", Content: "x", Overwrite: true, ExpectedVersion: upper}, "expected_version"},
		{"edit", stet.EditArgs{Path: "a.txt", OldString: ptr("one")}, "new_string"},
		{"edit", stet.EditArgs{Path: "a.txt", OldString: ptr(""), NewString: ptr("x")}, "old_string"},
		{"edit", stet.EditArgs{Path: "a.txt", OldString: ptr("same"), NewString: ptr("same")}, "identical"},
		{"edit", stet.EditArgs{Path: "a.txt", Edits: []stet.EditOp{{OldString: "one", NewString: "1"}}, ReplaceAll: true}, "replace_all"},
		{"move", stet.MoveArgs{From: "a.txt", To: "a.txt"}, "same path"},
		{"read", stet.ReadArgs{Path: "a.txt", Offset: -1}, "offset"},
		{"read", stet.ReadArgs{Path: "a.txt", Limit: 1 << 40}, "limit"},
		{"list", stet.ListArgs{Depth: 1 << 20}, "depth"},
		{"list", stet.ListArgs{Limit: -3}, "limit"},
		{"find", stet.FindArgs{Pattern: "**/*.txt", Limit: 1 << 40}, "limit"},
		{"find", stet.FindArgs{Pattern: "[a"}, "pattern"},
		{"grep", stet.GrepArgs{Pattern: "one", Context: 1 << 40}, "context"},
		{"grep", stet.GrepArgs{Pattern: "one", Glob: "[a"}, "glob"},
		{"grep", stet.GrepArgs{Pattern: "("}, "pattern"},
		{"mkdir", stet.MkdirArgs{}, "path"},
		{"delete", stet.DeleteArgs{}, "path"},
		{"undo", stet.UndoArgs{}, "path"},
		{"patch", stet.PatchArgs{Patch: " "}, "patch"},
	} {
		g, j := refusalOf(t, s, tc.name, tc.args)
		if g == nil || j == nil {
			t.Errorf("%s %+v: refused from Go: %v, from JSON: %v; want both refused", tc.name, tc.args, g, j)
			continue
		}
		if g.Kind != stet.KindInvalid || j.Kind != stet.KindInvalid || g.Message != j.Message {
			t.Errorf("%s %+v:\n Go:   %s %q\n JSON: %s %q\nwant the same invalid refusal", tc.name, tc.args, g.Kind, g.Message, j.Kind, j.Message)
		}
		if !strings.Contains(g.Message, tc.want) {
			t.Errorf("%s: message %q does not name %q", tc.name, g.Message, tc.want)
		}
	}
	if got := content(t, root, "a.txt"); got != "one\ntwo\n" {
		t.Fatalf("a.txt changed: %q", got)
	}
}

// TestBoundsNamed: a numeric argument over its bound is refused naming the
// bound.
func TestBoundsNamed(t *testing.T) {
	_, s, _ := open(t, map[string]string{"a.txt": "one\n"}, stet.Options{})
	_, err := s.Grep(ctx, stet.GrepArgs{Pattern: "one", Context: 1 << 40})
	r, ok := stet.AsRefusal(err)
	if !ok || r.Kind != stet.KindInvalid || !strings.Contains(r.Message, "at most ") {
		t.Fatalf("huge context: %v", err)
	}
	// An edit call with more replacements than the bound is refused before
	// the file is touched; at the bound it is checked like any other.
	many := make([]stet.EditOp, 10_001)
	for i := range many {
		many[i] = stet.EditOp{OldString: "one", NewString: "two"}
	}
	_, err = s.Edit(ctx, stet.EditArgs{Path: "a.txt", Edits: many})
	if r, ok := stet.AsRefusal(err); !ok || r.Kind != stet.KindInvalid || !strings.Contains(r.Message, "10000") {
		t.Fatalf("10,001 edits: %v", err)
	}
	_, err = s.Edit(ctx, stet.EditArgs{Path: "a.txt", Edits: many[:10_000]})
	if r, ok := stet.AsRefusal(err); !ok || r.Kind != stet.KindNotRead {
		t.Fatalf("10,000 edits of an unread file: %v, want not_read", err)
	}
}

// TestTextKeepsNames: the text of a result never rewrites a name or a line
// of the user's; plurals come from the counts.
func TestTextKeepsNames(t *testing.T) {
	_, s, _ := open(t, map[string]string{"entrys.txt": "two matchs here\n", "d/x": ""}, stet.Options{})
	l, err := s.List(ctx, stet.ListArgs{})
	if err != nil {
		t.Fatal(err)
	}
	text := stet.Text(l)
	if !strings.Contains(text, "entrys.txt") || !strings.HasSuffix(text, "(2 entries)") {
		t.Errorf("list text = %q", text)
	}
	g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "two"})
	if err != nil {
		t.Fatal(err)
	}
	text = stet.Text(g)
	if !strings.Contains(text, "entrys.txt:1:two matchs here\n") || !strings.HasSuffix(text, "(1 match)") {
		t.Errorf("grep text = %q", text)
	}
	d, err := s.List(ctx, stet.ListArgs{Path: "d"})
	if err != nil {
		t.Fatal(err)
	}
	if text := stet.Text(d); !strings.HasSuffix(text, "(1 entry)") {
		t.Errorf("list d text = %q", text)
	}
}

// TestTextEscapesControlNames: a name with control characters cannot forge
// rows of a list, find or grep text; structured results keep it raw.
func TestTextEscapesControlNames(t *testing.T) {
	evil := "x.txt  (3 bytes)\nsecret.txt"
	_, s, root := open(t, map[string]string{"a.txt": "hit\n"}, stet.Options{})
	if err := os.WriteFile(filepath.Join(root, evil), []byte("hit\n"), 0o644); err != nil {
		t.Skipf("this filesystem refuses control characters in names: %v", err)
	}
	l, err := s.List(ctx, stet.ListArgs{})
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, e := range l.Entries {
		found = found || e.Name == evil
	}
	if !found {
		t.Fatalf("structured list lost the raw name: %+v", l.Entries)
	}
	f, err := s.Find(ctx, stet.FindArgs{Pattern: "*"})
	if err != nil {
		t.Fatal(err)
	}
	g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "hit"})
	if err != nil {
		t.Fatal(err)
	}
	for _, res := range []any{l, f, g} {
		text := stet.Text(res)
		for _, line := range strings.Split(text, "\n") {
			if strings.HasPrefix(line, "secret.txt") {
				t.Errorf("%T text has a forged row %q:\n%s", res, line, text)
			}
		}
		if !strings.Contains(text, `\nsecret.txt`) {
			t.Errorf("%T text does not show the name escaped:\n%s", res, text)
		}
	}
}

// TestWithinResolved: a session narrowed to announced directories refuses,
// as outside, every path that leaves them as spelled or once resolved,
// for reads and changes alike.
func TestWithinResolved(t *testing.T) {
	_, base, root := open(t, map[string]string{"sub/a.txt": "a\n", "other/secret.txt": "secret\n"}, stet.Options{})
	if err := os.Symlink(filepath.Join("..", "other", "secret.txt"), filepath.Join(root, "sub", "link.txt")); err != nil {
		t.Skipf("no symlinks here: %v", err)
	}
	if err := os.Symlink(filepath.Join("..", "other"), filepath.Join(root, "sub", "dir")); err != nil {
		t.Fatal(err)
	}
	// The whole session may read the secret; the view may not.
	if _, err := base.Read(ctx, stet.ReadArgs{Path: "other/secret.txt"}); err != nil {
		t.Fatal(err)
	}
	s := base.Within([]string{filepath.Join(root, "sub"), t.TempDir()})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "sub/a.txt"}); err != nil {
		t.Fatalf("read inside: %v", err)
	}
	for _, tc := range []struct {
		name string
		args any
	}{
		{"read link", stet.ReadArgs{Path: "sub/link.txt"}},
		{"read through dir link", stet.ReadArgs{Path: "sub/dir/secret.txt"}},
		{"read spelled outside", stet.ReadArgs{Path: "other/secret.txt"}},
		{"edit link", stet.EditArgs{Path: "sub/link.txt", OldString: ptr("secret"), NewString: ptr("x")}},
		{"edit through dir link", stet.EditArgs{Path: "sub/dir/secret.txt", OldString: ptr("secret"), NewString: ptr("x")}},
		{"write link", stet.WriteArgs{Path: "sub/link.txt", Content: "x", Overwrite: true}},
		{"write new through dir link", stet.WriteArgs{Path: "sub/dir/new.txt", Content: "x"}},
		{"delete link target", stet.DeleteArgs{Path: "sub/dir/secret.txt"}},
		{"move into dir link", stet.MoveArgs{From: "sub/a.txt", To: "sub/dir/a.txt"}},
		{"move out of link", stet.MoveArgs{From: "sub/link.txt", To: "sub/b.txt"}},
		{"list dir link", stet.ListArgs{Path: "sub/dir"}},
		{"list the workspace root", stet.ListArgs{}},
		{"grep dir link", stet.GrepArgs{Pattern: "secret", Path: "sub/dir"}},
		{"find dir link", stet.FindArgs{Pattern: "*", Path: "sub/dir"}},
		{"mkdir through dir link", stet.MkdirArgs{Path: "sub/dir/new"}},
		{"undo link", stet.UndoArgs{Path: "sub/link.txt"}},
		{"patch through link", stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: sub/dir/secret.txt\n@@\n-secret\n+x\n*** End Patch\n"}},
	} {
		_, err := s.Do(ctx, tc.args)
		r, ok := stet.AsRefusal(err)
		if !ok || r.Kind != stet.KindOutside || !strings.Contains(r.Message, filepath.Join(root, "sub")) {
			t.Errorf("%s: %v, want outside naming the announced root", tc.name, err)
		}
	}
	if got := content(t, root, "other/secret.txt"); got != "secret\n" {
		t.Fatalf("other/secret.txt changed: %q", got)
	}
	if _, err := os.Stat(filepath.Join(root, "other", "new")); err == nil {
		t.Fatal("mkdir made a directory outside the announced roots")
	}
	// Only directories outside the workspace: nothing is reachable.
	none := base.Within([]string{t.TempDir()})
	if _, err := none.Read(ctx, stet.ReadArgs{Path: "sub/a.txt"}); kindOf(err) != stet.KindOutside {
		t.Errorf("narrowed to nothing, read: %v", err)
	}
	// Within(nil) is the whole workspace again.
	if _, err := s.Within(nil).Read(ctx, stet.ReadArgs{Path: "sub/link.txt"}); err != nil {
		t.Errorf("Within(nil) read: %v", err)
	}
}
