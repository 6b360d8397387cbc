package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/mcpserver"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/review"
	"github.com/stet-dev/stet/tools"
)

// checkProfile refuses a --tools value that names no tool profile,
// suggesting the nearest.
func checkProfile(profile string) error {
	if slices.Contains(mcpserver.Profiles(), profile) {
		return nil
	}
	if near := tools.Nearest(profile, mcpserver.Profiles()); near != "" {
		return usagef("--tools %q is not a tool profile; did you mean %q? (%s)", profile, near, strings.Join(mcpserver.Profiles(), ", "))
	}
	return usagef("--tools must be one of %s, not %q", strings.Join(mcpserver.Profiles(), ", "), profile)
}

// httpToken settles the bearer token of stet mcp: --no-token only on a
// loopback --http address and never beside a token; an --http address
// without a token gets one made here (generated), printed once, as stet
// review does. Stdio has no token.
func httpToken(addr, token string, noToken bool) (string, bool, error) {
	switch {
	case noToken && addr == "":
		return "", false, usagef("--no-token is for --http only: stdio has no token")
	case noToken && token != "":
		return "", false, usagef("give a token or --no-token, not both")
	case noToken:
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return "", false, usagef("--http %q: %v", addr, err)
		}
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return "", false, usagef("--http %s is not a loopback address; --no-token serves only loopback, and even there any local user can connect: give a token (--token-file F or STET_TOKEN) instead", addr)
		}
	case addr != "" && token == "":
		// Every address needs a token, loopback too: any local user can
		// reach loopback.
		t, err := review.NewToken()
		if err != nil {
			return "", false, err
		}
		return t, true, nil
	}
	return token, false, nil
}

// cmdMCP is stet mcp: the MCP server over stdio or streamable HTTP.
func cmdMCP(e *env, args []string) error {
	var addr, token, tokenFile string
	var noToken bool
	var origins stringList
	var stallSteps int
	var profile, results, syncTo string
	fs := e.newFlags("mcp", "mcp [--root DIR ...] [--session NAME] [--tools stet|reference] [--results structured|text] [--http 127.0.0.1:PORT [--token-file F | --no-token] [--allow-origin ORIGIN ...]] [--stall-steps N] [--sync URL] [DIR ...]")
	fs.StringVar(&syncTo, "sync", "", "ship the journal to the PostgreSQL `URL` in the background while serving (see stet sync)")
	fs.StringVar(&results, "results", "structured", "result `FORM`: structured (text and structured content, the CLI --json shape) or text (text only, what a model reads best; the structured result goes in _meta \"stet/result\")")
	fs.StringVar(&profile, "tools", mcpserver.ProfileStet, "tool `PROFILE`: stet (stet's own tools) or reference (the tool names, arguments and text results of @modelcontextprotocol/server-filesystem, on stet's rules)")
	fs.StringVar(&addr, "http", "", "serve streamable HTTP on `ADDR` (127.0.0.1:PORT) instead of stdio")
	fs.StringVar(&tokenFile, "token-file", "", "read the bearer token required on every HTTP request from `FILE` (preferred; needed for a non-loopback address)")
	fs.BoolVar(&noToken, "no-token", false, "serve a loopback --http address without a bearer token: any user of this machine can then read and change the workspace's files through it")
	fs.StringVar(&token, "token", "", "bearer `TOKEN` required on every HTTP request; visible to every user in the process list, so prefer --token-file or the environment variable STET_TOKEN")
	fs.Var(&origins, "allow-origin", "browser `ORIGIN` (scheme://host[:port]) served over HTTP besides loopback ones (repeatable)")
	fs.IntVar(&stallSteps, "stall-steps", 0, "review-stall threshold N: notice at N steps that change nothing, reads refused at 2N (0 disables)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if err := checkProfile(profile); err != nil {
		return err
	}
	if results != "structured" && results != "text" {
		return usagef("--results must be structured or text, not %q", results)
	}
	if stallSteps < 0 {
		return usagef("--stall-steps must be 0 or more")
	}
	if token, err = mcpToken(token, tokenFile, os.Getenv); err != nil {
		return err
	}
	token, generated, err := httpToken(addr, token, noToken)
	if err != nil {
		return err
	}
	o, err := e.g.options()
	if err != nil {
		return err
	}
	// stet mcp never serves the working directory by default: a client
	// may start it anywhere (some start servers in /).
	roots := slices.Clone(e.g.roots)
	if len(pos) > 0 {
		// Directories after the flags are roots, as the reference server
		// takes its allowed directories: a client configured for it keeps its
		// arguments, and a launcher that expands a list of directories into
		// separate arguments (a desktop extension's user_config) needs no
		// --root before each.
		roots = append(roots, pos...)
	}
	var ws *stet.Workspace
	if len(roots) > 0 {
		usable := usableRoots(e.stderr, roots)
		if len(usable) == 0 {
			return fmt.Errorf("Error: None of the specified directories are accessible (%s); give --root DIR naming an existing directory", strings.Join(roots, ", "))
		}
		if ws, err = stet.Open(usable, o); err != nil {
			return err
		}
		defer ws.Close()
	}
	if syncTo != "" {
		if ws == nil {
			return usagef("--sync needs --root: the journal to ship is the state directory of the roots served")
		}
		stop, err := shipInBackground(e.ctx, e.stderr, ws.StateDir(), syncTo, os.Getenv("STET_HOST"), e.g.denyRead)
		if err != nil {
			return err
		}
		defer stop()
	}
	srv := mcpserver.New(ws, mcpserver.Options{Version: buildVersion(), StallSteps: stallSteps, Session: e.g.session, SharedSession: e.g.sessionSet, AllowOrigins: origins, Profile: profile, Workspace: o, TextResults: results == "text"})
	defer srv.Close()
	on := "running on stdio"
	var ln net.Listener
	if addr != "" {
		// Listen before saying where: an address like 127.0.0.1:0 is
		// named by the port it got, and a port in use fails before the
		// startup line claims to serve it.
		var lc net.ListenConfig
		if ln, err = lc.Listen(e.ctx, "tcp", addr); err != nil {
			return fmt.Errorf("--http %s: %w; choose a free port (or 127.0.0.1:0 for any)", addr, err)
		}
		addr = ln.Addr().String()
		who := "clients must send the bearer token"
		if noToken {
			who = "no token: any user of this machine can connect"
		}
		on = "running on streamable HTTP at http://" + addr + "/mcp (" + who + ")"
	}
	fmt.Fprintln(e.stderr, startupLine(buildVersion(), profile, on, ws, o))
	if generated {
		fmt.Fprintf(e.stderr, "stet mcp: bearer token for this run: %s (send \"Authorization: Bearer %s\"; whoever holds it can read and change the workspace's files; --token-file F or STET_TOKEN give one of your own)\n", token, token)
	}
	if addr == "" {
		err = srv.ServeStdio(e.ctx, e.stdin, e.stdout)
	} else {
		err = srv.ServeListener(e.ctx, ln, token)
	}
	if errors.Is(err, e.ctx.Err()) && e.ctx.Err() != nil {
		return nil
	}
	return err
}

// mcpToken is the HTTP bearer token: from --token, else --token-file (its
// content without the final line break), else the environment variable
// STET_TOKEN. --token and --token-file together are bad usage, and so is a
// token file that cannot be read or holds no token.
func mcpToken(flagToken, file string, getenv func(string) string) (string, error) {
	switch {
	case flagToken != "" && file != "":
		return "", usagef("give the token once: --token or --token-file, not both")
	case flagToken != "":
		return flagToken, nil
	case file != "":
		b, err := os.ReadFile(file) // the token file: not a workspace path
		if err != nil {
			return "", usagef("--token-file: %v", err)
		}
		tok := strings.TrimRight(string(b), "\r\n")
		if strings.TrimSpace(tok) == "" || strings.ContainsAny(tok, "\r\n") {
			return "", usagef("--token-file %s must hold the token on one line", file)
		}
		return tok, nil
	}
	return getenv("STET_TOKEN"), nil
}

// usableRoots returns the root arguments that are directories, warning on
// w about each one that is not (missing, unreadable or not a directory),
// in the reference server's words, so that the others are still served.
func usableRoots(w io.Writer, roots []string) []string {
	var ok []string
	for _, r := range roots {
		st, err := os.Stat(r) // a root argument, before the workspace opens: not a workspace path
		switch {
		case err != nil:
			fmt.Fprintf(w, "stet mcp: Warning: Cannot access directory %s (%s), skipping\n", r, errCause(err))
		case !st.IsDir():
			fmt.Fprintf(w, "stet mcp: Warning: %s is not a directory, skipping\n", r)
		default:
			ok = append(ok, r)
		}
	}
	return ok
}

// errCause is the last part of an error's message: "no such file or
// directory", without the operation and path it repeats.
func errCause(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}

// startupLine is the one line stet mcp writes on standard error when it
// starts: the version, the roots with their effects (or how a server with
// none finds its roots), the state directory, and where it runs. Test
// harnesses of MCP servers wait for "running on stdio"; in the reference
// profile the line begins as the reference server's does.
func startupLine(version, profile, on string, ws *stet.Workspace, o stet.Options) string {
	head := "stet mcp " + version + " " + on
	if profile == mcpserver.ProfileReference {
		head = "Secure MCP Filesystem Server " + on + " (stet " + version + ", --tools reference)"
	}
	if ws == nil {
		eff := o.Effects
		if eff == "" {
			eff = policy.WorkspaceWrite
		}
		state := o.State
		if state == "" {
			state = filepath.Join(stateBase(), "stet", "<id of the client's roots>")
		}
		return fmt.Sprintf("%s: no --root given: serving the roots the client shares (%s); a client that shares none gets every call refused until stet mcp is started with --root DIR; state %s", head, eff, state)
	}
	rs := ws.Roots()
	parts := make([]string, len(rs))
	for i, r := range rs {
		parts[i] = fmt.Sprintf("%s (%s)", r, ws.Effects())
	}
	return fmt.Sprintf("%s: roots %s; state %s", head, strings.Join(parts, ", "), ws.StateDir())
}

// stateBase is where state directories go by default: $XDG_STATE_HOME, or
// ~/.local/state.
func stateBase() string {
	if b := os.Getenv("XDG_STATE_HOME"); b != "" {
		return b
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return "$XDG_STATE_HOME"
	}
	return filepath.Join(home, ".local", "state")
}
