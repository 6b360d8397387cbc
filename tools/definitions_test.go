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
	for _, format := range []string{FormatMCP, FormatOpenAI, FormatAnthropic} {
		got, err := Definitions(format, false)
		if err != nil {
			t.Fatal(err)
		}
		golden := filepath.Join("testdata", "definitions-"+format+".json")
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
		{FormatMCP, true, []string{"read", "list", "find", "grep"}},
		{FormatOpenAI, true, []string{"read", "list", "find", "grep"}},
		{FormatAnthropic, true, []string{"read", "list", "find", "grep"}},
	} {
		raw, err := Definitions(tc.format, tc.readOnly)
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
	if _, err := Definitions("gemini", false); err == nil {
		t.Error(`Definitions("gemini") succeeded`)
	}
}
