package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"
)

// Context budget (docs/benchmarks.md): what a client receives from stet mcp
// stays within the sizes a model's context can take.
const (
	maxToolsListBytes = 16 << 10 // the native tools/list result
	maxResultTokens   = 25_000   // a default read, grep, list or find, in each form (Claude Code's cap on an MCP tool result)
)

// budgetRow is one measured result, as bench/tokens/budget.mjs reports it.
type budgetRow struct {
	Name             string `json:"name"`
	Bytes            int    `json:"bytes"`
	Tokens           int    `json:"tokens"`
	TextBytes        int    `json:"text_bytes"`
	TextTokens       int    `json:"text_tokens"`
	StructuredBytes  int    `json:"structured_bytes"`
	StructuredTokens int    `json:"structured_tokens"`
	Error            string `json:"error"`
}

// TestContextBudget starts stet mcp (native, and with --tools reference),
// lists the tools and makes a default read of two large Go files and a
// default grep, list and find with many results, and counts the bytes and
// the tokens (Anthropic's tokenizer, pinned in bench/tokens) of each whole
// result and of each form a client may give its model (the text, the
// structured content as JSON). It asserts the caps: the native tools/list at
// most 16 KiB, the reference profile's no larger than the pinned reference
// server's (when bench/peer is installed), and every default result at most
// 25,000 tokens in each form. It needs node and `npm ci --prefix
// bench/tokens` (and `npm ci --prefix bench/peer` for the reference
// server); without them it is skipped, unless STET_REQUIRE_TS=1.
//
//	go test ./cmd/stet -run TestContextBudget -v
//
// prints the table of docs/benchmarks.md.
func TestContextBudget(t *testing.T) {
	required := os.Getenv("STET_REQUIRE_TS") == "1"
	missing := func(format string, args ...any) {
		t.Helper()
		if required {
			t.Fatalf("context budget cannot be measured: "+format+" (STET_REQUIRE_TS=1 makes this a failure)", args...)
		}
		t.Skipf("context budget not measured: "+format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH; install Node.js 20 or later, then run `npm ci --prefix bench/tokens`")
	}
	tokens, err := filepath.Abs(filepath.Join("..", "..", "bench", "tokens"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(tokens, "node_modules", "@anthropic-ai", "tokenizer", "package.json")); err != nil {
		missing("bench/tokens/node_modules has no @anthropic-ai/tokenizer; run `npm ci --prefix bench/tokens`")
	}
	peer, _ := filepath.Abs(filepath.Join("..", "..", "bench", "peer"))
	if _, err := os.Stat(filepath.Join(peer, "node_modules", "@modelcontextprotocol", "server-filesystem", "package.json")); err != nil {
		if required {
			t.Fatalf("bench/peer/node_modules has no @modelcontextprotocol/server-filesystem; run `npm ci --prefix bench/peer` (STET_REQUIRE_TS=1 makes this a failure)")
		}
		t.Logf("bench/peer is not installed (`npm ci --prefix bench/peer`): the reference server's tools/list is not measured")
		peer = ""
	}

	base := t.TempDir()
	work := filepath.Join(base, "w")
	budgetWorkspace(t, work)

	ctx := context.Background()
	if d, ok := t.Deadline(); ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, d.Add(-5*time.Second))
		defer cancel()
	}
	args := []string{"budget.mjs", work}
	if peer != "" {
		args = append(args, peer)
	}
	cmd := exec.CommandContext(ctx, node, args...)
	cmd.Dir = tokens
	cmd.Env = append(os.Environ(), "STET_BIN="+bin)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node bench/tokens/budget.mjs: %v\n%s", err, stderr.Bytes())
	}
	var rows []budgetRow
	if err := json.Unmarshal(out, &rows); err != nil {
		t.Fatalf("budget.mjs printed %q: %v", out, err)
	}

	var table strings.Builder
	table.WriteString("| result | bytes | tokens | text bytes | text tokens | structured bytes | structured tokens |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	size := map[string]int{}
	for _, r := range rows {
		size[r.Name] = r.Bytes
		if r.Error != "" {
			t.Errorf("%s: the call failed: %s", r.Name, r.Error)
		}
		if strings.HasSuffix(r.Name, "tools/list") {
			fmt.Fprintf(&table, "| %s | %d | %d | | | | |\n", r.Name, r.Bytes, r.Tokens)
			continue
		}
		fmt.Fprintf(&table, "| %s | %d | %d | %d | %d | %d | %d |\n", r.Name, r.Bytes, r.Tokens, r.TextBytes, r.TextTokens, r.StructuredBytes, r.StructuredTokens)
		if r.TextTokens > maxResultTokens || r.StructuredTokens > maxResultTokens {
			t.Errorf("%s: %d tokens of text, %d of structured content; the cap is %d in each form", r.Name, r.TextTokens, r.StructuredTokens, maxResultTokens)
		}
		if r.TextTokens == 0 || r.StructuredTokens == 0 {
			t.Errorf("%s: an empty form (%d text tokens, %d structured): the measure measured nothing", r.Name, r.TextTokens, r.StructuredTokens)
		}
	}
	t.Logf("context budget (%s/%s):\n%s", runtime.GOOS, runtime.GOARCH, table.String())
	if n := size["native tools/list"]; n == 0 || n > maxToolsListBytes {
		t.Errorf("native tools/list is %d bytes, over the %d-byte budget (or not measured)", n, maxToolsListBytes)
	}
	if ref, peerN := size["reference profile tools/list"], size["reference server tools/list"]; ref == 0 || peer != "" && ref > peerN {
		t.Errorf("reference profile tools/list is %d bytes; the reference server's is %d", ref, peerN)
	}
}

// budgetWorkspace fills dir with what the budget measures: two large Go
// files made of the standard library's own source (ordinary code, as a
// model reads it), a directory of more entries than one list page, and a
// deeper tree for find.
func budgetWorkspace(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		t.Fatalf("go env GOROOT: %v", err)
	}
	goroot := strings.TrimSpace(string(out))
	cat := func(name, pkg string) {
		files, err := filepath.Glob(filepath.Join(goroot, "src", filepath.FromSlash(pkg), "*.go"))
		if err != nil || len(files) == 0 {
			t.Fatalf("no Go source in GOROOT/src/%s (%v)", pkg, err)
		}
		slices.Sort(files)
		var b bytes.Buffer
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			b.Write(data)
			if b.Len() > 512<<10 {
				break
			}
		}
		if b.Len() < 256<<10 {
			t.Fatalf("GOROOT/src/%s holds only %d bytes of source", pkg, b.Len())
		}
		if err := os.WriteFile(filepath.Join(dir, name), b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(dir, "many"), 0o755); err != nil {
		t.Fatal(err)
	}
	cat("http.go", "net/http")
	cat("types.go", "go/types")
	for i := range 1500 {
		name := filepath.Join(dir, "many", fmt.Sprintf("request_handler_%04d_fixture.go", i))
		if err := os.WriteFile(name, []byte("package many\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for i := range 300 {
		sub := filepath.Join(dir, "deep", fmt.Sprintf("module_%02d", i%30), "internal", "generated")
		if err := os.MkdirAll(sub, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sub, fmt.Sprintf("service_%03d.go", i)), []byte("package generated\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
