package mcpserver

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/tools"
)

// Tool profiles (Options.Profile).
const (
	// ProfileStet serves stet's own tools (SPEC section 2). It is the
	// default.
	ProfileStet = "stet"
	// ProfileReference serves the tool names, arguments and text results
	// of the reference filesystem server
	// (@modelcontextprotocol/server-filesystem), on the same guarded core:
	// a client configured for that server works with stet by changing its
	// command alone, and every stet rule still applies.
	ProfileReference = "reference"
)

// Profiles lists the tool profiles, the default first.
func Profiles() []string { return []string{ProfileStet, ProfileReference} }

// refTool is one tool of the reference profile (tools.Reference, where
// its name, description, schemas and argument type live): its name and
// the stet tool it is built on, whose annotations, mutability and
// review-stall class it shares.
type refTool struct{ name, base string }

// refToolOf returns the reference tool named name.
func refToolOf(name string) (refTool, bool) {
	base, ok := tools.Reference.Base(name)
	return refTool{name, base}, ok
}

// refNames lists the reference tools, without the mutating ones when
// readOnly.
func refNames(readOnly bool) []string { return tools.Reference.Names(readOnly) }

// stetName is the stet tool a tool name stands for: itself for a stet
// tool, the tool it is built on for a reference tool.
func stetName(name string) string {
	if t, ok := refToolOf(name); ok {
		return t.base
	}
	return name
}

// mcpTool is the MCP definition of t.
func (t refTool) mcpTool() (*mcp.Tool, error) {
	spec, ok := tools.Reference.Lookup(t.name)
	if !ok {
		return nil, fmt.Errorf("mcpserver: %s is not a reference tool", t.name)
	}
	return toolOf(spec), nil
}

// refInstructions are the server's instructions in the reference profile:
// the persona, the rules in the reference tools' terms, then every root.
func refInstructions(ws *stet.Workspace) string {
	var b strings.Builder
	b.WriteString(strings.Join([]string{
		tools.Persona,
		"",
		"Rules of these file tools (stet, serving the reference filesystem server's tools):",
		"- Read a file with read_text_file (or read_multiple_files) before you edit, replace or move it; list a directory with list_directory before you create a file in it. write_file replaces an existing file only when you read it whole.",
		"- edit_file matches oldText literally (indentation, trailing spaces and line breaks included) and exactly once; it is bound to what you read: read again after the file changes.",
		"- A refusal changes nothing and names the call that gets past it. Follow it; do not repeat the same call.",
		"- A replaced file is saved in stet's journal; the user can bring it back with stet undo.",
	}, "\n"))
	if ws == nil {
		b.WriteString("\n\nAllowed directories: the roots this client shares (list_allowed_directories names them; with none shared, nothing is served and every call says how to name a root).")
		return b.String()
	}
	roots := ws.Roots()
	fmt.Fprintf(&b, "\n\nAllowed directories (%s):", ws.Effects())
	for _, r := range roots {
		fmt.Fprintf(&b, "\n- %s", r)
	}
	if len(roots) > 1 {
		b.WriteString("\nA relative path resolves in the directory where it exists (a new file goes to the first); a name that exists in several is refused as ambiguous: use its absolute path.")
	} else {
		b.WriteString("\nRelative paths resolve in it.")
	}
	return b.String()
}
