package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// TestMCPDirArguments: directories after stet mcp's flags are its roots, as
// a desktop extension passes the directories a user chose (one argument
// each) and as npx @stet-dev/stet mcp DIR does.
func TestMCPDirArguments(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "in the first\n"})
	other := t.TempDir()
	if err := os.WriteFile(filepath.Join(other, "b.txt"), []byte("in the second\n"), 0o644); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "mcp", w.root, other)
	cmd.Dir = t.TempDir() // not a root: only the arguments are served
	cmd.Env = append(os.Environ(), "STET_STATE="+w.state, "STET_SESSION=", "STET_EFFECTS=")
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
	p := &mcpProc{t: t, cmd: cmd, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	p.request("initialize", map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "e2e", "version": "0"},
	})
	p.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})

	roots, _ := p.call("roots", map[string]any{})["roots"].([]any)
	var paths []string
	for _, r := range roots {
		m, _ := r.(map[string]any)
		s, _ := m["path"].(string)
		paths = append(paths, s)
	}
	want := []string{realPath(t, w.root), realPath(t, other)}
	if len(paths) != 2 || realPath(t, paths[0]) != want[0] || realPath(t, paths[1]) != want[1] {
		t.Fatalf("stet mcp DIR DIR serves roots %v, want %v", paths, want)
	}
	if r := p.call("read", map[string]any{"path": filepath.Join(other, "b.txt")}); r["frame"] != "00001|in the second\n00002|\n(2 lines)" {
		t.Errorf("read in the second directory: %v", r)
	}
}

func realPath(t *testing.T, p string) string {
	t.Helper()
	r, err := filepath.EvalSymlinks(p)
	if err != nil {
		t.Fatal(err)
	}
	return r
}
