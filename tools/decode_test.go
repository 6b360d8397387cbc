package tools

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func ptr(s string) *string { return &s }

const version = "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

func TestDecodeAccepts(t *testing.T) {
	tests := []struct {
		tool string
		raw  string
		want any
	}{
		{"read", `{"path":"a.go"}`, &ReadArgs{Path: "a.go"}},
		{"read", `{"path":"a.go","offset":10,"limit":20}`, &ReadArgs{Path: "a.go", Offset: 10, Limit: 20}},
		{"read", ` { "path" : "a.go" , "offset" : 3.0 } `, &ReadArgs{Path: "a.go", Offset: 3}},
		{"read", `{"path":"a.go","offset":1e2}`, &ReadArgs{Path: "a.go", Offset: 100}},
		{"read", `{"path":"a.go","offset":null,"limit":0}`, &ReadArgs{Path: "a.go"}},
		{"read", `{"path":"caf\u00e9\n.go"}`, &ReadArgs{Path: "café\n.go"}},
		{"read", `{"\u0070ath":"a.go"}`, &ReadArgs{Path: "a.go"}}, // an escaped key is the same key
		{"edit", `{"path":"a","old_string":"x","new_string":"y"}`,
			&EditArgs{Path: "a", OldString: ptr("x"), NewString: ptr("y")}},
		{"edit", `{"path":"a","old_string":"x","new_string":"","replace_all":true,"dry_run":true}`,
			&EditArgs{Path: "a", OldString: ptr("x"), NewString: ptr(""), ReplaceAll: true, DryRun: true}},
		{"edit", `{"path":"a","edits":[{"old_string":"x","new_string":"y"},{"old_string":"p","new_string":"","replace_all":true}]}`,
			&EditArgs{Path: "a", Edits: []EditOp{{OldString: "x", NewString: "y"}, {OldString: "p", ReplaceAll: true}}}},
		{"edit", `{"path":"a","edits":[{"old_string":"x","new_string":"y"}],"old_string":null,"replace_all":false}`,
			&EditArgs{Path: "a", Edits: []EditOp{{OldString: "x", NewString: "y"}}}},
		{"edit", `{"path":"a","old_string":"x","new_string":"y","expected_version":"` + version + `"}`,
			&EditArgs{Path: "a", OldString: ptr("x"), NewString: ptr("y"), ExpectedVersion: version}},
		{"read", `{"path":"a","offset":1000000000,"limit":1000000000}`, &ReadArgs{Path: "a", Offset: MaxLines, Limit: MaxLines}},
		{"write", `{"path":"a","content":""}`, &WriteArgs{Path: "a"}},
		{"write", `{"path":"a","content":"l1\nl2\n","overwrite":true,"expected_version":"` + version + `"}`,
			&WriteArgs{Path: "a", Content: "l1\nl2\n", Overwrite: true, ExpectedVersion: version}},
		{"patch", `{"patch":"*** Begin Patch\n*** End Patch\n","dry_run":false}`, &PatchArgs{Patch: "*** Begin Patch\n*** End Patch\n"}},
		{"list", ``, &ListArgs{}},
		{"list", `null`, &ListArgs{}},
		{"list", `{}`, &ListArgs{}},
		{"list", `{"path":"src","depth":2,"limit":50}`, &ListArgs{Path: "src", Depth: 2, Limit: 50}},
		{"list", `{"path":"src","sort":"size"}`, &ListArgs{Path: "src", Sort: "size"}},
		{"find", `{"pattern":"**/*.go","path":"cmd"}`, &FindArgs{Pattern: "**/*.go", Path: "cmd"}},
		{"grep", `{"pattern":"(?i)todo","glob":"*.go","context":2}`, &GrepArgs{Pattern: "(?i)todo", Glob: "*.go", Context: 2}},
		{"mkdir", `{"path":"a/b/c"}`, &MkdirArgs{Path: "a/b/c"}},
		{"move", `{"from":"a","to":"b","overwrite":true}`, &MoveArgs{From: "a", To: "b", Overwrite: true}},
		{"delete", `{"path":"a"}`, &DeleteArgs{Path: "a"}},
		{"undo", `{"path":"a"}`, &UndoArgs{Path: "a"}},
	}
	for _, tt := range tests {
		got, err := Decode(tt.tool, []byte(tt.raw))
		if err != nil {
			t.Errorf("Decode(%s, %s): %v", tt.tool, tt.raw, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("Decode(%s, %s) mismatch (-want +got):\n%s", tt.tool, tt.raw, diff)
		}
	}
}

func TestDecodeRefuses(t *testing.T) {
	tests := []struct {
		name    string
		tool    string
		raw     string
		field   string
		suggest string
		msg     string // the whole message when it starts with "=", else a substring
	}{
		// Unknown keys, with the key probably meant.
		{"old_str", "edit", `{"path":"a","old_str":"x","new_string":"y"}`, "old_str", "old_string",
			`=edit: unknown argument "old_str"; did you mean "old_string"?`},
		{"file_path alias", "read", `{"file_path":"a"}`, "file_path", "path", `did you mean "path"?`},
		{"camelCase", "edit", `{"path":"a","oldString":"x","newString":"y"}`, "oldString", "old_string",
			`unknown arguments: "oldString" (did you mean "old_string"?), "newString" (did you mean "new_string"?). edit accepts path, old_string`},
		{"case differs", "read", `{"Path":"a"}`, "Path", "path", `unknown argument "Path"; did you mean "path"?`},
		{"no suggestion", "read", `{"path":"a","zzzz":1}`, "zzzz", "",
			`=read: unknown argument "zzzz". read accepts path, offset, limit, tail, paths.`},
		{"unknown in edits", "edit", `{"path":"a","edits":[{"old_string":"x","new_string":"y"},{"old":"x","new_string":"y"}]}`,
			"edits[1].old", "old_string", `unknown key "old" in edits[1]; did you mean "old_string"?`},
		{"repeated key", "read", `{"path":"a","path":"b"}`, "path", "", "path appears more than once"},

		// Wrong JSON types.
		{"offset string", "read", `{"path":"a","offset":"x"}`, "offset", "", "=read: offset must be an integer, not a string."},
		{"offset quoted number", "read", `{"path":"a","offset":"10"}`, "offset", "", "send 10 without quotes"},
		{"offset fraction", "read", `{"path":"a","offset":2.5}`, "offset", "", "offset must be a whole number, got 2.5."},
		{"offset huge", "read", `{"path":"a","limit":1e300}`, "limit", "", "limit must be an integer of reasonable size"},
		{"path number", "read", `{"path":12}`, "path", "", "path must be a string, not a number."},
		{"flag string", "write", `{"path":"a","content":"","overwrite":"true"}`, "overwrite", "", "send true without quotes"},
		{"flag number", "write", `{"path":"a","content":"","dry_run":1}`, "dry_run", "", "dry_run must be true or false, not a number."},
		{"edits string", "edit", `{"path":"a","edits":"[{\"old_string\":\"x\"}]"}`, "edits", "", "not JSON text inside a string"},
		{"edits element", "edit", `{"path":"a","edits":[{"old_string":"x","new_string":"y"},"z"]}`, "edits[1]", "", "edits[1] must be an object"},
		{"edits element type", "edit", `{"path":"a","edits":[{"old_string":1,"new_string":"y"}]}`, "edits[0].old_string", "", "edits[0].old_string must be a string"},
		{"not an object", "read", `["a"]`, "", "", "must be a JSON object"},
		{"string arguments", "read", `"a.go"`, "", "", "not a string"},
		{"bad JSON", "read", `{"path":"a",}`, "", "", "not valid JSON"},
		{"trailing data", "read", `{"path":"a"} x`, "", "", "not valid JSON"},
		{"bad escape", "read", `{"path":"a\q"}`, "path", "", "path is not a valid JSON string"},
		{"raw control char", "read", "{\"path\":\"a\tb\"}", "path", "", "path is not a valid JSON string"},
		{"leading zero", "read", `{"path":"a","offset":01}`, "", "", "not valid JSON"},

		// Missing arguments.
		{"missing path", "read", `{"offset":1}`, "path", "", `=read: missing required argument "path": path must not be empty; name a file relative to a workspace root, or pass paths for several files.`},
		{"null path", "read", `{"path":null}`, "path", "", `missing required argument "path"`},
		{"missing content", "write", `{"path":"a"}`, "content", "", `missing required argument "content": the complete text`},
		{"missing both", "move", `{}`, "from", "", `missing required arguments "from" and "to".`},
		{"missing new_string", "edit", `{"path":"a","old_string":"x"}`, "new_string", "", `"" to delete it`},
		{"missing old_string", "edit", `{"path":"a","new_string":"x"}`, "old_string", "", `missing required argument "old_string"`},
		{"neither form", "edit", `{"path":"a"}`, "", "", "edit needs old_string and new_string, or edits"},
		{"edits element missing", "edit", `{"path":"a","edits":[{"old_string":"x"}]}`, "edits[0].new_string", "", `edits[0] is missing "new_string"`},

		// Rule 1 values.
		{"empty old_string", "edit", `{"path":"a","old_string":"","new_string":"y"}`, "old_string", "", "old_string must not be empty"},
		{"same old and new", "edit", `{"path":"a","old_string":"x","new_string":"x"}`, "new_string", "", "identical"},
		{"both forms", "edit", `{"path":"a","old_string":"x","new_string":"y","edits":[{"old_string":"p","new_string":"q"}]}`,
			"old_string", "", "either old_string and new_string, or edits, not both"},
		{"replace_all with edits", "edit", `{"path":"a","replace_all":true,"edits":[{"old_string":"p","new_string":"q"}]}`,
			"replace_all", "", "replace_all goes inside each edit"},
		{"empty edits", "edit", `{"path":"a","edits":[]}`, "edits", "", "edits is empty"},
		{"edits[i] empty old", "edit", `{"path":"a","edits":[{"old_string":"p","new_string":"q"},{"old_string":"","new_string":"q"}]}`,
			"edits[1].old_string", "", "edits[1].old_string must not be empty"},
		{"edits[i] same", "edit", `{"path":"a","edits":[{"old_string":"p","new_string":"p"}]}`,
			"edits[0].new_string", "", "edits[0].old_string and edits[0].new_string are identical"},
		{"negative offset", "read", `{"path":"a","offset":-1}`, "offset", "", "offset must be 0 or more, got -1."},
		{"negative limit", "read", `{"path":"a","limit":-5}`, "limit", "", "limit must be 0 or more"},
		{"negative depth", "list", `{"depth":-1}`, "depth", "", "depth must be 0 or more"},
		{"bad sort", "list", `{"sort":"sise"}`, "sort", "", `sort must be "name" or "size"`},
		{"negative context", "grep", `{"pattern":"x","context":-2}`, "context", "", "context must be 0 or more"},
		{"huge offset", "read", `{"path":"a","offset":1000000001}`, "offset", "", "offset must be at most 1,000,000,000, got 1,000,000,001."},
		{"huge limit", "find", `{"pattern":"*","limit":100001}`, "limit", "", "limit must be at most 100,000"},
		{"huge depth", "list", `{"depth":1001}`, "depth", "", "depth must be at most 1,000"},
		{"huge context", "grep", `{"pattern":"x","context":1e12}`, "context", "", "context must be at most 1,000, got 1,000,000,000,000."},
		{"bad version", "edit", `{"path":"a","old_string":"x","new_string":"y","expected_version":"abc"}`,
			"expected_version", "", `expected_version must be "sha256:" followed by 64 lowercase hex digits`},
		{"version not hex", "write", `{"path":"a","content":"","expected_version":"sha256:` + strings.Repeat("g", 64) + `"}`,
			"expected_version", "", "64 lowercase hex digits"},
		{"version upper case", "edit", `{"path":"a","old_string":"x","new_string":"y","expected_version":"SHA256:0123456789ABCDEF0123456789abcdef0123456789abcdef0123456789abcdef"}`,
			"expected_version", "", "64 lowercase hex digits"},
		{"version upper hex", "write", `{"path":"a","content":"","expected_version":"sha256:` + strings.Repeat("A", 64) + `"}`,
			"expected_version", "", "64 lowercase hex digits"},
		{"version bare hash", "write", `{"path":"a","content":"","expected_version":"` + strings.Repeat("a", 64) + `"}`,
			"expected_version", "", "64 lowercase hex digits"},
		{"bad find glob", "find", `{"pattern":"[a"}`, "pattern", "", "not a valid glob"},
		{"bad grep glob", "grep", `{"pattern":"x","glob":"[a"}`, "glob", "", "not a valid glob"},
		{"empty patch", "patch", `{"patch":"  \n"}`, "patch", "", "patch is empty"},
		{"empty path", "read", `{"path":""}`, "path", "", "path must not be empty"},
		{"empty pattern", "find", `{"pattern":""}`, "pattern", "", "pattern must not be empty"},
		{"bad regexp", "grep", `{"pattern":"(a"}`, "pattern", "", "not a valid RE2 regular expression"},
		{"move to itself", "move", `{"from":"a","to":"a"}`, "to", "", "same path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Decode(tt.tool, []byte(tt.raw))
			if err == nil {
				t.Fatalf("Decode(%s, %s) = %+v, want an error", tt.tool, tt.raw, got)
			}
			if !errors.Is(err, ErrInvalid) {
				t.Errorf("errors.Is(%v, ErrInvalid) = false", err)
			}
			var ae *ArgError
			if !errors.As(err, &ae) {
				t.Fatalf("error %T is not an *ArgError", err)
			}
			if ae.Tool != tt.tool || ae.Field != tt.field || ae.Suggest != tt.suggest {
				t.Errorf("ArgError{Tool: %q, Field: %q, Suggest: %q}, want {%q, %q, %q}", ae.Tool, ae.Field, ae.Suggest, tt.tool, tt.field, tt.suggest)
			}
			msg := err.Error()
			if want, ok := strings.CutPrefix(tt.msg, "="); ok {
				if msg != want {
					t.Errorf("message\n got %s\nwant %s", msg, want)
				}
			} else if !strings.Contains(msg, tt.msg) {
				t.Errorf("message %q does not contain %q", msg, tt.msg)
			}
			if !strings.HasSuffix(msg, ".") && !strings.HasSuffix(msg, "?") {
				t.Errorf("message %q is not a complete sentence", msg)
			}
			// A Go value with the same fields gets the same answer from
			// Validate: the checks beyond JSON's shape have one home.
			if typed := newArgs(tt.tool); semantic[tt.name] && json.Unmarshal([]byte(tt.raw), typed) == nil {
				if verr := typed.Validate(); verr == nil || verr.Error() != msg {
					t.Errorf("Validate of the same value = %v, Decode said %q", verr, msg)
				}
			}
		})
	}
}

func TestDecodeUnknownTool(t *testing.T) {
	_, err := Decode("reed", []byte(`{"path":"a"}`))
	if !errors.Is(err, ErrUnknownTool) || errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want ErrUnknownTool only", err)
	}
	if want := `unknown tool "reed"; did you mean "read"?`; err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	_, err = Decode("frobnicate", nil)
	if !errors.Is(err, ErrUnknownTool) || !strings.Contains(err.Error(), "read, info, roots, edit, write") {
		t.Errorf("err = %v, want ErrUnknownTool listing the tools", err)
	}
}

func TestDecodeLongUnknownKeyIsTruncated(t *testing.T) {
	key := strings.Repeat("k", 10000)
	_, err := Decode("read", []byte(`{"path":"a","`+key+`":1}`))
	if err == nil || len(err.Error()) > 300 {
		t.Fatalf("err = %.300v (len %d), want a short refusal", err, len(err.Error()))
	}
}

func TestDecodeDeepNesting(t *testing.T) {
	deep := strings.Repeat("[", 100000) + strings.Repeat("]", 100000)
	_, err := Decode("read", []byte(`{"path":"a","x":`+deep+`}`))
	if !errors.Is(err, ErrInvalid) {
		t.Fatalf("err = %v, want an invalid-arguments error", err)
	}
}

func TestEditOps(t *testing.T) {
	single, err := Decode("edit", []byte(`{"path":"a","old_string":"x","new_string":"y","replace_all":true}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]EditOp{{OldString: "x", NewString: "y", ReplaceAll: true}}, single.(*EditArgs).Ops()); diff != "" {
		t.Errorf("single form Ops (-want +got):\n%s", diff)
	}
	multi, err := Decode("edit", []byte(`{"path":"a","edits":[{"old_string":"x","new_string":"y"},{"old_string":"y","new_string":"z"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]EditOp{{OldString: "x", NewString: "y"}, {OldString: "y", NewString: "z"}}, multi.(*EditArgs).Ops()); diff != "" {
		t.Errorf("edits form Ops (-want +got):\n%s", diff)
	}
}

// newArgs returns a new argument value of tool, for Validate.
func newArgs(tool string) interface{ Validate() error } {
	switch tool {
	case "read":
		return &ReadArgs{}
	case "edit":
		return &EditArgs{}
	case "write":
		return &WriteArgs{}
	case "patch":
		return &PatchArgs{}
	case "list":
		return &ListArgs{}
	case "find":
		return &FindArgs{}
	case "grep":
		return &GrepArgs{}
	case "mkdir":
		return &MkdirArgs{}
	case "move":
		return &MoveArgs{}
	case "delete":
		return &DeleteArgs{}
	case "undo":
		return &UndoArgs{}
	}
	return nil
}

// semantic names the TestDecodeRefuses cases about values rather than the
// JSON's shape (keys, types, presence): Validate must agree with Decode on
// them.
var semantic = map[string]bool{
	"both forms": true, "replace_all with edits": true, "edits[i] empty old": true, "edits[i] same": true,
	"negative offset": true, "negative limit": true, "negative depth": true, "negative context": true,
	"huge offset": true, "huge limit": true, "huge depth": true, "huge context": true,
	"bad version": true, "version not hex": true, "version upper case": true, "version upper hex": true,
	"version bare hash": true, "bad find glob": true, "bad grep glob": true, "empty patch": true,
	"empty path": true, "empty pattern": true, "bad regexp": true, "move to itself": true,
}
