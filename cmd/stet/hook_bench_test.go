package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// BenchmarkHookProcess measures what a client waits for on each of its
// tool calls: the whole `stet hook claude-code` process (start, read the
// event, open the workspace and journal, decide, journal, answer), exec'd
// as a client runs it. "floor" is `stet --version`, the same binary's
// start and exit with no work: the ratio of each row to it is what the
// hook's work costs. Each row reports its median (p50-ms) and p99 (p99-ms)
// besides the mean.
//
//	go test ./cmd/stet -run '^$' -bench BenchmarkHookProcess -benchtime 200x
func BenchmarkHookProcess(b *testing.B) {
	dir := b.TempDir()
	root := filepath.Join(dir, "proj")
	state := filepath.Join(dir, "state")
	os.MkdirAll(root, 0o755)
	var sb strings.Builder
	for i := 1; i <= 2000; i++ {
		fmt.Fprintf(&sb, "line %d of the file, as source code reads\n", i)
	}
	text := sb.String() // 86 KB
	file := filepath.Join(root, "a.txt")
	os.WriteFile(file, []byte(text), 0o644)
	event := func(name, tool, id string, input, response any) string {
		m := map[string]any{"session_id": "bench", "cwd": root, "hook_event_name": name, "tool_name": tool, "tool_input": input, "tool_use_id": id}
		if response != nil {
			m["tool_response"] = response
		}
		return string(jsonBytes(m))
	}
	hook := func(b *testing.B, ev string) time.Duration {
		t0 := time.Now()
		cmd := exec.Command(bin, "hook", "claude-code", "--root", root, "--state", state)
		cmd.Stdin = strings.NewReader(ev)
		var out bytes.Buffer
		cmd.Stdout = &out
		if err := cmd.Run(); err != nil {
			b.Fatalf("stet hook: %v", err)
		}
		if strings.Contains(out.String(), `"deny"`) {
			b.Fatalf("refused: %s", out.String())
		}
		return time.Since(t0)
	}
	readResp := map[string]any{"type": "text", "file": map[string]any{"filePath": file, "startLine": 1, "numLines": 2001}}
	hook(b, event("PostToolUse", "Read", "r0", map[string]any{"file_path": file}, readResp))
	n := 0
	edit := map[string]any{"file_path": file, "old_string": "line 1000 of the file", "new_string": "line one thousand"}
	back := map[string]any{"file_path": file, "old_string": "line one thousand", "new_string": "line 1000 of the file"}
	rows := []struct {
		name string
		run  func(b *testing.B) time.Duration // the time of the timed part
	}{
		{"floor", func(b *testing.B) time.Duration {
			t0 := time.Now()
			if err := exec.Command(bin, "--version").Run(); err != nil {
				b.Fatal(err)
			}
			return time.Since(t0)
		}},
		{"PreToolUse-Read", func(b *testing.B) time.Duration {
			return hook(b, event("PreToolUse", "Read", "r", map[string]any{"file_path": file}, nil))
		}},
		{"PostToolUse-Read", func(b *testing.B) time.Duration {
			return hook(b, event("PostToolUse", "Read", "r", map[string]any{"file_path": file}, readResp))
		}},
		{"PreToolUse-Edit", func(b *testing.B) time.Duration {
			// Checked and saved; its readback runs untimed (the file
			// holds its old bytes, so it writes no receipt).
			n++
			id := fmt.Sprintf("e%d", n)
			d := hook(b, event("PreToolUse", "Edit", id, edit, nil))
			b.StopTimer()
			hook(b, event("PostToolUse", "Edit", id, edit, map[string]any{}))
			b.StartTimer()
			return d
		}},
		{"PostToolUse-Edit", func(b *testing.B) time.Duration {
			n++
			id := fmt.Sprintf("e%d", n)
			b.StopTimer()
			hook(b, event("PreToolUse", "Edit", id, edit, nil))
			b.StartTimer()
			return hook(b, event("PostToolUse", "Edit", id, edit, map[string]any{}))
		}},
		{"Edit-landed", func(b *testing.B) time.Duration {
			t0 := time.Now()
			// The whole of two landed edits: the check, the client's
			// write, the readback and its receipt; then the same back, so
			// the file stays the same size.
			for _, e := range []map[string]any{edit, back} {
				n++
				id := fmt.Sprintf("e%d", n)
				hook(b, event("PreToolUse", "Edit", id, e, nil))
				cur, _ := os.ReadFile(file)
				os.WriteFile(file, bytes.Replace(cur, []byte(e["old_string"].(string)), []byte(e["new_string"].(string)), 1), 0o644)
				hook(b, event("PostToolUse", "Edit", id, e, map[string]any{}))
			}
			return time.Since(t0)
		}},
	}
	for _, r := range rows {
		b.Run(r.name, func(b *testing.B) {
			var ts []time.Duration
			for b.Loop() {
				ts = append(ts, r.run(b))
			}
			slices.Sort(ts)
			b.ReportMetric(float64(ts[len(ts)/2])/1e6, "p50-ms")
			b.ReportMetric(float64(ts[min(len(ts)-1, len(ts)*99/100)])/1e6, "p99-ms")
		})
	}
}

func jsonBytes(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return b
}
