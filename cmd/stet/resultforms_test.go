package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"
)

// pinnedTokenizer is node and bench/tokens, which pins Anthropic's
// tokenizer (@anthropic-ai/tokenizer 0.0.4). Without them the test is
// skipped, unless one of the environment variables require names is "1",
// which makes it fail.
func pinnedTokenizer(t *testing.T, require ...string) (node, dir string) {
	t.Helper()
	missing := func(format string, args ...any) {
		t.Helper()
		for _, env := range require {
			if os.Getenv(env) == "1" {
				t.Fatalf("cannot count tokens: "+format+" (%s=1 makes this a failure)", append(args, env)...)
			}
		}
		t.Skipf("tokens not counted: "+format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH; install Node.js 20 or later, then run `npm ci --prefix bench/tokens`")
	}
	dir, err = filepath.Abs(filepath.Join("..", "..", "bench", "tokens"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@anthropic-ai", "tokenizer", "package.json")); err != nil {
		missing("bench/tokens/node_modules has no @anthropic-ai/tokenizer; run `npm ci --prefix bench/tokens`")
	}
	return node, dir
}

// tokenItem is one thing to count: Text as it is, or, when JSON is set,
// the JSON value as JSON.stringify(JSON.parse(JSON)) prints it, which is
// what Claude Code hands its model of a result's structured content.
type tokenItem struct {
	Text string          `json:"text"`
	JSON json.RawMessage `json:"json,omitempty"`
}

// anthropicTokensScript reads a JSON array of tokenItems on stdin and
// prints the token count of each.
const anthropicTokensScript = `import { countTokens } from "@anthropic-ai/tokenizer";
let s = "";
for await (const c of process.stdin) s += c;
const items = JSON.parse(s);
console.log(JSON.stringify(items.map((it) => countTokens(it.json !== undefined ? JSON.stringify(it.json) : it.text))));`

// anthropicTokens counts each item with the pinned tokenizer (one node
// process for all of them).
func anthropicTokens(t *testing.T, node, dir string, items []tokenItem) []int {
	t.Helper()
	if len(items) == 0 {
		return nil
	}
	in, err := json.Marshal(items)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, "--input-type=module", "-e", anthropicTokensScript)
	cmd.Dir = dir
	cmd.Stdin = bytes.NewReader(in)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("counting tokens with bench/tokens: %v\n%s", err, stderr.Bytes())
	}
	var n []int
	if err := json.Unmarshal(out, &n); err != nil || len(n) != len(items) {
		t.Fatalf("the tokenizer printed %q for %d items (%v)", out, len(items), err)
	}
	return n
}

// formsMCP is stet mcp over stdio, answering with each result's JSON as
// received.
type formsMCP struct {
	t    *testing.T
	in   io.WriteCloser
	out  *bufio.Reader
	next int
}

// startFormsMCP starts `stet mcp --root root` with extra flags and its own
// state directory.
func startFormsMCP(t *testing.T, root, state string, extra ...string) *formsMCP {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"mcp", "--root", root}, extra...)...)
	cmd.Dir = root
	cmd.Env = append(os.Environ(), "STET_STATE="+state, "STET_SESSION=", "STET_EFFECTS=")
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
	p := &formsMCP{t: t, in: in, out: bufio.NewReaderSize(out, 1<<20)}
	p.request("initialize", map[string]any{"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "stet-result-forms", "version": "0"}})
	p.send(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	return p
}

func (p *formsMCP) send(msg map[string]any) {
	p.t.Helper()
	b, _ := json.Marshal(msg)
	if _, err := p.in.Write(append(b, '\n')); err != nil {
		p.t.Fatal(err)
	}
}

// request sends one request and returns its result's JSON.
func (p *formsMCP) request(method string, params any) json.RawMessage {
	p.t.Helper()
	p.next++
	id := p.next
	p.send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	for {
		line, err := p.out.ReadBytes('\n')
		if err != nil {
			p.t.Fatalf("reading the answer to %s: %v", method, err)
		}
		var m struct {
			ID     *int            `json:"id"`
			Method string          `json:"method"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if err := json.Unmarshal(line, &m); err != nil {
			p.t.Fatalf("bad line from stet mcp: %v: %s", err, line)
		}
		if m.ID == nil || *m.ID != id || m.Method != "" {
			continue
		}
		if m.Error != nil {
			p.t.Fatalf("%s: error %s", method, m.Error)
		}
		return m.Result
	}
}

// formsResult is a tools/call result, its structured content as received.
type formsResult struct {
	Content []struct {
		Type string `json:"type"`
		Text string `json:"text"`
	} `json:"content"`
	StructuredContent json.RawMessage `json:"structuredContent"`
	IsError           bool            `json:"isError"`
}

func (p *formsMCP) call(tool string, args map[string]any) formsResult {
	p.t.Helper()
	raw := p.request("tools/call", map[string]any{"name": tool, "arguments": args})
	var r formsResult
	if err := json.Unmarshal(raw, &r); err != nil {
		p.t.Fatalf("%s: %v: %s", tool, err, raw)
	}
	return r
}

// text is the result's text content, as a client without structured
// content hands it to its model.
func (r formsResult) text() string {
	var b strings.Builder
	for _, c := range r.Content {
		if c.Type == "text" {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// maxStructuredRatio is issue 26's budget: the structured form of a
// result costs at most 1.15x its text form.
const maxStructuredRatio = 1.15

// structuredOverBudget names the results whose structured form is over
// maxStructuredRatio today, and why (docs/benchmarks.md, "Stet as the
// model's file tool, counted in Claude Code"). A result that comes within
// the budget is logged, to be taken off the list; one over it that is not
// listed fails.
var structuredOverBudget = map[string]string{
	"list (the root)":             "each entry is an object with its keys ({name, type, size}), where the text is one line of name and size",
	"grep defaultTimeout":         "each match is an object ({path, line, text}), where the text is one path:line:text row",
	"edit (one line)":             "the whole receipt (two sha256 versions, session, time, matches, eol) besides the message and the diff",
	"patch (three files)":         "a whole receipt per file besides the message and the diff",
	"write (a new file, 8 lines)": "the whole receipt besides the message and the diff",
}

// TestResultForms counts, with the pinned tokenizer, what a model reads of
// each of read, edit, write, patch, grep and list in the two forms stet
// mcp answers in: by default a result carries its text and its structured
// content, and Claude Code hands the model JSON.stringify of the
// structured content; with --results text it carries the text alone. It
// asserts that a text-only result is exactly the default result's text
// (receipt ids aside: each server makes its own) with no structured
// content, so a model of Claude Code's reads exactly the text's tokens,
// and holds the budget of issue 26 on the default form, the structured
// content at most 1.15x the text, except where structuredOverBudget says
// why not. It needs node and `npm ci --prefix bench/tokens`; without them
// it is skipped, unless STET_REQUIRE_TS=1.
//
//	go test ./cmd/stet -run TestResultForms -v
//
// prints the table of docs/benchmarks.md.
func TestResultForms(t *testing.T) {
	node, tokDir := pinnedTokenizer(t, "STET_REQUIRE_TS")
	files := flowFiles()
	type form struct {
		name    string
		results []formsResult
	}
	// The same calls in each form, on a fresh copy of the same project.
	calls := resultFormCalls()
	var forms []form
	for _, mode := range []string{"structured", "text"} {
		root := filepath.Join(t.TempDir(), "proj")
		for name, content := range files {
			p := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		var extra []string
		if mode == "text" {
			extra = []string{"--results", "text"}
		}
		srv := startFormsMCP(t, root, t.TempDir(), extra...)
		f := form{name: mode}
		for _, c := range calls {
			r := srv.call(c.tool, c.args)
			if r.IsError {
				t.Errorf("%s (%s results): refused: %s", c.label, mode, r.text())
			}
			f.results = append(f.results, r)
		}
		forms = append(forms, f)
	}
	structured, text := forms[0], forms[1]

	receipt := regexp.MustCompile(`\br_[0-9a-f]{16}\b`)
	var items []tokenItem
	for i, c := range calls {
		s, x := structured.results[i], text.results[i]
		if len(s.StructuredContent) == 0 {
			t.Errorf("%s: the default result carries no structured content", c.label)
		}
		if len(x.StructuredContent) != 0 {
			t.Errorf("%s: with --results text the result carries structured content %s", c.label, x.StructuredContent)
		}
		for _, blk := range x.Content {
			if blk.Type != "text" {
				t.Errorf("%s: with --results text a %s block", c.label, blk.Type)
			}
		}
		// Each server makes its own receipt ids: the text-only result's
		// are put back in order as the default result's, and then the
		// two texts are the same to the byte, but for a change's diff,
		// which the text-only result carries with less context: the same
		// message, every line that went and came, no more bytes.
		ids := receipt.FindAllString(s.text(), -1)
		k := 0
		only := receipt.ReplaceAllStringFunc(x.text(), func(id string) string {
			if k < len(ids) {
				id = ids[k]
			}
			k++
			return id
		})
		if k != len(ids) || !sameSaveContext(only, s.text()) {
			t.Errorf("%s: the text-only result's text differs from the default result's:\n%s\n---\n%s", c.label, x.text(), s.text())
		}
		items = append(items, tokenItem{Text: s.text()}, tokenItem{JSON: s.StructuredContent}, tokenItem{Text: only})
	}
	n := anthropicTokens(t, node, tokDir, items)

	var table strings.Builder
	table.WriteString("| result | text bytes | text tokens | structured bytes | structured tokens | structured / text | model reads with `--results text` |\n| --- | ---: | ---: | ---: | ---: | ---: | ---: |\n")
	for i, c := range calls {
		textTok, scTok, onlyTok := n[3*i], n[3*i+1], n[3*i+2]
		var compact bytes.Buffer
		json.Compact(&compact, structured.results[i].StructuredContent)
		ratio := float64(scTok) / float64(textTok)
		fmt.Fprintf(&table, "| %s | %d | %d | %d | %d | %.2fx | %d |\n", c.label, len(structured.results[i].text()), textTok, compact.Len(), scTok, ratio, onlyTok)
		if onlyTok > textTok {
			t.Errorf("%s: the text-only result costs %d tokens, more than the text's %d", c.label, onlyTok, textTok)
		}
		why, listed := structuredOverBudget[c.label]
		switch over := ratio > maxStructuredRatio; {
		case over && !listed:
			t.Errorf("%s: the structured form costs %d tokens, %.2fx the text's %d (budget %.2fx)", c.label, scTok, ratio, textTok, maxStructuredRatio)
		case over:
			t.Logf("%s: over the budget at %.2fx, as known: %s", c.label, ratio, why)
		case listed:
			t.Logf("%s: now within the budget (%.2fx): take it off structuredOverBudget", c.label, ratio)
		}
	}
	t.Logf("result forms (%s/%s), tokens of @anthropic-ai/tokenizer 0.0.4:\n%s", runtime.GOOS, runtime.GOARCH, table.String())
}

// resultFormCall is one call TestResultForms makes.
type resultFormCall struct {
	label string
	tool  string
	args  map[string]any
}

// resultFormCalls are the six tools' calls of the flow TestClaudeCodeFlowCost
// drives in Claude Code, on its project: a list, a grep, a read of the
// 1,000-line file, an edit, a three-file patch and a write.
func resultFormCalls() []resultFormCall {
	return []resultFormCall{
		{"list (the root)", "list", map[string]any{}},
		{"grep defaultTimeout", "grep", map[string]any{"pattern": "defaultTimeout"}},
		{"read server.go (1,000 lines)", "read", map[string]any{"path": "server.go"}},
		{"edit (one line)", "edit", map[string]any{"path": "server.go", "old_string": flowEdit1Old, "new_string": flowEdit1New}},
		{"patch (three files)", "patch", map[string]any{"patch": flowPatch}},
		{"write (a new file, 8 lines)", "write", map[string]any{"path": "notes.md", "content": flowNotes}},
	}
}

// sameSaveContext reports whether the text-only text compact says what
// the default text full says: the same text, or the same message and every
// line a diff removes or adds, in no more bytes.
func sameSaveContext(compact, full string) bool {
	if compact == full {
		return true
	}
	cm, cd, _ := strings.Cut(compact, "\n\n")
	fm, fd, _ := strings.Cut(full, "\n\n")
	if cm != fm || len(compact) > len(full) {
		return false
	}
	for _, l := range strings.Split(fd, "\n") {
		if (strings.HasPrefix(l, "-") || strings.HasPrefix(l, "+")) && !strings.Contains(cd, l) {
			return false
		}
	}
	return true
}
