package tools

import (
	"encoding/json"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// refOrder is the reference server's order of its tools.
var refOrder = []string{"read_text_file", "read_media_file", "read_multiple_files", "write_file", "edit_file",
	"create_directory", "list_directory", "list_directory_with_sizes", "directory_tree", "move_file",
	"search_files", "get_file_info", "list_allowed_directories", "read_file"}

// TestReferenceCatalog: the reference profile's tools in the reference
// server's order, each built on a stet tool whose mutability and
// annotations it shares, each with its own argument type (read_file is
// read_text_file under its deprecated name).
func TestReferenceCatalog(t *testing.T) {
	if diff := cmp.Diff(refOrder, Reference.Names(false)); diff != "" {
		t.Errorf("Reference.Names(false) (-want +got):\n%s", diff)
	}
	var names []string
	types := map[reflect.Type]string{}
	for _, s := range Reference.All() {
		names = append(names, s.Name)
		b, ok := Lookup(s.Base)
		if !ok {
			t.Errorf("%s is built on %q, which is not a stet tool", s.Name, s.Base)
			continue
		}
		if s.Mutating != b.Mutating || s.Annotations != b.Annotations {
			t.Errorf("%s: mutating %v, annotations %+v; its base %s has %v, %+v", s.Name, s.Mutating, s.Annotations, b.Name, b.Mutating, b.Annotations)
		}
		if base, _ := Reference.Base(s.Name); base != s.Base {
			t.Errorf("Reference.Base(%s) = %q, its Spec says %q", s.Name, base, s.Base)
		}
		if s.Title == "" || s.Description == "" || s.Input == nil || s.Output == nil {
			t.Errorf("%s: incomplete spec %+v", s.Name, s)
		}
		v, err := Reference.Decode(s.Name, []byte(refValidArgs[s.Name]))
		if err != nil {
			t.Errorf("Decode(%s, %s): %v", s.Name, refValidArgs[s.Name], err)
			continue
		}
		typ := reflect.TypeOf(v)
		if other, ok := types[typ]; ok && !(other == "read_text_file" && s.Name == "read_file") {
			t.Errorf("%s and %s decode to the same type %v", other, s.Name, typ)
		}
		types[typ] = s.Name
	}
	if diff := cmp.Diff(refOrder, names); diff != "" {
		t.Errorf("Reference.All() order (-want +got):\n%s", diff)
	}
	want := slices.DeleteFunc(slices.Clone(refOrder), func(n string) bool {
		return n == "write_file" || n == "edit_file" || n == "create_directory" || n == "move_file"
	})
	if diff := cmp.Diff(want, Reference.Names(true)); diff != "" {
		t.Errorf("Reference.Names(true) (-want +got):\n%s", diff)
	}
	for _, name := range []string{"read", "cat"} {
		if _, ok := Reference.Lookup(name); ok {
			t.Errorf("Reference.Lookup(%q) found a tool", name)
		}
		if _, err := Reference.Decode(name, nil); !errors.Is(err, ErrUnknownTool) {
			t.Errorf("Reference.Decode(%q) = %v, want ErrUnknownTool", name, err)
		}
	}
	if Stet.Name() != "stet" || Reference.Name() != "reference" {
		t.Errorf("profile names %q, %q", Stet.Name(), Reference.Name())
	}
}

// refValidArgs holds one valid call per reference tool, using every
// argument.
var refValidArgs = map[string]string{
	"read_text_file":            `{"path":"a.txt","head":2}`,
	"read_media_file":           `{"path":"a.png"}`,
	"read_multiple_files":       `{"paths":["a.txt","b.txt"]}`,
	"write_file":                `{"path":"a.txt","content":"x\n","overwrite":true}`,
	"edit_file":                 `{"path":"a.txt","edits":[{"oldText":"x","newText":"y"}],"dryRun":true}`,
	"create_directory":          `{"path":"d"}`,
	"list_directory":            `{"path":"."}`,
	"list_directory_with_sizes": `{"path":".","sortBy":"size"}`,
	"directory_tree":            `{"path":".","excludePatterns":["*.go"]}`,
	"move_file":                 `{"source":"a.txt","destination":"b.txt"}`,
	"search_files":              `{"path":".","pattern":"*.go","excludePatterns":["vendor"]}`,
	"get_file_info":             `{"path":"a.txt"}`,
	"list_allowed_directories":  `{}`,
	"read_file":                 `{"path":"a.txt","tail":1}`,
}

// TestReferenceSchemas pins the reference tools' input schemas to the
// bytes the reference profile has always published (the reference
// server's schemas, properties in name order), so that the schemas built
// from the rows cannot drift from them.
func TestReferenceSchemas(t *testing.T) {
	const (
		pathOnly = `{"type":"object","properties":{"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`
		read     = `{"type":"object","properties":{"head":{"type":"integer","description":"If provided, returns only the first N lines of the file","minimum":1},"path":{"type":"string"},"tail":{"type":"integer","description":"If provided, returns only the last N lines of the file","minimum":1}},"required":["path"],"additionalProperties":false}`
		exclude  = `"excludePatterns":{"type":"array","items":{"type":"string"},"description":"Globs of paths (relative to path) to leave out, with everything under a matching directory; a pattern without a slash matches that name at any depth","default":[]}`
	)
	want := map[string]string{
		"read_text_file":            read,
		"read_media_file":           pathOnly,
		"read_multiple_files":       `{"type":"object","properties":{"paths":{"type":"array","items":{"type":"string"},"description":"Array of file paths to read. Each path must be a string pointing to a valid file within allowed directories.","minItems":1}},"required":["paths"],"additionalProperties":false}`,
		"write_file":                `{"type":"object","properties":{"content":{"type":"string"},"overwrite":{"type":"boolean","description":"stet: replace a file the user's request names even though it looks like an input; only when the user asked for it to be replaced","default":false},"path":{"type":"string"}},"required":["path","content"],"additionalProperties":false}`,
		"edit_file":                 `{"type":"object","properties":{"dryRun":{"type":"boolean","description":"Preview changes using git-style diff format, without writing","default":false},"edits":{"type":"array","items":{"type":"object","properties":{"newText":{"type":"string","description":"Text to replace with"},"oldText":{"type":"string","description":"Text to search for - must match exactly, whitespace and line breaks included, and only once"}},"required":["oldText","newText"],"additionalProperties":false}},"path":{"type":"string"}},"required":["path","edits"],"additionalProperties":false}`,
		"create_directory":          pathOnly,
		"list_directory":            pathOnly,
		"list_directory_with_sizes": `{"type":"object","properties":{"path":{"type":"string"},"sortBy":{"type":"string","description":"Sort entries by name or size","default":"name","enum":["name","size"]}},"required":["path"],"additionalProperties":false}`,
		"directory_tree":            `{"type":"object","properties":{` + exclude + `,"path":{"type":"string"}},"required":["path"],"additionalProperties":false}`,
		"move_file":                 `{"type":"object","properties":{"destination":{"type":"string"},"source":{"type":"string"}},"required":["source","destination"],"additionalProperties":false}`,
		"search_files":              `{"type":"object","properties":{` + exclude + `,"path":{"type":"string"},"pattern":{"type":"string"}},"required":["path","pattern"],"additionalProperties":false}`,
		"get_file_info":             pathOnly,
		"list_allowed_directories":  `{"type":"object","properties":{},"additionalProperties":false}`,
		"read_file":                 read,
	}
	for _, s := range Reference.All() {
		got, err := json.Marshal(s.Input)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != want[s.Name] {
			t.Errorf("%s input schema:\n got %s\nwant %s", s.Name, got, want[s.Name])
		}
		if err := validate(resolve(t, s.Input), refValidArgs[s.Name]); err != nil {
			t.Errorf("%s: its schema refuses %s: %v", s.Name, refValidArgs[s.Name], err)
		}
	}
}

// TestReferenceDecode: the reference tools' arguments are decoded by the
// decoder of stet's own tools, so they are refused alike, in its words.
func TestReferenceDecode(t *testing.T) {
	accepts := []struct {
		tool, raw string
		want      any
	}{
		{"read_text_file", `{"path":"a","head":3.0,"tail":null}`, &ReadTextFileArgs{Path: "a", Head: 3}},
		{"read_text_file", `{"path":"a","head":0,"tail":2}`, &ReadTextFileArgs{Path: "a", Tail: 2}},
		{"edit_file", `{"path":"a","edits":[{"oldText":"x","newText":""}]}`, &EditFileArgs{Path: "a", Edits: []TextEdit{{OldText: "x"}}}},
		{"list_allowed_directories", ``, &ListAllowedDirectoriesArgs{}},
		{"search_files", `{"path":".","pattern":"*.go"}`, &SearchFilesArgs{Path: ".", Pattern: "*.go"}},
	}
	for _, tt := range accepts {
		got, err := Reference.Decode(tt.tool, []byte(tt.raw))
		if err != nil {
			t.Errorf("Decode(%s, %s): %v", tt.tool, tt.raw, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Decode(%s, %s) (-want +got):\n%s", tt.tool, tt.raw, diff)
		}
	}
	refuses := []struct {
		tool, raw, field, suggest, msg string
	}{
		{"read_text_file", `{"path":"a","heda":1}`, "heda", "head", `read_text_file: unknown argument "heda"; did you mean "head"?`},
		{"read_text_file", `{"path":"a","zzzz":1}`, "zzzz", "", `read_text_file: unknown argument "zzzz". read_text_file accepts path, head, tail.`},
		{"read_text_file", `{"path":"a","head":1,"tail":1}`, "tail", "", "read_text_file: cannot specify both head and tail; pass one of them."},
		{"read_text_file", `{"path":"a","head":-1}`, "head", "", "read_text_file: head must be 0 or more, got -1."},
		{"read_text_file", `{"path":"a","head":"2"}`, "head", "", "read_text_file: head must be an integer, not a string: send 2 without quotes."},
		{"read_text_file", `{"head":2}`, "path", "", `read_text_file: missing required argument "path".`},
		{"read_text_file", `{"path":"a","path":"b"}`, "path", "", "read_text_file: path appears more than once; send each argument once."},
		{"read_multiple_files", `{"paths":"a"}`, "paths", "", `read_multiple_files: paths must be an array of strings, not a string. Send ["a.txt", "b.txt"], even for one path.`},
		{"read_multiple_files", `"a"`, "", "", `read_multiple_files: the arguments must be a JSON object such as {"paths": ["a.txt", "b.txt"]}, not a string.`},
		{"write_file", `{"path":"a"}`, "content", "", `write_file: missing required argument "content": the complete text of the file ("" for an empty file).`},
		{"edit_file", `{"path":"a","edits":[]}`, "edits", "", "edit_file: edits is empty; give at least one {oldText, newText}."},
		{"edit_file", `{"path":"a","edits":[{"oldText":"x"}]}`, "edits[0].newText", "", `edit_file: edits[0] is missing "newText"; each edit needs oldText and newText ("" to delete).`},
		{"edit_file", `{"path":"a","edits":[{"old_text":"x","newText":"y"}]}`, "edits[0].old_text", "oldText", `edit_file: unknown key "old_text" in edits[0]; did you mean "oldText"?`},
		{"edit_file", `{"path":"a","edits":[{"old_string":"x","newText":"y"}]}`, "edits[0].old_string", "", `edit_file: unknown key "old_string" in edits[0]. Each element of edits takes oldText, newText.`},
		{"edit_file", `{"path":"a","edits":{"oldText":"x","newText":"y"}}`, "edits", "", "edit_file: edits must be an array of {oldText, newText} objects, not an object."},
		{"list_directory", `{"path":".","depth":2}`, "depth", "", `list_directory: unknown argument "depth". list_directory accepts path.`},
		{"list_directory_with_sizes", `{"path":".","sortBy":"mtime"}`, "sortBy", "", `list_directory_with_sizes: sortBy must be "name" or "size", not "mtime".`},
		{"move_file", `{"source":"a","to":"b"}`, "to", "", `move_file: unknown argument "to". move_file accepts source, destination.`},
		{"list_allowed_directories", `[]`, "", "", "list_allowed_directories: the arguments must be a JSON object such as {}, not an array."},
	}
	for _, tt := range refuses {
		_, err := Reference.Decode(tt.tool, []byte(tt.raw))
		var ae *ArgError
		if !errors.As(err, &ae) || !errors.Is(err, ErrInvalid) {
			t.Errorf("Decode(%s, %s) = %v, want an *ArgError", tt.tool, tt.raw, err)
			continue
		}
		if ae.Tool != tt.tool || ae.Field != tt.field || ae.Suggest != tt.suggest || err.Error() != tt.msg {
			t.Errorf("Decode(%s, %s) = %q (field %q, suggest %q)\nwant %q (field %q, suggest %q)",
				tt.tool, tt.raw, err.Error(), ae.Field, ae.Suggest, tt.msg, tt.field, tt.suggest)
		}
		if !strings.HasSuffix(tt.msg, ".") && !strings.HasSuffix(tt.msg, "?") {
			t.Errorf("%q is not a sentence", tt.msg)
		}
	}
}
