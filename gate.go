package stet

import (
	"context"
	"errors"
	"fmt"
	"path"
	"strings"
	"sync"

	"github.com/stet-dev/stet/brief"
	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/policy"
)

// gateWrite applies the floor every change passes, with or without the
// policy gate: rules 3 (effects) and 4 (protected and deny-read paths,
// checked on every name t goes by). Confinement (rule 2) is the backend's.
func (s *Session) gateWrite(tool string, t target) *Refusal {
	if s.ws.opts.Effects == policy.ReadOnly {
		return refuse(KindReadOnly, t.spelled, "%s was not changed: this workspace is read-only (--effects read-only); report the change you would make instead", t.spelled)
	}
	if ref := s.ws.denied(t); ref != nil {
		return ref
	}
	return s.ws.protected(t)
}

// rulePaths returns every name t goes by, for the path rules: the path as
// spelled, the path of each symlink followed on the way, and the resolved
// path (last). When the walk fails (a link that leaves the root) only the
// spelling is returned: the backend refuses the path anyway.
func (ws *Workspace) rulePaths(t target) []string {
	hops, err := fsys.Trace(t.root.p, t.rel)
	if err != nil || len(hops) == 0 {
		return []string{t.rel}
	}
	if hops[0] == t.rel {
		return hops
	}
	return append([]string{t.rel}, hops...)
}

// denied hides files matching --deny-read globs (and the state directory)
// from every tool, on every name the path goes by. A hidden file is refused
// as not_found, as if it did not exist.
func (ws *Workspace) denied(t target) *Refusal {
	rules := t.root.rules
	if !rules.HasDenied() {
		return nil
	}
	for _, rel := range ws.rulePaths(t) {
		if _, ok := rules.Denied(rel); ok {
			return refuse(KindNotFound, t.spelled, "%s does not exist in this workspace; use list or find to see what does", t.spelled)
		}
	}
	// A hard link is another name of the same file: one to a hidden file
	// hides it too.
	if info, err := t.root.p.Stat(t.rel); err == nil && ws.hiddenLink(context.Background(), info) {
		return refuse(KindNotFound, t.spelled, "%s does not exist in this workspace; use list or find to see what does", t.spelled)
	}
	return nil
}

// hides reports whether a deny-read rule (or the state directory's
// protection) hides the file at display path p now: the faces over the
// journal (show, diff, the review) then show no bytes of it, stored or
// current, as the tools would not.
func (ws *Workspace) hides(p string) bool {
	if p == "" {
		return false
	}
	t, ref := ws.resolve("review", p)
	return ref == nil && ws.denied(t) != nil
}

// hiddenDiff is what a face shows in place of the diff of a hidden file.
func hiddenDiff(p string) string {
	return fmt.Sprintf("(the diff of %s is not shown: a deny-read rule hides the file)\n", shownName(p))
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
	if info.Type != fsys.TypeFile || info.Links < 2 || info.ID == "" || !ws.anyDenied() {
		return false
	}
	return ws.deniedLinks(ctx)[info.ID]
}

// linkGuard returns hiddenLink for the files of one call's walk: the walk
// for the hidden files' identities runs once, on the first file with
// several links, and is shared by the call's workers.
func (ws *Workspace) linkGuard(ctx context.Context) func(fsys.Info) bool {
	var once sync.Once
	var ids map[string]bool
	some := ws.anyDenied()
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
func (ws *Workspace) anyDenied() bool {
	for _, r := range ws.roots {
		if r.rules.HasDenied() {
			return true
		}
	}
	return false
}

// deniedLinks returns the identities of the deny-read files of every root
// that have more than one hard link.
func (ws *Workspace) deniedLinks(ctx context.Context) map[string]bool {
	ids := map[string]bool{}
	for _, r := range ws.roots {
		if r.rules.HasDenied() {
			ws.rootDeniedLinks(ctx, r, ids)
		}
	}
	return ids
}

// rootDeniedLinks adds to ids the identities of r's deny-read files that
// have more than one hard link.
func (ws *Workspace) rootDeniedLinks(ctx context.Context, r *root, ids map[string]bool) {
	var visit func(dir string, hidden bool)
	visit = func(dir string, hidden bool) {
		if ctx.Err() != nil {
			return
		}
		ents, err := r.p.ReadDir(dir)
		if err != nil {
			return
		}
		for _, e := range ents {
			name := path.Join(dir, e.Name)
			_, denied := r.rules.Denied(name)
			switch e.Type {
			case fsys.TypeDir:
				visit(name, hidden || denied)
			case fsys.TypeFile:
				if !hidden && !denied || e.Links == 1 && e.ID != "" {
					continue
				}
				if info, err := r.p.Stat(name); err == nil && info.Links > 1 && info.ID != "" {
					ids[info.ID] = true
				}
			}
		}
	}
	visit(".", false)
}

// protected applies rule 4's protection on every name t goes by, and on
// what git's own files resolve to (gitDir).
func (ws *Workspace) protected(t target) *Refusal {
	paths := ws.rulePaths(t)
	for _, rel := range paths {
		if pat, ok := t.root.rules.Protected(rel); ok {
			return protectedRefusal(t, pat)
		}
	}
	if !t.root.rules.NoDefaultProtect {
		res := paths[len(paths)-1]
		if dir, ok := ws.gitDir(t.root, res); ok {
			return protectedRefusal(t, policy.DefaultProtect).with("git_dir", dir)
		}
		// A root inside another: the git directories of the outer root's
		// path to the file count too (a root inside a bare repository).
		for _, v := range t.root.rules.views {
			if !v.outer {
				continue
			}
			if name, ok := v.name(res); ok {
				if dir, ok := ws.gitDir(v.other, name); ok {
					return protectedRefusal(t, policy.DefaultProtect).with("git_dir", dir)
				}
			}
		}
	}
	return nil
}

func protectedRefusal(t target, pat string) *Refusal {
	return refuse(KindProtected, t.spelled, "%s is protected (it matches %s); no tool may change it; leave it alone, or tell the user what should change there", t.spelled, pat).with("pattern", pat)
}

// gitDir reports whether the resolved path rel lies in a git directory that
// the .git name does not show: the target of a .git symlink in one of its
// parent directories (".git -> repo.git" protects repo.git), or a directory
// shaped like one (a HEAD file beside objects/ and refs/: a bare repository,
// or the target of a .git link from elsewhere in the workspace). It returns
// that directory. Part of the default protection.
func (ws *Workspace) gitDir(r *root, rel string) (string, bool) {
	p := r.p
	isType := func(name string, typ fsys.Type) bool {
		info, err := p.Stat(name)
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
	for _, d := range dirs {
		dotgit := path.Join(d, ".git")
		if hops, err := fsys.Trace(p, dotgit); err == nil && len(hops) > 1 && hops[0] == dotgit {
			target := hops[len(hops)-1]
			if rel == target || strings.HasPrefix(rel, target+"/") || target == "." {
				return target, true
			}
		}
		if isType(path.Join(d, "HEAD"), fsys.TypeFile) && isType(path.Join(d, "objects"), fsys.TypeDir) && isType(path.Join(d, "refs"), fsys.TypeDir) {
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
func (s *Session) gateTree(ctx context.Context, tool string, t target, dest ...target) error {
	ws := s.ws
	rules := t.root.rules
	paths := ws.rulePaths(t)
	real := paths[len(paths)-1]
	bases := []string{t.rel}
	if real != t.rel {
		bases = append(bases, real)
	}
	for _, d := range dest {
		bases = append(bases, d.rel)
		if dp := ws.rulePaths(d); dp[len(dp)-1] != d.rel {
			bases = append(bases, dp[len(dp)-1])
		}
	}
	carry := func(what string) *Refusal {
		return refuse(KindProtected, t.spelled, "%s holds %s; a %s of the whole directory would carry it out from under its rule; %s the other files one by one, or tell the user what should change there",
			t.spelled, what, tool, tool)
	}
	var visit func(dir, suffix string) error
	visit = func(dir, suffix string) error {
		if err := ctx.Err(); err != nil {
			return err
		}
		ents, err := t.root.p.ReadDir(dir)
		if err != nil {
			return ws.fileErr(tool, t, err)
		}
		if !rules.NoDefaultProtect && gitShaped(ents) {
			return carry("a git directory ("+path.Join(t.rel, suffix)+")").with("pattern", policy.DefaultProtect)
		}
		for _, e := range ents {
			sub := path.Join(suffix, e.Name)
			for _, b := range bases {
				name := path.Join(b, sub)
				if _, ok := rules.Denied(name); ok {
					return carry("files hidden from every tool (deny-read)")
				}
				if pat, ok := rules.Protected(name); ok {
					return carry(path.Join(t.rel, sub)+", which is protected (it matches "+pat+")").with("pattern", pat)
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
// directory: a HEAD file beside objects/ and refs/.
func gitShaped(ents []fsys.Info) bool {
	var head, objects, refs bool
	for _, e := range ents {
		switch {
		case e.Name == "HEAD" && e.Type == fsys.TypeFile:
			head = true
		case e.Name == "objects" && e.Type == fsys.TypeDir:
			objects = true
		case e.Name == "refs" && e.Type == fsys.TypeDir:
			refs = true
		}
	}
	return head && objects && refs
}

// checkFresh applies rules 5 (observation) and 6 (freshness) to an existing
// file whose current bytes are cur.
func (s *Session) checkFresh(tool string, t target, cur []byte, ver fsys.Version, expected string) (observation, *Refusal) {
	o, ok := s.observed(t.key())
	if s.ws.opts.NoGate {
		return o, nil
	}
	if !ok {
		if shown := s.showFile(t, cur, ver); shown != nil {
			o, _ = s.observed(t.key())
			return o, refuse(KindNotRead, t.spelled, "%s had not been read in this session (it has %s); its frame follows and now counts as read at this version: check the %s against it, then retry the %s",
				t.spelled, linesWord(shown.Lines), tool, tool).with(ShownFrame, shown)
		}
		return o, refuse(KindNotRead, t.spelled, "%s has not been read in this session (it has %s); read it first (read path=%s), then retry the %s",
			t.spelled, linesWord(frameLines(cur)), t.spelled, tool)
	}
	want := o.Version
	if expected != "" && expected != o.Version {
		// expected_version binds only to a version this session observed: a
		// version named by a refusal was never shown as text, and taking it
		// would replace bytes the model never saw.
		return o, refuse(KindChanged, t.spelled, "%s: expected_version %s is not the version this session observed (%s; a version named in a refusal is not an observation); read it again, then retry the %s",
			t.spelled, fsys.Version(expected).Short(), fsys.Version(o.Version).Short(), tool).with(
			"before", map[string]any{"version": o.Version, "bytes": o.Size, "lines": o.Lines})
	}
	if string(ver) != want {
		ref := refuse(KindChanged, t.spelled, "%s changed since you read it (then %s bytes, %s; now %s bytes, %s); read it again, then retry the %s",
			t.spelled, policy.Thousands(o.Size), linesWord(o.Lines), policy.Thousands(len(cur)), linesWord(frameLines(cur)), tool)
		return o, ref.with("before", map[string]any{"version": want, "bytes": o.Size, "lines": o.Lines},
			"now", map[string]any{"version": string(ver), "bytes": len(cur), "lines": frameLines(cur)})
	}
	return o, nil
}

// checkBinding applies rule 7: the regions an edit replaces must have been
// shown to the model at this version (mode seen), or the file observed at
// this version (read), or read whole (full).
func (s *Session) checkBinding(t target, o observation, cur []byte, ver fsys.Version, regions []policy.Range, whole bool) *Refusal {
	if s.ws.opts.NoGate {
		return nil
	}
	windowed := !s.fitsOneWindow(cur, frameLines(cur))
	obs := policy.Observation{Version: o.Version, Seen: o.Seen, Whole: o.Whole, Size: len(cur), Windowed: windowed}
	if o.Version != string(ver) {
		obs = policy.Observation{Version: string(ver), Size: len(cur), Windowed: windowed}
	}
	ns := policy.CheckBinding(s.ws.opts.Binding, obs, regions, whole)
	if ns == nil {
		return nil
	}
	n := frameLines(cur)
	if s.ws.opts.Binding == policy.BindFull {
		if !windowed {
			return refuse(KindNotSeen, t.spelled, "%s must be read whole before it is changed (--binding full); read it without offset or limit, then retry", t.spelled).with("offset", 1, "limit", n)
		}
		from := frame.LineOf(cur, ns.Gap.Start)
		return refuse(KindNotSeen, t.spelled, "%s must be read whole at this version before it is changed (--binding full), and it is larger than one read: read it window by window from line %d (offset %d; each read names the next offset) to the end, then retry",
			t.spelled, from, from).with("offset", from)
	}
	from := frame.LineOf(cur, ns.Gap.Start)
	end := ns.Gap.End - 1
	if end < ns.Gap.Start {
		end = ns.Gap.Start
	}
	to := frame.LineOf(cur, end)
	if to < from {
		to = from
	}
	what, were, them := fmt.Sprintf("lines %d-%d", from, to), "were", "them"
	if from == to {
		what, were, them = fmt.Sprintf("line %d", from), "was", "it"
	}
	return refuse(KindNotSeen, t.spelled, "%s %s %s not shown to you at this version, and the change touches %s; read %s (offset %d, limit %d), then retry",
		t.spelled, what, were, them, them, from, to-from+1).with("offset", from, "limit", to-from+1)
}

// claim maps a path about to change into the workspace, applies the rules
// that need no file content (confinement, effects, protected paths) and
// takes the file's lock, held until the caller's unlock.
func (s *Session) claim(ctx context.Context, tool, p string) (target, func(), error) {
	t, ref := s.resolve(tool, p)
	if ref != nil {
		return target{}, nil, ref
	}
	if ref := s.gateWrite(tool, t); ref != nil {
		return target{}, nil, ref
	}
	unlock, err := s.ws.lockAll(ctx, t)
	if err != nil {
		return target{}, nil, err
	}
	return t, unlock, nil
}

// checkEditable refuses what cannot be edited: binary, not UTF-8, too large.
func (s *Session) checkEditable(t target, cur []byte) *Refusal {
	if ref := checkText(t, cur); ref != nil {
		return ref
	}
	if int64(len(cur)) > s.ws.opts.MaxFileBytes {
		return refuse(KindTooLarge, t.spelled, "%s is %s bytes, over the %s-byte edit limit; it can be read in windows but not changed by stet",
			t.spelled, policy.Thousands(len(cur)), policy.Thousands(int(s.ws.opts.MaxFileBytes))).with("bytes", len(cur))
	}
	return nil
}

// editableVersion checks that cur can be edited and returns its version.
// When cur is editable, work runs too (the caller's next pass over cur,
// which must not depend on the version; nil: none). On large files the hash
// runs beside the UTF-8 check and work: each is a full pass.
func (s *Session) editableVersion(t target, cur []byte, work func()) (fsys.Version, *Refusal) {
	if len(cur) < 256<<10 {
		if ref := s.checkEditable(t, cur); ref != nil {
			return "", ref
		}
		if work != nil {
			work()
		}
		return fsys.VersionOf(cur), nil
	}
	done := make(chan fsys.Version, 1)
	go func() { done <- fsys.VersionOf(cur) }()
	ref := s.checkEditable(t, cur)
	if ref == nil && work != nil {
		work()
	}
	ver := <-done
	return ver, ref
}

// inputGuard applies rule 8 to a whole-file replace of an existing
// non-empty file the session did not create: the facade says whether the
// file is a declared input (by resolved identity) and which request is
// pinned; policy.GuardReplace decides and words the refusal.
func (s *Session) inputGuard(t target, counts string, overwrite bool) *Refusal {
	request, _ := s.pinned()
	declared := s.isDeclared(t)
	if q, ok := brief.QuotedRequest(request); ok {
		request = q // a worker's request is only the ORIGINAL REQUEST block of its brief
	}
	if msg := policy.GuardReplace(t.spelled, counts, request, declared, overwrite); msg != "" {
		return &Refusal{Kind: KindInput, Path: t.spelled, Message: msg}
	}
	return nil
}

// checkParentObserved applies rule 5 to a file about to be created: the
// nearest existing ancestor directory must have been observed.
//
// When the directory has not been observed, the refusal carries its
// listing (bounded as list), which now counts as listed: the same call
// retried can land.
func (s *Session) checkParentObserved(ctx context.Context, tool string, t target) *Refusal {
	dir, ref := s.nearestDir(tool, t)
	if ref != nil || s.ws.opts.NoGate {
		return ref
	}
	if s.dirObserved(dir.key()) {
		return nil
	}
	shown := dir.display()
	if shown == "." {
		shown = ". (the workspace root)"
	}
	if listing := s.showDir(ctx, dir); listing != nil {
		return refuse(KindNotRead, t.spelled, "%s would be created in %s, which had not been listed in this session; its listing follows and now counts as listed: check that what you create is not there under another name, then retry the %s",
			t.spelled, shown, tool).with("dir", dir.display(), ShownListing, listing)
	}
	return refuse(KindNotRead, t.spelled, "%s would be created in %s, which has not been listed in this session; list it first (list path=%s) to see what is there, then retry",
		t.spelled, shown, dir.display()).with("dir", dir.display())
}

// nearestDir returns the nearest existing ancestor of t, which must be a
// directory: a create or move below a file could only fail once it is under
// way, so it is refused before anything moves, gate or no gate.
func (s *Session) nearestDir(tool string, t target) (target, *Refusal) {
	dir := t.parent()
	for {
		info, err := dir.root.p.Stat(dir.rel)
		if err == nil {
			if info.Type != fsys.TypeDir {
				return target{}, refuse(KindNotFound, t.spelled, "cannot create %s: %s is a file, not a directory; choose another path", t.spelled, dir.display())
			}
			break
		}
		if errors.Is(err, fsys.ErrOutside) {
			return target{}, s.ws.fileErr(tool, dir, err).(*Refusal)
		}
		if dir.rel == "." {
			break
		}
		dir = dir.parent()
	}
	return dir, nil
}

// journalRefusal turns a broken journal chain met while reading what a
// change relies on into a conflict refusal naming the check to run; other
// errors pass through. Nothing is changed on a broken chain: a line the
// chain does not vouch for is never acted on.
func journalRefusal(tool string, t target, err error) error {
	if !errors.Is(err, journal.ErrCorrupt) {
		return err
	}
	return &Refusal{Kind: KindConflict, Tool: tool, Path: t.spelled, Err: err,
		Message: fmt.Sprintf("refused: the journal's records for %s do not check out against its hash chain, so %s will not act on them and nothing was changed; run stet verify --all and tell the user what it reports", t.spelled, tool)}
}

// fitsOneWindow reports whether a default read returns all of cur (n lines)
// in one window.
func (s *Session) fitsOneWindow(cur []byte, n int) bool {
	return n <= frame.DefaultLimit && len(cur) <= s.ws.opts.MaxReadBytes
}
