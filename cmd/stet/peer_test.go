package main

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestPeerReference compares `stet mcp --tools reference` with the
// reference filesystem server it stands in for
// (@modelcontextprotocol/server-filesystem, pinned by
// clients/reference/package-lock.json): for each of the reference server's
// 14 tools, the same calls, in the same order, on the same files, through
// both servers. Each answer is compared after the root's path is replaced
// by <root> and directory order (the reference server's is the system's)
// is sorted. Every difference that remains is one of stet's rules (SPEC
// section 4), asserted by name: the reference server's answer is a
// success, stet's the refusal of that kind.
//
// It needs node and the pinned server installed with
// `npm ci --prefix clients/reference`; without them it is skipped, unless
// STET_REQUIRE_PEER=1 (set by .ci/run), which makes it fail instead.
func TestPeerReference(t *testing.T) {
	const install = "install Node.js 20 or later, then run `npm ci --prefix clients/reference` from the repository root"
	missing := func(format string, args ...any) {
		t.Helper()
		if os.Getenv("STET_REQUIRE_PEER") == "1" {
			t.Fatalf("peer comparison cannot run: "+format+" (STET_REQUIRE_PEER=1 makes this a failure)", args...)
		}
		t.Skipf("peer comparison skipped: "+format, args...)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node is not on PATH; %s", install)
	}
	dir, err := filepath.Abs(filepath.Join("..", "..", "clients", "reference"))
	if err != nil {
		t.Fatal(err)
	}
	server := filepath.Join(dir, "node_modules", "@modelcontextprotocol", "server-filesystem", "dist", "index.js")
	if _, err := os.Stat(server); err != nil {
		missing("the reference server is not installed (%v); %s", err, install)
	}

	type answer struct {
		isError bool
		text    string // every text block, root replaced, joined
		other   string // the non-text blocks as JSON, root replaced
		kind    string // stet's refusal kind
	}
	type run struct {
		root string
		p    *rawMCP
	}
	start := func(prog string, args ...string) run {
		root := t.TempDir()
		files := map[string]string{
			"notes.txt":      "alpha\nbeta\ngamma\n",
			"src/main.go":    "package main\n",
			"src/util.go":    "package main\n\nfunc util() {}\n",
			"docs/readme.md": "# docs\n",
			"move-me.txt":    "unread\n",
			"keep.txt":       "the user's\n",
			"keep2.txt":      "the user's\n",
			"fresh/old.txt":  "old\n",
		}
		for name, content := range files {
			p := filepath.Join(root, filepath.FromSlash(name))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(filepath.Join(root, "dot.png"), tinyPNG, 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(root, "data.bin"), []byte{0, 1, 2, 3, 0xff, 0xfe}, 0o644); err != nil {
			t.Fatal(err)
		}
		return run{root: root, p: startServer(t, root, nil, nil, prog, append(args, root)...)}
	}
	ref := start(node, server)
	stet := start(bin, "mcp", "--tools", "reference")

	ask := func(r run, tool string, args map[string]any) answer {
		t.Helper()
		// Paths are given absolute, under each server's own root.
		a := map[string]any{}
		for k, v := range args {
			switch v := v.(type) {
			case string:
				if k == "path" || k == "source" || k == "destination" {
					v = filepath.Join(r.root, v)
				}
				a[k] = v
			case []string:
				if k != "paths" {
					a[k] = v
					continue
				}
				ps := make([]string, len(v))
				for i, p := range v {
					ps[i] = filepath.Join(r.root, p)
				}
				a[k] = ps
			default:
				a[k] = v
			}
		}
		res := r.p.request("tools/call", map[string]any{"name": tool, "arguments": a})
		var out answer
		out.isError, _ = res["isError"].(bool)
		blocks, _ := res["content"].([]any)
		var texts, others []string
		for _, b := range blocks {
			m, _ := b.(map[string]any)
			if m["type"] == "text" {
				s, _ := m["text"].(string)
				texts = append(texts, strings.ReplaceAll(s, r.root, "<root>"))
				continue
			}
			j, _ := json.Marshal(m)
			others = append(others, strings.ReplaceAll(string(j), fileURLOf(r.root), "file://<root>"))
		}
		out.text, out.other = strings.Join(texts, "\n"), strings.Join(others, "\n")
		if sc, ok := res["structuredContent"].(map[string]any); ok {
			out.kind, _ = sc["refused"].(string)
		}
		return out
	}
	tools := map[string]bool{}
	// same: both servers answer alike (after normalize, if given).
	same := func(tool string, args map[string]any, normalize func(string) string) {
		t.Helper()
		tools[tool] = true
		a, b := ask(ref, tool, args), ask(stet, tool, args)
		if normalize != nil {
			a.text, b.text = normalize(a.text), normalize(b.text)
		}
		if a.isError != b.isError || a.text != b.text || a.other != b.other {
			t.Errorf("%s %v:\nreference (isError %v):\n%s%s\nstet (isError %v):\n%s%s", tool, args, a.isError, a.text, a.other, b.isError, b.text, b.other)
		}
	}
	// differs: the answers differ as named: the reference server's is
	// refText, stet's stetText.
	differs := func(tool string, args map[string]any, refText, stetText, spec string) {
		t.Helper()
		tools[tool] = true
		a, b := ask(ref, tool, args), ask(stet, tool, args)
		if a.text != refText || b.text != stetText {
			t.Errorf("%s %v (%s): reference %q, stet %q; want %q and %q", tool, args, spec, a.text, b.text, refText, stetText)
		}
	}
	// rule: the reference server does it, stet refuses it by the named rule
	// of SPEC section 4.
	rule := func(tool string, args map[string]any, kind, spec string) {
		t.Helper()
		tools[tool] = true
		a, b := ask(ref, tool, args), ask(stet, tool, args)
		if a.isError {
			t.Errorf("%s %v: the reference server refused it too (%s); the difference named %s is gone", tool, args, a.text, spec)
		}
		if !b.isError || b.kind != kind {
			t.Errorf("%s %v: stet answered %q (kind %q), want the %s refusal (%s)", tool, args, b.text, b.kind, kind, spec)
		}
	}

	same("list_allowed_directories", map[string]any{}, nil)
	// Before any listing: stet has observed no directory yet.
	rule("write_file", map[string]any{"path": "fresh/new.txt", "content": "x\n"}, "not_read", "SPEC 4.5, observation: a new file needs its directory listed")
	os.Remove(filepath.Join(ref.root, "fresh", "new.txt")) // the same tree again
	same("read_text_file", map[string]any{"path": "notes.txt"}, nil)
	same("read_text_file", map[string]any{"path": "notes.txt", "head": 2}, nil)
	differs("read_text_file", map[string]any{"path": "notes.txt", "tail": 1}, "", "gamma\n",
		"SPEC 2, read: tail is the last N lines (the reference server counts the empty string after the final line break as a line)")
	same("read_file", map[string]any{"path": "src/main.go"}, nil)
	same("read_multiple_files", map[string]any{"paths": []string{"notes.txt", "src/util.go"}}, nil)
	same("read_media_file", map[string]any{"path": "dot.png"}, nil)
	same("read_media_file", map[string]any{"path": "data.bin"}, nil)
	same("list_directory", map[string]any{"path": "."}, sortLines)
	same("list_directory", map[string]any{"path": "src"}, sortLines)
	same("list_directory_with_sizes", map[string]any{"path": "src"}, nil)
	same("list_directory_with_sizes", map[string]any{"path": "src", "sortBy": "size"}, nil)
	same("directory_tree", map[string]any{"path": "src"}, sortTree)
	same("directory_tree", map[string]any{"path": "."}, sortTree)
	same("directory_tree", map[string]any{"path": ".", "excludePatterns": []string{"src"}}, sortTree)
	same("directory_tree", map[string]any{"path": ".", "excludePatterns": []string{"**/*.go", "docs/*.md"}}, sortTree)
	// SPEC 4.4: patterns follow gitignore semantics, so a pattern without a
	// slash matches at any depth; the reference server matches "*.txt"
	// against the whole relative path, so only at the top.
	tools["directory_tree"] = true
	if a, b := ask(ref, "directory_tree", map[string]any{"path": ".", "excludePatterns": []string{"*.txt"}}), ask(stet, "directory_tree", map[string]any{"path": ".", "excludePatterns": []string{"*.txt"}}); !strings.Contains(a.text, "old.txt") || strings.Contains(b.text, ".txt") {
		t.Errorf("directory_tree excluding *.txt: reference %s, stet %s; want old.txt kept by the reference server only (SPEC 4.4, gitignore semantics)", a.text, b.text)
	}
	same("search_files", map[string]any{"path": ".", "pattern": "*.txt", "excludePatterns": []string{"fresh"}}, sortLines)
	same("search_files", map[string]any{"path": ".", "pattern": "**/*.go"}, sortLines)
	same("search_files", map[string]any{"path": ".", "pattern": "*.nothing"}, nil)
	same("get_file_info", map[string]any{"path": "notes.txt"}, infoKeys)
	same("get_file_info", map[string]any{"path": "src"}, func(s string) string {
		// A directory's size: the reference server gives the system's
		// st_size, stet only a file's (see docs/mcp.md).
		var keep []string
		for _, line := range strings.Split(infoKeys(s), "\n") {
			if !strings.HasPrefix(line, "size:") {
				keep = append(keep, line)
			}
		}
		return strings.Join(keep, "\n")
	})
	same("create_directory", map[string]any{"path": "out/deep"}, nil)
	same("create_directory", map[string]any{"path": "out/deep"}, nil)
	same("write_file", map[string]any{"path": "new.txt", "content": "new\n"}, nil)
	same("edit_file", map[string]any{"path": "notes.txt", "edits": []map[string]any{{"oldText": "beta", "newText": "BETA"}}, "dryRun": true}, nil)
	same("edit_file", map[string]any{"path": "notes.txt", "edits": []map[string]any{{"oldText": "beta", "newText": "BETA"}}}, nil)
	same("read_text_file", map[string]any{"path": "notes.txt"}, nil)
	same("move_file", map[string]any{"source": "notes.txt", "destination": "out/notes.txt"}, nil)
	same("read_text_file", map[string]any{"path": "out/notes.txt"}, nil)

	// stet's rules: what the reference server does blind, stet refuses.
	rule("write_file", map[string]any{"path": "keep.txt", "content": "replaced\n"}, "not_read", "SPEC 4.5, observation: no blind overwrite")
	rule("edit_file", map[string]any{"path": "keep2.txt", "edits": []map[string]any{{"oldText": "user's", "newText": "model's"}}}, "not_read", "SPEC 4.5, observation: read before change")
	rule("move_file", map[string]any{"source": "move-me.txt", "destination": "moved.txt"}, "not_read", "SPEC 4.5, observation: read before change")
	if err := os.Mkdir(filepath.Join(ref.root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(stet.root, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	same("list_directory", map[string]any{"path": ".git"}, nil)
	rule("write_file", map[string]any{"path": ".git/config", "content": "x\n"}, "protected", "SPEC 4.4, protected paths")
	// Both refuse a path outside the roots, each in its own words.
	if a, b := ask(ref, "read_text_file", map[string]any{"path": "../outside.txt"}), ask(stet, "read_text_file", map[string]any{"path": "../outside.txt"}); !a.isError || b.kind != "outside" {
		t.Errorf("a path outside the roots: reference %v %q, stet %q %q", a.isError, a.text, b.kind, b.text)
	}

	for _, name := range []string{"read_text_file", "read_media_file", "read_multiple_files", "write_file", "edit_file", "create_directory", "list_directory", "list_directory_with_sizes", "directory_tree", "move_file", "search_files", "get_file_info", "list_allowed_directories", "read_file"} {
		if !tools[name] {
			t.Errorf("%s is not compared", name)
		}
	}
	if len(tools) != 14 {
		t.Errorf("compared %d tools, want the reference server's 14", len(tools))
	}
	if b, _ := os.ReadFile(filepath.Join(stet.root, "keep.txt")); string(b) != "the user's\n" {
		t.Errorf("stet changed keep.txt: %q", b)
	}
}

// tinyPNG is a 1x1 PNG.
var tinyPNG, _ = base64.StdEncoding.DecodeString("iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==")

// fileURLOf is the file:// URL prefix of an absolute directory.
func fileURLOf(dir string) string { return "file://" + filepath.ToSlash(dir) }

// sortLines sorts a text's lines (the reference server lists in the
// system's directory order; stet sorts).
func sortLines(s string) string {
	lines := strings.Split(s, "\n")
	slices.Sort(lines)
	return strings.Join(lines, "\n")
}

// sortTree re-encodes directory_tree's JSON with every directory's
// children sorted by name.
func sortTree(s string) string {
	var tree []map[string]any
	if err := json.Unmarshal([]byte(s), &tree); err != nil {
		return s
	}
	var sortAll func([]map[string]any)
	sortAll = func(es []map[string]any) {
		slices.SortFunc(es, func(a, b map[string]any) int { return strings.Compare(fmt.Sprint(a["name"]), fmt.Sprint(b["name"])) })
		for _, e := range es {
			if c, ok := e["children"].([]any); ok {
				kids := make([]map[string]any, len(c))
				for i, k := range c {
					kids[i], _ = k.(map[string]any)
				}
				sortAll(kids)
				e["children"] = kids
			}
		}
	}
	sortAll(tree)
	b, _ := json.Marshal(tree)
	return string(b)
}

// infoKeys keeps get_file_info's lines whose values both servers know the
// same way: size, type and permissions. (Times: see docs/mcp.md.)
func infoKeys(s string) string {
	var keep []string
	for _, line := range strings.Split(s, "\n") {
		k, _, _ := strings.Cut(line, ":")
		switch k {
		case "size", "isDirectory", "isFile", "permissions":
			keep = append(keep, line)
		}
	}
	return strings.Join(keep, "\n")
}
