package stet_test

import (
	"strings"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/patchcase"
)

// TestPatchScenarios runs every scenario of testdata/patch-scenarios
// through the library: the session sees what the scenario says, the patch
// is sent once, and the tree must be the expected one (or, refused, the
// input) with a receipt for each step that landed and none for a refusal.
// cmd/stet and mcpserver run the same scenarios through the CLI and the
// MCP server.
func TestPatchScenarios(t *testing.T) {
	scs, err := patchcase.Load("testdata/patch-scenarios")
	if err != nil {
		t.Fatal(err)
	}
	for _, sc := range scs {
		t.Run(sc.Name, func(t *testing.T) {
			root, state := t.TempDir(), t.TempDir()
			if err := patchcase.Write(root, sc.Input); err != nil {
				t.Fatal(err)
			}
			ws, err := stet.Open([]string{root}, stet.Options{State: state})
			if err != nil {
				t.Fatal(err)
			}
			defer ws.Close()
			s, err := ws.Session("scenario")
			if err != nil {
				t.Fatal(err)
			}
			if sc.Want.Observe != "none" {
				for _, d := range patchcase.Dirs(sc.Input) {
					if _, err := s.List(ctx, stet.ListArgs{Path: d}); err != nil {
						t.Fatalf("list %s: %v", d, err)
					}
				}
			}
			if sc.Want.Observe == "all" {
				for _, f := range patchcase.Files(sc.Input) {
					if _, err := s.Read(ctx, stet.ReadArgs{Path: f}); err != nil {
						t.Fatalf("read %s: %v", f, err)
					}
				}
			}
			res, err := s.Patch(ctx, stet.PatchArgs{Patch: sc.Patch})
			var text string
			switch r, refused := stet.AsRefusal(err); {
			case sc.Want.Refused != "":
				if !refused || r.Kind != sc.Want.Refused {
					t.Fatalf("Patch = %+v, %v; want refused %s", res, err, sc.Want.Refused)
				}
				text = r.Message
			case err != nil:
				t.Fatalf("Patch: %v", err)
			default:
				text = res.Message + "\n" + res.Diff
				if sc.Want.Receipts >= 0 && len(res.Receipts) != sc.Want.Receipts {
					t.Errorf("%d receipts, want %d", len(res.Receipts), sc.Want.Receipts)
				}
			}
			for _, m := range sc.Want.Messages {
				if !strings.Contains(text, m) {
					t.Errorf("result lacks %q:\n%s", m, text)
				}
			}
			want := sc.Expected
			if sc.Want.Refused != "" {
				want = sc.Input
			}
			tree, err := patchcase.Tree(root)
			if err != nil {
				t.Fatal(err)
			}
			if d := patchcase.Diff(want, tree); d != "" {
				t.Errorf("tree after the patch:\n%s", d)
			}
			log, err := ws.Log("", "")
			if err != nil {
				t.Fatal(err)
			}
			if sc.Want.Refused != "" && len(log) > 0 {
				t.Errorf("a refused patch left %d receipts: %+v", len(log), log)
			}
			if sc.Want.Refused == "" && res != nil && len(log) != len(res.Receipts) {
				t.Errorf("the journal holds %d receipts, the result %d", len(log), len(res.Receipts))
			}
		})
	}
}

// TestPatchScenariosCodex: the scenarios recreating Codex's apply-patch
// fixtures cover all of them, and the ones where stet departs from Codex
// are exactly those its rules decide, named here.
func TestPatchScenariosCodex(t *testing.T) {
	scs, err := patchcase.Load("testdata/patch-scenarios")
	if err != nil {
		t.Fatal(err)
	}
	differs := map[string]string{
		"010_move_overwrites_existing_destination":         "no-overwrite",
		"014_update_file_appends_trailing_newline":         "final newline",
		"015_failure_after_partial_success_leaves_changes": "all-or-nothing",
	}
	fixtures := 0
	for _, sc := range scs {
		if sc.Want.Codex == "" {
			continue
		}
		fixtures++
		rule, ok := differs[sc.Want.Codex]
		switch {
		case ok && !strings.HasPrefix(sc.Want.Differs, rule):
			t.Errorf("%s: Codex fixture %s departs by the %s rule, the scenario says %q", sc.Name, sc.Want.Codex, rule, sc.Want.Differs)
		case !ok && sc.Want.Differs != "":
			t.Errorf("%s: departs from Codex fixture %s (%s), which no stet rule here names", sc.Name, sc.Want.Codex, sc.Want.Differs)
		}
	}
	if fixtures != 23 {
		t.Errorf("%d Codex fixtures recreated, want all 23", fixtures)
	}
}
