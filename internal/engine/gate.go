package engine

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/glob"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
)

// gateWrite applies the floor every change passes, with or without the
// policy gate: rules 3 (effects) and 4 (protected and deny-read paths,
// checked on every name t goes by). Confinement (rule 2) is the backend's.
func (s *Session) GateWrite(tool string, t Target) *Refusal {
	if s.WS.Opts.Effects == policy.ReadOnly {
		return Refuse(KindReadOnly, t.Spelled, "%s was not changed: this workspace is read-only (--effects read-only); report the change you would make instead", t.Spelled)
	}
	if ref := s.WS.Denied(t); ref != nil {
		return ref
	}
	return s.WS.protected(t)
}

// rulePaths returns every name t goes by, for the path rules: the path as
// spelled, the path of each symlink followed on the way, and the resolved
// path (last). When the walk fails (a link that leaves the root) only the
// spelling is returned: the backend refuses the path anyway.
func (ws *Workspace) RulePaths(t Target) []string {
	if t.H != nil {
		hops := t.H.Trace()
		if len(hops) == 0 || hops[0] == t.Rel {
			return hops
		}
		return append([]string{t.Rel}, hops...)
	}
	hops, err := fsys.Trace(t.Root.P, t.Rel)
	if err != nil || len(hops) == 0 {
		return []string{t.Rel}
	}
	if hops[0] == t.Rel {
		return hops
	}
	return append([]string{t.Rel}, hops...)
}

// denied hides files matching --deny-read globs (and the state directory)
// from every tool, on every name the path goes by. A hidden file is refused
// as not_found, as if it did not exist.
func (ws *Workspace) Denied(t Target) *Refusal {
	rules := t.Root.Rules
	if rules.HasDenied() {
		for _, rel := range ws.RulePaths(t) {
			if _, ok := rules.Denied(rel); ok {
				return Refuse(KindNotFound, t.Spelled, "%s does not exist in this workspace; use list or find to see what does", t.Spelled)
			}
		}
	}
	// A hard link is another name of the same file: one to a hidden file
	// hides it too. Without a deny-read rule nothing is hidden, and the
	// name is not looked at again (hiddenLink would say no).
	if !ws.AnyDenied() {
		return nil
	}
	if info, err := t.Stat(); err == nil && ws.hiddenLink(context.Background(), info) {
		return Refuse(KindNotFound, t.Spelled, "%s does not exist in this workspace; use list or find to see what does", t.Spelled)
	}
	return nil
}

// hides reports whether a deny-read rule (or the state directory's
// protection) hides the file at display path p now: the faces over the
// journal (show, diff, the review) then show no bytes of it, stored or
// current, as the tools would not.
func (ws *Workspace) Hides(p string) bool {
	if p == "" {
		return false
	}
	t, ref := ws.Resolve("review", p)
	return ref == nil && ws.Denied(t) != nil
}

// hiddenDiff is what a face shows in place of the diff of a hidden file.
func HiddenDiff(p string) string {
	return fmt.Sprintf("(the diff of %s is not shown: a deny-read rule hides the file)\n", ShownName(p))
}

// hiddenLink reports whether info, a file with more than one hard link,
// is a file a deny-read rule hides under another of its names, in any
// root: a link in one root to a hidden file of another is that file too.
// It walks every root that has deny-read rules (confined, not following
// symlinks) for the denied files that have more than one link and
// compares their identity (device and inode). Every root is walked, not
// only those whose directory is on the file's device: a root can hold a
// mount of another device. Only a file that has several links pays for
// the walk, and a rule-free workspace never does.
func (ws *Workspace) hiddenLink(ctx context.Context, info fsys.Info) bool {
	if info.Type != fsys.TypeFile || info.Links < 2 || info.ID == "" || !ws.AnyDenied() {
		return false
	}
	return ws.deniedLinks(ctx)[info.ID]
}

// linkGuard returns hiddenLink for the files of one call's walk: the walk
// for the hidden files' identities runs once, on the first file with
// several links, and is shared by the call's workers.
func (ws *Workspace) LinkGuard(ctx context.Context) func(fsys.Info) bool {
	var once sync.Once
	var ids map[string]bool
	some := ws.AnyDenied()
	return func(info fsys.Info) bool {
		if info.Type != fsys.TypeFile || info.Links < 2 || info.ID == "" || !some {
			return false
		}
		once.Do(func() { ids = ws.deniedLinks(ctx) })
		return ids[info.ID]
	}
}

// anyDenied reports whether some root has deny-read rules (the state
// directory's among them).
func (ws *Workspace) AnyDenied() bool {
	for _, r := range ws.RootList {
		if r.Rules.HasDenied() {
			return true
		}
	}
	return false
}

// deniedLinks returns the identities of the deny-read files of every root
// that have more than one hard link.
func (ws *Workspace) deniedLinks(ctx context.Context) map[string]bool {
	ids := map[string]bool{}
	for _, r := range ws.RootList {
		if r.Rules.HasDenied() {
			ws.rootDeniedLinks(ctx, r, ids)
		}
	}
	return ids
}

// rootDeniedLinks adds to ids the identities of r's deny-read files that
// have more than one hard link.
func (ws *Workspace) rootDeniedLinks(ctx context.Context, r *Root, ids map[string]bool) {
	var visit func(dir string, hidden bool)
	visit = func(dir string, hidden bool) {
		if ctx.Err() != nil {
			return
		}
		ents, err := r.P.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			name := path.Join(dir, e.Name)
			_, denied := r.Rules.Denied(name)
			switch e.Type {
			case fsys.TypeDir:
				visit(name, hidden || denied)
			case fsys.TypeFile:
				if !hidden && !denied || e.Links == 1 && e.ID != "" {
					continue
				}
				if info, err := r.P.Stat(name); err == nil && info.Links > 1 && info.ID != "" {
					ids[info.ID] = true
				}
			}
		}
	}
	visit(".", false)
}

// protected applies rule 4's protection on every name t goes by, and on
// what git's own files resolve to (gitDir).
func (ws *Workspace) protected(t Target) *Refusal {
	paths := ws.RulePaths(t)
	for _, rel := range paths {
		if pat, ok := t.Root.Rules.Protected(rel); ok {
			return protectedRefusal(t, pat)
		}
	}
	if !t.Root.Rules.NoDefaultProtect {
		res := paths[len(paths)-1]
		if dir, ok := ws.gitDir(t.Root, res, t.H); ok {
			return protectedRefusal(t, policy.DefaultProtect).With("git_dir", dir)
		}
		// A root inside another: the git directories of the outer root's
		// path to the file count too (a root inside a bare repository).
		for _, v := range t.Root.Rules.Views {
			if !v.outer {
				continue
			}
			if name, ok := v.name(res); ok {
				if dir, ok := ws.gitDir(v.other, name, nil); ok {
					return protectedRefusal(t, policy.DefaultProtect).With("git_dir", dir)
				}
			}
		}
	}
	return nil
}

func protectedRefusal(t Target, pat string) *Refusal {
	return Refuse(KindProtected, t.Spelled, "%s is protected (it matches %s); no tool may change it; leave it alone, or tell the user what should change there", t.Spelled, pat).With("pattern", pat)
}

// gitDir reports whether the resolved path rel lies in a git directory that
// the .git name does not show: the target of a .git symlink in one of its
// parent directories (".git -> repo.git" protects repo.git), or a directory
// shaped like one (a HEAD file beside objects/ and refs/: a bare repository,
// or the target of a .git link from elsewhere in the workspace). It returns
// that directory. Part of the default protection.
//
// h, when not nil, holds rel (the call's handle): the entries of its
// directory are looked at through it (fsys.Handle.Beside), not walked to,
// and rel itself, when not a directory, holds no git directory to look for.
func (ws *Workspace) gitDir(r *Root, rel string, h fsys.Handle) (string, bool) {
	p := r.P
	heldDir := ""
	if h != nil && h.Held() {
		heldDir = path.Dir(rel)
	}
	// beside describes the entry name of the held directory d without a
	// walk; ok is false when it must be walked to (another directory, or a
	// symlink there, which the walk follows).
	beside := func(d, name string) (info fsys.Info, found, ok bool) {
		if d != heldDir || heldDir == "" {
			return fsys.Info{}, false, false
		}
		info, err := h.Beside(name)
		if err != nil {
			return info, false, true
		}
		return info, true, info.Type != fsys.TypeSymlink
	}
	isType := func(d, name string, typ fsys.Type) bool {
		if info, found, ok := beside(d, name); ok {
			return found && info.Type == typ
		}
		info, err := p.Stat(path.Join(d, name))
		return err == nil && info.Type == typ
	}
	dirs := []string{"."}
	if rel != "." {
		for i := 0; i <= len(rel); i++ {
			if i == len(rel) || rel[i] == '/' {
				dirs = append(dirs, rel[:i])
			}
		}
	}
	if heldDir != "" {
		if info, err := h.Stat(); err != nil || info.Type != fsys.TypeDir {
			dirs = dirs[:len(dirs)-1] // rel is no directory: nothing lies in it
		}
	}
	for _, d := range dirs {
		dotgit := path.Join(d, ".git")
		// Where the held directory shows no symlink named .git, its trace
		// would be itself alone, which names no other git directory.
		if _, _, known := beside(d, ".git"); !known {
			if hops, err := fsys.Trace(p, dotgit); err == nil && len(hops) > 1 && hops[0] == dotgit {
				target := hops[len(hops)-1]
				if rel == target || strings.HasPrefix(rel, target+"/") || target == "." {
					return target, true
				}
			}
		}
		if isType(d, "HEAD", fsys.TypeFile) && isType(d, "objects", fsys.TypeDir) && isType(d, "refs", fsys.TypeDir) {
			return d, true
		}
	}
	return "", false
}

// gateTree refuses a change to the directory t (a move, to each of dest)
// that would carry, expose or remove a path the rules deny or protect: it
// walks everything under t, confined and without following symlinks, and
// checks each entry under its name in t and under its name in each dest.
// A directory shaped like a git directory anywhere in the tree counts as
// protected. It returns a *Refusal, or ctx's error.
func (s *Session) GateTree(ctx context.Context, tool string, t Target, dest ...Target) error {
	ws := s.WS
	rules := t.Root.Rules
	paths := ws.RulePaths(t)
	real := paths[len(paths)-1]
	bases := []string{t.Rel}
	if real != t.Rel {
		bases = append(bases, real)
	}
	for _, d := range dest {
		bases = append(bases, d.Rel)
		if dp := ws.RulePaths(d); dp[len(dp)-1] != d.Rel {
			bases = append(bases, dp[len(dp)-1])
		}
	}
	carry := func(what string) *Refusal {
		return Refuse(KindProtected, t.Spelled, "%s holds %s; a %s of the whole directory would carry it out from under its rule; %s the other files one by one, or tell the user what should change there",
			t.Spelled, what, tool, tool)
	}
	var visit func(dir, suffix string) error
	visit = func(dir, suffix string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ents, err := t.Root.P.ReadDir(dir)
		if err != nil {
			return ws.FileErr(tool, t, err)
		}
		if !rules.NoDefaultProtect && gitShaped(ents) {
			return carry("a git directory ("+path.Join(t.Rel, suffix)+")").With("pattern", policy.DefaultProtect)
		}
		for _, e := range ents {
			sub := path.Join(suffix, e.Name)
			for _, b := range bases {
				name := path.Join(b, sub)
				if _, ok := rules.Denied(name); ok {
					return carry("files hidden from every tool (deny-read)")
				}
				if pat, ok := rules.Protected(name); ok {
					return carry(path.Join(t.Rel, sub)+", which is protected (it matches "+pat+")").With("pattern", pat)
				}
			}
			if e.Type == fsys.TypeDir {
				if err := visit(path.Join(dir, e.Name), sub); err != nil {
					return err
				}
			}
		}
		return nil
	}
	return visit(real, "")
}

// gitShaped reports whether a directory's entries are those of a git
// directory: a HEAD file beside objects/ and refs/, in any spelling a
// filesystem may take for those names (glob.Fold), as git finds them there.
func gitShaped(ents []fsys.Info) bool {
	var head, objects, refs bool
	for _, e := range ents {
		switch name := glob.Fold(e.Name); {
		case name == "head" && e.Type == fsys.TypeFile:
			head = true
		case name == "objects" && e.Type == fsys.TypeDir:
			objects = true
		case name == "refs" && e.Type == fsys.TypeDir:
			refs = true
		}
	}
	return head && objects && refs
}

// claim maps a path about to change into the workspace, applies the rules
// that need no file content (confinement, effects, protected paths) and
// takes the file's lock, held until the caller's unlock.
func (s *Session) Claim(ctx context.Context, tool, p string) (Target, func(), error) {
	t, ref := s.ResolveHeld(tool, p)
	if ref != nil {
		return Target{}, nil, ref
	}
	if ref := s.GateWrite(tool, t); ref != nil {
		t.H.Close()
		return Target{}, nil, ref
	}
	unlock, err := s.WS.LockAll(ctx, t)
	if err != nil {
		t.H.Close()
		return Target{}, nil, err
	}
	return t, func() { unlock(); t.H.Close() }, nil
}

// checkEditable refuses what cannot be edited: binary, not UTF-8, too large.
func (s *Session) CheckEditable(t Target, cur []byte) *Refusal {
	if ref := CheckText(t, cur); ref != nil {
		return ref
	}
	if int64(len(cur)) > s.WS.Opts.MaxFileBytes {
		return Refuse(KindTooLarge, t.Spelled, "%s is %s bytes, over the %s-byte edit limit; it can be read in windows but not changed by stet",
			t.Spelled, policy.Thousands(len(cur)), policy.Thousands(int(s.WS.Opts.MaxFileBytes))).With("bytes", len(cur))
	}
	return nil
}

// editableVersion checks that cur can be edited and returns its version.
// When cur is editable, work runs too (the caller's next pass over cur,
// which must not depend on the version; nil: none). On large files the hash
// runs beside the UTF-8 check and work: each is a full pass; it keeps its
// states (prefixHash, nil on small files), so that the hash of the edit's
// result resumes from them.
func (s *Session) EditableVersion(t Target, cur []byte, work func()) (fsys.Version, *prefixHash, *Refusal) {
	if len(cur) < 256<<10 {
		if ref := s.CheckEditable(t, cur); ref != nil {
			return "", nil, ref
		}
		if work != nil {
			work()
		}
		return fsys.VersionOf(cur), nil, nil
	}
	done := make(chan *prefixHash, 1)
	go func() { done <- HashKeeping(cur) }()
	ref := s.CheckEditable(t, cur)
	if ref == nil && work != nil {
		work()
	}
	ph := <-done
	return ph.Sum, ph, ref
}

// journalRefusal turns a broken journal chain met while reading what a
// change relies on into a conflict refusal naming the check to run; other
// errors pass through. Nothing is changed on a broken chain: a line the
// chain does not vouch for is never acted on.
func JournalRefusal(tool string, t Target, err error) error {
	if !errors.Is(err, journal.ErrCorrupt) {
		return err
	}
	return &Refusal{Kind: KindConflict, Tool: tool, Path: t.Spelled, Err: err,
		Message: fmt.Sprintf("refused: the journal's records for %s do not check out against its hash chain, so %s will not act on them and nothing was changed; run stet verify --all and tell the user what it reports", t.Spelled, tool)}
}

// fitsOneWindow reports whether a default read returns all of cur (n lines)
// in one window.
func (s *Session) fitsOneWindow(cur []byte, n int) bool {
	return n <= frame.DefaultLimit && len(cur) <= s.WS.Opts.MaxReadBytes
}
