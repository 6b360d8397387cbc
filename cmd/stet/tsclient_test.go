package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestTSClient runs clients/ts/flow.mjs: the official MCP TypeScript SDK
// client, a client that is not ours, drives the stet binary over stdio and
// over streamable HTTP through read, edit, a change by someone else, the
// refusal, re-read, edit, write, and undo, checking results and bytes on
// disk.
//
// It needs node and the SDK installed with `npm ci --prefix clients/ts`;
// without them it is skipped, unless STET_REQUIRE_TS=1 (set by .ci/run),
// which makes it fail instead.
func TestTSClient(t *testing.T) { runTS(t, "flow.mjs") }

// TestTSReference runs clients/ts/reference.mjs: the reference filesystem
// server's example flows (read, multiple read, edit with dryRun, write,
// move, tree, search, info, allowed directories), driven by the official
// TypeScript SDK client against `stet mcp --tools reference`, over stdio
// and over streamable HTTP. It is skipped or fails as TestTSClient is.
func TestTSReference(t *testing.T) { runTS(t, "reference.mjs") }

// runTS runs one script of clients/ts with node against the stet binary.
func runTS(t *testing.T, script string) {
	const install = "install Node.js 20 or later, then run `npm ci --prefix clients/ts` from the repository root"
	required := os.Getenv("STET_REQUIRE_TS") == "1"
	missing := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf("TypeScript SDK client test cannot run: "+format+" (STET_REQUIRE_TS=1 makes this a failure)", args...)
		}
		t.Skipf("TypeScript SDK client test skipped: "+format, args...)
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "clients", "ts"))
	if err != nil {
		t.Fatal(err)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH; %s", install)
	}
	want := pinnedSDK(t, filepath.Join(dir, "package.json"))
	got, err := sdkVersion(filepath.Join(dir, "node_modules", "@modelcontextprotocol", "sdk", "package.json"))
	if err != nil {
		missing("clients/ts/node_modules has no @modelcontextprotocol/sdk (%v); %s", err, install)
	}
	if got != want {
		t.Fatalf("clients/ts/node_modules has @modelcontextprotocol/sdk %s, package.json pins %s; run `npm ci --prefix clients/ts`", got, want)
	}

	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-5*time.Second))
		defer cancel()
	}
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "STET_BIN="+bin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("node clients/ts/%s (STET_BIN=%s): %v\n%s", script, bin, err, out)
	}
	t.Logf("node clients/ts/%s:\n%s", script, out)
}

// pinnedSDK is the exact @modelcontextprotocol/sdk version clients/ts's
// package.json depends on.
func pinnedSDK(t *testing.T, packageJSON string) string {
	t.Helper()
	return pinnedDep(t, packageJSON, "@modelcontextprotocol/sdk")
}

// pinnedDep is the exact version of dep a package.json depends on.
func pinnedDep(t *testing.T, packageJSON, dep string) string {
	t.Helper()
	b, err := os.ReadFile(packageJSON)
	if err != nil {
		t.Fatal(err)
	}
	var p struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatalf("%s: %v", packageJSON, err)
	}
	v := p.Dependencies[dep]
	if v == "" {
		t.Fatalf("%s does not depend on %s", packageJSON, dep)
	}
	return v
}

// sdkVersion is the version of the installed SDK package.
func sdkVersion(packageJSON string) (string, error) {
	b, err := os.ReadFile(packageJSON)
	if err != nil {
		return "", err
	}
	var p struct {
		Version string `json:"version"`
	}
	if err := json.Unmarshal(b, &p); err != nil {
		return "", err
	}
	return p.Version, nil
}
