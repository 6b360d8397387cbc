package main

import (
	"bufio"
	"encoding/json"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// rawMCP is stet mcp started with the given arguments in dir, driven over
// stdio by a client that answers roots/list with roots (nil: the client
// does not offer roots).
type rawMCP struct {
	*mcpProc
	stderr *strings.Builder
}

func startRaw(t *testing.T, dir string, env []string, roots []string, args ...string) *rawMCP {
	t.Helper()
	return startServer(t, dir, env, roots, bin, args...)
}

// startServer is startRaw for any MCP server on stdio: prog with args.
func startServer(t *testing.T, dir string, env []string, roots []string, prog string, args ...string) *rawMCP {
	t.Helper()
	cmd := exec.Command(prog, args...)
	cmd.Dir = dir
	cmd.Env = append(append(os.Environ(), "STET_SESSION=", "STET_EFFECTS=", "STET_STATE="+t.TempDir()), env...)
	var errb strings.Builder
	cmd.Stderr = &errb
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	p := &mcpProc{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	caps := map[string]any{}
	if roots != nil {
		caps["roots"] = map[string]any{"listChanged": true}
		p.onRequest = func(method string) any {
			if method != "roots/list" {
				return nil
			}
			list := []map[string]any{}
			for _, r := range roots {
				list = append(list, map[string]any{"uri": (&url.URL{Scheme: "file", Path: filepath.ToSlash(r)}).String()})
			}
			return map[string]any{"roots": list}
		}
	}
	p.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": caps,
		"clientInfo": map[string]any{"name": "e2e", "version": "0"},
	})
	p.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return &rawMCP{mcpProc: p, stderr: &errb}
}

// TestMCPNoRootServesNothing: stet mcp started in / or in the home
// directory with no --root and a client without roots serves nothing:
// every tool is refused as outside, naming --root and the configuration
// to write, nothing is read or changed, and the startup line says so.
func TestMCPNoRootServesNothing(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "secret.txt"), []byte("secret\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, where := range []struct{ name, dir string }{{"root", "/"}, {"home", home}} {
		for _, profile := range []string{"stet", "reference"} {
			t.Run(where.name+"/"+profile, func(t *testing.T) {
				p := startRaw(t, where.dir, []string{"HOME=" + home}, nil, "mcp", "--tools", profile)
				list := p.request("tools/list", map[string]any{})
				tools, _ := list["tools"].([]any)
				if len(tools) == 0 {
					t.Fatal("no tools listed")
				}
				for _, x := range tools {
					name, _ := x.(map[string]any)["name"].(string)
					args := map[string]any{"path": "secret.txt", "paths": []string{"secret.txt"}, "pattern": "*", "source": "secret.txt", "destination": "moved.txt", "from": "secret.txt", "to": "moved.txt"}
					r := p.request("tools/call", map[string]any{"name": name, "arguments": args})
					sc, _ := r["structuredContent"].(map[string]any)
					if r["isError"] != true || sc["refused"] != "outside" {
						t.Fatalf("%s in %s: not refused as outside: %v", name, where.dir, r)
					}
					msg, _ := sc["message"].(string)
					if !strings.Contains(msg, "--root") || !strings.Contains(msg, `"mcpServers"`) {
						t.Errorf("%s: the refusal does not name --root and the config: %s", name, msg)
					}
					if strings.Contains(msg, "secret\n") {
						t.Errorf("%s: something was read: %s", name, msg)
					}
				}
				if b, err := os.ReadFile(filepath.Join(home, "secret.txt")); err != nil || string(b) != "secret\n" {
					t.Fatalf("secret.txt = %q, %v", b, err)
				}
				if _, err := os.Stat(filepath.Join(home, "moved.txt")); err == nil {
					t.Fatal("a move landed in the home directory")
				}
				p.in.Close()
				p.cmd.Wait()
				if e := p.stderr.String(); !strings.Contains(e, "running on stdio") || !strings.Contains(e, "no --root given") {
					t.Errorf("startup line: %q", e)
				}
			})
		}
	}
}

// TestMCPClientRoots: with client roots and no --root, those roots are
// served and roots names them.
func TestMCPClientRoots(t *testing.T) {
	a := t.TempDir()
	if err := os.WriteFile(filepath.Join(a, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	p := startRaw(t, "/", nil, []string{a}, "mcp")
	if sc := p.call("roots", map[string]any{}); !oneRoot(sc, a) {
		t.Fatalf("roots = %v, want %s", sc, a)
	}
	if sc := p.call("read", map[string]any{"path": "a.txt"}); sc["refused"] != nil || !strings.Contains(sc["frame"].(string), "alpha") {
		t.Fatalf("read in the client's root: %v", sc)
	}
	if sc := p.call("read", map[string]any{"path": "/etc/passwd"}); sc["refused"] != "outside" {
		t.Fatalf("read outside the client's root: %v", sc)
	}
}

// TestMCPBadRoot: a root argument that is missing or not a directory is
// skipped with a warning naming it, the others are served; with none
// usable, stet mcp exits 1 before the handshake.
func TestMCPBadRoot(t *testing.T) {
	good := t.TempDir()
	if err := os.WriteFile(filepath.Join(good, "a.txt"), []byte("alpha\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	missing := filepath.Join(t.TempDir(), "missing")
	file := filepath.Join(good, "a.txt")
	for _, args := range [][]string{
		{"mcp", "--root", missing, "--root", good, "--root", file},
		{"mcp", "--tools", "reference", missing, good, file},
	} {
		p := startRaw(t, good, nil, nil, args...)
		if args[1] == "--tools" {
			sc := p.call("list_allowed_directories", map[string]any{})
			if c, _ := sc["content"].(string); c != "Allowed directories:\n"+good {
				t.Fatalf("%v: list_allowed_directories = %v", args, sc)
			}
		} else if sc := p.call("roots", map[string]any{}); !oneRoot(sc, good) {
			t.Fatalf("%v: roots = %v, want only %s", args, sc, good)
		}
		p.in.Close()
		p.cmd.Wait()
		e := p.stderr.String()
		if !strings.Contains(e, "Warning: Cannot access directory "+missing) || !strings.Contains(e, "Warning: "+file+" is not a directory") {
			t.Errorf("%v: no warning naming the bad roots: %q", args, e)
		}
		if !strings.Contains(e, "running on stdio") || !strings.Contains(e, good+" (workspace-write)") {
			t.Errorf("%v: startup line: %q", args, e)
		}
	}

	cmd := exec.Command(bin, "mcp", "--root", missing, "--root", file)
	cmd.Env = append(os.Environ(), "STET_STATE="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Fatalf("stet mcp with no usable root: %v\n%s", err, out)
	}
	if !strings.Contains(string(out), "None of the specified directories are accessible") || !strings.Contains(string(out), missing) {
		t.Errorf("output: %s", out)
	}
}

// TestCLIBroadDefaultRoot: a CLI command run in / or in the home directory
// without --root is bad usage (exit 2) naming --root, and reads nothing;
// with --root naming the directory it runs.
func TestCLIBroadDefaultRoot(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, "notes.txt"), []byte("notes\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, dir := range []string{"/", home} {
		cmd := exec.Command(bin, "read", "notes.txt")
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "HOME="+home, "STET_STATE="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 2 {
			t.Fatalf("stet read in %s: %v\n%s", dir, err, out)
		}
		if !strings.Contains(string(out), "--root") || strings.Contains(string(out), "notes\n") {
			t.Errorf("stet read in %s: %s", dir, out)
		}
	}
	cmd := exec.Command(bin, "--root", home, "--json", "read", "notes.txt")
	cmd.Dir = home
	cmd.Env = append(os.Environ(), "HOME="+home, "STET_STATE="+t.TempDir())
	out, err := cmd.Output()
	var r map[string]any
	if err != nil || json.Unmarshal(out, &r) != nil || !strings.Contains(r["frame"].(string), "notes") {
		t.Fatalf("stet --root HOME read: %v\n%s", err, out)
	}
}

// oneRoot reports whether a roots result names dir alone.
func oneRoot(sc map[string]any, dir string) bool {
	roots, _ := sc["roots"].([]any)
	if len(roots) != 1 {
		return false
	}
	m, _ := roots[0].(map[string]any)
	return m["path"] == dir
}
