package stet_test

import (
	"path"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/fstree"
	"github.com/stet-dev/stet/policy"
)

// ruleCase is one rule of SPEC section 4 (rules 3 and 4) guarding one file.
type ruleCase struct {
	name string
	opts stet.Options
	file string // the guarded file; it holds "hello\n" and the secret
	// kind is the refusal of every mutating tool.
	kind string
	// hidden: reading tools must not show the file (deny-read); otherwise
	// they serve it.
	hidden bool
	// spelledOnly: the row checks one floor (NoGate), not the resolution of
	// paths, so only the spelled form runs.
	spelledOnly bool
}

// ruleSecret is in every guarded file: a hidden file's bytes must never
// appear in a result.
const ruleSecret = "GUARDED-BYTES"

var ruleCases = []ruleCase{
	{name: "deny glob", opts: stet.Options{DenyRead: []string{"app/secrets/**"}}, file: "app/secrets/db.env", kind: stet.KindNotFound, hidden: true},
	{name: "deny name", opts: stet.Options{DenyRead: []string{"secrets"}}, file: "app/secrets/db.env", kind: stet.KindNotFound, hidden: true},
	{name: "deny no gate", opts: stet.Options{DenyRead: []string{"app/secrets/**"}, NoGate: true}, file: "app/secrets/db.env", kind: stet.KindNotFound, hidden: true, spelledOnly: true},
	{name: "protect glob", opts: stet.Options{Protect: []string{"app/conf/**"}}, file: "app/conf/prod.yml", kind: stet.KindProtected},
	{name: "protect .git", file: ".git/config", kind: stet.KindProtected},
	{name: "protect nested .git", file: "app/.git/config", kind: stet.KindProtected},
	{name: "protect no gate", opts: stet.Options{Protect: []string{"app/conf/**"}, NoGate: true}, file: "app/conf/prod.yml", kind: stet.KindProtected, spelledOnly: true},
	{name: "read-only", opts: stet.Options{Effects: policy.ReadOnly}, file: "app/plain.txt", kind: stet.KindReadOnly},
	{name: "read-only no gate", opts: stet.Options{Effects: policy.ReadOnly, NoGate: true}, file: "app/plain.txt", kind: stet.KindReadOnly, spelledOnly: true},
}

// pathForm is how a call reaches the guarded file.
type pathForm struct {
	name string
	// extra entries the form adds to the tree, and the path it calls with.
	setup func(file string) (fs []string, p string)
	moved bool // the session first moves the file's top directory to a new name
}

var pathForms = []pathForm{
	{name: "spelled", setup: func(f string) ([]string, string) { return nil, f }},
	{name: "link", setup: func(f string) ([]string, string) { return []string{"alias => " + f}, "alias" }},
	{name: "dir link", setup: func(f string) ([]string, string) {
		return []string{"dl => " + path.Dir(f)}, "dl/" + path.Base(f)
	}},
	{name: "moved dir", moved: true, setup: func(f string) ([]string, string) {
		top, rest, _ := strings.Cut(f, "/")
		return nil, top + "2/" + rest
	}},
}

// TestToolRules runs every tool × every path form × every rule: deny-read,
// protected paths (given, default .git, nested .git), read-only effects, and
// the same without the policy gate (NoGate keeps this floor).
func TestToolRules(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, r := range ruleCases {
				t.Run(r.name, func(t *testing.T) {
					t.Parallel()
					for _, f := range pathForms {
						if r.spelledOnly && f.name != "spelled" {
							continue
						}
						t.Run(f.name, func(t *testing.T) {
							for _, tool := range tableTools {
								t.Run(tool.name, func(t *testing.T) {
									runRuleCase(t, b.mk(t), r, f, tool)
								})
							}
						})
					}
				})
			}
		})
	}
}

func runRuleCase(t *testing.T, tr *fstree.Tree, r ruleCase, f pathForm, tool tableTool) {
	extra, p := f.setup(r.file)
	tr.Build(t, append([]string{keepFile + "=keep\n", "app/other.txt=other\n", r.file + "=hello\n" + ruleSecret + "\n"}, extra...)...)
	_, s := openTree(t, tr, r.opts)
	before := snapMap(t, tr)
	outside := tr.OutsideDigest(t)
	if f.moved {
		top, _, _ := strings.Cut(r.file, "/")
		s.List(ctx, stet.ListArgs{Path: "."})
		s.List(ctx, stet.ListArgs{Path: top, Depth: 5})
		res, err := s.Move(ctx, stet.MoveArgs{From: top, To: top + "2"})
		want := r.kind
		if r.hidden {
			want += "|" + stet.KindProtected
		}
		if got := kindOf(err); !kindMatches(want, got) {
			t.Errorf("move %s %s2 (carrying %s out from under its rule): got %q, want %q", top, top, r.file, got, want)
		}
		if r.hidden && shows(res, err, ruleSecret) {
			t.Errorf("the move showed the hidden bytes")
		}
		checkAfter(t, tr, outside, []treeMap{before})
		if t.Failed() {
			return
		}
		switch tool.name {
		case "write", "mkdir", "move onto":
			return // with the move refused, these only create new names
		}
	}
	want := r.kind
	arg := p
	switch tool.name {
	case "read", "grep":
		if !r.hidden {
			want = ""
		}
	case "list", "find":
		arg = path.Dir(p)
		want = ""
		if r.hidden {
			want = "|" + stet.KindNotFound // the directory may be hidden too
		}
	case "mkdir":
		if path.Dir(p) == "." {
			return // the form names no directory of the guarded file
		}
		arg = path.Dir(p) + "/new.d"
	}
	if f.moved {
		// The move was refused: the new name does not exist, or the rule
		// still holds there.
		want += "|" + stet.KindNotFound
		if want == "|"+stet.KindNotFound {
			want = stet.KindNotFound
		}
	}
	res, err := tool.call(s, arg)
	if got := kindOf(err); !kindMatches(want, got) {
		t.Errorf("%s %s: got %q, want %q", tool.name, arg, got, want)
	}
	if r.hidden && (shows(res, err, ruleSecret) || shows(res, nil, path.Base(r.file))) {
		t.Errorf("%s %s showed the hidden file %s", tool.name, arg, r.file)
	}
	checkAfter(t, tr, outside, []treeMap{before})
}
