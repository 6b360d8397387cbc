package mcpserver

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/tools"
)

// TestRefToolsList pins the reference profile's tools/list in both effects
// modes: the reference server's names in its order, the annotations of the
// stet tool each is built on, and no mutating tool when read-only.
func TestRefToolsList(t *testing.T) {
	for _, tc := range []struct {
		name    string
		effects policy.Effects
		want    string
	}{
		{"reference_tools_list_workspace_write.json", policy.WorkspaceWrite,
			"read_text_file,read_media_file,read_multiple_files,write_file,edit_file,create_directory,list_directory,list_directory_with_sizes,directory_tree,move_file,search_files,get_file_info,list_allowed_directories,read_file"},
		{"reference_tools_list_read_only.json", policy.ReadOnly,
			"read_text_file,read_media_file,read_multiple_files,list_directory,list_directory_with_sizes,directory_tree,search_files,get_file_info,list_allowed_directories,read_file"},
	} {
		t.Run(string(tc.effects), func(t *testing.T) {
			f := newFixture(t, nil, stet.Options{Effects: tc.effects})
			cs, _ := connect(t, New(f.ws, Options{Version: "test", Profile: ProfileReference}), nil, nil)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				rt, ok := refToolOf(tool.Name)
				if !ok {
					t.Fatalf("tools/list has %q, which the reference profile does not", tool.Name)
				}
				spec, _ := tools.Lookup(rt.base)
				a := tool.Annotations
				if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint == nil ||
					*a.DestructiveHint != spec.Annotations.DestructiveHint || a.ReadOnlyHint != spec.Annotations.ReadOnlyHint {
					t.Errorf("%s: annotations %+v are not those of %s", tool.Name, a, rt.base)
				}
				if tool.OutputSchema == nil || tool.InputSchema == nil {
					t.Errorf("%s: missing a schema", tool.Name)
				}
			}
			if got := strings.Join(names, ","); got != tc.want {
				t.Errorf("tools/list = %s, want %s", got, tc.want)
			}
			golden(t, tc.name, f.normalize(indent(t, res.Tools)))
		})
	}
}

// TestRefInstructions: the persona line and every root, in the reference
// profile too.
func TestRefInstructions(t *testing.T) {
	f := newFixture(t, nil, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{Version: "test", Profile: ProfileReference}), nil, nil)
	got := cs.InitializeResult().Instructions
	if !strings.HasPrefix(got, stet.PersonaLine) || !strings.Contains(got, f.ws.Roots()[0]) || !strings.Contains(got, "read_text_file") {
		t.Fatalf("instructions = %q, want the persona line, the root and the reference tools' rules", got)
	}
}

// refStep is one call of the reference flow and what came back.
type refStep struct {
	Tool   string `json:"tool"`
	Args   any    `json:"args"`
	Result result `json:"result"`
}

// TestRefFlow drives every reference tool through one session, over both
// transports, checking each text result and the bytes on disk, and pins the
// whole exchange in testdata/reference_flow.json.
func TestRefFlow(t *testing.T) { eachTransport(t, testRefFlow) }

func testRefFlow(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{
		"a.txt":        "one\ntwo\nthree\n",
		"dir/b.md":     "# B\nline 2\nline 3\n",
		"dir/sub/c.go": "package c\n",
		".git/config":  "[core]\n",
	}, stet.Options{})
	if err := os.WriteFile(f.path("dot.png"), tinyPNG, 0o644); err != nil {
		t.Fatal(err)
	}
	cs, _ := connect(t, New(f.ws, Options{Version: "test", Profile: ProfileReference}), nil, nil)
	var steps []refStep
	do := func(tool string, args map[string]any) result {
		t.Helper()
		r := call(t, cs, tool, args)
		if !r.IsError {
			if got, _ := r.Structured["content"].(string); got != r.Text {
				t.Errorf("%s: structured content %q differs from the text %q", tool, got, r.Text)
			}
		} else if msg, _ := r.Structured["message"].(string); r.Structured["content"] != r.Text || r.Text != msg && !strings.HasPrefix(r.Text, msg+"\n\n") {
			t.Errorf("%s: a refusal's structured content must be its text, and its message the text (or the text before the frame or listing it shows): %v", tool, r.Structured)
		}
		steps = append(steps, refStep{tool, args, r})
		return r
	}
	ok := func(tool string, args map[string]any, want string) result {
		t.Helper()
		r := mustOK(t, tool, do(tool, args))
		if want != "" && r.Text != want {
			t.Errorf("%s %v:\n got %q\nwant %q", tool, args, r.Text, want)
		}
		return r
	}
	refused := func(tool string, args map[string]any, kind string, says ...string) result {
		t.Helper()
		r := mustRefuse(t, tool, do(tool, args), kind)
		for _, s := range says {
			if !strings.Contains(r.Text, s) {
				t.Errorf("%s %v: refusal %q does not say %q", tool, args, r.Text, s)
			}
		}
		return r
	}
	disk := func(p, want string) {
		t.Helper()
		if got := f.read(t, p); got != want {
			t.Errorf("%s on disk = %q, want %q", p, got, want)
		}
	}

	ok("list_allowed_directories", nil, "Allowed directories:\n"+f.ws.Roots()[0])

	// An edit of an unread file: refused in the reference's terms.
	refused("edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "two", "newText": "TWO"}}},
		stet.KindNotRead, "its text follows", "retry edit_file", "\n\none\ntwo\nthree\n")
	ok("read_text_file", map[string]any{"path": "a.txt"}, "one\ntwo\nthree\n")
	ok("read_text_file", map[string]any{"path": "a.txt", "head": 2}, "one\ntwo")
	ok("read_text_file", map[string]any{"path": "a.txt", "tail": 1}, "three\n")
	ok("read_file", map[string]any{"path": "a.txt"}, "one\ntwo\nthree\n")
	refused("read_text_file", map[string]any{"path": "a.txt", "head": 1, "tail": 1}, stet.KindInvalid, "both head and tail")
	refused("read_text_file", map[string]any{"path": "a.txt", "heda": 1}, stet.KindInvalid, `did you mean "head"`)
	ok("read_multiple_files", map[string]any{"paths": []string{"a.txt", "nope.txt"}},
		"a.txt:\none\ntwo\nthree\n\n\n---\nnope.txt: Error - refused: nope.txt does not exist; use list_directory or search_files to see what does")

	// Edit: dryRun shows the diff and writes nothing; then it lands.
	dry := ok("edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "two", "newText": "TWO"}}, "dryRun": true}, "")
	want := "```diff\nIndex: a.txt\n" + strings.Repeat("=", 67) + "\n--- a.txt\toriginal\n+++ a.txt\tmodified\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n```\n\n"
	if dry.Text != want {
		t.Errorf("edit_file dryRun:\n got %q\nwant %q", dry.Text, want)
	}
	disk("a.txt", "one\ntwo\nthree\n")
	ok("edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "two", "newText": "TWO"}}}, want)
	disk("a.txt", "one\nTWO\nthree\n")
	// Literal matching: no whitespace-tolerant match, and the miss says what differs.
	refused("edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "  three", "newText": "3"}}},
		stet.KindNoMatch, "oldText", "matches literally")
	// A change by someone else since the read.
	f.write(t, "a.txt", "one\nTWO\nthree\nfour\n")
	refused("edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "one", "newText": "1"}}},
		stet.KindChanged, "read it again with read_text_file, then retry edit_file")
	refused("write_file", map[string]any{"path": "a.txt", "content": "x\n"}, stet.KindChanged, "read_text_file", "retry write_file")
	ok("read_text_file", map[string]any{"path": "a.txt"}, "one\nTWO\nthree\nfour\n")
	w := ok("write_file", map[string]any{"path": "a.txt", "content": "replaced\n"}, "")
	if !strings.HasPrefix(w.Text, "Successfully wrote to a.txt\n") || !strings.Contains(w.Text, "previous content saved — stet undo a.txt brings it back") {
		t.Errorf("write_file over a read file = %q", w.Text)
	}
	disk("a.txt", "replaced\n")

	// Write: a new file beside one read; a new file in a directory not listed.
	ok("write_file", map[string]any{"path": "new.txt", "content": "new\n"}, "Successfully wrote to new.txt")
	refused("write_file", map[string]any{"path": "dir/other.txt", "content": "x\n"}, stet.KindNotRead, "its listing follows", "\n\nb.md  (18 bytes)\nsub/\n")
	// A write over a file read in part only.
	ok("read_text_file", map[string]any{"path": "dir/b.md", "head": 1}, "# B")
	refused("write_file", map[string]any{"path": "dir/b.md", "content": "gone\n"}, stet.KindNotSeen, "its text follows and now counts as seen", "then retry write_file", "\n\n# B\nline 2\nline 3\n")
	disk("dir/b.md", "# B\nline 2\nline 3\n")
	refused("write_file", map[string]any{"path": ".git/config", "content": "x\n"}, stet.KindProtected, "no tool may change it")

	// Listings.
	ok("list_directory", map[string]any{"path": "."}, "[DIR] .git\n[FILE] a.txt\n[DIR] dir\n[FILE] dot.png\n[FILE] new.txt")
	ok("list_directory_with_sizes", map[string]any{"path": "dir"},
		"[FILE] b.md"+strings.Repeat(" ", 26+1+6)+"18 B\n[DIR] sub"+strings.Repeat(" ", 27+1)+"\n\nTotal: 1 files, 1 directories\nCombined size: 18 B")
	ok("list_directory_with_sizes", map[string]any{"path": ".", "sortBy": "size"}, "")
	ok("directory_tree", map[string]any{"path": "dir"},
		"[\n  {\n    \"name\": \"b.md\",\n    \"type\": \"file\"\n  },\n  {\n    \"name\": \"sub\",\n    \"type\": \"directory\",\n    \"children\": [\n      {\n        \"name\": \"c.go\",\n        \"type\": \"file\"\n      }\n    ]\n  }\n]")
	ok("directory_tree", map[string]any{"path": "dir", "excludePatterns": []string{"sub"}}, "[\n  {\n    \"name\": \"b.md\",\n    \"type\": \"file\"\n  }\n]")

	// Directories, moves.
	ok("create_directory", map[string]any{"path": "dir/new/deep"}, "Successfully created directory dir/new/deep")
	ok("move_file", map[string]any{"source": "new.txt", "destination": "dir/new/deep/moved.txt"}, "Successfully moved new.txt to dir/new/deep/moved.txt")
	disk("dir/new/deep/moved.txt", "new\n")
	refused("move_file", map[string]any{"source": "dir/sub/c.go", "destination": "c.go"}, stet.KindNotRead, "its text follows", "retry move_file")
	refused("move_file", map[string]any{"source": "a.txt", "destination": "dir/b.md"}, stet.KindExists, "move_file never replaces an existing file")

	// Search and info.
	ok("search_files", map[string]any{"path": ".", "pattern": "**/*.go"}, filepath.Join(f.ws.Roots()[0], "dir", "sub", "c.go"))
	ok("search_files", map[string]any{"path": ".", "pattern": "*.rs"}, "No matches found")
	info := ok("get_file_info", map[string]any{"path": "a.txt"}, "")
	for _, line := range []string{"size: 9", "isDirectory: false", "isFile: true", "permissions: 644", "lines: 2", "version: sha256:", "links: 1"} {
		if !strings.Contains(info.Text, line) {
			t.Errorf("get_file_info = %q, missing %q", info.Text, line)
		}
	}

	refused("read_text_file", map[string]any{"path": "../outside.txt"}, stet.KindOutside, "allowed directories")
	refused("read", map[string]any{"path": "a.txt"}, stet.KindInvalid, "read_text_file, read_media_file")

	golden(t, "reference_flow.json", regexp.MustCompile(`modified: [^\n"\\]+`).ReplaceAll(f.normalize(indent(t, steps)), []byte("modified: MTIME")))

	// Media: the image block alone, as the reference sends it.
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_media_file", Arguments: map[string]any{"path": "dot.png"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("read_media_file = %+v", res)
	}
	img, ok2 := res.Content[0].(*mcp.ImageContent)
	if !ok2 || img.MIMEType != "image/png" || string(img.Data) != string(tinyPNG) {
		t.Fatalf("read_media_file content = %#v", res.Content[0])
	}
	b, _ := json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `"mimeType":"image/png"`) {
		t.Errorf("read_media_file structured = %s", b)
	}
	// Neither image nor audio: an embedded resource with the file's bytes,
	// its file:// URI percent-encoded, as the reference sends it.
	res, err = cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read_media_file", Arguments: map[string]any{"path": "a.txt"}})
	if err != nil {
		t.Fatal(err)
	}
	if res.IsError || len(res.Content) != 1 {
		t.Fatalf("read_media_file of text = %+v", res)
	}
	er, ok3 := res.Content[0].(*mcp.EmbeddedResource)
	if !ok3 || er.Resource == nil || er.Resource.MIMEType != "application/octet-stream" || string(er.Resource.Blob) != f.read(t, "a.txt") || er.Resource.URI != fileURI(f.path("a.txt")) {
		t.Fatalf("read_media_file of text: content = %#v", res.Content[0])
	}
	b, _ = json.Marshal(res.StructuredContent)
	if !strings.Contains(string(b), `"type":"resource"`) {
		t.Errorf("read_media_file of text: structured = %s", b)
	}
	mustRefuse(t, "read_text_file of an image", call(t, cs, "read_text_file", map[string]any{"path": "dot.png"}), stet.KindBinary)
}

// TestRefReadOnly: in a read-only workspace the mutating reference tools
// are absent and a call of one is refused as read_only.
func TestRefReadOnly(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, stet.Options{Effects: policy.ReadOnly})
	cs, _ := connect(t, New(f.ws, Options{Version: "test", Profile: ProfileReference}), nil, nil)
	r := mustRefuse(t, "write_file", call(t, cs, "write_file", map[string]any{"path": "a.txt", "content": "b\n"}), stet.KindReadOnly)
	if !strings.Contains(r.Text, "write_file is not available") {
		t.Errorf("refusal = %q", r.Text)
	}
	mustOK(t, "read_text_file", call(t, cs, "read_text_file", map[string]any{"path": "a.txt"}))
}

// TestRefWords checks that every next step the facade names in stet's
// terms is rewritten into the reference tools' terms.
func TestRefWords(t *testing.T) {
	for _, tc := range []struct{ tool, in, want string }{
		{"edit_file", "refused: a.txt has not been read in this session (it has 2 lines); read it first (read path=a.txt), then retry the edit",
			"refused: a.txt has not been read in this session (it has 2 lines); read it with read_text_file first, then retry edit_file"},
		{"write_file", "refused: a.txt changed since you read it (then 8 bytes, 3 lines; now 14 bytes, 4 lines); read it again, then retry the write",
			"refused: a.txt changed since you read it (then 8 bytes, 3 lines; now 14 bytes, 4 lines); read it again with read_text_file, then retry write_file"},
		{"edit_file", "refused: a.txt line 8 was not shown to you at this version, and the change touches it; read it (offset 8, limit 1), then retry",
			"refused: a.txt line 8 was not shown to you at this version, and the change touches it; read the whole file with read_text_file (no head or tail), then retry edit_file"},
		{"write_file", "refused: d/x would be created in d, which has not been listed in this session; list it first (list path=d) to see what is there, then retry",
			"refused: d/x would be created in d, which has not been listed in this session; list it with list_directory first to see what is there, then retry write_file"},
		{"edit_file", "refused: a.txt: old_string matches 2 times (lines 1, 3); add surrounding lines to make it unique, or pass replace_all",
			"refused: a.txt: oldText matches 2 times (lines 1, 3); add surrounding lines to make it unique (oldText must match exactly once)"},
		{"write_file", "refused: data.csv is an input the request names (3 lines → 2); edit it in place (edit / patch), or pass overwrite: true if replacing it is really what the user asked for",
			"refused: data.csv is an input the request names (3 lines → 2); edit it in place (edit_file), or pass overwrite: true to write_file if replacing it is really what the user asked for"},
		{"move_file", "refused: b.txt already exists (2 lines); pass overwrite: true to replace it (its content is saved), or choose another name",
			"refused: b.txt already exists (2 lines); move_file never replaces an existing file: choose another destination"},
	} {
		got := refWords(tc.tool, &stet.Refusal{Message: tc.in}).Message
		if got != tc.want {
			t.Errorf("refWords(%s, %q)\n got %q\nwant %q", tc.tool, tc.in, got, tc.want)
		}
	}
}

// TestRefArguments: the reference tools' arguments are decoded by the
// decoder of stet's own tools (tools.Reference), so a bad call is refused
// as invalid in its words, naming the reference tool, with the suggested
// argument in the structured result.
func TestRefArguments(t *testing.T) {
	f := newFixture(t, map[string]string{"a.txt": "a\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{Version: "test", Profile: ProfileReference}), nil, nil)
	for _, tc := range []struct {
		tool    string
		args    map[string]any
		text    string
		suggest string
	}{
		{"read_text_file", map[string]any{"path": "a.txt", "taill": 1}, `refused: read_text_file: unknown argument "taill"; did you mean "tail"?`, "tail"},
		{"read_text_file", map[string]any{"head": 1}, `refused: read_text_file: missing required argument "path".`, ""},
		{"write_file", map[string]any{"path": "a.txt", "content": 3}, "refused: write_file: content must be a string, not a number.", ""},
		{"edit_file", map[string]any{"path": "a.txt", "edits": []any{}}, "refused: edit_file: edits is empty; give at least one {oldText, newText}.", ""},
		{"edit_file", map[string]any{"path": "a.txt", "edits": []any{map[string]any{"oldText": "a"}}},
			`refused: edit_file: edits[0] is missing "newText"; each edit needs oldText and newText ("" to delete).`, ""},
		{"list_directory_with_sizes", map[string]any{"path": ".", "sortBy": "date"}, `refused: list_directory_with_sizes: sortBy must be "name" or "size", not "date".`, ""},
		{"move_file", map[string]any{"from": "a.txt", "destination": "b.txt"}, `refused: move_file: unknown argument "from". move_file accepts source, destination.`, ""},
	} {
		r := mustRefuse(t, tc.tool, call(t, cs, tc.tool, tc.args), stet.KindInvalid)
		if r.Text != tc.text {
			t.Errorf("%s %v:\n got %q\nwant %q", tc.tool, tc.args, r.Text, tc.text)
		}
		if got, _ := r.Structured["suggest"].(string); got != tc.suggest {
			t.Errorf("%s %v: suggest %q, want %q", tc.tool, tc.args, got, tc.suggest)
		}
	}
	if got := f.read(t, "a.txt"); got != "a\n" {
		t.Errorf("a.txt = %q after refused calls", got)
	}
}
