package stet_test

import (
	"encoding/json"
	"path"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/fstree"
)

// This file runs one table of paths through every tool of the facade, after
// os/root_test.go: for each case and tool it checks the refusal kind (or
// success), the whole tree afterwards (every path, type, byte and mode),
// that nothing outside the root changed, and that no result shows bytes the
// call must not reach.

// tableTool is one tool of the facade, applied to a path of a case.
type tableTool struct {
	name    string
	mutates bool
	// call makes the observations a careful agent makes first (their
	// refusals are ignored: the call itself must refuse), then calls the
	// tool on p. It returns the result for the leak check.
	call func(s *stet.Session, p string) (any, error)
}

// keepFile is in every tree: the source of "move onto".
const keepFile = "keep.txt"

// prep reads p and lists its directory and the root, ignoring refusals.
func prep(s *stet.Session, p string) {
	s.List(ctx, stet.ListArgs{Path: "."})
	if d := path.Dir(p); d != "." && !strings.ContainsRune(p, 0) {
		s.List(ctx, stet.ListArgs{Path: d})
	}
	s.Read(ctx, stet.ReadArgs{Path: p})
}

// tableTools lists every tool of the facade. Mutating tools edit "hello" to
// "HELLO" where they edit.
var tableTools = []tableTool{
	{name: "read", call: func(s *stet.Session, p string) (any, error) {
		return s.Read(ctx, stet.ReadArgs{Path: p})
	}},
	{name: "list", call: func(s *stet.Session, p string) (any, error) {
		return s.List(ctx, stet.ListArgs{Path: p, Depth: 5})
	}},
	{name: "find", call: func(s *stet.Session, p string) (any, error) {
		return s.Find(ctx, stet.FindArgs{Pattern: "**", Path: p})
	}},
	{name: "grep", call: func(s *stet.Session, p string) (any, error) {
		return s.Grep(ctx, stet.GrepArgs{Pattern: "[A-Za-z]", Path: p})
	}},
	{name: "edit", mutates: true, call: func(s *stet.Session, p string) (any, error) {
		prep(s, p)
		return s.Edit(ctx, stet.EditArgs{Path: p, OldString: ptr("hello"), NewString: ptr("HELLO")})
	}},
	{name: "write", mutates: true, call: func(s *stet.Session, p string) (any, error) {
		prep(s, p)
		return s.Write(ctx, stet.WriteArgs{Path: p, Content: "new\n", Overwrite: true})
	}},
	{name: "patch", mutates: true, call: func(s *stet.Session, p string) (any, error) {
		prep(s, p)
		return s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: " + p + "\n@@\n-hello\n+HELLO\n*** End Patch\n"})
	}},
	{name: "mkdir", mutates: true, call: func(s *stet.Session, p string) (any, error) {
		prep(s, p)
		return s.Mkdir(ctx, stet.MkdirArgs{Path: p})
	}},
	{name: "move", mutates: true, call: func(s *stet.Session, p string) (any, error) {
		prep(s, p)
		return s.Move(ctx, stet.MoveArgs{From: p, To: "moved.txt"})
	}},
	{name: "move onto", mutates: true, call: func(s *stet.Session, p string) (any, error) {
		prep(s, p)
		s.Read(ctx, stet.ReadArgs{Path: keepFile})
		return s.Move(ctx, stet.MoveArgs{From: keepFile, To: p, Overwrite: true})
	}},
	{name: "delete", mutates: true, call: func(s *stet.Session, p string) (any, error) {
		prep(s, p)
		return s.Delete(ctx, stet.DeleteArgs{Path: p})
	}},
	{name: "undo", mutates: true, call: func(s *stet.Session, p string) (any, error) {
		prep(s, p)
		s.Edit(ctx, stet.EditArgs{Path: p, OldString: ptr("hello"), NewString: ptr("HELLO")})
		return s.Undo(ctx, stet.UndoArgs{Path: p})
	}},
}

// treeMap is a snapshot by path.
type treeMap map[string]fstree.Entry

func snapMap(t *testing.T, tr *fstree.Tree) treeMap {
	t.Helper()
	m := treeMap{}
	for _, e := range tr.Snapshot(t) {
		m[e.Path] = e
	}
	return m
}

func (m treeMap) clone() treeMap {
	c := treeMap{}
	for k, v := range m {
		c[k] = v
	}
	return c
}

func (m treeMap) lines() []string {
	var out []string
	for _, e := range m {
		out = append(out, e.String())
	}
	slices.Sort(out)
	return out
}

// setFile gives the file at name new bytes, keeping its mode.
func (m treeMap) setFile(name, data string) treeMap {
	c := m.clone()
	e, ok := c[name]
	if !ok {
		e = fstree.Entry{Path: name, Type: fsys.TypeFile, Mode: 0o644}
	}
	e.Data = data
	c[name] = e
	return c
}

// rename moves the entry at from (and everything under it) to to.
func (m treeMap) rename(from, to string) treeMap {
	c := treeMap{}
	for k, v := range m {
		if k == to || strings.HasPrefix(k, to+"/") {
			continue
		}
		c[k] = v
	}
	for k, v := range m {
		if k == from || strings.HasPrefix(k, from+"/") {
			delete(c, k)
			v.Path = to + strings.TrimPrefix(k, from)
			c[v.Path] = v
		}
	}
	return c
}

func (m treeMap) remove(name string) treeMap {
	c := m.clone()
	delete(c, name)
	return c
}

// pathCase is one path in one tree. With target set, the path designates
// that regular file (holding "hello\n"); otherwise every tool refuses with
// kind.
type pathCase struct {
	name   string
	fs     []string
	path   string // "$OUTSIDE" and "$ROOT" are expanded
	target string
	kind   string
	// kinds overrides kind for some tools ("a|b": either kind).
	kinds map[string]string
}

var pathCases = []pathCase{
	{name: "plain", fs: []string{"t.txt=hello\n"}, path: "t.txt", target: "t.txt"},
	{name: "nested", fs: []string{"a/t.txt=hello\n"}, path: "a/t.txt", target: "a/t.txt"},
	{name: "dot segments", fs: []string{"a/", "t.txt=hello\n"}, path: "./a/../t.txt", target: "t.txt"},
	{name: "absolute inside", fs: []string{"t.txt=hello\n"}, path: "$ROOT/t.txt", target: "t.txt"},
	{name: "link inside", fs: []string{"t.txt=hello\n", "l => t.txt"}, path: "l", target: "t.txt"},
	{name: "dir link inside", fs: []string{"sub/t.txt=hello\n", "d => sub"}, path: "d/t.txt", target: "sub/t.txt"},
	{name: "chain inside", fs: []string{"a => b", "b => sub/t.txt", "sub/t.txt=hello\n"}, path: "a", target: "sub/t.txt"},

	{name: "dotdot", path: "../outside/secret", kind: stet.KindOutside},
	{name: "dotdot nested", fs: []string{"a/"}, path: "a/../../outside/secret", kind: stet.KindOutside},
	{name: "absolute outside", path: "$OUTSIDE/secret", kind: stet.KindOutside},
	{name: "nul byte", fs: []string{"t.txt=hello\n"}, path: "t.txt\x00", kind: stet.KindOutside},
	{name: "link out", fs: []string{"l => ../outside/secret"}, path: "l", kind: stet.KindOutside},
	{name: "link out absolute", fs: []string{"l => $OUTSIDE/secret"}, path: "l", kind: stet.KindOutside},
	{name: "dangling out", fs: []string{"l => ../outside/missing"}, path: "l", kind: stet.KindOutside},
	{name: "chain out", fs: []string{"a => b", "b => ../outside/secret"}, path: "a", kind: stet.KindOutside},
	{name: "chain out via dir", fs: []string{"a => d/b", "d/b => ../../outside/secret"}, path: "a", kind: stet.KindOutside},
	{name: "dir link out", fs: []string{"d => ../outside"}, path: "d/secret", kind: stet.KindOutside},
	{name: "dir link out new name", fs: []string{"d => ../outside"}, path: "d/new.txt", kind: stet.KindOutside,
		kinds: map[string]string{"read": stet.KindOutside}},
	{name: "dir link out absolute", fs: []string{"d => $OUTSIDE/dir"}, path: "d/secret", kind: stet.KindOutside},
	{name: "link to parent", fs: []string{"up => .."}, path: "up/outside/secret", kind: stet.KindOutside},
	{name: "fifo", fs: []string{"p|"}, path: "p", kind: stet.KindNotRegular,
		kinds: map[string]string{
			"mkdir": stet.KindExists,
			"list":  stet.KindNotRegular + "|" + stet.KindInvalid + "|" + stet.KindNotFound,
			"find":  stet.KindNotRegular + "|" + stet.KindInvalid + "|" + stet.KindNotFound,
			"undo":  stet.KindNotRegular + "|" + stet.KindNotFound, // nothing to undo
		}},
}

// wantFile says what each tool does to a tree whose path designates a
// regular file target holding "hello\n" (p: the path as spelled, after
// expansion, relative; "" when it is not a plain relative name). It returns
// the kind (or "" for success) and the acceptable trees after.
func wantFile(tool string, before treeMap, p, target string) (string, []treeMap) {
	same := []treeMap{before}
	if _, ok := before[p]; !ok {
		p = target // a name under a directory link: the entry is the target
	}
	switch tool {
	case "read", "grep", "undo":
		return "", same
	case "list", "find":
		// A file is not a directory; whatever the tool answers, nothing
		// changes.
		return "*", same
	case "edit", "patch":
		return "", []treeMap{before.setFile(target, "HELLO\n")}
	case "write":
		return "", []treeMap{before.setFile(target, "new\n")}
	case "mkdir":
		return stet.KindExists, same
	case "move":
		// rename(2) semantics: the name moves; a symlink moves as a link.
		return "", []treeMap{before.rename(p, "moved.txt")}
	case "move onto":
		if p != target {
			// A move never replaces a symlink: refused, nothing changes
			// (the name keeps leading where it led; delete the link first).
			return stet.KindNotRegular, same
		}
		return "", []treeMap{before.rename(keepFile, p)}
	case "delete":
		// The link is removed, or the file it designates.
		return "", []treeMap{before.remove(p), before.remove(target)}
	}
	panic("unknown tool " + tool)
}

// openTree opens a workspace over tr with its own state directory.
func openTree(t *testing.T, tr *fstree.Tree, opts stet.Options) (*stet.Workspace, *stet.Session) {
	t.Helper()
	opts.State = t.TempDir()
	if tr.Mem != nil {
		opts.Providers = []fsys.Provider{tr.Mem}
	}
	ws, err := stet.Open([]string{tr.Root}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	s, err := ws.Session("table")
	if err != nil {
		t.Fatal(err)
	}
	return ws, s
}

// backends are the trees the tables run on.
var backends = []struct {
	name string
	mk   func(testing.TB) *fstree.Tree
}{
	{"host", fstree.Host},
	{"memfs", fstree.Mem},
}

// kindMatches reports whether got is one of the "|"-separated kinds of want
// ("*": anything).
func kindMatches(want, got string) bool {
	if want == "*" {
		return !strings.HasPrefix(got, "error: ")
	}
	return slices.Contains(strings.Split(want, "|"), got)
}

// shows reports whether the result or the error of a call shows s.
func shows(res any, err error, s string) bool {
	b, _ := json.Marshal(res)
	if strings.Contains(string(b), s) {
		return true
	}
	return err != nil && strings.Contains(err.Error(), s)
}

func expandPath(tr *fstree.Tree, p string) string {
	p = strings.ReplaceAll(p, "$ROOT", tr.Root)
	outside := path.Join(path.Dir(tr.Root), "outside")
	if tr.Mem != nil {
		outside = "/outside"
	}
	return strings.ReplaceAll(p, "$OUTSIDE", outside)
}

// checkAfter checks the tree and the outside after a call.
func checkAfter(t *testing.T, tr *fstree.Tree, outside string, wants []treeMap) {
	t.Helper()
	if d := tr.OutsideDigest(t); d != outside {
		t.Errorf("something outside the root changed")
	}
	got := snapMap(t, tr).lines()
	for _, w := range wants {
		if slices.Equal(got, w.lines()) {
			return
		}
	}
	var ws [][]string
	for _, w := range wants {
		ws = append(ws, w.lines())
	}
	t.Errorf("tree after\n got  %q\n want %q", got, ws)
}

// TestToolPaths runs every path case through every tool on every backend.
func TestToolPaths(t *testing.T) {
	for _, b := range backends {
		t.Run(b.name, func(t *testing.T) {
			for _, c := range pathCases {
				t.Run(c.name, func(t *testing.T) {
					for _, tool := range tableTools {
						t.Run(tool.name, func(t *testing.T) {
							runPathCase(t, b.mk(t), c, tool)
						})
					}
				})
			}
		})
	}
}

func runPathCase(t *testing.T, tr *fstree.Tree, c pathCase, tool tableTool) {
	tr.Build(t, append([]string{keepFile + "=keep\n"}, c.fs...)...)
	_, s := openTree(t, tr, stet.Options{})
	p := expandPath(tr, c.path)
	before := snapMap(t, tr)
	outside := tr.OutsideDigest(t)
	want, trees := c.kind, []treeMap{before}
	if k, ok := c.kinds[tool.name]; ok {
		want = k
	}
	if c.target != "" {
		rel := strings.TrimPrefix(p, tr.Root+"/")
		want, trees = wantFile(tool.name, before, path.Clean(rel), c.target)
	}
	res, err := tool.call(s, p)
	if got := kindOf(err); !kindMatches(want, got) {
		t.Errorf("%s %q: got %q, want %q", tool.name, c.path, got, want)
	}
	if shows(res, err, "SECRET") {
		t.Errorf("%s %q showed bytes from outside the root", tool.name, c.path)
	}
	checkAfter(t, tr, outside, trees)
}
