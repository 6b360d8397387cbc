package main

import (
	"errors"
	"fmt"
	"net"
	"os"
	"slices"
	"strings"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/mcpserver"
	"github.com/stet-dev/stet/tools"
)

func cmdMCP(e *env, args []string) error {
	var addr, token, tokenFile string
	var origins stringList
	var stallSteps int
	var profile string
	fs := e.newFlags("mcp", "mcp [--root DIR ...] [--session NAME] [--tools stet|reference] [--http 127.0.0.1:PORT [--token-file F] [--allow-origin ORIGIN ...]] [--stall-steps N] [DIR ...]")
	fs.StringVar(&profile, "tools", mcpserver.ProfileStet, "tool `PROFILE`: stet (stet's own tools) or reference (the tool names, arguments and text results of @modelcontextprotocol/server-filesystem, on stet's rules)")
	fs.StringVar(&addr, "http", "", "serve streamable HTTP on `ADDR` (127.0.0.1:PORT) instead of stdio")
	fs.StringVar(&tokenFile, "token-file", "", "read the bearer token required on every HTTP request from `FILE` (preferred; needed for a non-loopback address)")
	fs.StringVar(&token, "token", "", "bearer `TOKEN` required on every HTTP request; visible to every user in the process list, so prefer --token-file or the environment variable STET_TOKEN")
	fs.Var(&origins, "allow-origin", "browser `ORIGIN` (scheme://host[:port]) served over HTTP besides loopback ones (repeatable)")
	fs.IntVar(&stallSteps, "stall-steps", 0, "review-stall threshold N: notice at N steps that change nothing, reads refused at 2N (0 disables)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if !slices.Contains(mcpserver.Profiles(), profile) {
		if near := tools.Nearest(profile, mcpserver.Profiles()); near != "" {
			return usagef("--tools %q is not a tool profile; did you mean %q? (%s)", profile, near, strings.Join(mcpserver.Profiles(), ", "))
		}
		return usagef("--tools must be one of %s, not %q", strings.Join(mcpserver.Profiles(), ", "), profile)
	}
	if stallSteps < 0 {
		return usagef("--stall-steps must be 0 or more")
	}
	if token, err = mcpToken(token, tokenFile, os.Getenv); err != nil {
		return err
	}
	if addr != "" && token == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return usagef("--http %q: %v", addr, err)
		}
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return usagef("--http %s is not a loopback address; serving it needs a bearer token (--token-file F or STET_TOKEN)", addr)
		}
	}
	o, err := e.g.options()
	if err != nil {
		return err
	}
	roots, err := e.g.rootDirs()
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		// Directories after the flags are roots, as the reference server
		// takes its allowed directories: a client configured for it keeps its
		// arguments, and a launcher that expands a list of directories into
		// separate arguments (a desktop extension's user_config) needs no
		// --root before each.
		roots = append(slices.Clone(e.g.roots), pos...)
	}
	ws, err := stet.Open(roots, o)
	if err != nil {
		return err
	}
	defer ws.Close()
	srv := mcpserver.New(ws, mcpserver.Options{Version: buildVersion(), StallSteps: stallSteps, Session: e.g.session, SharedSession: e.g.sessionSet, AllowOrigins: origins, Profile: profile})
	if addr == "" {
		err = srv.ServeStdio(e.ctx, e.stdin, e.stdout)
	} else {
		fmt.Fprintf(e.stderr, "stet mcp: serving streamable HTTP on http://%s/mcp\n", addr)
		err = srv.ServeHTTP(e.ctx, addr, token)
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
