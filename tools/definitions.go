package tools

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Definition formats accepted by Definitions.
const (
	FormatMCP       = "mcp"       // MCP tools/list entries
	FormatOpenAI    = "openai"    // OpenAI function tools
	FormatAnthropic = "anthropic" // Anthropic Messages API tools
)

type mcpDef struct {
	Name         string             `json:"name"`
	Title        string             `json:"title"`
	Description  string             `json:"description"`
	InputSchema  *jsonschema.Schema `json:"inputSchema"`
	OutputSchema *jsonschema.Schema `json:"outputSchema"`
	Annotations  Annotations        `json:"annotations"`
}

type openAIFunction struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Parameters  *jsonschema.Schema `json:"parameters"`
}

type openAIDef struct {
	Type     string         `json:"type"`
	Function openAIFunction `json:"function"`
}

type anthropicDef struct {
	Name        string             `json:"name"`
	Description string             `json:"description"`
	InputSchema *jsonschema.Schema `json:"input_schema"`
}

// Definitions returns every tool's definition as indented JSON in format:
//
//   - "mcp": an array of {name, title, description, inputSchema,
//     outputSchema, annotations}, as in an MCP tools/list result;
//   - "openai": an array of {"type": "function", "function": {name,
//     description, parameters}};
//   - "anthropic": an array of {name, description, input_schema}.
//
// With readOnly, mutating tools are left out. An unknown format is an
// error naming the known ones.
func Definitions(format string, readOnly bool) ([]byte, error) {
	var specs []Spec
	for _, s := range All() {
		if readOnly && s.Mutating {
			continue
		}
		specs = append(specs, s)
	}
	var defs any
	switch format {
	case FormatMCP:
		d := make([]mcpDef, len(specs))
		for i, s := range specs {
			d[i] = mcpDef{s.Name, s.Title, s.Description, s.Input, s.Output, s.Annotations}
		}
		defs = d
	case FormatOpenAI:
		d := make([]openAIDef, len(specs))
		for i, s := range specs {
			d[i] = openAIDef{Type: "function", Function: openAIFunction{s.Name, s.Description, s.Input}}
		}
		defs = d
	case FormatAnthropic:
		d := make([]anthropicDef, len(specs))
		for i, s := range specs {
			d[i] = anthropicDef{s.Name, s.Description, s.Input}
		}
		defs = d
	default:
		return nil, fmt.Errorf("tools: unknown definition format %q (want %s, %s or %s)", format, FormatMCP, FormatOpenAI, FormatAnthropic)
	}
	b, err := json.MarshalIndent(defs, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("tools: marshal %s definitions: %w", format, err)
	}
	return append(b, '\n'), nil
}
