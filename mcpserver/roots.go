//lint:file-ignore SA1019 client roots (deprecated by MCP 2026-07-28, kept for its deprecation window) are how clients older than that revision bound the workspace

package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
)

// rootsTimeout bounds the wait for a client's roots/list answer.
const rootsTimeout = 5 * time.Second

// maxClientWorkspaces bounds the workspaces a server with no root opens
// over client roots (one per distinct set) in its lifetime.
const maxClientWorkspaces = 64

// ConfigExample is the client configuration a refusal of a server with no
// roots shows: the server started with the directory to serve.
const ConfigExample = `{"mcpServers": {"stet": {"command": "stet", "args": ["mcp", "--root", "/path/to/project"]}}}`

// rootsChanged forgets a connection's roots when the client says they
// changed; the next call asks again.
func (s *Server) rootsChanged(_ context.Context, req *mcp.RootsListChangedRequest) {
	// No lock: a call may hold it while it waits for roots/list.
	s.connOf(req.Session).rootsGen.Add(1)
}

// workspaceOf is the workspace a call of connection c runs in and the
// directories that narrow it (nil: none). A server made with a workspace
// (stet mcp --root DIR) serves it, narrowed by the client's roots. A server
// made without one serves the client's roots as the workspace, opened when
// a call first needs them (and again after notifications/roots/list_changed);
// with no usable client roots it serves nothing, and the call is refused.
func (s *Server) workspaceOf(ctx context.Context, ss *mcp.ServerSession, c *conn) (*stet.Workspace, []string, *stet.Refusal, error) {
	dirs, why := s.rootsOf(ctx, ss, c)
	if s.ws != nil {
		return s.ws, dirs, nil, nil
	}
	if len(dirs) == 0 {
		return nil, nil, s.noRoots(why), nil
	}
	var usable, skipped []string
	for _, d := range dirs {
		if st, err := os.Stat(d); err == nil && st.IsDir() { // a client root, before a workspace opens over it: not a workspace path
			usable = append(usable, d)
		} else {
			skipped = append(skipped, d)
		}
	}
	if len(skipped) > 0 {
		s.log.Warn("mcpserver: skipping client roots that are not directories", "roots", skipped)
	}
	if len(usable) == 0 {
		return nil, nil, s.noRoots(fmt.Sprintf("none of the client's roots is a directory here: %s", strings.Join(skipped, ", "))), nil
	}
	ws, err := s.clientWorkspace(usable)
	if err != nil {
		return nil, nil, nil, err
	}
	return ws, nil, nil, nil
}

// clientWorkspace returns the workspace over dirs, opening it on first use;
// connections that share the same roots share it. Server.Close closes them.
func (s *Server) clientWorkspace(dirs []string) (*stet.Workspace, error) {
	key := strings.Join(dirs, "\x00")
	s.mu.Lock()
	defer s.mu.Unlock()
	if ws, ok := s.opened[key]; ok {
		return ws, nil
	}
	if s.closed {
		return nil, errors.New("mcpserver: the server is closed")
	}
	if len(s.opened) >= maxClientWorkspaces {
		// Each holds open handles on its roots: a client changing its
		// roots without end must not use up the process's files.
		return nil, fmt.Errorf("this server has opened %d sets of client roots, its limit; restart it, or start it with --root", maxClientWorkspaces)
	}
	o := s.o.Workspace
	if o.State != "" {
		// One state directory serves one workspace: each set of client
		// roots gets its own under the one the server was given.
		o.StateBase, o.State = o.State, ""
	}
	ws, err := stet.Open(dirs, o)
	if err != nil {
		return nil, fmt.Errorf("opening the client's roots %s: %w", strings.Join(dirs, ", "), err)
	}
	s.opened[key] = ws
	return ws, nil
}

// Close closes the workspaces the server opened over client roots. A
// workspace given to New is the caller's to close.
func (s *Server) Close() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.closed = true
	var errs []error
	for k, ws := range s.opened {
		errs = append(errs, ws.Close())
		delete(s.opened, k)
	}
	return errors.Join(errs...)
}

// noRoots is the refusal of every call of a server that serves nothing:
// started without --root, and the client shares no usable roots. It is an
// outside refusal (no path is inside an empty workspace) whose message
// names the flag and the configuration that give the server a root.
func (s *Server) noRoots(why string) *stet.Refusal {
	msg := "refused: stet mcp serves no directory: it was started without --root and " + why + ". Nothing was read or changed. " +
		"Start it with the directory to serve, as in this client configuration: " + ConfigExample + " (or have the client share the directory as a root)"
	return &stet.Refusal{Kind: stet.KindOutside, Message: msg, Details: map[string]any{"roots": []string{}}}
}

// rootsOf returns the directories the client announced with roots/list, or
// nil when it announced none, with why it has none (for a server with no
// workspace of its own, which then serves nothing). The facade does the
// narrowing (stet.Session.Within), on resolved paths; this package only
// asks. It asks once per connection, and again after
// notifications/roots/list_changed. A client that does not declare the
// roots capability, uses a protocol without server-to-client requests, or
// does not answer in time is not narrowed: the workspace is still the bound.
func (s *Server) rootsOf(ctx context.Context, ss *mcp.ServerSession, c *conn) ([]string, string) {
	if ss == nil {
		return nil, "no client is connected"
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	gen := c.rootsGen.Load()
	if c.rootsKnown && c.rootsAt == gen {
		return c.roots, c.rootsWhy
	}
	c.roots, c.rootsWhy = nil, ""
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil || ip.Capabilities.RootsV2 == nil {
		c.rootsKnown, c.rootsAt = true, gen
		c.rootsWhy = "the client does not offer roots"
		return nil, c.rootsWhy
	}
	ctx, cancel := context.WithTimeout(ctx, rootsTimeout)
	defer cancel()
	res, err := ss.ListRoots(ctx, nil)
	if err != nil {
		s.log.Warn("mcpserver: roots/list failed; not narrowing the workspace", "error", err)
		why := fmt.Sprintf("the client did not answer roots/list (%s)", cause(err))
		if ctx.Err() == nil || ctx.Err() == context.DeadlineExceeded {
			c.rootsKnown, c.rootsAt, c.rootsWhy = true, gen, why
		}
		return nil, why
	}
	c.roots = rootDirs(res.Roots)
	if len(c.roots) == 0 {
		c.rootsWhy = "the client shares no file:// roots"
	}
	c.rootsKnown, c.rootsAt = true, gen
	return c.roots, c.rootsWhy
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
