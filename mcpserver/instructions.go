package mcpserver

import (
	"fmt"
	"strings"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/tools"
)

// instructions are the server's MCP instructions: the persona and rules of
// package tools, then every root of the workspace with its effects and how
// paths resolve among them, so a model knows each root before its first
// call.
func instructions(ws *stet.Workspace) string {
	var b strings.Builder
	b.WriteString(tools.Instructions())
	if ws == nil {
		b.WriteString("\n\n" + clientRootsNote)
		return b.String()
	}
	roots := ws.Roots()
	if len(roots) == 1 {
		fmt.Fprintf(&b, "\n\nWorkspace root (%s): %s. Relative paths resolve in it.", ws.Effects(), roots[0])
		return b.String()
	}
	fmt.Fprintf(&b, "\n\nWorkspace roots (%s):", ws.Effects())
	for _, r := range roots {
		fmt.Fprintf(&b, "\n- %s", r)
	}
	b.WriteString("\nA relative path resolves in the root where it exists (a new file goes to the first root); a name that exists in several roots is refused as ambiguous: use its absolute path. list with no path lists the roots; find and grep with no path search them all; roots lists them.")
	return b.String()
}

// clientRootsNote is the instructions' word on the workspace of a server
// started without roots: it serves the roots the client shares.
const clientRootsNote = "Workspace: the roots this client shares (roots names them; with none shared, nothing is served and every call says how to name a root)."
