package stet

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/stet-dev/stet/internal/engine"
)

// Roots returns every root of the workspace with its effects (the roots
// tool). It observes nothing.
func (s *Session) Roots(ctx context.Context, a RootsArgs) (*RootsResult, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if ref := checkArgs("roots", a); ref != nil {
		return nil, ref
	}
	if s.e.Scope != nil {
		return scopedRoots(s.e.Scope, s.ws)
	}
	res := &RootsResult{Roots: make([]Root, len(s.e.WS.RootList))}
	for i, r := range s.e.WS.RootList {
		res.Roots[i] = Root{Path: r.Dir, Effects: string(s.e.WS.Opts.Effects)}
	}
	return res, nil
}

// scopedRoots is what a narrowed session may reach, as the roots tool names it:
// each announced directory that lies in the workspace, as an absolute path
// inside its root (a root entire when the directory holds it). When the
// announced directories and the workspace do not meet, nothing is served,
// and roots is refused as every other call is, saying so.
func scopedRoots(sc *engine.Scope, ws *Workspace) (*RootsResult, error) {
	if len(sc.Dirs) == 0 {
		r := sc.Refuse("roots", "", false)
		return nil, r
	}
	res := &RootsResult{Roots: []Root{}}
	seen := map[string]bool{}
	for _, d := range sc.Dirs {
		p := ws.e.RootList[d.Ri].Dir
		if d.Rel != "." {
			p = filepath.Join(p, filepath.FromSlash(d.Rel))
		}
		if seen[p] {
			continue
		}
		seen[p] = true
		res.Roots = append(res.Roots, Root{Path: p, Effects: string(ws.e.Opts.Effects)})
	}
	return res, nil
}

// errSearched marks that at least one root was searched.
var errSearched = errors.New("searched")

func rootsText(r *RootsResult) string {
	var b strings.Builder
	for _, root := range r.Roots {
		fmt.Fprintf(&b, "%s  (%s)\n", engine.ShownName(root.Path), root.Effects)
	}
	fmt.Fprintf(&b, "(%s)", count(len(r.Roots), "root", "roots"))
	return b.String()
}
