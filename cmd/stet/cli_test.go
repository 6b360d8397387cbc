package main

import (
	"bytes"
	"context"
	"flag"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// runIn runs one command line in process and returns the exit code and
// both outputs.
func runIn(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	t.Setenv("STET_STATE", t.TempDir())
	code := run(context.Background(), args, strings.NewReader(""), &out, &errb)
	return code, out.String(), errb.String()
}

func goldenFile(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (go test ./cmd/stet -update writes it)", err)
	}
	if diff := cmp.Diff(string(want), got); diff != "" {
		t.Errorf("%s differs (-want +got; go test ./cmd/stet -update rewrites it):\n%s", path, diff)
	}
}

// TestUsageErrors pins what bad usage prints: exit 2, one line saying
// what is wrong (with the nearest flag or command), then the command's
// usage line; nothing on standard output, and no workspace touched.
func TestUsageErrors(t *testing.T) {
	for name, args := range map[string][]string{
		"unknown_flag":         {"edit", "--old-str", "x", "--new-string", "y", "a.txt"},
		"unknown_flag_no_hint": {"read", "--zzzzzz", "a.txt"},
		"unknown_global_flag":  {"--rot", ".", "read", "a.txt"},
		"missing_value":        {"read", "a.txt", "--limit"},
		"malformed_value":      {"read", "--limit", "ten", "a.txt"},
		"missing_path":         {"read"},
		"missing_new_string":   {"edit", "--old-string", "x", "a.txt"},
		"missing_old_string":   {"edit", "--new-string", "x", "a.txt"},
		"edits_and_old_string": {"edit", "--old-string", "x", "--new-string", "y", "--edits", "[]", "a.txt"},
		"unknown_command":      {"reed", "a.txt"},
		"unknown_format":       {"tools", "--format", "openai-response"},
		"wrong_effects":        {"--effects", "readonly", "read", "a.txt"},
		"completion_shell":     {"completion", "powershell"},
		"help_unknown":         {"help", "eddit"},
		"wrong_tools_profile":  {"mcp", "--tools", "referense"},
	} {
		t.Run(name, func(t *testing.T) {
			code, stdout, stderr := runIn(t, args...)
			if code != exitUsage || stdout != "" {
				t.Errorf("exit %d, stdout %q; want exit 2 and nothing on stdout", code, stdout)
			}
			if n := strings.Count(stderr, "\n"); n > 3 {
				t.Errorf("stderr has %d lines, want the error and the usage:\n%s", n, stderr)
			}
			goldenFile(t, filepath.Join("usage", name+".txt"), stderr)
		})
	}
}

// TestHelpPerCommand pins every command's help: stet help CMD and stet
// CMD --help print the same text on standard output, exit 0, every flag
// with two dashes.
func TestHelpPerCommand(t *testing.T) {
	for _, name := range commandNames() {
		t.Run(name, func(t *testing.T) {
			code, help, stderr := runIn(t, "help", name)
			if code != 0 || stderr != "" || !strings.HasPrefix(help, "usage: stet "+name) {
				t.Fatalf("stet help %s: exit %d, stdout %q, stderr %q", name, code, help, stderr)
			}
			if summaries[name] == "" {
				t.Errorf("command %s has no one-line summary", name)
			}
			if name != "help" {
				code, direct, _ := runIn(t, name, "--help")
				if code != 0 || direct != help {
					t.Errorf("stet %s --help (exit %d) differs from stet help %s:\n%s", name, code, name, direct)
				}
			}
			for _, line := range strings.Split(help, "\n") {
				if f := strings.TrimSpace(line); strings.HasPrefix(f, "-") && !strings.HasPrefix(f, "--") {
					t.Errorf("single-dash flag in help: %q", line)
				}
			}
			goldenFile(t, filepath.Join("help", name+".txt"), help)
		})
	}
}

// TestVersion pins how the version is found in the build info.
func TestVersion(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "false"}}
	dirty := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}
	var b strings.Builder
	for _, tc := range []struct {
		name string
		info debug.BuildInfo
	}{
		{"go install @v1.2.3", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}}},
		{"pseudo-version", debug.BuildInfo{Main: debug.Module{Version: "v0.0.0-20260102030405-0123456789ab"}}},
		{"local build from a checkout", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}},
		{"local build with changes", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: dirty}},
		{"Go 1.24+ local build stamped from VCS", debug.BuildInfo{Main: debug.Module{Version: "v0.3.1-0.20260102030405-0123456789ab+dirty"}, Settings: dirty}},
		{"no VCS", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}},
		{"nothing", debug.BuildInfo{}},
	} {
		b.WriteString(tc.name + ": " + versionOf(&tc.info) + "\n")
	}
	goldenFile(t, "version.txt", b.String())

	code, long, _ := runIn(t, "--version")
	code2, short, _ := runIn(t, "version")
	if code != 0 || code2 != 0 || long != short || long != "stet "+buildVersion()+"\n" {
		t.Errorf("stet --version %q (exit %d), stet version %q (exit %d)", long, code, short, code2)
	}
}

func TestCompletion(t *testing.T) {
	for _, shell := range []string{"bash", "zsh", "fish"} {
		code, out, _ := runIn(t, "completion", shell)
		if code != 0 || !strings.Contains(out, "old-string") || !strings.Contains(out, "roots") {
			t.Errorf("completion %s: exit %d\n%s", shell, code, out)
		}
	}
}
