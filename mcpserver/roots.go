package mcpserver

import (
	"context"
	"net/url"
	"path/filepath"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
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
// nil when it announced none (no narrowing). The facade does the narrowing
// (stet.Session.Within), on resolved paths; this package only asks. It asks once per connection,
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
