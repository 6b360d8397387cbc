package main

import (
	"path/filepath"
	"regexp"
	"testing"

	txtar "github.com/stet-dev/stet/internal/golden"
)

var (
	goldenReceiptID = regexp.MustCompile(`r_[0-9a-f]{16}`)
	goldenTime      = regexp.MustCompile(`"time": "[0-9T:.\-]+Z"`)
)

// TestJSONGoldens pins what stet read|edit|patch|grep --json print on a
// small fixed workspace, in testdata/json.txtar, so a changed field of the
// CLI's results is seen in review. The CLI runs with the wall clock and
// random ids, so receipt ids (r_ID), receipt times (TIME) and the temp
// directories ($ROOT, $STATE) are normalized. go test ./cmd/stet -run
// TestJSONGoldens -update rewrites the file.
func TestJSONGoldens(t *testing.T) {
	w := newWS(t, map[string]string{
		"src/a.txt": "one\ntwo\nthree\n",
		"src/b.go":  "package b\n\nfunc B() {}\n",
	})
	var n txtar.Normalizer
	for _, d := range []struct{ dir, as string }{{w.root, "$ROOT"}, {w.state, "$STATE"}} {
		n.Fixed(d.dir, d.as)
		if real, err := filepath.EvalSymlinks(d.dir); err == nil {
			n.Fixed(real, d.as)
		}
	}
	steps := []struct {
		name  string
		stdin string
		args  []string
	}{
		{"read", "", []string{"read", "src/a.txt", "--json"}},
		{"edit", "", []string{"edit", "src/a.txt", "--old-string", "two", "--new-string", "2", "--json"}},
		{"read-b", "", []string{"read", "src/b.go", "--json"}},
		{"patch", "*** Begin Patch\n*** Update File: src/b.go\n@@\n-func B() {}\n+func B() int { return 2 }\n*** Add File: src/c.txt\n+added\n*** End Patch\n", []string{"patch", "--json"}},
		{"grep", "", []string{"grep", "func|2", "src", "--json"}},
	}
	a := &txtar.Archive{Comment: []byte("stet read|edit|patch|grep --json on a fixed workspace.\nNormalized: receipt ids (r_ID), receipt times (TIME), the root ($ROOT) and state ($STATE) directories.\nRewrite with: go test ./cmd/stet -run TestJSONGoldens -update\n")}
	for _, s := range steps {
		r := w.run(s.stdin, s.args...)
		if r.code != 0 {
			t.Fatalf("stet %v: exit %d\n%s%s", s.args, r.code, r.stdout, r.stderr)
		}
		out := n.Apply([]byte(r.stdout))
		out = goldenReceiptID.ReplaceAll(out, []byte("r_ID"))
		out = goldenTime.ReplaceAll(out, []byte(`"time": "TIME"`))
		a.Files = append(a.Files, txtar.File{Name: s.name + ".json", Data: out})
	}
	txtar.Check(t, filepath.Join("testdata", "json.txtar"), a, *update)
}
