package mcpserver

import (
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet"
	txtar "github.com/stet-dev/stet/internal/golden"
)

// goldenPatch updates one file and adds another, in the Codex envelope.
const goldenPatch = "*** Begin Patch\n*** Update File: src/b.go\n@@\n-func B() {}\n+func B() int { return 2 }\n*** Add File: src/c.txt\n+added\n*** End Patch\n"

// TestResultGoldens pins the structured results (structuredContent) of
// read, edit, patch and grep on a small fixed workspace with a fixed clock
// and fixed ids, in testdata/results.txtar: a changed field of a result
// is seen in review. go test ./mcpserver -run TestResultGoldens -update
// rewrites it. Temp paths and receipt ids are normalized as every golden
// of this package is (fixture.normalize).
func TestResultGoldens(t *testing.T) {
	f := newFixture(t, map[string]string{
		"src/a.txt": "one\ntwo\nthree\n",
		"src/b.go":  "package b\n\nfunc B() {}\n",
	}, stet.Options{})
	cs, _ := connect(t, New(f.ws, Options{Version: "test"}), nil, nil)
	steps := []struct {
		name string
		tool string
		args map[string]any
	}{
		{"read", "read", map[string]any{"path": "src/a.txt"}},
		{"edit", "edit", map[string]any{"path": "src/a.txt", "old_string": "two", "new_string": "2"}},
		{"read-b", "read", map[string]any{"path": "src/b.go"}},
		{"patch", "patch", map[string]any{"patch": goldenPatch}},
		{"grep", "grep", map[string]any{"pattern": "func|2", "path": "src"}},
	}
	a := &txtar.Archive{Comment: []byte("MCP structuredContent of read, edit, patch and grep on a fixed workspace (fixed clock and ids).\nNormalized: temp paths ($TMP), receipt ids (r_ID).\nRewrite with: go test ./mcpserver -run TestResultGoldens -update\n")}
	for _, s := range steps {
		r := mustOK(t, s.name, call(t, cs, s.tool, s.args))
		a.Files = append(a.Files, txtar.File{Name: s.name + ".json", Data: f.normalize(indent(t, r.Structured))})
	}
	txtar.Check(t, filepath.Join("testdata", "results.txtar"), a, *update)
}
