package tools

import (
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stet-dev/stet/receipt"
)

var specOrder = []string{"read", "info", "roots", "edit", "write", "patch", "list", "find", "grep", "mkdir", "move", "delete", "undo"}

// validArgs holds one complete, valid call per tool, using every argument.
var validArgs = map[string]string{
	"read":   `{"path":"a.go","offset":1,"limit":10}`,
	"info":   `{"path":"a.go"}`,
	"roots":  `{}`,
	"edit":   `{"path":"a.go","old_string":"x","new_string":"y","replace_all":true,"dry_run":true,"expected_version":"` + version + `"}`,
	"write":  `{"path":"a.go","content":"x\n","overwrite":true,"dry_run":true,"expected_version":"` + version + `"}`,
	"patch":  `{"patch":"*** Begin Patch\n*** Delete File: a.go\n*** End Patch\n","dry_run":true}`,
	"list":   `{"path":"src","depth":2,"exclude":["vendor/"],"sort":"size","no_ignore":true,"limit":100}`,
	"find":   `{"pattern":"**/*.go","path":"src","exclude":["*_test.go"],"no_ignore":false,"limit":100}`,
	"grep":   `{"pattern":"func","path":"src","glob":"*.go","type":"go","ignore_case":true,"fixed_strings":false,"word":true,"multiline":false,"output_mode":"content","before":1,"after":2,"context":1,"offset":10,"limit":100,"exclude":["vendor/"],"no_ignore":true}`,
	"mkdir":  `{"path":"a/b"}`,
	"move":   `{"from":"a.go","to":"b.go","overwrite":true}`,
	"delete": `{"path":"a.go"}`,
	"undo":   `{"path":"a.go"}`,
}

func TestCatalog(t *testing.T) {
	var names []string
	for _, s := range All() {
		names = append(names, s.Name)
	}
	if diff := cmp.Diff(specOrder, names); diff != "" {
		t.Errorf("All() order (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff(specOrder, Names(false)); diff != "" {
		t.Errorf("Names(false) (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"read", "info", "roots", "list", "find", "grep"}, Names(true)); diff != "" {
		t.Errorf("Names(true) (-want +got):\n%s", diff)
	}
	for _, name := range specOrder {
		s, ok := Lookup(name)
		if !ok || s.Name != name || s.Title == "" || s.Input == nil || s.Output == nil {
			t.Errorf("Lookup(%q) = %+v, %v", name, s, ok)
		}
	}
	if _, ok := Lookup("cat"); ok {
		t.Error(`Lookup("cat") found a tool`)
	}
}

func TestAllReturnsCopies(t *testing.T) {
	a := All()
	a[3].Input.Properties["path"].Description = "changed"
	a[3].Input.Required = nil
	b, _ := Lookup(a[3].Name)
	if b.Input.Properties["path"].Description == "changed" || len(b.Input.Required) == 0 {
		t.Error("changing a Spec from All changed the catalog")
	}
}

func TestAnnotations(t *testing.T) {
	for _, s := range All() {
		a := s.Annotations
		if a.OpenWorldHint {
			t.Errorf("%s: openWorldHint is true", s.Name)
		}
		if a.ReadOnlyHint == s.Mutating {
			t.Errorf("%s: readOnlyHint %v but mutating %v", s.Name, a.ReadOnlyHint, s.Mutating)
		}
		wantDestructive := slices.Contains([]string{"edit", "write", "patch", "move", "delete", "undo"}, s.Name)
		if a.DestructiveHint != wantDestructive {
			t.Errorf("%s: destructiveHint %v, want %v", s.Name, a.DestructiveHint, wantDestructive)
		}
		if a.IdempotentHint != (s.Name == "mkdir") {
			t.Errorf("%s: idempotentHint %v", s.Name, a.IdempotentHint)
		}
	}
}

// TestDescriptions checks the words models read: present, within the 1,024
// characters some APIs allow for a function description, free of characters
// encoding/json would escape, and naming the refusals a model must recover
// from.
func TestDescriptions(t *testing.T) {
	mentions := map[string][]string{
		"read":   {"offset", "not_found", "binary", "not_utf8", "too_large"},
		"edit":   {"replace_all", "edits", "not_read", "not_seen", "changed", "no_match", "ambiguous", "dry_run"},
		"write":  {"overwrite", "exists", "not_read", "changed", "input", "undo", "dry_run"},
		"patch":  {"*** Begin Patch", "unified diff", "not_read", "changed", "no_match", "dry_run"},
		"delete": {"journal", "undo", "not_read"},
		"undo":   {"changed"},
		"move":   {"overwrite", "exists", "not_read"},
		"grep":   {"RE2", "seen"},
		"find":   {"**"},
		"list":   {"depth", "truncated"},
	}
	for _, s := range All() {
		if n := len(s.Description); n == 0 || n > 1024 {
			t.Errorf("%s: description has %d characters, want 1 to 1024", s.Name, n)
		}
		if strings.ContainsAny(s.Description, "<>&") {
			t.Errorf("%s: description contains a character JSON escapes", s.Name)
		}
		for _, m := range mentions[s.Name] {
			if !strings.Contains(s.Description, m) {
				t.Errorf("%s: description does not mention %q", s.Name, m)
			}
		}
	}
	ins := Instructions()
	if !strings.HasPrefix(ins, Persona) || !strings.Contains(ins, "undo") || !strings.Contains(ins, "refusal") {
		t.Errorf("Instructions() = %q, want Persona and the rules", ins)
	}
}

// TestInputSchemas checks every argument schema: an object that refuses
// other keys, with every property typed and described, no top-level
// combinator (Anthropic's API rejects them), and a required list that is
// exactly what Decode requires.
func TestInputSchemas(t *testing.T) {
	for _, s := range All() {
		in := s.Input
		if in.Type != "object" || in.AdditionalProperties == nil || in.AdditionalProperties.Not == nil {
			t.Errorf("%s: input schema is not a closed object", s.Name)
		}
		if in.AnyOf != nil || in.OneOf != nil || in.AllOf != nil || in.Not != nil {
			t.Errorf("%s: input schema has a top-level combinator", s.Name)
		}
		if s.Name != "roots" { // roots takes no arguments
			checkDescribed(t, s.Name, in)
		}
		if items := in.Properties["edits"]; items != nil {
			checkDescribed(t, s.Name+".edits", items.Items)
		}

		sample := validArgs[s.Name]
		if _, err := Decode(s.Name, []byte(sample)); err != nil {
			t.Fatalf("%s: sample %s: %v", s.Name, sample, err)
		}
		var obj map[string]any
		if err := json.Unmarshal([]byte(sample), &obj); err != nil {
			t.Fatal(err)
		}
		unused := 0
		switch s.Name {
		case "edit":
			unused = 1 // edits cannot go with old_string; TestInputSchemasValidate covers it
		case "read":
			unused = 2 // paths cannot go with path, tail not with offset or limit
		}
		if len(obj)+unused != len(in.Properties) {
			t.Errorf("%s: sample uses %d of %d arguments", s.Name, len(obj), len(in.Properties))
		}
		// Leaving out a required argument is refused, naming it; leaving out
		// any other is accepted.
		for name := range in.Properties {
			without := map[string]any{}
			for k, v := range obj {
				if k != name {
					without[k] = v
				}
			}
			raw, _ := json.Marshal(without)
			_, err := Decode(s.Name, raw)
			required := slices.Contains(in.Required, name)
			var ae *ArgError
			switch {
			case required && !(errors.As(err, &ae) && ae.Field == name && strings.Contains(ae.Msg, "missing")):
				t.Errorf("%s without required %s: err = %v, want missing %s", s.Name, name, err, name)
			case !required && err != nil && !(s.Name == "edit" && (name == "old_string" || name == "new_string")) && !(s.Name == "read" && name == "path"):
				t.Errorf("%s without optional %s: %v", s.Name, name, err)
			}
		}
	}
}

func checkDescribed(t *testing.T, where string, s *jsonschema.Schema) {
	t.Helper()
	if s == nil || len(s.Properties) == 0 {
		t.Errorf("%s: no properties", where)
		return
	}
	if len(s.PropertyOrder) != len(s.Properties) {
		t.Errorf("%s: property order lists %d of %d properties", where, len(s.PropertyOrder), len(s.Properties))
	}
	for name, p := range s.Properties {
		if p.Description == "" {
			t.Errorf("%s.%s: no description", where, name)
		}
		if p.Type == "" || p.Types != nil {
			t.Errorf("%s.%s: type %q %v, want one type", where, name, p.Type, p.Types)
		}
		if strings.ContainsAny(p.Description, "<>&") {
			t.Errorf("%s.%s: description contains a character JSON escapes", where, name)
		}
	}
}

func resolve(t *testing.T, s *jsonschema.Schema) *jsonschema.Resolved {
	t.Helper()
	// The options go-sdk uses for the schemas a server provides.
	r, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true})
	if err != nil {
		t.Fatalf("Resolve: %v", err)
	}
	return r
}

func validate(r *jsonschema.Resolved, raw string) error {
	var v any
	if err := json.Unmarshal([]byte(raw), &v); err != nil {
		return err
	}
	return r.Validate(v)
}

// TestInputSchemasValidate runs sample arguments through the produced
// schemas with jsonschema-go: what Decode accepts the schema accepts, and
// wrong types and unknown keys fail both.
func TestInputSchemasValidate(t *testing.T) {
	accept := map[string][]string{
		"read":  {validArgs["read"], `{"path":"a","offset":3.0}`, `{"path":"a","tail":5}`, `{"paths":["a","b"],"limit":3}`},
		"edit":  {validArgs["edit"], `{"path":"a","edits":[{"old_string":"x","new_string":""},{"old_string":"y","new_string":"z","replace_all":true}]}`},
		"write": {validArgs["write"], `{"path":"a","content":""}`},
		"list":  {validArgs["list"], `{}`},
	}
	refuse := map[string][]string{
		"read":  {`{"path":"a","offset":"1"}`, `{"path":"a","old":1}`, `{"path":"a","limit":-1}`, `{"path":"a","offset":2.5}`, `{"paths":"a"}`, `{"paths":[]}`, `{"paths":[1]}`},
		"edit":  {`{"path":"a","edits":[{"old_string":"x"}]}`, `{"path":"a","edits":[]}`, `{"path":"a","edits":[{"old_string":"x","new_string":"y","x":1}]}`},
		"write": {`{"path":"a"}`, `{"path":"a","content":"","overwrite":"yes"}`},
		"list":  {`{"depth":true}`, `{"dir":"a"}`},
	}
	for _, s := range All() {
		r := resolve(t, s.Input)
		for _, raw := range append(accept[s.Name], validArgs[s.Name]) {
			if _, err := Decode(s.Name, []byte(raw)); err != nil {
				t.Errorf("%s: Decode(%s): %v", s.Name, raw, err)
			}
			if err := validate(r, raw); err != nil {
				t.Errorf("%s: schema refuses %s: %v", s.Name, raw, err)
			}
		}
		for _, raw := range refuse[s.Name] {
			if _, err := Decode(s.Name, []byte(raw)); err == nil {
				t.Errorf("%s: Decode accepts %s", s.Name, raw)
			}
			if err := validate(r, raw); err == nil {
				t.Errorf("%s: schema accepts %s", s.Name, raw)
			}
		}
	}
}

// sampleResults holds a realistic result per tool, marshalled as a server
// would send it.
func sampleResults(t *testing.T) map[string]any {
	rc := receipt.Receipt{
		ID: "r_1", Session: "default", Tool: "edit", Path: "a.go",
		Before:  &receipt.State{Version: version, Bytes: 10, Lines: 2},
		After:   &receipt.State{Version: version, Bytes: 12, Lines: 2},
		Matches: []receipt.Match{{Offset: 1, OldBytes: 1, NewBytes: 3, Line: 1}},
		EOL:     "lf", Verified: true, Time: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC),
	}
	created := rc
	created.Before, created.Matches = nil, nil
	mut := MutationResult{Message: "edited a.go", Receipt: rc, Diff: "--- a/a.go\n+++ b/a.go\n"}
	return map[string]any{
		"read":   ReadResult{Path: "a.go", Version: version, Lines: 2, From: 1, To: 2, Frame: "00001|x\n00002|\n(2 lines)"},
		"info":   InfoResult{Path: "a.go", Type: "file", Size: 10, Lines: 2, Mode: "0644", Mtime: "2026-01-02T03:04:05Z", Version: version, Links: 1},
		"roots":  RootsResult{Roots: []Root{{Path: "/w", Effects: "workspace-write"}}},
		"edit":   mut,
		"write":  MutationResult{Message: "created a.go", Receipt: created},
		"patch":  PatchResult{Message: "patched", Receipts: []receipt.Receipt{rc, created}},
		"list":   ListResult{Path: ".", Entries: []Entry{{Name: "a.go", Type: "file", Size: 10}}},
		"find":   FindResult{Paths: []string{"a.go"}, Truncated: true},
		"grep":   GrepResult{Matches: []GrepMatch{{Path: "a.go", Line: 1, Text: "x"}}},
		"mkdir":  MkdirResult{Message: "created a/b", Path: "a/b"},
		"move":   mut,
		"delete": mut,
		"undo":   mut,
	}
}

// TestOutputSchemasValidate checks that each output schema accepts the
// tool's results and any refusal, and rejects what is neither.
func TestOutputSchemasValidate(t *testing.T) {
	results := sampleResults(t)
	refusals := []string{
		`{"refused":"invalid","message":"refused: edit: old_string must not be empty."}`,
		`{"refused":"not_seen","message":"refused: a.go lines 10-20 were not shown to you; read offset 10, limit 11","path":"a.go","offset":10,"limit":11}`,
		`{"refused":"ambiguous","message":"refused: 3 matches","matches":[4,9,12],"lines":"three"}`,
	}
	for _, s := range All() {
		r := resolve(t, s.Output)
		raw, err := json.Marshal(results[s.Name])
		if err != nil {
			t.Fatal(err)
		}
		if err := validate(r, string(raw)); err != nil {
			t.Errorf("%s: output schema refuses result %s: %v", s.Name, raw, err)
		}
		withExtra := strings.TrimSuffix(string(raw), "}") + `,"notice":"stalled soon"}`
		if err := validate(r, withExtra); err != nil {
			t.Errorf("%s: output schema refuses a result with an added field: %v", s.Name, err)
		}
		for _, ref := range refusals {
			if err := validate(r, ref); err != nil {
				t.Errorf("%s: output schema refuses refusal %s: %v", s.Name, ref, err)
			}
		}
		for _, bad := range []string{`{"refused":1,"message":"x"}`, `{"refused":"changed"}`, `{"unrelated":1}`, `[]`} {
			if err := validate(r, bad); err == nil {
				t.Errorf("%s: output schema accepts %s", s.Name, bad)
			}
		}
	}
}

func TestRefusalKinds(t *testing.T) {
	want := strings.Fields("invalid outside not_found not_regular read_only protected not_read changed not_seen input exists no_match ambiguous binary not_utf8 too_large stalled conflict")
	if diff := cmp.Diff(want, RefusalKinds()); diff != "" {
		t.Errorf("RefusalKinds (-SPEC +got):\n%s", diff)
	}
}

// TestReadForms checks the rules between read's forms that the schema
// cannot say: path or paths, tail without offset or limit.
func TestReadForms(t *testing.T) {
	for raw, field := range map[string]string{
		`{}`:                               "path",
		`{"offset":1}`:                     "path",
		`{"path":"a","paths":["b"]}`:       "paths",
		`{"path":"a","tail":3,"offset":2}`: "tail",
		`{"path":"a","tail":3,"limit":2}`:  "tail",
		`{"paths":["a",""]}`:               "paths[1]",
	} {
		_, err := Decode("read", []byte(raw))
		var ae *ArgError
		if !errors.As(err, &ae) || ae.Field != field {
			t.Errorf("Decode(read, %s) = %v, want an error about %s", raw, err, field)
		}
	}
	a, err := Decode("read", []byte(`{"paths":["a","b"],"tail":2}`))
	if err != nil {
		t.Fatal(err)
	}
	if got := a.(*ReadArgs); !slices.Equal(got.Paths, []string{"a", "b"}) || got.Tail != 2 {
		t.Errorf("Decode = %+v", got)
	}
	// The several-files result validates against read's output schema.
	s, _ := Lookup("read")
	r := resolve(t, s.Output)
	files := `{"files":[{"path":"a","version":"` + version + `","lines":1,"from":1,"to":1,"frame":"00001|\n(1 line)"},{"refused":"not_found","message":"refused: b does not exist"}]}`
	if err := validate(r, files); err != nil {
		t.Errorf("read output schema refuses %s: %v", files, err)
	}
}
