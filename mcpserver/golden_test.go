package mcpserver

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/tools"
)

// TestToolsList pins what a client sees in tools/list, in both effects
// modes, and checks it against the tools catalog.
func TestToolsList(t *testing.T) {
	for _, tc := range []struct {
		name    string
		effects policy.Effects
	}{
		{"tools_list_workspace_write.json", policy.WorkspaceWrite},
		{"tools_list_read_only.json", policy.ReadOnly},
	} {
		t.Run(string(tc.effects), func(t *testing.T) {
			f := newFixture(t, nil, stet.Options{Effects: tc.effects})
			cs, _ := connect(t, New(f.ws, Options{Version: "test"}), nil, nil)
			res, err := cs.ListTools(context.Background(), nil)
			if err != nil {
				t.Fatal(err)
			}
			readOnly := tc.effects == policy.ReadOnly
			var names []string
			for _, tool := range res.Tools {
				names = append(names, tool.Name)
				spec, ok := tools.Lookup(tool.Name)
				if !ok {
					t.Fatalf("tools/list has %q, which the catalog does not", tool.Name)
				}
				a := tool.Annotations
				if a == nil || a.OpenWorldHint == nil || *a.OpenWorldHint || a.DestructiveHint == nil ||
					*a.DestructiveHint != spec.Annotations.DestructiveHint || a.ReadOnlyHint != spec.Annotations.ReadOnlyHint ||
					a.IdempotentHint != spec.Annotations.IdempotentHint {
					t.Errorf("%s: annotations %+v do not match the catalog's %+v", tool.Name, a, spec.Annotations)
				}
				if tool.OutputSchema == nil || tool.Description != spec.Description {
					t.Errorf("%s: missing output schema or wrong description", tool.Name)
				}
			}
			if want := tools.Names(readOnly); strings.Join(names, ",") != strings.Join(want, ",") {
				t.Errorf("tools/list = %v, want %v", names, want)
			}
			golden(t, tc.name, f.normalize(indent(t, res.Tools)))
		})
	}
}

// TestInstructions checks the server's instructions carry the persona line.
func TestInstructions(t *testing.T) {
	f := newFixture(t, nil, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{Version: "test"}), nil, &mcp.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	got := cs.InitializeResult()
	if got == nil || !strings.HasPrefix(got.Instructions, stet.PersonaLine) || !strings.HasPrefix(got.Instructions, tools.Instructions()) ||
		!strings.Contains(got.Instructions, f.ws.Roots()[0]) {
		t.Fatalf("instructions = %+v, want tools.Instructions() starting with the persona line, then the root", got)
	}
	if got.ServerInfo == nil || got.ServerInfo.Name != "stet" || got.ServerInfo.Version != "test" {
		t.Errorf("server info = %+v", got.ServerInfo)
	}
}

// refusalCase reaches one refusal kind through the server.
type refusalCase struct {
	kind  string
	files map[string]string
	opts  stet.Options
	srv   Options
	setup func(t *testing.T, f *fixture) // before the server starts
	// beforeSwap, when set, is the workspace's Hooks.BeforeSwap: it runs
	// when a change's new bytes are durable in their temp file, just
	// before the compare-and-swap.
	beforeSwap func(t *testing.T, f *fixture, path string)
	steps      func(t *testing.T, f *fixture, cs *mcp.ClientSession) result
}

func refusalCases() []refusalCase {
	const ten = "l1\nl2\nl3\nl4\nl5\nl6\nl7\nl8\nl9\nl10\n"
	return []refusalCase{
		{kind: stet.KindInvalid, files: map[string]string{"a.txt": "x\n"},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				return call(t, cs, "read", map[string]any{"path": "a.txt", "ofset": 2})
			}},
		{kind: stet.KindOutside,
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				return call(t, cs, "read", map[string]any{"path": "../secret.txt"})
			}},
		{kind: stet.KindNotFound,
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				return call(t, cs, "read", map[string]any{"path": "nope.txt"})
			}},
		{kind: stet.KindNotRegular,
			setup: func(t *testing.T, f *fixture) {
				if err := mkfifo(f.path("pipe")); err != nil {
					t.Skipf("no FIFO here: %v", err)
				}
			},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				return call(t, cs, "read", map[string]any{"path": "pipe"})
			}},
		{kind: stet.KindReadOnly, files: map[string]string{"a.txt": "x\n"}, opts: stet.Options{Effects: policy.ReadOnly},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				mustOK(t, "read", call(t, cs, "read", map[string]any{"path": "a.txt"}))
				return call(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y"})
			}},
		{kind: stet.KindProtected, files: map[string]string{".git/config": "[core]\n"},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				mustOK(t, "read", call(t, cs, "read", map[string]any{"path": ".git/config"}))
				return call(t, cs, "edit", map[string]any{"path": ".git/config", "old_string": "core", "new_string": "user"})
			}},
		{kind: stet.KindNotRead, files: map[string]string{"a.txt": "x\n"},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				return call(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y"})
			}},
		{kind: stet.KindChanged, files: map[string]string{"a.txt": "one\ntwo\n"},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				mustOK(t, "read", call(t, cs, "read", map[string]any{"path": "a.txt"}))
				f.write(t, "a.txt", "one\ntwo\nthree\n")
				return call(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "2"})
			}},
		{kind: stet.KindNotSeen, files: map[string]string{"a.txt": ten},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				mustOK(t, "read", call(t, cs, "read", map[string]any{"path": "a.txt", "limit": 2}))
				return call(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "l8\n", "new_string": "eight\n"})
			}},
		{kind: stet.KindInput, files: map[string]string{"data.csv": "a,b\n1,2\n"},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				meta := map[string]any{metaRequest: "Add a total row to data.csv.", metaInputs: []string{"data.csv"}}
				mustOK(t, "read", callMeta(t, cs, "read", map[string]any{"path": "data.csv"}, meta))
				return callMeta(t, cs, "write", map[string]any{"path": "data.csv", "content": "total\n", "overwrite": true}, meta)
			}},
		{kind: stet.KindExists, files: map[string]string{"a.txt": "x\n", "b.txt": "y\n"},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				mustOK(t, "read", call(t, cs, "read", map[string]any{"path": "a.txt"}))
				return call(t, cs, "move", map[string]any{"from": "a.txt", "to": "b.txt"})
			}},
		{kind: stet.KindNoMatch, files: map[string]string{"a.go": "func main() {\n\tprintln(\"hi\")\n}\n"},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				mustOK(t, "read", call(t, cs, "read", map[string]any{"path": "a.go"}))
				return call(t, cs, "edit", map[string]any{"path": "a.go", "old_string": "    println(\"hi\")", "new_string": "\tprintln(\"bye\")"})
			}},
		{kind: stet.KindAmbiguous, files: map[string]string{"a.txt": "x = 1\ny = 2\nx = 1\n"},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				mustOK(t, "read", call(t, cs, "read", map[string]any{"path": "a.txt"}))
				return call(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "x = 1", "new_string": "x = 3"})
			}},
		{kind: stet.KindBinary, files: map[string]string{"a.bin": "PK\x03\x04\x00\x00data"},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				return call(t, cs, "read", map[string]any{"path": "a.bin"})
			}},
		{kind: stet.KindNotUTF8, files: map[string]string{"latin1.txt": "caf\xe9\n"},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				return call(t, cs, "read", map[string]any{"path": "latin1.txt"})
			}},
		{kind: stet.KindTooLarge, files: map[string]string{"long.txt": "short\n" + strings.Repeat("y", 5000) + "\n"},
			opts: stet.Options{MaxReadBytes: 4096},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				r := mustOK(t, "first window", call(t, cs, "read", map[string]any{"path": "long.txt"}))
				if !strings.HasSuffix(r.Text, "next: offset 2)") {
					t.Fatalf("first window = %q", r.Text)
				}
				return call(t, cs, "read", map[string]any{"path": "long.txt", "offset": 2})
			}},
		{kind: stet.KindStalled, files: map[string]string{"a.txt": "x\n"}, srv: Options{StallSteps: 1},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				call(t, cs, "read", map[string]any{"path": "a.txt"})
				call(t, cs, "read", map[string]any{"path": "a.txt"})
				return call(t, cs, "read", map[string]any{"path": "a.txt"})
			}},
		{kind: stet.KindConflict, files: map[string]string{"a.txt": "one\ntwo\n"},
			// Another writer replaces the file between the freshness check
			// and the swap: the compare-and-swap refuses, and its bytes stand.
			beforeSwap: func(t *testing.T, f *fixture, path string) {
				f.write(t, path, "the other writer\n")
			},
			steps: func(t *testing.T, f *fixture, cs *mcp.ClientSession) result {
				mustOK(t, "read", call(t, cs, "read", map[string]any{"path": "a.txt"}))
				r := call(t, cs, "edit", map[string]any{"path": "a.txt", "old_string": "two", "new_string": "2"})
				if got := f.read(t, "a.txt"); got != "the other writer\n" {
					t.Errorf("the other writer's bytes were lost: a.txt holds %q", got)
				}
				return r
			}},
	}
}

// TestRefusalGolden pins one refusal of each kind as the model and the
// client see it: isError, the text, and the structured refusal object.
func TestRefusalGolden(t *testing.T) {
	seen := map[string]bool{}
	for _, tc := range refusalCases() {
		seen[tc.kind] = true
		t.Run(tc.kind, func(t *testing.T) {
			opts := tc.opts
			var f *fixture
			if tc.beforeSwap != nil {
				opts.Hooks.BeforeSwap = func(path string) { tc.beforeSwap(t, f, path) }
			}
			f = newFixture(t, tc.files, opts)
			if tc.setup != nil {
				tc.setup(t, f)
			}
			srv := tc.srv
			srv.Version = "test"
			cs, _ := connect(t, New(f.ws, srv), nil, nil)
			r := mustRefuse(t, tc.kind, tc.steps(t, f, cs), tc.kind)
			golden(t, "refusal_"+tc.kind+".json", f.normalize(indent(t, r)))
		})
	}
	for _, k := range stet.Kinds {
		if !seen[k] {
			t.Errorf("no golden case for refusal kind %q", k)
		}
	}
}

// TestRefusalValidatesAgainstOutputSchema checks a refusal's structured
// content against the tool's output schema, as TypeScript clients do.
func TestRefusalValidatesAgainstOutputSchema(t *testing.T) {
	eachTransport(t, testRefusalValidatesAgainstOutputSchema)
}

func testRefusalValidatesAgainstOutputSchema(t *testing.T, connect connectFunc) {
	f := newFixture(t, map[string]string{"a.txt": "x\n"}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{}), nil, nil)
	for _, tc := range []struct {
		tool string
		args map[string]any
	}{
		{"read", map[string]any{"path": "missing"}},
		{"edit", map[string]any{"path": "a.txt", "old_string": "x", "new_string": "y"}},
		{"read", map[string]any{"path": "a.txt"}},
	} {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tc.tool, Arguments: tc.args})
		if err != nil {
			t.Fatal(err)
		}
		spec, _ := tools.Lookup(tc.tool)
		resolved, err := spec.Output.Resolve(nil)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := json.Marshal(res.StructuredContent)
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatal(err)
		}
		if err := resolved.Validate(v); err != nil {
			t.Errorf("%s %v: structured content %s does not validate: %v", tc.tool, tc.args, b, err)
		}
	}
}
