package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// serve registers every tool on a go-sdk server with typed handlers, which
// make go-sdk validate arguments against Spec.Input and structured results
// against Spec.Output, and returns a connected client. respond gives the
// structured result for a tool.
func serve(t *testing.T, respond func(tool string) any) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	server := mcp.NewServer(&mcp.Implementation{Name: "stet-test", Version: "0"}, &mcp.ServerOptions{Instructions: Instructions()})
	for _, s := range All() {
		tool := &mcp.Tool{
			Name:         s.Name,
			Title:        s.Title,
			Description:  s.Description,
			InputSchema:  s.Input,
			OutputSchema: s.Output,
			Annotations: &mcp.ToolAnnotations{
				ReadOnlyHint:    s.Annotations.ReadOnlyHint,
				DestructiveHint: &s.Annotations.DestructiveHint,
				IdempotentHint:  s.Annotations.IdempotentHint,
				OpenWorldHint:   &s.Annotations.OpenWorldHint,
			},
		}
		name := s.Name
		mcp.AddTool(server, tool, func(ctx context.Context, req *mcp.CallToolRequest, in map[string]any) (*mcp.CallToolResult, any, error) {
			raw, err := json.Marshal(in)
			if err != nil {
				return nil, nil, err
			}
			if _, err := Decode(name, raw); err != nil {
				return nil, nil, err
			}
			return nil, respond(name), nil
		})
	}
	st, ct := mcp.NewInMemoryTransports()
	ss, err := server.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ss.Close() })
	client := mcp.NewClient(&mcp.Implementation{Name: "client", Version: "0"}, nil)
	cs, err := client.Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cs.Close() })
	return cs
}

func call(t *testing.T, cs *mcp.ClientSession, tool, args string) *mcp.CallToolResult {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: tool, Arguments: json.RawMessage(args)})
	if err != nil {
		t.Fatalf("CallTool(%s): %v", tool, err)
	}
	return res
}

// TestGoSDKValidatesResultsAndRefusals runs every tool through go-sdk v1.8.0,
// which validates structured content against the output schema on the
// server: results and refusals must both pass.
func TestGoSDKValidatesResultsAndRefusals(t *testing.T) {
	results := sampleResults(t)
	cs := serve(t, func(tool string) any { return results[tool] })
	for _, name := range specOrder {
		if res := call(t, cs, name, validArgs[name]); res.IsError {
			t.Errorf("%s result: %v", name, res.Content[0].(*mcp.TextContent).Text)
		}
	}
	// go-sdk fills in schema defaults (replace_all: false, dry_run: false)
	// before the handler decodes; the edits form must survive that.
	if res := call(t, cs, "edit", `{"path":"a","edits":[{"old_string":"x","new_string":"y"}]}`); res.IsError {
		t.Errorf("edit with edits: %v", res.Content[0].(*mcp.TextContent).Text)
	}

	refusal := map[string]any{"refused": "changed", "message": "refused: a.go changed since you read it (10 lines → 12); read it again", "before": map[string]any{"lines": 10}}
	cs = serve(t, func(string) any { return refusal })
	for _, name := range specOrder {
		if res := call(t, cs, name, validArgs[name]); res.IsError {
			t.Errorf("%s refusal: %v", name, res.Content[0].(*mcp.TextContent).Text)
		}
	}
}

// TestGoSDKRejectsWhatSchemasForbid shows the validation above is real: a
// refusal without its message fails output validation, and an unknown
// argument fails input validation.
func TestGoSDKRejectsWhatSchemasForbid(t *testing.T) {
	cs := serve(t, func(string) any { return map[string]any{"refused": "changed"} })
	_, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "read", Arguments: json.RawMessage(validArgs["read"])})
	if err == nil || !strings.Contains(err.Error(), "validating tool output") {
		t.Errorf("refusal without a message: err = %v, want an output validation error", err)
	}
	res := call(t, cs, "read", `{"path":"a","old_str":"x"}`)
	if !res.IsError {
		t.Error("unknown argument passed go-sdk input validation")
	}
}

func TestGoSDKListsTools(t *testing.T) {
	cs := serve(t, func(string) any { return nil })
	list, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
		in := tool.InputSchema.(map[string]any)
		if in["type"] != "object" || in["additionalProperties"] != false {
			t.Errorf("%s: listed input schema %v", tool.Name, in)
		}
		if tool.OutputSchema == nil || tool.Annotations == nil || tool.Annotations.OpenWorldHint == nil || *tool.Annotations.OpenWorldHint {
			t.Errorf("%s: output schema or annotations missing", tool.Name)
		}
	}
	if len(names) != len(specOrder) {
		t.Errorf("listed %v", names)
	}
	if got := cs.InitializeResult().Instructions; got != Instructions() {
		t.Errorf("instructions = %q", got)
	}
}
