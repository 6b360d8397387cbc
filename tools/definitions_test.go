package tools

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/google/go-cmp/cmp"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// TestDefinitionsGolden pins the tool definitions every surface prints
// (stet tools --format ...). Refresh with go test ./tools -update.
func TestDefinitionsGolden(t *testing.T) {
	type golden struct {
		format string
		strict bool
	}
	for _, g := range []golden{{FormatMCP, false}, {FormatOpenAI, false}, {FormatAnthropic, false}, {FormatOpenAIResponses, false}, {FormatOpenAIResponses, true}, {FormatOpenAI, true}} {
		format := g.format
		got, err := DefinitionsWith(format, DefinitionOptions{Strict: g.strict})
		if err != nil {
			t.Fatal(err)
		}
		name := "definitions-" + format
		if g.strict {
			name += "-strict"
		}
		golden := filepath.Join("testdata", name+".json")
		if *update {
			if err := os.WriteFile(golden, got, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatalf("%v (run go test ./tools -update)", err)
		}
		if diff := cmp.Diff(string(want), string(got)); diff != "" {
			t.Errorf("%s definitions differ from %s (-want +got); run go test ./tools -update if intended:\n%s", format, golden, diff)
		}
	}
}

func TestDefinitionsShape(t *testing.T) {
	for _, tc := range []struct {
		format   string
		readOnly bool
		want     []string
	}{
		{FormatMCP, false, specOrder},
		{FormatOpenAI, false, specOrder},
		{FormatAnthropic, false, specOrder},
		{FormatOpenAIResponses, false, specOrder},
		{FormatMCP, true, []string{"read", "info", "roots", "list", "find", "grep"}},
		{FormatOpenAI, true, []string{"read", "info", "roots", "list", "find", "grep"}},
		{FormatAnthropic, true, []string{"read", "info", "roots", "list", "find", "grep"}},
	} {
		raw, err := DefinitionsWith(tc.format, DefinitionOptions{ReadOnly: tc.readOnly})
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(raw, []byte(`\u00`)) {
			t.Errorf("%s: escaped characters in the output", tc.format)
		}
		var defs []map[string]any
		if err := json.Unmarshal(raw, &defs); err != nil {
			t.Fatalf("%s: %v", tc.format, err)
		}
		var names []string
		for _, d := range defs {
			var name, desc any
			var schema map[string]any
			switch tc.format {
			case FormatMCP:
				name, desc = d["name"], d["description"]
				schema, _ = d["inputSchema"].(map[string]any)
				if d["title"] == "" || d["outputSchema"] == nil || d["annotations"] == nil {
					t.Errorf("mcp %v: missing title, outputSchema or annotations", name)
				}
			case FormatOpenAI:
				fn, _ := d["function"].(map[string]any)
				if d["type"] != "function" {
					t.Errorf("openai: type %v", d["type"])
				}
				name, desc = fn["name"], fn["description"]
				schema, _ = fn["parameters"].(map[string]any)
			case FormatAnthropic:
				name, desc = d["name"], d["description"]
				schema, _ = d["input_schema"].(map[string]any)
			case FormatOpenAIResponses:
				if d["type"] != "function" || d["strict"] != false {
					t.Errorf("openai-responses: type %v strict %v", d["type"], d["strict"])
				}
				name, desc = d["name"], d["description"]
				schema, _ = d["parameters"].(map[string]any)
			}
			if desc == "" || schema == nil || schema["type"] != "object" {
				t.Errorf("%s %v: description or schema missing", tc.format, name)
			}
			names = append(names, name.(string))
		}
		if diff := cmp.Diff(tc.want, names); diff != "" {
			t.Errorf("%s readOnly=%v names (-want +got):\n%s", tc.format, tc.readOnly, diff)
		}
	}
	if _, err := DefinitionsWith("gemini", DefinitionOptions{}); err == nil {
		t.Error(`DefinitionsWith("gemini") succeeded`)
	}
}

// TestStrictSchemas checks --strict: every property required, optional
// ones nullable, closed objects, no default, at every level; and that a
// call a strict model makes (null for what it leaves out) decodes.
func TestStrictSchemas(t *testing.T) {
	raw, err := DefinitionsWith(FormatOpenAIResponses, DefinitionOptions{Strict: true})
	if err != nil {
		t.Fatal(err)
	}
	var defs []struct {
		Name       string         `json:"name"`
		Strict     bool           `json:"strict"`
		Parameters map[string]any `json:"parameters"`
	}
	if err := json.Unmarshal(raw, &defs); err != nil {
		t.Fatal(err)
	}
	var check func(where string, s map[string]any)
	check = func(where string, s map[string]any) {
		if _, ok := s["default"]; ok {
			t.Errorf("%s: has a default", where)
		}
		if props, ok := s["properties"].(map[string]any); ok || s["type"] == "object" {
			if s["additionalProperties"] != false {
				t.Errorf("%s: additionalProperties = %v, want false", where, s["additionalProperties"])
			}
			req, _ := s["required"].([]any)
			if len(req) != len(props) {
				t.Errorf("%s: %d required of %d properties", where, len(req), len(props))
			}
			for n, p := range props {
				check(where+"."+n, p.(map[string]any))
			}
		}
		if items, ok := s["items"].(map[string]any); ok {
			check(where+"[]", items)
		}
	}
	for _, d := range defs {
		if !d.Strict {
			t.Errorf("%s: strict is false", d.Name)
		}
		check(d.Name, d.Parameters)
	}
	if _, err := Decode("edit", []byte(`{"path":"a","old_string":"x","new_string":"y","replace_all":null,"edits":null,"dry_run":null,"expected_version":null}`)); err != nil {
		t.Errorf("a strict call with nulls: %v", err)
	}
	// The catalog itself is untouched.
	s, _ := Lookup("read")
	if len(s.Input.Required) != 0 || s.Input.Properties["offset"].Default == nil {
		t.Error("Strict changed the catalog's schemas")
	}
}
