package mcpserver

import (
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/patchcase"
)

// TestPatchScenariosMCP runs every scenario of testdata/patch-scenarios
// through the MCP server's patch tool: the connection's session lists and
// reads what the scenario says, the patch is one tools/call, and the tree
// must then be the expected one (refused: the input, with no receipt in the
// journal). The library and the CLI run the same scenarios.
func TestPatchScenariosMCP(t *testing.T) {
	scs, err := patchcase.Load("../testdata/patch-scenarios")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			f := newFixture(t, sc.Input, stet.Options{})
			cs, _ := connect(t, New(f.ws, Options{Version: "test"}), nil, nil)
			if sc.Want.Observe != "none" {
				for _, d := range patchcase.Dirs(sc.Input) {
					mustOK(t, "list "+d, call(t, cs, "list", map[string]any{"path": d}))
				}
			}
			if sc.Want.Observe == "all" {
				for _, p := range patchcase.Files(sc.Input) {
					mustOK(t, "read "+p, call(t, cs, "read", map[string]any{"path": p}))
				}
			}
			r := call(t, cs, "patch", map[string]any{"patch": sc.Patch})
			if sc.Want.Refused != "" {
				mustRefuse(t, "patch", r, sc.Want.Refused)
			} else {
				mustOK(t, "patch", r)
				receipts, _ := r.Structured["receipts"].([]any)
				if sc.Want.Receipts >= 0 && len(receipts) != sc.Want.Receipts {
					t.Errorf("%d receipts, want %d", len(receipts), sc.Want.Receipts)
				}
			}
			for _, part := range sc.Want.Messages {
				if !strings.Contains(r.Text, part) {
					t.Errorf("result lacks %q:\n%s", part, r.Text)
				}
			}
			want := sc.Expected
			if sc.Want.Refused != "" {
				want = sc.Input
			}
			tree, err := patchcase.Tree(f.root)
			if err != nil {
				t.Fatal(err)
			}
			if d := patchcase.Diff(want, tree); d != "" {
				t.Errorf("tree after the patch:\n%s", d)
			}
			logged, err := f.ws.Log("", "")
			if err != nil {
				t.Fatal(err)
			}
			if sc.Want.Refused != "" && len(logged) > 0 {
				t.Errorf("a refused patch left %d receipts in the journal", len(logged))
			}
		})
	}
}
