package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTSClient2 runs clients/ts2/flow.mjs: the official MCP TypeScript SDK
// v2 client (@modelcontextprotocol/client) drives the stet binary speaking
// MCP 2026-07-28 (server/discover, no initialize, no Mcp-Session-Id) and
// the SDK's default legacy handshake, over stdio and over streamable HTTP:
// the tool list, a read, then an edit that lands in the same stet session
// (over stateless HTTP through the session handle the read's result gave).
//
// It needs node and the SDK installed with `npm ci --prefix clients/ts2`;
// without them it is skipped, unless STET_REQUIRE_TS=1 (set by .ci/run),
// which makes it fail instead.
func TestTSClient2(t *testing.T) {
	const install = "install Node.js 20 or later, then run `npm ci --prefix clients/ts2` from the repository root"
	required := os.Getenv("STET_REQUIRE_TS") == "1"
	missing := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf("TypeScript SDK v2 client test cannot run: "+format+" (STET_REQUIRE_TS=1 makes this a failure)", args...)
		}
		t.Skipf("TypeScript SDK v2 client test skipped: "+format, args...)
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "clients", "ts2"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH; %s", install)
	}
	const pkg = "@modelcontextprotocol/client"
	want := pinnedDep(t, filepath.Join(dir, "package.json"), pkg)
	got, err := sdkVersion(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "client", "package.json"))
	if err != nil {
		missing("clients/ts2/node_modules has no %s (%v); %s", pkg, err, install)
	}
	if got != want {
		t.Fatalf("clients/ts2/node_modules has %s %s, package.json pins %s; run `npm ci --prefix clients/ts2`", pkg, got, want)
	}

	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-5*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, node, "flow.mjs")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STET_BIN="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node clients/ts2/flow.mjs (STET_BIN=%s): %v\n%s", bin, err, out)
	}
	t.Logf("node clients/ts2/flow.mjs:\n%s", out)
}
