package tools

import (
	"encoding/json"

	"github.com/google/jsonschema-go/jsonschema"
)

// The reference profile (Reference): the tools of the reference filesystem
// server, @modelcontextprotocol/server-filesystem, under its names, with
// its arguments, each built on one stet tool. A client configured for that
// server works with stet by changing its command alone; every stet rule
// still applies. Each tool here is its argument type and its row in
// refCatalog; the MCP server maps the decoded arguments onto its stet
// tool's and words the answer as the reference server does.

// ReadTextFileArgs are the arguments of read_text_file and read_file.
type ReadTextFileArgs struct {
	Path string `json:"path"`
	Head int    `json:"head,omitempty"` // only the first Head lines; 0: the whole file
	Tail int    `json:"tail,omitempty"` // only the last Tail lines; 0: the whole file
}

// ReadMediaFileArgs are the arguments of read_media_file.
type ReadMediaFileArgs struct {
	Path string `json:"path"`
}

// ReadMultipleFilesArgs are the arguments of read_multiple_files.
type ReadMultipleFilesArgs struct {
	Paths []string `json:"paths"`
}

// WriteFileArgs are the arguments of write_file.
type WriteFileArgs struct {
	Path    string `json:"path"`
	Content string `json:"content"`
	// Overwrite is stet's: replace a file the user's request names (write's
	// overwrite).
	Overwrite bool `json:"overwrite,omitempty"`
}

// TextEdit is one replacement of an edit_file call.
type TextEdit struct {
	OldText string `json:"oldText"`
	NewText string `json:"newText"`
}

// EditFileArgs are the arguments of edit_file.
type EditFileArgs struct {
	Path   string     `json:"path"`
	Edits  []TextEdit `json:"edits"`
	DryRun bool       `json:"dryRun,omitempty"`
}

// CreateDirectoryArgs are the arguments of create_directory.
type CreateDirectoryArgs struct {
	Path string `json:"path"`
}

// ListDirectoryArgs are the arguments of list_directory.
type ListDirectoryArgs struct {
	Path string `json:"path"`
}

// ListDirectoryWithSizesArgs are the arguments of
// list_directory_with_sizes.
type ListDirectoryWithSizesArgs struct {
	Path string `json:"path"`
	// SortBy is "name" ("" too) or "size" (the largest first).
	SortBy string `json:"sortBy,omitempty"`
}

// DirectoryTreeArgs are the arguments of directory_tree.
type DirectoryTreeArgs struct {
	Path            string   `json:"path"`
	ExcludePatterns []string `json:"excludePatterns,omitempty"`
}

// MoveFileArgs are the arguments of move_file.
type MoveFileArgs struct {
	Source      string `json:"source"`
	Destination string `json:"destination"`
}

// SearchFilesArgs are the arguments of search_files.
type SearchFilesArgs struct {
	Path            string   `json:"path"`
	Pattern         string   `json:"pattern"`
	ExcludePatterns []string `json:"excludePatterns,omitempty"`
}

// GetFileInfoArgs are the arguments of get_file_info.
type GetFileInfoArgs struct {
	Path string `json:"path"`
}

// ListAllowedDirectoriesArgs are the arguments of
// list_allowed_directories: none.
type ListAllowedDirectoriesArgs struct{}

// refOutput is the structured result of every reference tool but
// read_media_file: the text, as the reference server sends it. A refusal
// adds stet's refusal object beside it. Additional properties are allowed,
// so that a client validating results accepts a refusal too.
const refOutput = `{"type":"object","properties":{"content":{"type":"string","description":"the text result, as in the content block"}},"required":["content"]}`

// refMediaOutput is read_media_file's structured result: the content
// blocks, an image or audio block or an embedded resource (a refusal
// carries its text instead).
const refMediaOutput = `{"type":"object","properties":{"content":{"anyOf":[{"type":"string"},{"type":"array","items":{"anyOf":[{"type":"object","properties":{"type":{"type":"string","enum":["image","audio"]},"data":{"type":"string"},"mimeType":{"type":"string"}},"required":["type","data","mimeType"]},{"type":"object","properties":{"type":{"type":"string","const":"resource"},"resource":{"type":"object","properties":{"uri":{"type":"string"},"mimeType":{"type":"string"},"blob":{"type":"string"}},"required":["uri","blob"]}},"required":["type","resource"]}]}}]}},"required":["content"]}`

// Arguments several reference tools share.
var (
	refPath    = param{name: "path", kind: kindString, required: true}
	refExclude = param{name: "excludePatterns", kind: kindStrings, dflt: "[]",
		desc: "Globs of paths (relative to path) to leave out, with everything under a matching directory; a pattern without a slash matches that name at any depth"}
	refReadParams = []param{
		refPath,
		{name: "head", kind: kindInt, min: 1, max: MaxLines, desc: "If provided, returns only the first N lines of the file"},
		{name: "tail", kind: kindInt, min: 1, max: MaxLines, desc: "If provided, returns only the last N lines of the file"},
	}
)

// textEdits is one element of edit_file's edits array.
var textEdits = objectsOf(objects{
	params: []param{
		{name: "oldText", kind: kindString, required: true, desc: "Text to search for - must match exactly, whitespace and line breaks included, and only once"},
		{name: "newText", kind: kindString, required: true, desc: "Text to replace with"},
	},
	shape:   "{oldText, newText}",
	empty:   "give at least one {oldText, newText}.",
	missing: `each edit needs oldText and newText ("" to delete).`,
}, func(e *TextEdit) []any { return []any{&e.OldText, &e.NewText} })

// refCatalog is the reference profile, in the reference server's order.
var refCatalog = []tool{
	refRow(tool{
		name: "read_text_file", title: "Read Text File", base: "read", params: refReadParams,
		desc: "Read a text file and return its contents exactly (no line numbers). Use 'head' for only the first N lines or 'tail' for only the last N lines. " +
			"Reading a file is what allows edit_file, write_file and move_file to change it afterwards: stet changes only files read in this session, as they were read. " +
			"A very large file is returned in part, with a note saying which lines were shown. Only works within allowed directories.",
	}, refOutput, readTextFields, checkHeadTail),

	refRow(tool{
		name: "read_media_file", title: "Read Media File", base: "read", params: []param{refPath},
		desc: "Read a file and return it as a base64-encoded content block with its MIME type (detected from the bytes): image and audio files as image or audio content, any other file as an embedded resource. " +
			"Files over the media size limit are refused with the limit named. Only works within allowed directories.",
	}, refMediaOutput, func(a *ReadMediaFileArgs) []any { return []any{&a.Path} }, nil),

	refRow(tool{
		name: "read_multiple_files", title: "Read Multiple Files", base: "read", example: `"paths": ["a.txt", "b.txt"]`,
		params: []param{
			{name: "paths", kind: kindStrings, required: true, min: 1, desc: "Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories."},
		},
		desc: "Read several text files in one call. Each file's content is returned with its path as a reference, the files separated by '---'; " +
			"a file that cannot be read is reported in its place without stopping the others. Each file read counts as read for later edits. Only works within allowed directories.",
	}, refOutput, func(a *ReadMultipleFilesArgs) []any { return []any{&a.Paths} }, nil),

	refRow(tool{
		name: "write_file", title: "Write File", base: "write",
		params: []param{
			refPath,
			{name: "content", kind: kindString, required: true},
			{name: "overwrite", kind: kindBool, dflt: "false", desc: "stet: replace a file the user's request names even though it looks like an input; only when the user asked for it to be replaced"},
		},
		desc: "Create a new file, or replace an existing file with new content. A new file needs its directory listed first (list_directory); " +
			"an existing file must have been read whole in this session (read_text_file without head or tail) and unchanged since. " +
			"The replaced content is saved in stet's journal (stet undo brings it back). To change part of a file, use edit_file instead. Only works within allowed directories.",
	}, refOutput, func(a *WriteFileArgs) []any { return []any{&a.Path, &a.Content, &a.Overwrite} }, nil),

	refRow(tool{
		name: "edit_file", title: "Edit File", base: "edit",
		params: []param{
			refPath,
			{name: "edits", kind: kindObjects, required: true, elem: textEdits},
			{name: "dryRun", kind: kindBool, dflt: "false", desc: "Preview changes using git-style diff format, without writing"},
		},
		desc: "Replace exact text in a file, edits applied in order, all or none. Returns a git-style diff of the change. " +
			"Read the file with read_text_file first: stet edits only files read in this session and unchanged since. " +
			"oldText must match the file literally (indentation, trailing spaces and line breaks included; no whitespace-tolerant matching) and exactly once; " +
			"when it does not, the refusal shows the nearest lines and what differs. Only works within allowed directories.",
	}, refOutput, func(a *EditFileArgs) []any { return []any{&a.Path, &a.Edits, &a.DryRun} }, nil),

	refRow(tool{
		name: "create_directory", title: "Create Directory", base: "mkdir", params: []param{refPath},
		desc: "Create a directory, with any missing parents. If it already exists, this succeeds and does nothing. Only works within allowed directories.",
	}, refOutput, func(a *CreateDirectoryArgs) []any { return []any{&a.Path} }, nil),

	refRow(tool{
		name: "list_directory", title: "List Directory", base: "list", params: []param{refPath},
		desc: "List the files and directories in a directory, each prefixed [FILE] or [DIR]. Listing a directory allows creating files in it. Only works within allowed directories.",
	}, refOutput, func(a *ListDirectoryArgs) []any { return []any{&a.Path} }, nil),

	refRow(tool{
		name: "list_directory_with_sizes", title: "List Directory with Sizes", base: "list",
		params: []param{
			refPath,
			{name: "sortBy", kind: kindString, dflt: `"name"`, enum: []string{ListSortName, ListSortSize}, desc: "Sort entries by name or size"},
		},
		desc: "List the files and directories in a directory with [FILE]/[DIR] prefixes and file sizes, then the totals. Only works within allowed directories.",
	}, refOutput, func(a *ListDirectoryWithSizesArgs) []any { return []any{&a.Path, &a.SortBy} }, checkSortBy),

	refRow(tool{
		name: "directory_tree", title: "Directory Tree", base: "list", params: []param{refPath, refExclude},
		desc: "Get a recursive tree of files and directories as JSON (2-space indentation): each entry has 'name', 'type' (file or directory), and directories a 'children' array. Only works within allowed directories.",
	}, refOutput, func(a *DirectoryTreeArgs) []any { return []any{&a.Path, &a.ExcludePatterns} }, nil),

	refRow(tool{
		name: "move_file", title: "Move File", base: "move", example: `"source": "a.txt", "destination": "b.txt"`,
		params: []param{
			{name: "source", kind: kindString, required: true},
			{name: "destination", kind: kindString, required: true},
		},
		desc: "Move or rename a file or directory. The destination must not exist. A file must have been read (a directory listed) in this session first. " +
			"Both paths must be within one allowed directory.",
	}, refOutput, func(a *MoveFileArgs) []any { return []any{&a.Source, &a.Destination} }, nil),

	refRow(tool{
		name: "search_files", title: "Search Files", base: "find", example: `"path": ".", "pattern": "*.go"`,
		params: []param{refPath, {name: "pattern", kind: kindString, required: true}, refExclude},
		desc: "Find files whose path (relative to path) matches a glob pattern: '**' crosses directories ('**/*.go'), and a pattern without '/' matches file names at any depth ('*.go'). " +
			"Returns full paths, one a line. Only searches within allowed directories.",
	}, refOutput, func(a *SearchFilesArgs) []any { return []any{&a.Path, &a.Pattern, &a.ExcludePatterns} }, nil),

	refRow(tool{
		name: "get_file_info", title: "Get File Info", base: "info", params: []param{refPath},
		desc: "Get a file's or directory's metadata without reading it: size, modification time, type, permissions, and for a file its line count and version (sha256). Only works within allowed directories.",
	}, refOutput, func(a *GetFileInfoArgs) []any { return []any{&a.Path} }, nil),

	refRow(tool{
		name: "list_allowed_directories", title: "List Allowed Directories", base: "roots",
		desc: "List the directories this server may access (subdirectories included). Relative paths resolve inside them.",
	}, refOutput, func(a *ListAllowedDirectoriesArgs) []any { return nil }, nil),

	refRow(tool{
		name: "read_file", title: "Read File (Deprecated)", base: "read", params: refReadParams,
		desc: "Read the complete contents of a file as text. DEPRECATED: use read_text_file instead.",
	}, refOutput, readTextFields, checkHeadTail),
}

// refRow completes t, a reference tool taking arguments of type A: its
// mutability and annotations are those of the stet tool it is built on
// (t.base), and its result schema is output, as written.
func refRow[A any](t tool, output string, fields func(*A) []any, check func(*A) *ArgError) tool {
	for _, b := range catalog {
		if b.name == t.base {
			t.mutating, t.ann = b.mutating, b.ann
		}
	}
	t = define[A, struct{}](t, fields, check)
	t.output = func() (*jsonschema.Schema, error) {
		var s jsonschema.Schema
		if err := json.Unmarshal([]byte(output), &s); err != nil {
			return nil, err
		}
		return &s, nil
	}
	return t
}

func readTextFields(a *ReadTextFileArgs) []any { return []any{&a.Path, &a.Head, &a.Tail} }

func checkHeadTail(a *ReadTextFileArgs) *ArgError {
	if a.Head > 0 && a.Tail > 0 {
		return invalid("tail", "cannot specify both head and tail; pass one of them.")
	}
	return nil
}

func checkSortBy(a *ListDirectoryWithSizesArgs) *ArgError {
	switch a.SortBy {
	case "", ListSortName, ListSortSize:
		return nil
	}
	return invalid("sortBy", "sortBy must be %q or %q, not %q.", ListSortName, ListSortSize, truncate(a.SortBy))
}
