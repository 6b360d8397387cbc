package engine

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/stet-dev/stet/fsys"
)

// scope is the part of the workspace a narrowed session may reach: the
// directories a client announced (MCP roots), each mapped into one root and
// resolved there.
type Scope struct {
	announced []string // the directories as announced, for messages
	served    []string // the workspace's roots, for messages
	Dirs      []scopeDir
}

// scopeDir is one announced directory inside the workspace.
type scopeDir struct {
	Ri  int    // root index
	Rel string // resolved, slash-separated, relative to the root ("." for the root)
}

// Within returns a view of the session narrowed to dirs: absolute
// directories, such as the roots an MCP client announces. The view shares
// everything the session knows (observations, created files, the pinned
// turn) and differs only in what it may reach: every path a tool names —
// each file of a patch, both ends of a move, the directory a list, find or
// grep starts from — must lie under one of dirs both as spelled and once
// resolved (symlinks followed), or the call is refused as outside, naming
// dirs. A directory that holds whole roots allows those roots entire; any
// other directory outside the workspace narrows nothing and widens
// nothing: it is dropped, and when none is left, no path is allowed.
// Within(nil) is the whole workspace.
//
// Several views of one session may be used at once (two MCP connections
// that share a session, each with its own roots).
//
// Limits: the check resolves the path when the call names it; a symlink
// swapped inside the workspace after that instant is still confined to the
// workspace by the backend, not to dirs. Walks (list, find, grep) do not
// follow symlinks, so what lies under an allowed directory stays under it.
func (s *Session) Within(dirs []string) *Session {
	v := *s
	if dirs == nil {
		v.Scope = nil
		return &v
	}
	sc := &Scope{announced: append([]string(nil), dirs...), served: s.WS.Roots()}
	for _, d := range dirs {
		if !filepath.IsAbs(d) {
			continue
		}
		t, ref := s.WS.Resolve("roots", d)
		if ref != nil {
			// Not inside a root: it may hold whole roots, which it then
			// leaves as they are; otherwise it narrows nothing.
			sc.Dirs = append(sc.Dirs, s.WS.rootsUnder(d)...)
			continue
		}
		rel, ok := resolved(t)
		if !ok {
			continue
		}
		sc.Dirs = append(sc.Dirs, scopeDir{Ri: t.Ri, Rel: rel})
	}
	v.Scope = sc
	return &v
}

// rootsUnder returns, as scope directories, the roots that lie under dir,
// compared both as spelled and with symlinks resolved. A directory that
// lies in a root, as spelled, holds no root here (Within maps it into its
// root, or drops it), and dir's symlinks are resolved only while the names
// on the way lie outside every root (realOutside): a link inside a root is
// the confined resolver's to follow, and one that leads out of a root
// cannot make a client's directory hold roots it does not.
func (ws *Workspace) rootsUnder(dir string) []scopeDir {
	clean := filepath.Clean(dir)
	if _, in := ws.inRoot(clean); in {
		return nil
	}
	dirs := []string{clean}
	if real, ok := ws.realOutside(clean); ok {
		dirs = append(dirs, real)
	}
	var out []scopeDir
	for i, r := range ws.RootList {
	search:
		for _, d := range dirs {
			for _, base := range []string{r.Dir, r.Real} {
				if rel, err := filepath.Rel(d, base); err == nil && filepath.IsLocal(rel) {
					out = append(out, scopeDir{Ri: i, Rel: "."})
					break search
				}
			}
		}
	}
	return out
}

// inRoot reports whether the absolute path p lies in a root, as spelled
// (by the root's path as given or resolved), and whether it is that root
// itself (root).
func (ws *Workspace) inRoot(p string) (root, in bool) {
	for _, r := range ws.RootList {
		for _, base := range []string{r.Dir, r.Real} {
			if rel, err := filepath.Rel(base, p); err == nil && (rel == "." || filepath.IsLocal(rel)) {
				return rel == ".", true
			}
		}
	}
	return false, false
}

// realOutside resolves the symlinks of dir, an absolute directory outside
// every root, one name at a time, as long as each name it looks up lies
// outside every root: ok is false when the resolution would look inside a
// root (other than landing on a root itself), or fails.
func (ws *Workspace) realOutside(dir string) (string, bool) {
	if !filepath.IsAbs(dir) {
		return "", false
	}
	split := func(p string) (string, []string) {
		vol := filepath.VolumeName(p)
		return vol + string(filepath.Separator), strings.FieldsFunc(p[len(vol):], func(r rune) bool { return os.IsPathSeparator(uint8(r)) })
	}
	cur, rest := split(filepath.Clean(dir))
	for hops := 0; len(rest) > 0; {
		name := rest[0]
		rest = rest[1:]
		switch name {
		case ".":
			continue
		case "..":
			cur = filepath.Dir(cur) // cur has no symlinks: its parent is its lexical parent
			continue
		}
		next := filepath.Join(cur, name)
		if root, in := ws.inRoot(next); in {
			if root && len(rest) == 0 {
				return next, true
			}
			return "", false
		}
		st, err := os.Lstat(next) // outside every root (checked above): not a workspace path
		if err != nil {
			return "", false
		}
		if st.Mode()&fs.ModeSymlink == 0 {
			cur = next
			continue
		}
		if hops++; hops > 255 {
			return "", false
		}
		target, err := os.Readlink(next) // outside every root (checked above): not a workspace path
		if err != nil {
			return "", false
		}
		if filepath.IsAbs(target) {
			var more []string
			cur, more = split(filepath.Clean(target))
			rest = append(more, rest...)
		} else {
			_, more := split(target)
			rest = append(more, rest...)
		}
	}
	return cur, true
}

// resolve maps a path a tool names into the workspace, as Workspace.resolve
// does, and refuses it as outside when the session is narrowed (Within) and
// the path, as spelled or resolved, leaves the announced directories.
func (s *Session) Resolve(tool, p string) (Target, *Refusal) {
	t, ref := s.WS.Resolve(tool, p)
	return s.scoped(tool, t, ref)
}

// resolveHeld is resolve holding the name for the call
// (Workspace.resolveHeld). On a refusal nothing stays held; otherwise the
// caller closes the target's handle.
func (s *Session) ResolveHeld(tool, p string) (Target, *Refusal) {
	t, ref := s.WS.resolveHeld(tool, p)
	h := t.H
	t, ref = s.scoped(tool, t, ref)
	if ref != nil && h != nil {
		h.Close()
	}
	return t, ref
}

// scoped refuses t, just resolved (ref: the refusal that gave), when the
// session is narrowed and t leaves its directories.
func (s *Session) scoped(tool string, t Target, ref *Refusal) (Target, *Refusal) {
	if ref != nil || s.Scope == nil {
		return t, ref
	}
	if !s.Scope.allows(t.Ri, t.Rel) {
		return Target{}, s.Scope.Refuse(tool, t.Spelled, false)
	}
	rel, ok := resolved(t)
	if !ok {
		return t, nil // leaves the workspace: the backend refuses it as outside
	}
	if !s.Scope.allows(t.Ri, rel) {
		return Target{}, s.Scope.Refuse(tool, t.Spelled, true)
	}
	return t, nil
}

// resolved returns t's path after following symlinks inside its root (for a
// missing file, the path it would have). ok is false when the path leads
// outside the root or cannot be resolved; a provider without the Resolver
// capability resolves nothing.
func resolved(t Target) (string, bool) {
	if t.H != nil && t.resOf == t.Rel {
		return t.res, true // held: resolved once already
	}
	r, ok := t.Root.P.(fsys.Resolver)
	if !ok {
		return t.Rel, true
	}
	rel, err := r.Resolve(t.Rel)
	if err != nil {
		return "", false
	}
	if rel == "" {
		rel = "."
	}
	return path.Clean(rel), true
}

// allows reports whether rel, in root ri, lies in one of the directories.
func (sc *Scope) allows(ri int, rel string) bool {
	for _, d := range sc.Dirs {
		if d.Ri == ri && (d.Rel == "." || rel == d.Rel || strings.HasPrefix(rel, d.Rel+"/")) {
			return true
		}
	}
	return false
}

// refuse is the outside refusal of a path that leaves the announced
// directories; linked says it leaves them only once resolved. The message
// does not say where a symlink leads: that place is not shared.
func (sc *Scope) Refuse(tool, spelled string, linked bool) *Refusal {
	shown := spelled
	if shown == "" {
		shown = "the workspace root"
	}
	how := ""
	if linked {
		how = " (a symlink on the way leads out of them)"
	}
	roots := strings.Join(sc.announced, ", ")
	if roots == "" {
		roots = "none"
	}
	var r *Refusal
	if len(sc.Dirs) == 0 {
		// Nothing is served: say so, whatever the path.
		r = Refuse(KindOutside, spelled, "the roots this client shares (%s) do not meet the server's roots (%s), so nothing is served; share a directory inside the server's roots, or start stet mcp with --root naming the directory to serve", roots, strings.Join(sc.served, ", "))
	} else {
		r = Refuse(KindOutside, spelled, "%s is outside the roots this client shares (%s)%s; use a path inside them", ShownName(shown), roots, how)
	}
	r.Tool = tool
	return r.With("roots", append([]string{}, sc.announced...))
}
