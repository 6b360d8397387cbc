package mcpserver

import (
	"context"
	"encoding/json"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/patch"
	"github.com/stet-dev/stet/tools"
)

// rootsTimeout bounds the wait for a client's roots/list answer.
const rootsTimeout = 5 * time.Second

// rootsChanged forgets a connection's roots when the client says they
// changed; the next call asks again.
func (s *Server) rootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	// No lock: a call may hold it while it waits for roots/list.
	s.connOf(req.Session).rootsGen.Add(1)
}

// rootsOf returns the directories the client announced with roots/list, or
// nil when it announced none (no narrowing). It asks once per connection,
// and again after notifications/roots/list_changed. A client that does not
// declare the roots capability, uses a protocol without server-to-client
// requests, or does not answer in time is not narrowed: the workspace is
// still the bound.
func (s *Server) rootsOf(ctx context.Context, ss *mcp.ServerSession, c *conn) []string {
	if ss == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := c.rootsGen.Load()
	if c.rootsKnown && c.rootsAt == gen {
		return c.roots
	}
	c.roots = nil
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil {
		c.rootsKnown, c.rootsAt = true, gen
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		s.log.Warn("mcpserver: roots/list failed; not narrowing the workspace", "error", err)
		if ctx.Err() == nil || ctx.Err() == context.DeadlineExceeded {
			c.rootsKnown, c.rootsAt = true, gen
		}
		return nil
	}
	c.roots = rootDirs(res.Roots)
	c.rootsKnown, c.rootsAt = true, gen
	return c.roots
}

// rootDirs keeps the file:// roots as absolute cleaned directories.
func rootDirs(roots []*mcp.Root) []string {
	var dirs []string
	for _, r := range roots {
		if r == nil {
			continue
		}
		u, err := url.Parse(r.URI)
		if err != nil || u.Scheme != "file" || (u.Host != "" && u.Host != "localhost") {
			continue
		}
		p := filepath.FromSlash(u.Path)
		if !filepath.IsAbs(p) {
			continue
		}
		dirs = append(dirs, filepath.Clean(p))
	}
	return dirs
}

// checkRoots refuses a call that names a path outside every announced root
// (as outside). The check is lexical, on the paths the call spells: a
// symlink inside a root that points elsewhere in the workspace is followed
// as the workspace allows. Arguments the facade will refuse anyway are
// left to it.
func (s *Server) checkRoots(roots []string, tool string, raw json.RawMessage) *stet.Refusal {
	if len(raw) == 0 || string(raw) == "null" {
		raw = json.RawMessage("{}")
	}
	args, err := tools.Decode(tool, raw)
	if err != nil {
		return nil
	}
	for _, p := range argPaths(args) {
		if !s.insideRoots(roots, p) {
			return &stet.Refusal{
				Kind: stet.KindOutside, Tool: tool, Path: p,
				Message: "refused: " + display(p) + " is outside the roots this client shares (" + strings.Join(roots, ", ") +
					"); use a path inside them",
				Details: map[string]any{"roots": roots},
			}
		}
	}
	return nil
}

func display(p string) string {
	if p == "" {
		return "the workspace root"
	}
	return p
}

// argPaths lists the paths a call names ("" for a tool's default, the
// workspace root).
func argPaths(args any) []string {
	switch a := args.(type) {
	case *stet.ReadArgs:
		return []string{a.Path}
	case *stet.EditArgs:
		return []string{a.Path}
	case *stet.WriteArgs:
		return []string{a.Path}
	case *stet.ListArgs:
		return []string{a.Path}
	case *stet.FindArgs:
		return []string{a.Path}
	case *stet.GrepArgs:
		return []string{a.Path}
	case *stet.MkdirArgs:
		return []string{a.Path}
	case *stet.MoveArgs:
		return []string{a.From, a.To}
	case *stet.DeleteArgs:
		return []string{a.Path}
	case *stet.UndoArgs:
		return []string{a.Path}
	case *stet.PatchArgs:
		files, err := patch.Parse(a.Patch)
		if err != nil {
			return nil
		}
		var ps []string
		for _, f := range files {
			ps = append(ps, f.Path)
			if f.MoveTo != "" {
				ps = append(ps, f.MoveTo)
			}
		}
		return ps
	}
	return nil
}

// insideRoots reports whether p, a path as a tool takes it (relative to the
// first workspace root, or absolute), lies in one of roots.
func (s *Server) insideRoots(roots []string, p string) bool {
	native := filepath.FromSlash(p)
	var cands []string
	if filepath.IsAbs(native) {
		cands = []string{filepath.Clean(native)}
	} else {
		base := s.ws.Roots()[0]
		cands = []string{filepath.Join(base, native)}
		if real, err := filepath.EvalSymlinks(base); err == nil && real != base {
			cands = append(cands, filepath.Join(real, native))
		}
	}
	for _, r := range roots {
		forms := []string{r}
		if real, err := filepath.EvalSymlinks(r); err == nil && real != r {
			forms = append(forms, real)
		}
		for _, f := range forms {
			for _, c := range cands {
				if within(f, c) {
					return true
				}
			}
		}
	}
	return false
}

// within reports whether path p is dir or below it (lexically).
func within(dir, p string) bool {
	rel, err := filepath.Rel(dir, p)
	return err == nil && (rel == "." || filepath.IsLocal(rel))
}
