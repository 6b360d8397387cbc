package stet_test

import (
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// The rules of SPEC section 4 are decided in one place (policy.Decide), so
// every tool refuses one situation with the same kind. This table runs each
// situation through every tool that changes the situation's file (or makes
// it), and demands that kind, or that the tool lands where the rule does
// not concern it (binding does not concern a delete; the input guard lets
// edits through); a refused call changes no byte of the tree.

// orderFile is the existing file of a situation, orderSrc the file moved or
// patched onto a name, orderNew the name a create makes (in orderDir,
// which the session has not listed unless the situation lists it).
const (
	orderFile = "d/t.txt"
	orderSrc  = "d/src.txt"
	orderDir  = "n"
	orderNew  = "n/new.txt"
)

// orderTool changes the path p one way.
type orderTool struct {
	name string
	call func(s *stet.Session, p string) error
}

func patchCall(s *stet.Session, body string) error {
	_, err := s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n" + body + "*** End Patch\n"})
	return err
}

// existingTools change an existing file p holding "hello\nworld\n".
var existingTools = []orderTool{
	{"edit", func(s *stet.Session, p string) error {
		_, err := s.Edit(ctx, stet.EditArgs{Path: p, OldString: ptr("world"), NewString: ptr("WORLD")})
		return err
	}},
	{"write", func(s *stet.Session, p string) error {
		_, err := s.Write(ctx, stet.WriteArgs{Path: p, Content: "new\n"})
		return err
	}},
	{"write overwrite", func(s *stet.Session, p string) error {
		_, err := s.Write(ctx, stet.WriteArgs{Path: p, Content: "new\n", Overwrite: true})
		return err
	}},
	{"patch update", func(s *stet.Session, p string) error {
		return patchCall(s, "*** Update File: "+p+"\n@@\n hello\n-world\n+WORLD\n")
	}},
	{"patch update and move", func(s *stet.Session, p string) error {
		return patchCall(s, "*** Update File: "+p+"\n*** Move to: d/moved.txt\n@@\n hello\n-world\n+WORLD\n")
	}},
	{"patch delete", func(s *stet.Session, p string) error {
		return patchCall(s, "*** Delete File: "+p+"\n")
	}},
	{"move from", func(s *stet.Session, p string) error {
		_, err := s.Move(ctx, stet.MoveArgs{From: p, To: "d/moved.txt"})
		return err
	}},
	{"move onto", func(s *stet.Session, p string) error {
		_, err := s.Move(ctx, stet.MoveArgs{From: orderSrc, To: p, Overwrite: true})
		return err
	}},
	{"delete", func(s *stet.Session, p string) error {
		_, err := s.Delete(ctx, stet.DeleteArgs{Path: p})
		return err
	}},
}

// createTools put a file at the new name p.
var createTools = []orderTool{
	{"write", func(s *stet.Session, p string) error {
		_, err := s.Write(ctx, stet.WriteArgs{Path: p, Content: "new\n"})
		return err
	}},
	{"patch add", func(s *stet.Session, p string) error {
		return patchCall(s, "*** Add File: "+p+"\n+new\n")
	}},
	{"move to", func(s *stet.Session, p string) error {
		_, err := s.Move(ctx, stet.MoveArgs{From: orderSrc, To: p})
		return err
	}},
	{"patch move to", func(s *stet.Session, p string) error {
		return patchCall(s, "*** Update File: "+orderSrc+"\n*** Move to: "+p+"\n@@\n-src\n+SRC\n")
	}},
}

// orderCase is one situation. kind is every tool's refusal, except those
// in lands (which succeed); an empty kind: every tool lands.
type orderCase struct {
	name   string
	create bool // the tools create orderNew; otherwise they change orderFile
	opts   stet.Options
	files  map[string]string // more files in the tree
	setup  func(t *testing.T, s *stet.Session, root string)
	kind   string
	lands  []string
}

var orderCases = []orderCase{
	{name: "never read", kind: stet.KindNotRead},
	{name: "changed since read", kind: stet.KindChanged, setup: func(t *testing.T, s *stet.Session, root string) {
		readAll(t, s, orderFile)
		putFile(t, root, orderFile, "hello\nworld, changed\n")
	}},
	{name: "partly seen", kind: stet.KindNotSeen,
		lands: []string{"patch delete", "move from", "delete"}, // rule 7 binds what a call replaces
		setup: func(t *testing.T, s *stet.Session, root string) {
			if _, err := s.Read(ctx, stet.ReadArgs{Path: orderFile, Limit: 1}); err != nil {
				t.Fatal(err)
			}
		}},
	{name: "declared input", kind: stet.KindInput,
		lands: []string{"edit", "patch update"}, // edit-only
		setup: func(t *testing.T, s *stet.Session, root string) {
			readAll(t, s, orderFile)
			turn(t, s, "Fix the typo.", orderFile)
		}},
	{name: "request names it", kind: stet.KindInput,
		lands: []string{"edit", "write overwrite", "patch update", "patch update and move", "patch delete", "move from", "delete"}, // only a replace without overwrite
		setup: func(t *testing.T, s *stet.Session, root string) {
			readAll(t, s, orderFile)
			turn(t, s, "Tidy up d/t.txt please.")
		}},
	{name: "request names it, session created it",
		setup: func(t *testing.T, s *stet.Session, root string) {
			readAll(t, s, orderFile)
			if _, err := s.Delete(ctx, stet.DeleteArgs{Path: orderFile}); err != nil {
				t.Fatal(err)
			}
			if _, err := s.Write(ctx, stet.WriteArgs{Path: orderFile, Content: "hello\nworld\n", Overwrite: true}); err != nil {
				t.Fatal(err)
			}
			turn(t, s, "Tidy up d/t.txt please.")
		}},
	{name: "no gate, never read", opts: stet.Options{NoGate: true}},

	{name: "dir never listed", create: true, kind: stet.KindNotRead},
	// SPEC's order: rule 5 refuses before rule 8 (whatever the tool); the
	// refusal shows the listing, and the retry meets rule 8.
	{name: "declared input, dir never listed", create: true, kind: stet.KindNotRead, setup: func(t *testing.T, s *stet.Session, root string) {
		turn(t, s, "Fix the typo.", orderNew)
	}},
	{name: "declared input, dir listed", create: true, kind: stet.KindInput, setup: func(t *testing.T, s *stet.Session, root string) {
		list(t, s, orderDir)
		turn(t, s, "Fix the typo.", orderNew)
	}},
	{name: "a request-named file the session removed", create: true, kind: stet.KindInput,
		files: map[string]string{orderNew: "the user's\nlines\n"},
		setup: func(t *testing.T, s *stet.Session, root string) {
			turn(t, s, "Tidy up n/new.txt please.")
			readAll(t, s, orderNew)
			if _, err := s.Delete(ctx, stet.DeleteArgs{Path: orderNew}); err != nil {
				t.Fatal(err)
			}
		}},
	{name: "a file the session removed, not named", create: true,
		files: map[string]string{orderNew: "the user's\nlines\n"},
		setup: func(t *testing.T, s *stet.Session, root string) {
			turn(t, s, "Tidy up the notes please.")
			readAll(t, s, orderNew)
			if _, err := s.Delete(ctx, stet.DeleteArgs{Path: orderNew}); err != nil {
				t.Fatal(err)
			}
		}},
	{name: "dir listed", create: true, setup: func(t *testing.T, s *stet.Session, root string) {
		list(t, s, orderDir)
	}},
	{name: "no gate, dir never listed", create: true, opts: stet.Options{NoGate: true}},
}

func turn(t *testing.T, s *stet.Session, request string, inputs ...string) {
	t.Helper()
	if err := s.Turn(request, inputs...); err != nil {
		t.Fatal(err)
	}
}

func list(t *testing.T, s *stet.Session, dir string) {
	t.Helper()
	if _, err := s.List(ctx, stet.ListArgs{Path: dir}); err != nil {
		t.Fatal(err)
	}
}

func putFile(t *testing.T, root, name, data string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, filepath.FromSlash(name)), []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

// treeBytes maps every file under root to its bytes (directories to "/").
func treeBytes(t *testing.T, root string) map[string]string {
	t.Helper()
	m := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		if d.IsDir() {
			m[filepath.ToSlash(rel)] = "/"
			return nil
		}
		b, err := os.ReadFile(p)
		m[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestRuleOrderAcrossTools runs every situation through every tool.
func TestRuleOrderAcrossTools(t *testing.T) {
	for _, c := range orderCases {
		tools := existingTools
		if c.create {
			tools = createTools
		}
		for _, tool := range tools {
			t.Run(c.name+"/"+tool.name, func(t *testing.T) {
				t.Parallel()
				files := map[string]string{orderFile: "hello\nworld\n", orderSrc: "src\n", orderDir + "/other.txt": "other\n"}
				maps.Copy(files, c.files)
				_, s, root := open(t, files, c.opts)
				readAll(t, s, orderSrc) // the source of a move, read whole (and its directory observed)
				if c.setup != nil {
					c.setup(t, s, root)
				}
				before := treeBytes(t, root)
				p := orderFile
				if c.create {
					p = orderNew
				}
				err := tool.call(s, p)
				want := c.kind
				if slices.Contains(c.lands, tool.name) {
					want = ""
				}
				if got := kindOf(err); got != want {
					t.Fatalf("%s %s: got %q (%v), want %q", tool.name, p, got, err, want)
				}
				if want != "" && !maps.Equal(before, treeBytes(t, root)) {
					t.Errorf("the refused %s changed the tree:\n before %q\n after  %q", tool.name, before, treeBytes(t, root))
				}
			})
		}
	}
}

// Rule 4 comes before rule 5 for a directory move too: a directory never
// listed that holds a protected file is refused protected (listing it would
// not let the move land), and nothing moves.
func TestMoveDirProtectedBeforeNotListed(t *testing.T) {
	_, s, root := open(t, map[string]string{"app/conf/prod.yml": "keep\n", "app/main.go": "package main\n"}, stet.Options{Protect: []string{"app/conf/**"}})
	before := treeBytes(t, root)
	_, err := s.Move(ctx, stet.MoveArgs{From: "app", To: "app2"})
	if got := kindOf(err); got != stet.KindProtected {
		t.Fatalf("move app app2 (never listed, holding a protected file): got %q (%v), want protected", got, err)
	}
	if !maps.Equal(before, treeBytes(t, root)) {
		t.Errorf("the refused move changed the tree")
	}
}

// A patch recreating a user's file the request names is refused as write
// is, and since a patch has no overwrite argument the refusal says where
// there is one.
func TestPatchRecreateSaysWhereOverwriteIs(t *testing.T) {
	_, s, root := open(t, map[string]string{"plan.txt": "step one\nstep two\n"}, stet.Options{})
	turn(t, s, "Tidy up plan.txt")
	readAll(t, s, "plan.txt")
	if _, err := s.Delete(ctx, stet.DeleteArgs{Path: "plan.txt"}); err != nil {
		t.Fatal(err)
	}
	err := patchCall(s, "*** Add File: plan.txt\n+new plan\n")
	r, ok := stet.AsRefusal(err)
	if !ok || r.Kind != stet.KindInput || !strings.Contains(r.Message, "a patch cannot: use write with overwrite: true") {
		t.Fatalf("patch add over a removed request-named file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, "plan.txt")); !os.IsNotExist(err) {
		t.Fatalf("plan.txt was written: %v", err)
	}
}
