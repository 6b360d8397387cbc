package mcpserver

import (
	"regexp"
	"strings"

	"github.com/stet-dev/stet"
)

// The facade words its refusals for stet's own tools: "read it first (read
// path=a.txt), then retry the edit". A model on the reference profile has
// other tools, so refWords rewrites each next step into the call that gets
// past the refusal there: "read it with read_text_file first, then retry
// edit_file". Only the words change: the kind, the path and the details
// stay stet's. TestRefWords pins each rewrite against the facade's current
// wording, so a change there shows up as a failing test, not a stale hint.

// refRewrite is one rewrite of a refusal message: re's matches become with,
// where "$tool" stands for the reference tool that was refused.
type refRewrite struct {
	re   *regexp.Regexp
	with string
}

var refRewrites = func() []refRewrite {
	pairs := []struct{ re, with string }{
		{`read it first \(read path=[^)]*\), then retry the \w+`, "read it with read_text_file first, then retry $tool"},
		{`read it again, then retry the \w+`, "read it again with read_text_file, then retry $tool"},
		{`read it again, then retry`, "read it again with read_text_file, then retry $tool"},
		{`read (?:them|it) \(offset \d+, limit \d+\), then retry`, "read the whole file with read_text_file (no head or tail), then retry $tool"},
		{`read it without offset or limit, then retry`, "read it whole with read_text_file (no head or tail), then retry $tool"},
		{`list it first \(list path=[^)]*\)`, "list it with list_directory first"},
		{`list it first`, "list it with list_directory first"},
		{`then retry the (edit|write|move|delete|patch|undo)\b`, "then retry $tool"},
		{`use list or find to see what does`, "use list_directory or search_files to see what does"},
		{`read it instead \(read path=[^)]*\)`, "read it with read_text_file instead"},
		{`use grep to see the parts you need`, "read parts of it with read_text_file (head or tail)"},
		{`\(edit / patch\)`, "(edit_file)"},
		{`pass overwrite: true to replace it \(its content is saved\), or choose another name`, "move_file never replaces an existing file: choose another destination"},
		{`pass overwrite: true if`, "pass overwrite: true to write_file if"},
		{`, or pass replace_all`, " (oldText must match exactly once)"},
		{`copy old_string exactly from the lines above`, "copy oldText exactly from the lines above (edit_file matches literally: no whitespace-tolerant matching)"},
		{`its frame follows`, "its text follows"},
		{`then retry$`, "then retry $tool"},
		{`(?m)^\d{5,}\|`, ""}, // the nearest lines of a no_match, as read_text_file shows text
		{`\bold_string\b`, "oldText"},
		{`\bnew_string\b`, "newText"},
		{`describe it with info instead`, "describe it with get_file_info instead"},
		{`\(list its directory\)`, "(list its directory with list_directory)"},
		{`check the path \(find or list\)`, "check the path (search_files or list_directory)"},
		{`the reading tools \(read, list, find, grep\)`, "the reading tools (read_text_file, read_media_file, read_multiple_files, list_directory, list_directory_with_sizes, directory_tree, search_files, get_file_info, list_allowed_directories)"},
		{`\(edit, write or patch\)`, "(edit_file or write_file)"},
		{`outside the workspace`, "outside the allowed directories"},
		{`leaves the workspace`, "leaves the allowed directories"},
		{`\(read path=([^)]*)\)`, "(read_text_file path=$1)"},
		{`\(list path=([^)]*)\)`, "(list_directory path=$1)"},
	}
	out := make([]refRewrite, len(pairs))
	for i, p := range pairs {
		out[i] = refRewrite{regexp.MustCompile(p.re), p.with}
	}
	return out
}()

// refWords returns r with its message in the reference profile's terms
// (see refRewrites). r itself is not changed.
func refWords(tool string, r *stet.Refusal) *stet.Refusal {
	c := *r
	c.Tool = tool
	msg := r.Message
	for _, rw := range refRewrites {
		with := strings.ReplaceAll(rw.with, "$tool", tool)
		msg = rw.re.ReplaceAllString(msg, with)
	}
	c.Message = msg
	return &c
}
