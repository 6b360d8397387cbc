package main

import (
	"strings"
	"testing"

	"github.com/stet-dev/stet/internal/patchcase"
)

// TestPatchScenariosCLI runs every scenario of testdata/patch-scenarios
// through `stet patch`, one process per call as a model's shell would: the
// session lists and reads what the scenario says, the patch goes on
// standard input, and the tree must then be the expected one (refused: the
// input, with no receipt in `stet log`). The library and the MCP server
// run the same scenarios.
func TestPatchScenariosCLI(t *testing.T) {
	scs, err := patchcase.Load("../../testdata/patch-scenarios")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			t.Parallel()
			w := newWS(t, nil)
			if err := patchcase.Write(w.root, sc.Input); err != nil {
				t.Fatal(err)
			}
			if sc.Want.Observe != "none" {
				for _, d := range patchcase.Dirs(sc.Input) {
					w.ok("list", d)
				}
			}
			if sc.Want.Observe == "all" {
				for _, f := range patchcase.Files(sc.Input) {
					w.ok("read", f)
				}
			}
			r := w.run(sc.Patch, "patch", "--json")
			m := r.json(t)
			text, _ := m["message"].(string)
			if sc.Want.Refused != "" {
				if r.code != 3 || m["refused"] != sc.Want.Refused {
					t.Fatalf("exit %d, %s; want refused %s", r.code, r.stdout, sc.Want.Refused)
				}
			} else {
				if r.code != 0 {
					t.Fatalf("exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
				}
				diff, _ := m["diff"].(string)
				text += "\n" + diff
				receipts, _ := m["receipts"].([]any)
				if sc.Want.Receipts >= 0 && len(receipts) != sc.Want.Receipts {
					t.Errorf("%d receipts, want %d", len(receipts), sc.Want.Receipts)
				}
			}
			for _, part := range sc.Want.Messages {
				if !strings.Contains(text, part) {
					t.Errorf("result lacks %q:\n%s", part, text)
				}
			}
			want := sc.Expected
			if sc.Want.Refused != "" {
				want = sc.Input
			}
			tree, err := patchcase.Tree(w.root)
			if err != nil {
				t.Fatal(err)
			}
			if d := patchcase.Diff(want, tree); d != "" {
				t.Errorf("tree after the patch:\n%s", d)
			}
			logged, _ := w.ok("log", "--json").json(t)["receipts"].([]any)
			if sc.Want.Refused != "" && len(logged) > 0 {
				t.Errorf("a refused patch left %d receipts in the log", len(logged))
			}
		})
	}
}
