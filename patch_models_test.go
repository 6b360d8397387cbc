package stet_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// TestPatchAsModelsWriteIt: patches as models write them, at the facade: bare
// headers land, an ambiguous hunk is refused with every candidate in the
// details, a hunk found with trailing space set aside says so in its
// receipt, and hunks without a file header are refused naming the fix.
func TestPatchAsModelsWriteIt(t *testing.T) {
	src := "package p\n\nfunc Foo() {  \n\treturn\n}\n\nfunc Bar() {\n\treturn\n}\n"
	_, s, root := open(t, map[string]string{"p.go": src}, stet.Options{})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "p.go"}); err != nil {
		t.Fatal(err)
	}

	_, err := s.Patch(ctx, stet.PatchArgs{Patch: "--- a/p.go\n+++ b/p.go\n@@ @@ func Foo() {\n-\treturn\n+\treturn // x\n"})
	r, ok := stet.AsRefusal(err)
	if !ok || r.Kind != stet.KindAmbiguous || !slices.Equal(r.Details["lines"].([]int), []int{4, 8}) {
		t.Fatalf("ambiguous hunk: %v %+v", err, r)
	}
	if strings.Contains(r.Message, "read the file again") {
		t.Errorf("an ambiguous hunk's refusal asks to read the file again: %s", r.Message)
	}

	_, err = s.Patch(ctx, stet.PatchArgs{Patch: "@@ @@\n func Foo() {\n-\treturn\n+\treturn 1\n"})
	if r, ok := stet.AsRefusal(err); !ok || r.Kind != stet.KindInvalid || !strings.Contains(r.Message, "--- a/PATH") {
		t.Fatalf("no file header: %v", err)
	}

	res, err := s.Patch(ctx, stet.PatchArgs{Patch: "--- a/p.go\n+++ b/p.go\n@@ @@ func Foo() {\n func Foo() {\n-\treturn\n+\treturn // x\n"})
	if err != nil {
		t.Fatal(err)
	}
	if want := strings.Replace(src, "\treturn\n", "\treturn // x\n", 1); content(t, root, "p.go") != want {
		t.Fatalf("got %q", content(t, root, "p.go"))
	}
	if n := res.Receipts[0].Notes; len(n) != 1 || !strings.Contains(n[0], "trailing") {
		t.Fatalf("receipt notes %q, want one about trailing space", n)
	}
}
