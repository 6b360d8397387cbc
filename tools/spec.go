package tools

import (
	"encoding/json"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"
)

// Spec describes one tool: its name, the text a model reads, its MCP
// annotations and the JSON Schemas of its arguments and result.
type Spec struct {
	Name  string
	Title string
	// Base is the stet tool that does the work: Name itself for stet's own
	// tools; for a tool of another profile (the reference filesystem
	// server's read_text_file, ...), the stet tool it is built on, whose
	// rules, annotations and mutability it shares.
	Base string
	// Description is written for models: what the tool does, its rules,
	// and how to recover from each refusal it can return.
	Description string
	// Mutating reports whether the tool can change files. Mutating tools
	// are absent in read-only mode.
	Mutating    bool
	Annotations Annotations
	// Input is the schema of the arguments: an object with
	// additionalProperties false, every property described. It has no
	// top-level anyOf/oneOf/allOf, which some model APIs reject; rules that
	// span properties (edit's two forms) are enforced by Decode.
	Input *jsonschema.Schema
	// Output is the schema of the structured result: the tool's result
	// object, or a refusal object {refused, message, ...}. Both forms allow
	// additional properties.
	Output *jsonschema.Schema
}

// Annotations are the MCP tool annotations. All four are always sent, since
// MCP's defaults (destructive, open world) are wrong for most of these tools.
type Annotations struct {
	ReadOnlyHint    bool `json:"readOnlyHint"`
	DestructiveHint bool `json:"destructiveHint"`
	IdempotentHint  bool `json:"idempotentHint"`
	OpenWorldHint   bool `json:"openWorldHint"` // always false: tools touch only the workspace
}

// Refusal kinds: the stable values of a refusal's "refused" field (SPEC
// section 4). They are API: messages may improve, kinds do not change. This
// is their one home; package stet re-exports them as stet.KindInvalid, ...
const (
	KindInvalid    = "invalid"
	KindOutside    = "outside"
	KindNotFound   = "not_found"
	KindNotRegular = "not_regular"
	KindReadOnly   = "read_only"
	KindProtected  = "protected"
	KindNotRead    = "not_read"
	KindChanged    = "changed"
	KindNotSeen    = "not_seen"
	KindInput      = "input"
	KindExists     = "exists"
	KindNoMatch    = "no_match"
	KindAmbiguous  = "ambiguous"
	KindBinary     = "binary"
	KindNotUTF8    = "not_utf8"
	KindTooLarge   = "too_large"
	KindStalled    = "stalled"
	KindConflict   = "conflict"
)

// refusalKinds lists every kind in the order the SPEC lists them.
var refusalKinds = [...]string{
	KindInvalid, KindOutside, KindNotFound, KindNotRegular, KindReadOnly, KindProtected,
	KindNotRead, KindChanged, KindNotSeen, KindInput, KindExists, KindNoMatch, KindAmbiguous,
	KindBinary, KindNotUTF8, KindTooLarge, KindStalled, KindConflict,
}

// RefusalKinds returns every refusal kind, in the order SPEC section 4
// lists them, as a new slice.
func RefusalKinds() []string { return append([]string(nil), refusalKinds[:]...) }

// kind is the JSON type Decode accepts for an argument.
type kind uint8

const (
	kindString kind = iota
	kindInt         // a whole number, 0 or more; integral floats such as 3.0 are accepted
	kindBool
	kindObjects // an array of objects (edit's edits), each read by param.elem
	kindStrings // an array of strings (read's paths, search excludes)
)

// param describes one argument: how Decode reads it and how the schema
// shows it.
type param struct {
	name     string
	kind     kind
	required bool
	desc     string
	dflt     string // the schema's default as JSON, "" for none
	max      int    // for an integer: the largest value accepted (0: no bound beyond int); for an array, its most items
	// min is, for an integer, the minimum its schema states (Decode
	// accepts 0, which stands for an omitted argument); for an array, the
	// least items (0: no bound).
	min  int
	enum []string
	elem *objects // for kindObjects: the keys of one element and how to read it
}

// tool is one entry of the catalog. decode, input and output are built by
// define from the tool's argument and result types.
type tool struct {
	name     string
	title    string
	desc     string
	base     string // the stet tool it is built on; "" for a stet tool itself
	mutating bool
	ann      Annotations
	params   []param
	// example is the arguments a refusal of a non-object shows, the inside
	// of the braces; "" for a path (none for a tool without arguments).
	example  string
	decode   func(raw []byte) (any, error)
	check    func(a any) *ArgError // rule 1 on a decoded *A: bounds, then the tool's own checks
	input    func() (*jsonschema.Schema, error)
	output   func() (*jsonschema.Schema, error) // the result's schema, ready to publish
	outDesc  map[string]string                  // descriptions of the result's properties
	outFiles bool                               // the result may also be {files: [...]} (read with paths)
}

// define completes t for argument type A and result type R. fields returns
// pointers to A's fields in the order of t.params; check applies the
// semantic rules once the JSON types are right. Decode and the argument
// types' Validate methods both run t.check, the one home of rule 1.
func define[A, R any](t tool, fields func(*A) []any, check func(*A) *ArgError) tool {
	params := t.params
	name := t.name
	t.check = func(v any) *ArgError {
		a := v.(*A)
		err := checkBounds(params, fields(a))
		if err == nil && check != nil {
			err = check(a)
		}
		if err != nil {
			err.Tool = name
		}
		return err
	}
	checkArgs := t.check
	example := t.example
	if example == "" && len(params) > 0 {
		example = `"path": "src/main.go"`
	}
	t.decode = func(raw []byte) (any, error) {
		ms, err := topMembers(name, example, raw)
		if err != nil {
			return nil, err
		}
		a := new(A)
		if err := bind(name, "", "", params, fields(a), ms); err != nil {
			return nil, err
		}
		if err := checkArgs(a); err != nil {
			return nil, err
		}
		return a, nil
	}
	t.input = func() (*jsonschema.Schema, error) { return jsonschema.For[A](nil) }
	outDesc, outFiles := t.outDesc, t.outFiles
	t.output = func() (*jsonschema.Schema, error) {
		res, err := jsonschema.For[R](nil)
		if err != nil {
			return nil, err
		}
		return shapeOutput(res, outDesc, outFiles)
	}
	return t
}

var (
	readOnlyAnn    = Annotations{ReadOnlyHint: true}
	destructiveAnn = Annotations{DestructiveHint: true}
)

// catalog holds the tools in SPEC order. It is built once and never
// modified.
var catalog = []tool{
	define[ReadArgs, ReadResult](tool{
		name: "read", title: "Read file", desc: readDesc, ann: readOnlyAnn,
		params: []param{
			{name: "path", kind: kindString, desc: pathDescRead},
			{name: "offset", kind: kindInt, max: MaxLines, dflt: "1", desc: "First line, 1-based: the trailer's `next: offset`."},
			{name: "limit", kind: kindInt, max: MaxLines, desc: "Lines to show (default 2,000)."},
			{name: "tail", kind: kindInt, max: MaxLines, desc: "Show the last N lines instead."},
			{name: "paths", kind: kindStrings, min: 1, max: MaxPaths, desc: "Several files, instead of path."},
		},
		outDesc: map[string]string{
			"path":      "The file read, as the call named it.",
			"version":   "The file's version, `sha256:` and 64 hex digits of its bytes; expected_version takes it.",
			"lines":     "Numbered lines in the whole file.",
			"from":      "First line shown.",
			"to":        "Last line shown.",
			"frame":     "The numbered lines shown and the trailer.",
			"notes":     "Remarks about the file, such as its line endings.",
			"mime_type": "For an image or audio file: its MIME type, sniffed from its bytes; the file comes back as image or audio content and frame is empty.",
			"bytes":     "For an image or audio file: its size in bytes.",
		},
		outFiles: true,
	}, func(a *ReadArgs) []any { return []any{&a.Path, &a.Offset, &a.Limit, &a.Tail, &a.Paths} }, checkRead),

	define[InfoArgs, InfoResult](tool{
		name: "info", title: "File info", desc: infoDesc, ann: readOnlyAnn,
		params: []param{
			{name: "path", kind: kindString, required: true, desc: "File or directory."},
		},
		outDesc: map[string]string{
			"path":    "The path described, as the call named it.",
			"type":    "file, dir or other (symlinks inside the workspace are followed).",
			"size":    "Size in bytes.",
			"lines":   "For a text file, its numbered lines as read shows them; 0 otherwise.",
			"mode":    "Permission bits in octal, such as 0644.",
			"mtime":   "Modification time (RFC 3339); informational, never used for freshness.",
			"version": "For a file, its version (`sha256:` and 64 hex digits), the one edits bind to; empty for a directory.",
			"links":   "Hard link count.",
		},
	}, func(a *InfoArgs) []any { return []any{&a.Path} }, checkPath(func(a *InfoArgs) string { return a.Path })),

	define[RootsArgs, RootsResult](tool{
		name: "roots", title: "Workspace roots", desc: rootsDesc, ann: readOnlyAnn,
		outDesc: map[string]string{
			"roots": "Every root: path (absolute directory) and effects (read-only or workspace-write).",
		},
	}, func(a *RootsArgs) []any { return nil }, nil),

	define[EditArgs, MutationResult](tool{
		name: "edit", title: "Edit file", desc: editDesc, mutating: true, ann: destructiveAnn,
		params: []param{
			{name: "path", kind: kindString, required: true, desc: "File to change."},
			{name: "old_string", kind: kindString, desc: "Exact text to replace, without `NNNNN|` prefixes; once in the file unless replace_all (add lines to make it unique)."},
			{name: "new_string", kind: kindString, desc: "Replacement text."},
			{name: "replace_all", kind: kindBool, desc: "Replace every occurrence."},
			{name: "edits", kind: kindObjects, elem: editOps, min: 1, desc: "Several replacements, in order, all or nothing."},
			{name: "dry_run", kind: kindBool, desc: dryRunDesc},
			{name: "expected_version", kind: kindString, desc: expectedVersionDesc},
		},
		outDesc: mutationOutDesc,
	}, func(a *EditArgs) []any {
		return []any{&a.Path, &a.OldString, &a.NewString, &a.ReplaceAll, &a.Edits, &a.DryRun, &a.ExpectedVersion}
	}, checkEdit),

	define[WriteArgs, MutationResult](tool{
		name: "write", title: "Write file", desc: writeDesc, mutating: true, ann: destructiveAnn,
		params: []param{
			{name: "path", kind: kindString, required: true, desc: "File to create or replace."},
			{name: "content", kind: kindString, required: true, desc: "The complete text, without `NNNNN|` prefixes."},
			{name: "overwrite", kind: kindBool, desc: "Replace the user's input file: only if the user asked for a rewrite."},
			{name: "dry_run", kind: kindBool, desc: dryRunDesc},
			{name: "expected_version", kind: kindString, desc: expectedVersionDesc},
		},
		outDesc: mutationOutDesc,
	}, func(a *WriteArgs) []any {
		return []any{&a.Path, &a.Content, &a.Overwrite, &a.DryRun, &a.ExpectedVersion}
	}, checkWrite),

	define[PatchArgs, PatchResult](tool{
		name: "patch", title: "Apply patch", desc: patchDesc, mutating: true, ann: destructiveAnn,
		example: `"patch": "*** Begin Patch\n..."`,
		params: []param{
			{name: "patch", kind: kindString, required: true, desc: "The patch text."},
			{name: "dry_run", kind: kindBool, desc: dryRunDesc},
		},
		outDesc: map[string]string{
			"message":  "What changed, file by file, with any warning about replaced or deleted files.",
			"receipts": "One receipt per file changed.",
			"diff":     "Unified diff of all changes.",
		},
	}, func(a *PatchArgs) []any { return []any{&a.Patch, &a.DryRun} }, checkPatch),

	define[ListArgs, ListResult](tool{
		name: "list", title: "List directory", desc: listDesc, ann: readOnlyAnn, example: `"path": "src"`,
		params: []param{
			{name: "path", kind: kindString, desc: "Directory (default: the root)."},
			{name: "depth", kind: kindInt, max: MaxDepth, dflt: "1", desc: "Levels to descend (default 1)."},
			{name: "exclude", kind: kindStrings, desc: excludeDesc},
			{name: "sort", kind: kindString, dflt: `"name"`, enum: []string{ListSortName, ListSortSize}, desc: "`size`: largest first."},
			{name: "no_ignore", kind: kindBool, desc: noIgnoreDesc},
			{name: "limit", kind: kindInt, max: MaxResults, desc: limitDesc},
		},
		outDesc: map[string]string{
			"path":      "The directory listed.",
			"entries":   "Entries with name (relative to the listed directory), type (file, dir, symlink or other) and size in bytes.",
			"truncated": "True when more entries exist than were returned.",
			"notes":     "Unreadable dirs skipped.",
		},
	}, func(a *ListArgs) []any { return []any{&a.Path, &a.Depth, &a.Exclude, &a.Sort, &a.NoIgnore, &a.Limit} }, checkList),

	define[FindArgs, FindResult](tool{
		name: "find", title: "Find files", desc: findDesc, ann: readOnlyAnn, example: `"pattern": "..."`,
		params: []param{
			{name: "pattern", kind: kindString, required: true, desc: "Glob, e.g. `**/*.go`."},
			{name: "path", kind: kindString, desc: "Directory (default: the root)."},
			{name: "exclude", kind: kindStrings, desc: excludeDesc},
			{name: "no_ignore", kind: kindBool, desc: noIgnoreDesc},
			{name: "limit", kind: kindInt, max: MaxResults, desc: limitDesc},
		},
		outDesc: map[string]string{
			"paths":     "Matching paths.",
			"truncated": "True when more paths matched than were returned.",
			"notes":     "Unreadable dirs skipped.",
		},
	}, func(a *FindArgs) []any { return []any{&a.Pattern, &a.Path, &a.Exclude, &a.NoIgnore, &a.Limit} }, checkFind),

	define[GrepArgs, GrepResult](tool{
		name: "grep", title: "Search file contents", desc: grepDesc, ann: readOnlyAnn, example: `"pattern": "..."`,
		params: []param{
			{name: "pattern", kind: kindString, required: true, desc: "RE2 regular expression (literal with fixed_strings)."},
			{name: "path", kind: kindString, desc: "File or directory (default: the root)."},
			{name: "glob", kind: kindString, desc: "Only paths matching this glob."},
			{name: "type", kind: kindString, desc: "Only files of this type (go, py, ts, ...)."},
			{name: "ignore_case", kind: kindBool, desc: "Case-insensitive."},
			{name: "fixed_strings", kind: kindBool, desc: "Pattern is literal text."},
			{name: "word", kind: kindBool, desc: "Whole words only."},
			{name: "multiline", kind: kindBool, desc: "A match may span lines."},
			{name: "output_mode", kind: kindString, dflt: `"content"`, enum: []string{GrepContent, GrepFilesWithMatches, GrepCount}, desc: "Rows, paths, or counts per file."},
			{name: "before", kind: kindInt, max: MaxContext, desc: "Lines before each match."},
			{name: "after", kind: kindInt, max: MaxContext, desc: "Lines after each match."},
			{name: "context", kind: kindInt, max: MaxContext, desc: "Lines around each match."},
			{name: "offset", kind: kindInt, max: MaxResults, desc: "Results to skip, to page."},
			{name: "limit", kind: kindInt, max: MaxResults, desc: "Maximum results (default 200 rows, 1,000 files)."},
			{name: "exclude", kind: kindStrings, desc: excludeDesc},
			{name: "no_ignore", kind: kindBool, desc: noIgnoreDesc},
		},
		outDesc: map[string]string{
			"matches":   "content mode: rows of path, line number and the line's text, for matches and context lines (context: true).",
			"paths":     "files_with_matches mode: the paths of files with a match.",
			"counts":    "count mode: path and number of matching lines of each file with a match.",
			"truncated": "True when more results exist than were returned.",
			"notes":     "Unreadable dirs skipped.",
		},
	}, func(a *GrepArgs) []any {
		return []any{&a.Pattern, &a.Path, &a.Glob, &a.Type, &a.IgnoreCase, &a.FixedStrings, &a.Word, &a.Multiline,
			&a.OutputMode, &a.Before, &a.After, &a.Context, &a.Offset, &a.Limit, &a.Exclude, &a.NoIgnore}
	}, checkGrep),

	define[MkdirArgs, MkdirResult](tool{
		name: "mkdir", title: "Make directory", desc: mkdirDesc, mutating: true,
		ann: Annotations{IdempotentHint: true},
		params: []param{
			{name: "path", kind: kindString, required: true, desc: "Directory to create."},
		},
		outDesc: map[string]string{
			"message": "What was created.",
			"path":    "The directory.",
		},
	}, func(a *MkdirArgs) []any { return []any{&a.Path} }, checkPath(func(a *MkdirArgs) string { return a.Path })),

	define[MoveArgs, MutationResult](tool{
		name: "move", title: "Move file", desc: moveDesc, mutating: true, ann: destructiveAnn,
		example: `"from": "a.txt", "to": "b.txt"`,
		params: []param{
			{name: "from", kind: kindString, required: true, desc: "File to move."},
			{name: "to", kind: kindString, required: true, desc: "New path."},
			{name: "overwrite", kind: kindBool, desc: "Replace a file at to."},
		},
		outDesc: mutationOutDesc,
	}, func(a *MoveArgs) []any { return []any{&a.From, &a.To, &a.Overwrite} }, checkMove),

	define[DeleteArgs, MutationResult](tool{
		name: "delete", title: "Delete file", desc: deleteDesc, mutating: true, ann: destructiveAnn,
		params: []param{
			{name: "path", kind: kindString, required: true, desc: "File to delete."},
		},
		outDesc: mutationOutDesc,
	}, func(a *DeleteArgs) []any { return []any{&a.Path} }, checkPath(func(a *DeleteArgs) string { return a.Path })),

	define[UndoArgs, MutationResult](tool{
		name: "undo", title: "Undo last change", desc: undoDesc, mutating: true, ann: destructiveAnn,
		params: []param{
			{name: "path", kind: kindString, required: true, desc: "File to revert."},
		},
		outDesc: mutationOutDesc,
	}, func(a *UndoArgs) []any { return []any{&a.Path} }, checkPath(func(a *UndoArgs) string { return a.Path })),
}

// editOps is one element of edit's edits array.
var editOps = objectsOf(objects{
	params: []param{
		{name: "old_string", kind: kindString, required: true, desc: "Exact text to replace, as the edits before left the file."},
		{name: "new_string", kind: kindString, required: true, desc: "Replacement text."},
		{name: "replace_all", kind: kindBool, desc: "Replace every occurrence."},
	},
	shape:   "{old_string, new_string, replace_all?}",
	empty:   "give at least one {old_string, new_string}, or leave edits out and pass old_string and new_string.",
	missing: `each edit needs old_string and new_string ("" to delete).`,
}, func(op *EditOp) []any { return []any{&op.OldString, &op.NewString, &op.ReplaceAll} })

var mutationOutDesc = map[string]string{
	"message": "What changed, for the model; warns when a user's file was replaced or deleted (its previous bytes are saved and undo brings them back).",
	"receipt": "The record of the change: versions and sizes before and after, and every changed byte region.",
	"diff":    "Unified diff of the change.",
}

var receiptDesc = map[string]string{
	"id":       "Receipt id; stet show prints it with its diff.",
	"session":  "The session that made the change.",
	"tool":     "The tool that made it.",
	"path":     "The file changed (for a move, the new path).",
	"from":     "For a move, the old path.",
	"before":   "The file before: version, bytes, lines and mode (octal, such as 0644 or 4755); null when the call created it.",
	"after":    "The file after: version, bytes, lines and mode (octal); null when the call deleted it.",
	"matches":  "Changed regions: byte offset and line in the old file, old and new length in bytes.",
	"eol":      "Line endings: lf, crlf, crlf-adapted (old_string matched after LF to CRLF), mixed or none.",
	"verified": "True when the file was read back and matched the receipt.",
	"dry_run":  "True when nothing was written.",
	"notes":    "Remarks, such as hard links that kept the old bytes.",
	"time":     "When the change was made (RFC 3339).",
}

func describeReceipt(s *jsonschema.Schema) error {
	if s == nil {
		return fmt.Errorf("receipt schema missing")
	}
	return describeProps(s, receiptDesc)
}

// spec builds t's Spec. nameOrder is the profile's (see Profile).
func (t *tool) spec(nameOrder bool) (Spec, error) {
	in, err := t.input()
	if err != nil {
		return Spec{}, err
	}
	if err := tuneInput(in, t.params, nameOrder); err != nil {
		return Spec{}, err
	}
	out, err := t.output()
	if err != nil {
		return Spec{}, err
	}
	base := t.base
	if base == "" {
		base = t.name
	}
	return Spec{
		Name:        t.name,
		Title:       t.title,
		Description: t.desc,
		Base:        base,
		Mutating:    t.mutating,
		Annotations: t.ann,
		Input:       in,
		Output:      out,
	}, nil
}

// shapeOutput makes the published result schema of a stet tool from the
// schema inferred from its result type res: every property described
// (outDesc, and the receipt's), then slimmed, and accepting a refusal too
// (and read's several-files form when files).
func shapeOutput(res *jsonschema.Schema, outDesc map[string]string, files bool) (*jsonschema.Schema, error) {
	if err := describeProps(res, outDesc); err != nil {
		return nil, err
	}
	var err error
	if r := res.Properties["receipt"]; r != nil {
		err = describeReceipt(r)
	} else if r := res.Properties["receipts"]; r != nil {
		err = describeReceipt(r.Items)
	}
	if err != nil {
		return nil, err
	}
	slim(res)
	out := outputSchema(res)
	if files {
		out = filesOutput(out)
	}
	return out, nil
}

// tuneInput replaces the inferred property schemas of s with the ones the
// params describe: one JSON type (no null), description, default, bounds
// (an integer's minimum, an array's least and most items), and the
// required list Decode enforces. The properties are listed in the order of
// params, or in name order (with an empty properties object when there are
// none) when nameOrder.
func tuneInput(s *jsonschema.Schema, params []param, nameOrder bool) error {
	if len(s.Properties) != len(params) {
		return fmt.Errorf("%d properties inferred, %d described", len(s.Properties), len(params))
	}
	s.Required = nil
	s.PropertyOrder = nil
	for _, p := range params {
		ps, ok := s.Properties[p.name]
		if !ok {
			return fmt.Errorf("argument %q is not a field of the argument type", p.name)
		}
		ps.Types = nil
		ps.Type = schemaType(p.kind)
		ps.Description = p.desc
		if len(p.enum) > 0 {
			for _, e := range p.enum {
				ps.Enum = append(ps.Enum, e)
			}
		}
		// Upper bounds of integers are Decode's, and its refusal names
		// them.
		if p.dflt != "" {
			ps.Default = json.RawMessage(p.dflt)
		}
		switch p.kind {
		case kindInt:
			ps.Minimum = jsonschema.Ptr(float64(p.min))
		case kindStrings:
			ps.Items = &jsonschema.Schema{Type: "string"}
		case kindObjects:
			if ps.Items == nil {
				return fmt.Errorf("argument %q has no item schema", p.name)
			}
			if err := tuneInput(ps.Items, p.elem.params, nameOrder); err != nil {
				return fmt.Errorf("%s items: %w", p.name, err)
			}
		}
		if p.kind == kindStrings || p.kind == kindObjects {
			if p.min > 0 {
				ps.MinItems = jsonschema.Ptr(p.min)
			}
			if p.max > 0 {
				ps.MaxItems = jsonschema.Ptr(p.max)
			}
		}
		if p.required {
			s.Required = append(s.Required, p.name)
		}
		if !nameOrder {
			s.PropertyOrder = append(s.PropertyOrder, p.name)
		}
	}
	if nameOrder && s.Properties == nil {
		s.Properties = map[string]*jsonschema.Schema{}
	}
	s.AdditionalProperties = &jsonschema.Schema{Not: &jsonschema.Schema{}}
	return nil
}

func schemaType(k kind) string {
	switch k {
	case kindInt:
		return "integer"
	case kindBool:
		return "boolean"
	case kindObjects, kindStrings:
		return "array"
	default:
		return "string"
	}
}

// describeProps sets the descriptions of s's top-level properties; every
// property must be described.
func describeProps(s *jsonschema.Schema, desc map[string]string) error {
	for name, ps := range s.Properties {
		d, ok := desc[name]
		if !ok {
			return fmt.Errorf("result property %q has no description", name)
		}
		ps.Description = d
	}
	for name := range desc {
		if _, ok := s.Properties[name]; !ok {
			return fmt.Errorf("description for unknown result property %q", name)
		}
	}
	return nil
}

// slim reduces the result schema s to what a client validates: each
// top-level property's JSON type (an array's item type) and the required
// list. The descriptions and nested shapes stay in SPEC section 2 and the
// docs: every byte of an output schema is in every tools/list a client
// takes into its context, and a model reads the result itself, not its
// schema.
func slim(s *jsonschema.Schema) {
	s.Type, s.Description = "", "" // the anyOf around it says object
	s.PropertyOrder = nil
	for _, p := range s.Properties {
		p.Description = ""
		p.Properties = nil
		p.PropertyOrder = nil
		p.Required = nil
		p.AdditionalProperties = nil
		if p.Items != nil {
			p.Items = &jsonschema.Schema{Type: p.Items.Type, Types: p.Items.Types}
		}
	}
}

// outputSchema accepts either the result r or a refusal. Both branches allow
// additional properties, so a server may add fields (or refusal details)
// without breaking clients that validate structured content.
func outputSchema(r *jsonschema.Schema) *jsonschema.Schema {
	permit(r)
	refusal := &jsonschema.Schema{
		Properties: map[string]*jsonschema.Schema{
			"refused": {Type: "string"}, // one of RefusalKinds: SPEC section 4 lists them
			"message": {Type: "string"},
		},
		PropertyOrder: []string{"refused", "message"},
		Required:      []string{"refused", "message"},
	}
	return &jsonschema.Schema{
		Type:  "object",
		AnyOf: []*jsonschema.Schema{r, refusal},
	}
}

// filesOutput adds read's several-files form to its output schema o (an
// anyOf of the result and a refusal): {files: [...]}, each element one of
// o's branches.
func filesOutput(o *jsonschema.Schema) *jsonschema.Schema {
	files := &jsonschema.Schema{
		Properties: map[string]*jsonschema.Schema{
			"files": {Type: "array", Items: &jsonschema.Schema{Type: "object"}},
		},
		Required: []string{"files"},
	}
	o.AnyOf = append(o.AnyOf[:1], files, o.AnyOf[1])
	return o
}

// permit removes the additionalProperties: false that inference puts on
// every struct.
func permit(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	s.AdditionalProperties = nil
	for _, p := range s.Properties {
		permit(p)
	}
	permit(s.Items)
}
