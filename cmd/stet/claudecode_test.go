package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// TestClaudeCodeSetup runs the `claude mcp add` lines `stet setup
// claude-code` prints with Claude Code's own CLI (pinned in
// clients/claude), in a made-up home, then `claude mcp get stet`: the
// command and args must come through as printed, and Claude Code must
// connect to the server they start. Neither command needs a login.
//
// It needs Claude Code installed with `npm ci --prefix clients/claude`;
// without it it is skipped, unless STET_REQUIRE_CLAUDE=1, which makes it
// fail instead.
func TestClaudeCodeSetup(t *testing.T) {
	const install = "install Node.js 18 or later, then run `npm ci --prefix clients/claude` from the repository root"
	required := os.Getenv("STET_REQUIRE_CLAUDE") == "1"
	missing := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf("Claude Code CLI test cannot run: "+format+" (STET_REQUIRE_CLAUDE=1 makes this a failure)", args...)
		}
		t.Skipf("Claude Code CLI test skipped: "+format, args...)
	}
	if runtime.GOOS == "windows" {
		missing("it runs the printed line with sh")
	}
	sh, err := exec.LookPath("sh")
	if err != nil {
		missing("no sh on PATH")
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "clients", "claude"))
	if err != nil {
		t.Fatal(err)
	}
	claudeBin := filepath.Join(dir, "node_modules", ".bin", "claude")
	if _, err := os.Stat(claudeBin); err != nil {
		missing("clients/claude has no Claude Code (%v); %s", err, install)
	}
	want := pinnedDep(t, filepath.Join(dir, "package.json"), "@anthropic-ai/claude-code")
	got, err := sdkVersion(filepath.Join(dir, "node_modules", "@anthropic-ai", "claude-code", "package.json"))
	if err != nil || got != want {
		t.Fatalf("clients/claude/node_modules has @anthropic-ai/claude-code %q (%v), package.json pins %s; run `npm ci --prefix clients/claude`", got, err, want)
	}

	// "write": stet setup claude-code --project --write writes .mcp.json
	// itself, and Claude Code reads it.
	for _, scope := range []string{"user", "project", "write"} {
		t.Run(scope, func(t *testing.T) {
			h := newHome(t)
			h.env = append(h.env, "PATH="+filepath.Dir(claudeBin)+string(os.PathListSeparator)+os.Getenv("PATH"),
				"DISABLE_AUTOUPDATER=1", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC=1", "DISABLE_TELEMETRY=1")
			code, out, errOut := h.run("", "setup", "claude-code", "--root", h.proj)
			if code != 0 {
				t.Fatalf("stet setup claude-code: exit %d\n%s%s", code, out, errOut)
			}
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			claude := func(args ...string) string {
				t.Helper()
				cmd := exec.CommandContext(ctx, args[0], args[1:]...)
				cmd.Dir, cmd.Env = h.proj, h.env
				b, err := cmd.CombinedOutput()
				if err != nil {
					t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, b)
				}
				return string(b)
			}
			if scope == "write" {
				if code, o, e := h.run("", "setup", "claude-code", "--root", h.proj, "--project", "--write"); code != 0 {
					t.Fatalf("stet setup claude-code --project --write: exit %d\n%s%s", code, o, e)
				}
			} else {
				var line string
				for _, l := range strings.Split(out, "\n") {
					if strings.HasPrefix(strings.TrimSpace(l), "claude mcp add --scope "+scope+" ") {
						line = strings.TrimSpace(l)
					}
				}
				if line == "" {
					t.Fatalf("no `claude mcp add --scope %s` line in:\n%s", scope, out)
				}
				t.Logf("%s\n%s", line, claude(sh, "-c", line))
			}
			got := claude(claudeBin, "mcp", "get", "stet")
			t.Logf("claude mcp get stet:\n%s", got)
			wants := []string{"Command: " + binPath(t), "Args: mcp --root " + h.proj}
			if scope == "user" {
				// A project's servers wait for approval in a session.
				wants = append(wants, "Connected")
			}
			for _, want := range wants {
				if !strings.Contains(got, want) {
					t.Errorf("claude mcp get stet does not show %q:\n%s", want, got)
				}
			}
			if scope != "user" {
				if _, err := os.Stat(filepath.Join(h.proj, ".mcp.json")); err != nil {
					t.Errorf("--scope project wrote no .mcp.json: %v", err)
				}
			}
		})
	}
}
