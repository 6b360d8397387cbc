package engine

import (
	"errors"
	"io"
	"path"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/internal/winpath"
)

// target is a user path mapped into one root.
type Target struct {
	Spelled string // as the call spelled it
	Root    *Root
	Ri      int    // root index
	Rel     string // slash-separated, relative to the root, cleaned ("." for the root)

	// res is rel after following symlinks inside the root, resolved once
	// when the target is made; resOf is the rel it was resolved for.
	res, resOf string

	// h, when not nil, is rel held for the call (Workspace.hold): resolved
	// once, its directory open, every later step of the call working
	// through it. The call closes it when it ends.
	H fsys.Handle
}

// handle returns the handle t holds, or one that walks t.rel each time.
func (t Target) handle() fsys.Handle {
	if t.H != nil {
		return t.H
	}
	return fsys.Walking(t.Root.P, t.Rel)
}

// stat describes t (fsys.Provider.Stat), through its handle.
func (t Target) Stat() (fsys.Info, error) { return t.handle().Stat() }

// readMax reads t whole, refusing one over max bytes (fsys.ReadFileMax),
// through its handle.
func (t Target) ReadMax(max int64) ([]byte, error) { return fsys.ReadHeldMax(t.handle(), t.Rel, max) }

// readInto is readMax into a slice from get (fsys.ReadHeldMaxInto).
func (t Target) ReadInto(max int64, get func(int) []byte) ([]byte, error) {
	return fsys.ReadHeldMaxInto(t.handle(), t.Rel, max, get)
}

// resolvedOpener is a provider that opens, for reading, a path its
// Resolve returned without walking it again (fsys/local).
type resolvedOpener interface {
	OpenResolved(rel string) (io.ReadCloser, fsys.Info, error)
}

// OpenRead opens t's regular file for reading, as fsys.Open does. When t
// was resolved when it was made and the provider can open that path
// without a second walk, it does; when that fails in any way (the name is
// gone, a directory, not a regular file, swapped since), fsys.Open walks
// the name and its error says what is wrong, as before.
func (t Target) OpenRead() (io.ReadCloser, fsys.Info, error) {
	if o, ok := t.Root.P.(resolvedOpener); ok && t.resOf == t.Rel && t.Rel != "" {
		if f, info, err := o.OpenResolved(t.res); err == nil {
			return f, info, nil
		}
	}
	return fsys.Open(t.Root.P, t.Rel)
}

// held reports whether t's directory is held open: it exists.
func (t Target) held() bool { return t.H != nil && t.H.Held() }

// hold resolves t once and holds it for the call (fsys.Hold), refusing a
// name that leads out of the workspace (rule 2). The caller closes t.h.
func (ws *Workspace) hold(tool string, t Target) (Target, *Refusal) {
	h, err := fsys.Hold(t.Root.P, t.Rel)
	if errors.Is(err, fsys.ErrOutside) {
		return t, ToRefusal(ws.FileErr(tool, t, err))
	}
	t.H = h
	t.resOf, t.res = t.Rel, t.Rel
	if hops := h.Trace(); len(hops) > 0 {
		t.res = hops[len(hops)-1]
	}
	return t, nil
}

// resolved returns t with its resolved path filled in (one confined walk).
func (t Target) resolved() Target {
	t, _ = t.resolve()
	return t
}

// resolve is resolved, and also returns the walk's error (fsys.ErrOutside
// for a name that leads out of the root through a symlink).
func (t Target) resolve() (Target, error) {
	t.resOf, t.res = t.Rel, t.Rel
	if r, ok := t.Root.P.(fsys.Resolver); ok {
		res, err := r.Resolve(t.Rel)
		if err != nil {
			return t, err
		}
		t.res = res
	}
	return t, nil
}

// confined resolves t once and refuses a name that leads out of the
// workspace (rule 2), as every later open would.
func (ws *Workspace) confined(tool string, t Target) (Target, *Refusal) {
	t, err := t.resolve()
	if errors.Is(err, fsys.ErrOutside) {
		return t, ToRefusal(ws.FileErr(tool, t, err))
	}
	return t, nil
}

// display is how results name the path: relative for the first root,
// absolute for the others.
func (t Target) Display() string {
	if t.Ri == 0 {
		return t.Rel
	}
	return filepath.Join(t.Root.Dir, filepath.FromSlash(t.Rel))
}

// shown is display as text shows it: escaped when the name holds control
// characters (see shownName), so it cannot pass for several lines.
func (t Target) Shown() string { return ShownName(t.Display()) }

// key identifies the file for observations: root index and resolved path.
func (t Target) Key() string {
	return strconv.Itoa(t.Ri) + ":" + t.ResolvedRel()
}

// resolvedRel is t's path after following symlinks inside its root,
// resolved once when the target was made (walked again only for a target
// built without it).
func (t Target) ResolvedRel() string {
	if t.resOf != t.Rel || t.Rel == "" {
		t = t.resolved()
	}
	return t.res
}

// parent is the directory that holds t's name. When no symlink was
// followed on the way to t, its resolved path is the parent's name, so it
// is known without a walk.
func (t Target) Parent() Target {
	p := t
	p.Rel = path.Dir(t.Rel)
	p.Spelled = p.Display()
	p.H = nil
	if t.resOf == t.Rel && t.res == t.Rel && t.Rel != "" {
		p.res, p.resOf = p.Rel, p.Rel
	}
	return p
}

// resolve maps a user path to a root. It refuses NUL bytes, ".." escapes and
// absolute paths outside every root; symlinks are the backend's business. A
// relative path goes to the one root where it exists, or to the first root
// when none has it; one that exists in several roots is refused as
// ambiguous. "." is the first root (list, find and grep with no path cover
// every root themselves).
func (ws *Workspace) Resolve(tool, p string) (Target, *Refusal) {
	t, ref := ws.place(p)
	if ref != nil {
		return t, ref
	}
	return ws.confined(tool, t)
}

// resolveHeld is resolve holding the name for the call (hold): a change's
// one walk of it. The caller closes the target's handle.
func (ws *Workspace) resolveHeld(tool, p string) (Target, *Refusal) {
	t, ref := ws.place(p)
	if ref != nil {
		return t, ref
	}
	return ws.hold(tool, t)
}

// place is resolve without the walk: the root and the cleaned name.
func (ws *Workspace) place(p string) (Target, *Refusal) {
	if strings.ContainsRune(p, 0) {
		return Target{}, Refuse(KindOutside, p, "%q contains a NUL byte; give a plain path inside the workspace", p)
	}
	if p == "" {
		p = "."
	}
	native := filepath.FromSlash(p)
	if filepath.IsAbs(native) {
		clean := filepath.Clean(native)
		for i, r := range ws.RootList {
			for _, base := range []string{r.Dir, r.Real} {
				rel, err := filepath.Rel(base, clean)
				if err == nil && filepath.IsLocal(rel) || rel == "." {
					return Target{Spelled: p, Root: r, Ri: i, Rel: filepath.ToSlash(rel)}, nil
				}
			}
		}
		return Target{}, Refuse(KindOutside, p, "%s is outside the workspace (%s); use a path inside it", p, strings.Join(ws.Roots(), ", "))
	}
	if runtime.GOOS == "windows" {
		// No component may be one that Windows reads as a device or as
		// another file (an absolute path naming one is outside every root).
		if err := winpath.Check(filepath.ToSlash(native)); err != nil {
			return Target{}, Refuse(KindInvalid, p, "%s: %v; use another name", p, err)
		}
	}
	clean := filepath.Clean(native)
	if clean != "." && !filepath.IsLocal(clean) {
		return Target{}, Refuse(KindOutside, p, "%s leaves the workspace; use a path inside %s", p, ws.RootList[0].Dir)
	}
	rel := filepath.ToSlash(clean)
	ri := 0
	if len(ws.RootList) > 1 && rel != "." {
		var in []int
		for i, r := range ws.RootList {
			if exists(r.P, rel) {
				in = append(in, i)
			}
		}
		switch len(in) {
		case 0:
			// A new name: the first root.
		case 1:
			ri = in[0]
		default:
			var where []string
			for _, i := range in {
				where = append(where, filepath.Join(ws.RootList[i].Dir, filepath.FromSlash(rel)))
			}
			return Target{}, Refuse(KindAmbiguous, p, "%s exists in %d roots: %s; name the one you mean by its absolute path",
				p, len(in), strings.Join(where, ", ")).With("paths", where)
		}
	}
	return Target{Spelled: p, Root: ws.RootList[ri], Ri: ri, Rel: rel}, nil
}

// exists reports whether rel names something in p: a file, a directory, or
// a symlink, even one that leads out of the root (it is refused there as
// outside, not looked for elsewhere). A dangling symlink counts as absent.
func exists(p fsys.Provider, rel string) bool {
	_, err := p.Stat(rel)
	return err == nil || !(errors.Is(err, fsys.ErrNotFound) || errors.Is(err, fsys.ErrNotDir))
}

// walked is the target of rel, a file the walk of t found. The walk
// follows no symlink, so rel leads where t leads with the rest of rel
// appended: t's resolved path is reused rather than rel walked again (one
// confined walk per file, for each file shown).
func (t Target) Walked(rel string) Target {
	if rel == t.Rel {
		return t
	}
	u := t
	u.Rel = rel
	if t.resOf != t.Rel || t.Rel == "" {
		u.resOf, u.res = "", ""
		return u
	}
	suffix := rel
	if t.Rel != "." {
		suffix = strings.TrimPrefix(rel, t.Rel+"/")
	}
	u.resOf, u.res = rel, path.Join(t.res, suffix)
	return u
}
