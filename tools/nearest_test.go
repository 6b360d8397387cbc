package tools

import (
	"strings"
	"testing"
)

func TestNearest(t *testing.T) {
	editKeys := []string{"path", "old_string", "new_string", "replace_all", "edits", "dry_run", "expected_version"}
	readKeys := []string{"path", "offset", "limit"}
	tests := []struct {
		key   string
		known []string
		want  string
	}{
		{"old_str", editKeys, "old_string"},
		{"new_str", editKeys, "new_string"},
		{"oldString", editKeys, "old_string"},
		{"OLD-STRING", editKeys, "old_string"},
		{"replaceAll", editKeys, "replace_all"},
		{"replace", editKeys, "replace_all"},
		{"dryrun", editKeys, "dry_run"},
		{"edit", editKeys, "edits"},
		{"version", editKeys, "expected_version"},
		{"file_path", editKeys, "path"},
		{"offest", readKeys, "offset"}, // transposition
		{"lmit", readKeys, "limit"},
		{"pth", readKeys, "path"},
		{"Path", readKeys, "path"},
		{"zzzz", readKeys, ""},
		{"x", []string{"to", "from"}, ""},
		{"", readKeys, ""},
		{"___", readKeys, ""},
		{"path", nil, ""},
		{strings.Repeat("path", 40), readKeys, ""}, // too long to be a misspelling
	}
	for _, tt := range tests {
		if got := Nearest(tt.key, tt.known); got != tt.want {
			t.Errorf("Nearest(%q, %v) = %q, want %q", tt.key, tt.known, got, tt.want)
		}
	}
}

// TestSuggestAliases covers names other tool sets use, which edit distance
// alone would not find.
func TestSuggestAliases(t *testing.T) {
	tests := []struct {
		tool, key, want string
	}{
		{"read", "file_path", "path"},
		{"read", "start_line", "offset"},
		{"read", "max_lines", "limit"},
		{"write", "text", "content"},
		{"write", "force", "overwrite"},
		{"move", "source", "from"},
		{"move", "destination", "to"},
		{"move", "target", "to"},
		{"delete", "target", "path"},
		{"find", "glob", "pattern"},
		{"grep", "regex", "pattern"},
		{"grep", "include", "glob"},
		{"list", "directory", "path"},
		{"list", "max_depth", "depth"},
		{"patch", "diff", "patch"},
		{"edit", "replacement", "new_string"},
		{"edit", "changes", "edits"},
	}
	for _, tt := range tests {
		tl, _ := lookupTool(tt.tool)
		var known []string
		for _, p := range tl.params {
			known = append(known, p.name)
		}
		if got := suggest(tt.key, known); got != tt.want {
			t.Errorf("%s: suggest(%q) = %q, want %q", tt.tool, tt.key, got, tt.want)
		}
	}
}

func TestEditDistance(t *testing.T) {
	tests := []struct {
		a, b string
		want int
	}{
		{"", "", 0}, {"a", "", 1}, {"", "abc", 3}, {"kitten", "sitting", 3},
		{"offset", "offest", 1}, {"ab", "ba", 1}, {"abc", "abc", 0}, {"ca", "abc", 3},
	}
	for _, tt := range tests {
		if got := editDistance(tt.a, tt.b); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
		if got := editDistance(tt.b, tt.a); got != tt.want {
			t.Errorf("editDistance(%q, %q) = %d, want %d", tt.b, tt.a, got, tt.want)
		}
	}
}
