package stet

import (
	"context"
	"errors"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync/atomic"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/glob"
	"github.com/stet-dev/stet/ignore"
	"github.com/stet-dev/stet/internal/engine"
	"github.com/stet-dev/stet/tools"
)

// Default result bounds of the read-only tools.
const (
	DefaultListLimit = 1000
	DefaultFindLimit = 1000
	DefaultGrepLimit = 200
	maxGrepLineBytes = 2000
	// DefaultPageBytes bounds the names and rows a default page of list,
	// find or grep shows (one called without limit): a list or find page,
	// and grep's paths, end, as truncated, before the entry that would take
	// them past this many bytes; grep starts no new match once its rows
	// hold this much text (as MaxGrepBytes, a row shows up to 2,000 bytes).
	// With the per-entry structure of both forms a client receives, it keeps
	// a default page within the context budget a default read keeps (25,000
	// tokens; see docs/benchmarks.md).
	DefaultPageBytes = 24 << 10
	// MaxGrepBytes bounds the text of grep's rows: no new match is shown
	// once they hold this much (the result is then truncated).
	MaxGrepBytes = 2 << 20
	// MaxGrepLimit is the largest limit grep accepts (checked with every
	// argument in package tools).
	MaxGrepLimit = tools.MaxResults
	// MaxGrepContext is the largest context grep accepts (lines each side).
	MaxGrepContext = tools.MaxContext
)

// walkFn is called for each entry under a directory, with its path relative
// to the root. Returning errSkipDir skips a directory's contents.
type walkFn func(rel string, info fsys.Info, depth int) error

var errSkipDir = errors.New("skip this directory")
var errStopWalk = errors.New("stop the walk")

// walkFilter is what a walk leaves out besides deny-read paths.
type walkFilter struct {
	noIgnore bool     // keep what ignore files would hide
	exclude  []string // globs over paths relative to the walk's start (glob.Pattern.Covers)
	// typesOnly: the caller needs each entry's name and type only, so
	// directories are listed without describing every entry (no size,
	// mode or time; fsys.ReadDirTypes), and each is opened once, from its
	// parent where the provider can (fsys.DirWalker).
	typesOnly bool
	// enter, when set (typesOnly walks), is called with each directory
	// the walk lists, open, before its entries; leave after them, before
	// the walk lets go of it. A caller that uses the directory after
	// leave holds it (walkDir.hold).
	enter func(rel string, d *walkDir)
	leave func(rel string)
	// unreadable, when set, collects the directories below the start that
	// could not be listed; the walk goes on past them (as grep -r does).
	// Unset, or for the start itself, such an error ends the walk.
	unreadable *[]string
}

// unreadableNote is the note of a walk that skipped dirs, or nil.
func unreadableNote(dirs []string) []string {
	if len(dirs) == 0 {
		return nil
	}
	shown := make([]string, 0, min(len(dirs), 5))
	for _, d := range dirs[:min(len(dirs), 5)] {
		shown = append(shown, engine.ShownName(d))
	}
	more := ""
	if len(dirs) > 5 {
		more = fmt.Sprintf(" and %d more", len(dirs)-5)
	}
	return []string{fmt.Sprintf("skipped %s that could not be read: %s%s; name one as path to see why", engine.Plural(len(dirs), "directory"), strings.Join(shown, ", "), more)}
}

// walkDir is a directory a typesOnly walk has open, shared with its
// caller: closed when its last holder releases it.
type walkDir struct {
	d    fsys.Dir
	refs atomic.Int32
}

// hold adds a holder.
func (w *walkDir) hold() *walkDir {
	w.refs.Add(1)
	return w
}

// release drops a holder; the last one closes the directory.
func (w *walkDir) release() {
	if w.refs.Add(-1) == 0 {
		w.d.Close()
	}
}

// openWalkDir opens the directory rel of p, or name in parent when the
// walk came from there: through the parent's handle when the provider
// walks directories (fsys.DirWalker; a symlink swapped in on the way is
// refused, never followed), otherwise by path.
func openWalkDir(p fsys.Provider, parent *walkDir, rel, name string) (*walkDir, error) {
	var d fsys.Dir
	var err error
	if w, ok := parent.dir().(fsys.DirWalker); ok {
		d, err = w.OpenDir(name)
	} else {
		d, err = fsys.OpenDir(p, rel)
	}
	if err != nil {
		return nil, err
	}
	w := &walkDir{d: d}
	w.refs.Store(1)
	return w, nil
}

func (w *walkDir) dir() fsys.Dir {
	if w == nil {
		return nil
	}
	return w.d
}

// list lists the directory rel, open as w, by name and type.
func (w *walkDir) list(p fsys.Provider, rel string) ([]fsys.Info, error) {
	if l, ok := w.d.(fsys.DirWalker); ok {
		return l.ReadDirTypes()
	}
	return fsys.ReadDirTypes(p, rel)
}

// maxIgnoreFileBytes bounds an ignore file read by a walk; a larger one is
// not read (its patterns do not apply).
const maxIgnoreFileBytes = 1 << 20

// walk visits the tree under t (not following symlinks), sorted by name,
// down to maxDepth levels (0: no limit). Hidden (deny-read) entries are
// skipped (see hiddenEntry). Unless f.noIgnore, what git would ignore is
// skipped too (see ignoreStart) and .git is neither shown nor entered;
// with it, .git is shown but not entered unless it is the start. An entry
// f.exclude covers is skipped. The start itself is always walked: ignore
// rules filter what a walk meets, never what a call names.
func (ws *Workspace) walk(ctx context.Context, t engine.Target, maxDepth int, f walkFilter, fn walkFn) error {
	paths := ws.e.RulePaths(t)
	w := &walker{ws: ws, ctx: ctx, t: t, maxDepth: maxDepth, f: f, fn: fn,
		real:       paths[len(paths)-1], // where t leads, if a symlink is on its way
		prefix:     t.Rel + "/",
		hiddenLink: ws.e.LinkGuard(ctx),
		exclude:    compileGlobs(f.exclude), // once, not for every entry
		linksHide:  ws.e.AnyDenied(),        // a hard link here may be a hidden file of any root
	}
	if t.Rel == "." {
		w.prefix = ""
	}
	var stack ignore.Stack
	if !f.noIgnore {
		stack = ws.ignoreStart(t)
	}
	return w.enter(t.Rel, nil, "", 1, stack)
}

// walker is one walk's state (see walk).
type walker struct {
	ws         *Workspace
	ctx        context.Context
	t          engine.Target
	maxDepth   int
	f          walkFilter
	fn         walkFn
	real       string
	prefix     string
	hiddenLink func(fsys.Info) bool
	exclude    []*glob.Pattern
	linksHide  bool
}

// visit lists the directory rel (open as dir in a typesOnly walk) and
// hands each entry it keeps to fn, entering directories in place.
func (w *walker) visit(rel string, dir *walkDir, depth int, stack ignore.Stack) error {
	if err := w.ctx.Err(); err != nil {
		return err
	}
	var entries []fsys.Info
	var err error
	if dir != nil {
		entries, err = dir.list(w.t.Root.P, rel)
	} else {
		entries, err = w.t.Root.P.ReadDir(rel)
	}
	if err != nil {
		return w.unreadable(rel, err)
	}
	if !w.f.noIgnore {
		stack = w.ws.pushIgnoreFiles(w.t, rel, entries, stack)
	}
	for _, e := range entries {
		child := e.Name
		if rel != "." {
			child = rel + "/" + e.Name
		}
		if w.skipped(child, &e, stack) {
			continue
		}
		if err := w.fn(child, e, depth); err != nil {
			if errors.Is(err, errSkipDir) {
				continue
			}
			return err
		}
		if e.Type == fsys.TypeDir && (w.maxDepth == 0 || depth < w.maxDepth) && e.Name != ".git" {
			if err := w.enter(child, dir, e.Name, depth+1, stack); err != nil {
				return err
			}
		}
	}
	return nil
}

// unreadable is the result of a directory rel that could not be opened or
// listed: noted and skipped below the start when the filter collects
// them, the walk's error otherwise.
func (w *walker) unreadable(rel string, err error) error {
	if w.f.unreadable != nil && rel != w.t.Rel && w.ctx.Err() == nil {
		*w.f.unreadable = append(*w.f.unreadable, w.ws.displayRel(w.t, rel))
		return nil
	}
	return err
}

// skipped reports whether the walk leaves out the entry e at child:
// hidden (deny-read, or another name of a hidden file), ignored, or
// excluded. It fills in e's links where a hard link could hide it.
func (w *walker) skipped(child string, e *fsys.Info, stack ignore.Stack) bool {
	if w.ws.hiddenEntry(w.t, child, w.real, *e) {
		return true
	}
	if w.f.typesOnly && e.Type == fsys.TypeFile && e.ID == "" && w.linksHide {
		// A listing by type knows no links: with deny-read rules each
		// file is described (grep checks again on the file it opens).
		if info, err := w.t.Root.P.Stat(child); err == nil {
			e.Links, e.ID = info.Links, info.ID
		}
	}
	if w.hiddenLink(*e) {
		return true // another name of a hidden file (a hard link) hides it too
	}
	if !w.f.noIgnore && (e.Name == ".git" || stack.Ignored(child, e.Type == fsys.TypeDir)) {
		return true
	}
	return len(w.exclude) > 0 && excluded(w.exclude, strings.TrimPrefix(child, w.prefix))
}

// enter visits the directory rel (name in parent), opening it first in a
// typesOnly walk.
func (w *walker) enter(rel string, parent *walkDir, name string, depth int, stack ignore.Stack) error {
	if !w.f.typesOnly {
		return w.visit(rel, nil, depth, stack)
	}
	if err := w.ctx.Err(); err != nil {
		return err
	}
	dir, err := openWalkDir(w.t.Root.P, parent, rel, name)
	if err != nil {
		return w.unreadable(rel, err)
	}
	defer dir.release()
	if w.f.enter != nil {
		w.f.enter(rel, dir)
	}
	err = w.visit(rel, dir, depth, stack)
	if w.f.leave != nil {
		w.f.leave(rel)
	}
	return err
}

// compileGlobs compiles globs (checked by checkArgs; a malformed one is
// left out: it matches nothing, as glob.Pattern.Covers would say).
func compileGlobs(globs []string) []*glob.Pattern {
	out := make([]*glob.Pattern, 0, len(globs))
	for _, g := range globs {
		if p, err := glob.Compile(g); err == nil {
			out = append(out, p)
		}
	}
	return out
}

// excluded reports whether one of the globs covers rel.
func excluded(globs []*glob.Pattern, rel string) bool {
	for _, g := range globs {
		if g.Covers(rel) {
			return true
		}
	}
	return false
}

// ignoreStart returns the ignore lists that apply to the entries of the
// directories above t, t's own excepted (the walk reads t's files when it
// lists t): the global excludes file, the root's .git/info/exclude, and
// the .gitignore and .ignore files of the root and of each directory down
// to t. Only files inside the root are read: the ignore files of a
// repository that encloses the root do not apply.
func (ws *Workspace) ignoreStart(t engine.Target) ignore.Stack {
	stack := ignore.Stack{}.Push(ignore.GlobalExcludes())
	if data, err := fsys.ReadFileMax(t.Root.P, ".git/info/exclude", maxIgnoreFileBytes); err == nil {
		stack = stack.Push(ignore.Parse("", data))
	}
	if t.Rel == "." {
		return stack
	}
	dir := "."
	for _, name := range strings.Split(t.Rel, "/") {
		for _, f := range ignoreFileNames {
			p := f
			if dir != "." {
				p = dir + "/" + f
			}
			if ws.hiddenName(t, p) {
				continue
			}
			if data, err := fsys.ReadFileMax(t.Root.P, p, maxIgnoreFileBytes); err == nil {
				stack = stack.Push(ignore.Parse(dir, data))
			}
		}
		if dir == "." {
			dir = name
		} else {
			dir += "/" + name
		}
	}
	return stack
}

// ignoreFileNames are the ignore files read in each directory, the less
// specific first.
var ignoreFileNames = []string{".gitignore", ".ignore"}

// pushIgnoreFiles adds the patterns of the ignore files among the entries
// of dir (regular files only, deny-read ones skipped) to stack.
func (ws *Workspace) pushIgnoreFiles(t engine.Target, dir string, entries []fsys.Info, stack ignore.Stack) ignore.Stack {
	for _, name := range ignoreFileNames {
		i, ok := slices.BinarySearchFunc(entries, name, func(e fsys.Info, n string) int { return strings.Compare(e.Name, n) })
		if !ok || entries[i].Type != fsys.TypeFile {
			continue
		}
		p := name
		if dir != "." {
			p = dir + "/" + name
		}
		if ws.hiddenName(t, p) {
			continue
		}
		if data, err := fsys.ReadFileMax(t.Root.P, p, maxIgnoreFileBytes); err == nil {
			stack = stack.Push(ignore.Parse(dir, data))
		}
	}
	return stack
}

// hiddenName reports whether rel, a file of t's root, is deny-read.
func (ws *Workspace) hiddenName(t engine.Target, rel string) bool {
	if !t.Root.Rules.HasDenied() {
		return false
	}
	_, ok := t.Root.Rules.Denied(rel)
	return ok
}

// hiddenEntry reports whether the walk of t must skip the entry at child: a
// deny-read path by its name under t, by the name it has where t leads
// (real), or, for a symlink, by any name its target goes by.
func (ws *Workspace) hiddenEntry(t engine.Target, child, real string, e fsys.Info) bool {
	rules := t.Root.Rules
	if !rules.HasDenied() {
		return false
	}
	if _, ok := rules.Denied(child); ok {
		return true
	}
	if real != t.Rel {
		suffix := child
		if t.Rel != "." {
			suffix = strings.TrimPrefix(child, t.Rel+"/")
		}
		if _, ok := rules.Denied(path.Join(real, suffix)); ok {
			return true
		}
	}
	if e.Type == fsys.TypeSymlink {
		u := t
		u.Rel = child
		return ws.e.Denied(u) != nil
	}
	return false
}

func (ws *Workspace) displayRel(t engine.Target, rel string) string {
	u := t
	u.Rel = rel
	return u.Display()
}

// List shows a directory's entries with type and size, down to depth levels,
// and records the directories shown as observed.
func (s *Session) List(ctx context.Context, a ListArgs) (*ListResult, error) {
	if ref := checkArgs("list", a); ref != nil {
		return nil, ref
	}
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	if roots := s.rootPaths(a.Path); roots != nil {
		return s.listRoots(ctx, a, roots)
	}
	t, ref := s.e.Resolve("list", a.Path)
	if ref != nil {
		return nil, ref
	}
	if ref := s.e.WS.Denied(t); ref != nil {
		return nil, ref
	}
	info, err := t.Root.P.Stat(t.Rel)
	if err != nil {
		return nil, s.e.WS.FileErr("list", t, err)
	}
	if info.Type != fsys.TypeDir {
		return nil, engine.Refuse(KindInvalid, t.Spelled, "%s is a file, not a directory; read it instead (read path=%s)", t.Spelled, t.Spelled)
	}
	return s.listDir(ctx, t, a)
}

// listDir lists the directory t, as List does, and records the
// directories shown as observed.
func (s *Session) listDir(ctx context.Context, t engine.Target, a ListArgs) (*ListResult, error) {
	depth, limit := a.Depth, a.Limit
	if depth == 0 {
		depth = 1
	}
	if limit == 0 {
		limit = DefaultListLimit
	}
	shown := limit
	if a.Sort == tools.ListSortSize {
		limit = maxSortedEntries // sorted below, then cut to shown
	}
	res := &ListResult{Path: t.Display(), Entries: []Entry{}}
	dirs := []engine.Target{t}
	prefix := t.Rel + "/"
	if t.Rel == "." {
		prefix = ""
	}
	var unreadable []string
	err := s.ws.walk(ctx, t, depth, walkFilter{noIgnore: a.NoIgnore, exclude: a.Exclude, unreadable: &unreadable}, func(rel string, e fsys.Info, d int) error {
		if len(res.Entries) >= limit {
			res.Truncated = true
			return errStopWalk
		}
		res.Entries = append(res.Entries, Entry{Name: strings.TrimPrefix(rel, prefix), Type: string(e.Type), Size: e.Size})
		if e.Type == fsys.TypeDir && d < depth {
			u := t
			u.Rel = rel
			dirs = append(dirs, u)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		return nil, s.e.WS.FileErr("list", t, err)
	}
	res.Notes = unreadableNote(unreadable)
	sortEntries(res, a.Sort, shown)
	if a.Limit == 0 {
		dirs = pageEntries(res, dirs, prefix)
	}
	if err := s.e.ObserveDirs(dirs...); err != nil {
		return nil, err
	}
	return res, nil
}

// Find lists the files whose path (relative to path, default the root)
// matches a glob; "**" crosses directories, a pattern without "/" matches
// base names at any depth.
func (s *Session) Find(ctx context.Context, a FindArgs) (*FindResult, error) {
	if ref := checkArgs("find", a); ref != nil {
		return nil, ref
	}
	if err := s.e.CatchUp(); err != nil {
		return nil, err
	}
	if roots := s.rootPaths(a.Path); roots != nil {
		return s.findRoots(ctx, a, roots)
	}
	t, ref := s.e.Resolve("find", a.Path)
	if ref != nil {
		return nil, ref
	}
	if ref := s.e.WS.Denied(t); ref != nil {
		return nil, ref
	}
	limit := a.Limit
	if limit == 0 {
		limit = DefaultFindLimit
	}
	prefix := t.Rel + "/"
	if t.Rel == "." {
		prefix = ""
	}
	pattern, err := glob.Compile(a.Pattern)
	if err != nil {
		return nil, engine.Refuse(KindInvalid, t.Spelled, "pattern %v", err) // checkArgs checked it
	}
	res := &FindResult{Paths: []string{}}
	pageBytes := 0
	var unreadable []string
	err = s.ws.walk(ctx, t, 0, walkFilter{noIgnore: a.NoIgnore, exclude: a.Exclude, typesOnly: true, unreadable: &unreadable}, func(rel string, e fsys.Info, _ int) error {
		if e.Type == fsys.TypeDir {
			return nil
		}
		if pattern.Match(strings.TrimPrefix(rel, prefix)) {
			p := s.ws.displayRel(t, rel)
			if len(res.Paths) >= limit || a.Limit == 0 && pageBytes+len(p) > DefaultPageBytes {
				res.Truncated = true
				return errStopWalk
			}
			pageBytes += len(p)
			res.Paths = append(res.Paths, p)
		}
		return nil
	})
	if err != nil && !errors.Is(err, errStopWalk) {
		return nil, s.e.WS.FileErr("find", t, err)
	}
	res.Notes = unreadableNote(unreadable)
	return res, nil
}

// pageEntries ends a default page of list (res, in the order shown) before
// the entry that would take its names past DefaultPageBytes, and returns
// the directories of dirs still shown (the first, the directory listed,
// always is): a directory cut from the page is not observed.
func pageEntries(res *ListResult, dirs []engine.Target, prefix string) []engine.Target {
	n := 0
	for i, e := range res.Entries {
		if n += len(e.Name); n > DefaultPageBytes {
			res.Entries = res.Entries[:i]
			res.Truncated = true
			break
		}
	}
	if !res.Truncated || len(dirs) < 2 {
		return dirs
	}
	kept := map[string]bool{}
	for _, e := range res.Entries {
		kept[prefix+e.Name] = true
	}
	out := dirs[:1]
	for _, d := range dirs[1:] {
		if kept[d.Rel] {
			out = append(out, d)
		}
	}
	return out
}
