package main

import (
	"errors"
	"fmt"
	"net"
	"os"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/mcpserver"
)

func cmdMCP(e *env, args []string) error {
	var addr, token string
	var stallSteps int
	fs := e.newFlags("mcp", "mcp [--root DIR ...] [--http 127.0.0.1:PORT [--token T]] [--stall-steps N]")
	fs.StringVar(&addr, "http", "", "serve streamable HTTP on `ADDR` (127.0.0.1:PORT) instead of stdio")
	fs.StringVar(&token, "token", os.Getenv("STET_TOKEN"), "bearer `TOKEN` required on every HTTP request (env STET_TOKEN); needed for a non-loopback address")
	fs.IntVar(&stallSteps, "stall-steps", 0, "review-stall threshold N: notice at N steps that change nothing, reads refused at 2N (0 disables)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) > 0 {
		return usagef("mcp takes no arguments; give roots with --root DIR")
	}
	if stallSteps < 0 {
		return usagef("--stall-steps must be 0 or more")
	}
	if addr != "" && token == "" {
		host, _, err := net.SplitHostPort(addr)
		if err != nil {
			return usagef("--http %q: %v", addr, err)
		}
		ip := net.ParseIP(host)
		if host != "localhost" && (ip == nil || !ip.IsLoopback()) {
			return usagef("--http %s is not a loopback address; serving it needs --token (bearer auth on every request)", addr)
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
	ws, err := stet.Open(roots, o)
	if err != nil {
		return err
	}
	defer ws.Close()
	srv := mcpserver.New(ws, mcpserver.Options{Version: version, StallSteps: stallSteps, Session: e.g.session})
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
