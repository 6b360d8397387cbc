package mcpserver

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
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

// refTool is one tool of the reference profile: its MCP definition and the
// stet tool it runs on (whose annotations, mutability and review-stall
// class it shares).
type refTool struct {
	name, title, description string
	stet                     string // the stet tool it is built on
	input                    string // JSON Schema of the arguments
	output                   string // JSON Schema of the structured result
}

// refOutput is the structured result of every reference tool but
// read_media_file: the text, as the reference server sends it. A refusal
// adds stet's refusal object beside it. Additional properties are allowed,
// so that a client validating results accepts a refusal too.
const refOutput = `{"type":"object","properties":{"content":{"type":"string","description":"the text result, as in the content block"}},"required":["content"]}`

// refMediaOutput is read_media_file's structured result: the content
// blocks, an image or audio block or an embedded resource (a refusal
// carries its text instead).
const refMediaOutput = `{"type":"object","properties":{"content":{"anyOf":[{"type":"string"},{"type":"array","items":{"anyOf":[{"type":"object","properties":{"type":{"type":"string","enum":["image","audio"]},"data":{"type":"string"},"mimeType":{"type":"string"}},"required":["type","data","mimeType"]},{"type":"object","properties":{"type":{"type":"string","const":"resource"},"resource":{"type":"object","properties":{"uri":{"type":"string"},"mimeType":{"type":"string"},"blob":{"type":"string"}},"required":["uri","blob"]}},"required":["type","resource"]}]}}]}},"required":["content"]}`

const (
	pathOnly   = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`
	readInput  = `{"type":"object","properties":{"path":{"type":"string"},"head":{"type":"integer","minimum":1,"description":"If provided, returns only the first N lines of the file"},"tail":{"type":"integer","minimum":1,"description":"If provided, returns only the last N lines of the file"}},"required":["path"],"additionalProperties":false}`
	excludeArg = `"excludePatterns":{"type":"array","items":{"type":"string"},"default":[],"description":"Globs of paths (relative to path) to leave out, with everything under a matching directory; a pattern without a slash matches that name at any depth"}`
)

// refTools is the reference profile, in the reference server's order.
var refTools = []refTool{
	{
		name: "read_text_file", title: "Read Text File", stet: "read", input: readInput,
		description: "Read a text file and return its contents exactly (no line numbers). Use 'head' for only the first N lines or 'tail' for only the last N lines. " +
			"Reading a file is what allows edit_file, write_file and move_file to change it afterwards: stet changes only files read in this session, as they were read. " +
			"A very large file is returned in part, with a note saying which lines were shown. Only works within allowed directories.",
	},
	{
		name: "read_media_file", title: "Read Media File", stet: "read", input: pathOnly, output: refMediaOutput,
		description: "Read a file and return it as a base64-encoded content block with its MIME type (detected from the bytes): image and audio files as image or audio content, any other file as an embedded resource. " +
			"Files over the media size limit are refused with the limit named. Only works within allowed directories.",
	},
	{
		name: "read_multiple_files", title: "Read Multiple Files", stet: "read",
		input: `{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"},"minItems":1,"description":"Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories."}},"required":["paths"],"additionalProperties":false}`,
		description: "Read several text files in one call. Each file's content is returned with its path as a reference, the files separated by '---'; " +
			"a file that cannot be read is reported in its place without stopping the others. Each file read counts as read for later edits. Only works within allowed directories.",
	},
	{
		name: "write_file", title: "Write File", stet: "write",
		input: `{"type":"object","properties":{"path":{"type":"string"},"content":{"type":"string"},"overwrite":{"type":"boolean","default":false,"description":"stet: replace a file the user's request names even though it looks like an input; only when the user asked for it to be replaced"}},"required":["path","content"],"additionalProperties":false}`,
		description: "Create a new file, or replace an existing file with new content. A new file needs its directory listed first (list_directory); " +
			"an existing file must have been read whole in this session (read_text_file without head or tail) and unchanged since. " +
			"The replaced content is saved in stet's journal (stet undo brings it back). To change part of a file, use edit_file instead. Only works within allowed directories.",
	},
	{
		name: "edit_file", title: "Edit File", stet: "edit",
		input: `{"type":"object","properties":{"path":{"type":"string"},"edits":{"type":"array","items":{"type":"object","properties":{"oldText":{"type":"string","description":"Text to search for - must match exactly, whitespace and line breaks included, and only once"},"newText":{"type":"string","description":"Text to replace with"}},"required":["oldText","newText"],"additionalProperties":false}},"dryRun":{"type":"boolean","default":false,"description":"Preview changes using git-style diff format, without writing"}},"required":["path","edits"],"additionalProperties":false}`,
		description: "Replace exact text in a file, edits applied in order, all or none. Returns a git-style diff of the change. " +
			"Read the file with read_text_file first: stet edits only files read in this session and unchanged since. " +
			"oldText must match the file literally (indentation, trailing spaces and line breaks included; no whitespace-tolerant matching) and exactly once; " +
			"when it does not, the refusal shows the nearest lines and what differs. Only works within allowed directories.",
	},
	{
		name: "create_directory", title: "Create Directory", stet: "mkdir", input: pathOnly,
		description: "Create a directory, with any missing parents. If it already exists, this succeeds and does nothing. Only works within allowed directories.",
	},
	{
		name: "list_directory", title: "List Directory", stet: "list", input: pathOnly,
		description: "List the files and directories in a directory, each prefixed [FILE] or [DIR]. Listing a directory allows creating files in it. Only works within allowed directories.",
	},
	{
		name: "list_directory_with_sizes", title: "List Directory with Sizes", stet: "list",
		input:       `{"type":"object","properties":{"path":{"type":"string"},"sortBy":{"type":"string","enum":["name","size"],"default":"name","description":"Sort entries by name or size"}},"required":["path"],"additionalProperties":false}`,
		description: "List the files and directories in a directory with [FILE]/[DIR] prefixes and file sizes, then the totals. Only works within allowed directories.",
	},
	{
		name: "directory_tree", title: "Directory Tree", stet: "list",
		input:       `{"type":"object","properties":{"path":{"type":"string"},` + excludeArg + `},"required":["path"],"additionalProperties":false}`,
		description: "Get a recursive tree of files and directories as JSON (2-space indentation): each entry has 'name', 'type' (file or directory), and directories a 'children' array. Only works within allowed directories.",
	},
	{
		name: "move_file", title: "Move File", stet: "move",
		input: `{"type":"object","properties":{"source":{"type":"string"},"destination":{"type":"string"}},"required":["source","destination"],"additionalProperties":false}`,
		description: "Move or rename a file or directory. The destination must not exist. A file must have been read (a directory listed) in this session first. " +
			"Both paths must be within one allowed directory.",
	},
	{
		name: "search_files", title: "Search Files", stet: "find",
		input: `{"type":"object","properties":{"path":{"type":"string"},"pattern":{"type":"string"},` + excludeArg + `},"required":["path","pattern"],"additionalProperties":false}`,
		description: "Find files whose path (relative to path) matches a glob pattern: '**' crosses directories ('**/*.go'), and a pattern without '/' matches file names at any depth ('*.go'). " +
			"Returns full paths, one a line. Only searches within allowed directories.",
	},
	{
		name: "get_file_info", title: "Get File Info", stet: "info", input: pathOnly,
		description: "Get a file's or directory's metadata without reading it: size, modification time, type, permissions, and for a file its line count and version (sha256). Only works within allowed directories.",
	},
	{
		name: "list_allowed_directories", title: "List Allowed Directories", stet: "roots",
		input:       `{"type":"object","properties":{},"additionalProperties":false}`,
		description: "List the directories this server may access (subdirectories included). Relative paths resolve inside them.",
	},
	{
		name: "read_file", title: "Read File (Deprecated)", stet: "read", input: readInput,
		description: "Read the complete contents of a file as text. DEPRECATED: use read_text_file instead.",
	},
}

// refToolOf returns the reference tool named name.
func refToolOf(name string) (refTool, bool) {
	for _, t := range refTools {
		if t.name == name {
			return t, true
		}
	}
	return refTool{}, false
}

// refNames lists the reference tools, without the mutating ones when
// readOnly.
func refNames(readOnly bool) []string {
	var out []string
	for _, t := range refTools {
		if m, _ := tools.Mutating(t.stet); readOnly && m {
			continue
		}
		out = append(out, t.name)
	}
	return out
}

// stetName is the stet tool a tool name stands for: itself for a stet
// tool, the tool it is built on for a reference tool.
func stetName(name string) string {
	if t, ok := refToolOf(name); ok {
		return t.stet
	}
	return name
}

// mcpTool is the MCP definition of t, with the annotations of the stet
// tool it is built on.
func (t refTool) mcpTool() (*mcp.Tool, error) {
	spec, ok := tools.Lookup(t.stet)
	if !ok {
		return nil, fmt.Errorf("mcpserver: reference tool %s is built on %s, which is not a stet tool", t.name, t.stet)
	}
	var in, out jsonschema.Schema
	if err := json.Unmarshal([]byte(t.input), &in); err != nil {
		return nil, fmt.Errorf("mcpserver: the input schema of %s: %w", t.name, err)
	}
	output := t.output
	if output == "" {
		output = refOutput
	}
	if err := json.Unmarshal([]byte(output), &out); err != nil {
		return nil, fmt.Errorf("mcpserver: the output schema of %s: %w", t.name, err)
	}
	f := false
	destructive := spec.Annotations.DestructiveHint
	return &mcp.Tool{
		Name:         t.name,
		Title:        t.title,
		Description:  t.description,
		InputSchema:  &in,
		OutputSchema: &out,
		Annotations: &mcp.ToolAnnotations{
			ReadOnlyHint:    spec.Annotations.ReadOnlyHint,
			DestructiveHint: &destructive,
			IdempotentHint:  spec.Annotations.IdempotentHint,
			OpenWorldHint:   &f,
		},
	}, nil
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
