package tools

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
)

// Definition formats accepted by DefinitionsWith.
const (
	FormatMCP       = "mcp"       // MCP tools/list entries
	FormatOpenAI    = "openai"    // OpenAI function tools
	FormatAnthropic = "anthropic" // Anthropic Messages API tools
	// FormatOpenAIResponses is the flat function shape of OpenAI's
	// Responses API.
	FormatOpenAIResponses = "openai-responses"
)

// Formats lists the definition formats DefinitionsWith accepts.
func Formats() []string {
	return []string{FormatMCP, FormatOpenAI, FormatOpenAIResponses, FormatAnthropic}
}

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
	Strict      bool               `json:"strict,omitempty"`
}

type responsesDef struct {
	Type        string             `json:"type"`
	Name        string             `json:"name"`
	Description string             `json:"description"`
	Parameters  *jsonschema.Schema `json:"parameters"`
	Strict      bool               `json:"strict"`
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

// DefinitionOptions tune DefinitionsWith.
type DefinitionOptions struct {
	ReadOnly bool // leave the mutating tools out
	// Strict makes every input schema valid for strict function calling
	// (OpenAI structured outputs): every property is listed as required,
	// an optional one takes null besides its type (Decode reads null as
	// omitted), objects allow no other properties, and no default is
	// given. The OpenAI formats then say "strict": true.
	Strict bool
}

// DefinitionsWith returns every tool's definition as indented JSON in
// format:
//
//   - "mcp": an array of {name, title, description, inputSchema,
//     outputSchema, annotations}, as in an MCP tools/list result;
//   - "openai": an array of {"type": "function", "function": {name,
//     description, parameters, strict}} (Chat Completions; strict only
//     with o.Strict);
//   - "openai-responses": an array of {"type": "function", name,
//     description, parameters, strict} (the Responses API's flat shape);
//   - "anthropic": an array of {name, description, input_schema}.
//
// With o.ReadOnly, mutating tools are left out. An unknown format is an
// error naming the known ones.
func DefinitionsWith(format string, o DefinitionOptions) ([]byte, error) {
	var specs []Spec
	for _, s := range All() {
		if o.ReadOnly && s.Mutating {
			continue
		}
		if o.Strict {
			Strict(s.Input)
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
			d[i] = openAIDef{Type: "function", Function: openAIFunction{s.Name, s.Description, s.Input, o.Strict}}
		}
		defs = d
	case FormatOpenAIResponses:
		d := make([]responsesDef, len(specs))
		for i, s := range specs {
			d[i] = responsesDef{"function", s.Name, s.Description, s.Input, o.Strict}
		}
		defs = d
	case FormatAnthropic:
		d := make([]anthropicDef, len(specs))
		for i, s := range specs {
			d[i] = anthropicDef{s.Name, s.Description, s.Input}
		}
		defs = d
	default:
		return nil, fmt.Errorf("tools: unknown definition format %q (want %s)", format, strings.Join(Formats(), ", "))
	}
	b, err := json.MarshalIndent(defs, "", "  ")
	if err != nil {
		return nil, fmt.Errorf("tools: marshal %s definitions: %w", format, err)
	}
	return append(b, '\n'), nil
}

// Strict rewrites the object schema s, and the objects nested in it, in
// place for strict function calling: every property required, an optional
// property's type widened with "null", additionalProperties false, and no
// default.
func Strict(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.Default = nil
	if s.Type == "object" || s.Properties != nil {
		required := map[string]bool{}
		for _, r := range s.Required {
			required[r] = true
		}
		names := s.PropertyOrder
		if len(names) != len(s.Properties) {
			names = names[:0:0]
			for n := range s.Properties {
				names = append(names, n)
			}
			slices.Sort(names)
		}
		for _, n := range names {
			p := s.Properties[n]
			Strict(p)
			if !required[n] && p.Type != "" {
				p.Types = []string{p.Type, "null"}
				p.Type = ""
			}
		}
		s.Required = slices.Clone(names)
		s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	}
	Strict(s.Items)
}
