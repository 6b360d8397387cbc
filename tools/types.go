package tools

import "github.com/stet-dev/stet/receipt"

// ReadArgs are the arguments of read.
type ReadArgs struct {
	Path   string `json:"path,omitempty"`
	Offset int    `json:"offset,omitempty"` // first line, 1-based; 0 means 1
	Limit  int    `json:"limit,omitempty"`  // lines; 0 means the default window
	// Tail shows the last Tail lines of text instead of a window from
	// Offset; 0 means no tail.
	Tail int `json:"tail,omitempty"`
	// Paths reads several files in one call instead of Path: each is read
	// as on its own (offset, limit and tail apply to each).
	Paths []string `json:"paths,omitempty"`
}

// InfoArgs are the arguments of info.
type InfoArgs struct {
	Path string `json:"path"`
}

// RootsArgs are the arguments of roots: none.
type RootsArgs struct{}

// EditOp is one replacement of an edit call.
type EditOp struct {
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all,omitempty"`
}

// EditArgs are the arguments of edit: either OldString/NewString/ReplaceAll
// or Edits, never both.
type EditArgs struct {
	Path            string   `json:"path"`
	OldString       *string  `json:"old_string,omitempty"`
	NewString       *string  `json:"new_string,omitempty"`
	ReplaceAll      bool     `json:"replace_all,omitempty"`
	Edits           []EditOp `json:"edits,omitempty"`
	DryRun          bool     `json:"dry_run,omitempty"`
	ExpectedVersion string   `json:"expected_version,omitempty"`
}

// WriteArgs are the arguments of write.
type WriteArgs struct {
	Path            string `json:"path"`
	Content         string `json:"content"`
	Overwrite       bool   `json:"overwrite,omitempty"`
	DryRun          bool   `json:"dry_run,omitempty"`
	ExpectedVersion string `json:"expected_version,omitempty"`
}

// PatchArgs are the arguments of patch.
type PatchArgs struct {
	Patch  string `json:"patch"`
	DryRun bool   `json:"dry_run,omitempty"`
}

// ListArgs are the arguments of list.
type ListArgs struct {
	Path  string `json:"path,omitempty"`
	Depth int    `json:"depth,omitempty"` // 0 means 1
	// Exclude holds globs of paths (relative to Path) left out of the
	// listing, with everything under a matching directory.
	Exclude []string `json:"exclude,omitempty"`
	// NoIgnore lists what .gitignore, .git/info/exclude, the global
	// excludes file and .ignore files would hide.
	NoIgnore bool `json:"no_ignore,omitempty"`
	Limit    int  `json:"limit,omitempty"`
	// Sort orders the entries: ListSortName ("" too), or ListSortSize.
	Sort string `json:"sort,omitempty"`
}

// Orders of list's entries.
const (
	ListSortName = "name" // path order (the default)
	ListSortSize = "size" // the largest first; a tie in path order
)

// FindArgs are the arguments of find.
type FindArgs struct {
	Pattern  string   `json:"pattern"`
	Path     string   `json:"path,omitempty"`
	Exclude  []string `json:"exclude,omitempty"`   // as in ListArgs
	NoIgnore bool     `json:"no_ignore,omitempty"` // as in ListArgs
	Limit    int      `json:"limit,omitempty"`
}

// Output modes of grep.
const (
	GrepContent          = "content"            // matching lines (the default)
	GrepFilesWithMatches = "files_with_matches" // the paths of files with a match
	GrepCount            = "count"              // matching lines per file
)

// GrepArgs are the arguments of grep.
type GrepArgs struct {
	Pattern string `json:"pattern"`
	Path    string `json:"path,omitempty"`
	Glob    string `json:"glob,omitempty"`
	// Type names a file type (see FileTypes): only files of that type are
	// searched.
	Type         string `json:"type,omitempty"`
	IgnoreCase   bool   `json:"ignore_case,omitempty"`
	FixedStrings bool   `json:"fixed_strings,omitempty"` // Pattern is literal text
	Word         bool   `json:"word,omitempty"`          // matches must be whole words
	// Multiline matches Pattern against whole files, so a match may span
	// lines; every line it touches is shown.
	Multiline  bool   `json:"multiline,omitempty"`
	OutputMode string `json:"output_mode,omitempty"` // GrepContent (default), GrepFilesWithMatches or GrepCount
	Before     int    `json:"before,omitempty"`      // context lines before each match; overrides Context
	After      int    `json:"after,omitempty"`       // context lines after each match; overrides Context
	Context    int    `json:"context,omitempty"`     // context lines each side
	// Offset skips that many results (matching lines, or files in the
	// other modes) in path order, for paging.
	Offset   int      `json:"offset,omitempty"`
	Limit    int      `json:"limit,omitempty"`
	Exclude  []string `json:"exclude,omitempty"`   // as in ListArgs
	NoIgnore bool     `json:"no_ignore,omitempty"` // as in ListArgs
}

// MkdirArgs are the arguments of mkdir.
type MkdirArgs struct {
	Path string `json:"path"`
}

// MoveArgs are the arguments of move.
type MoveArgs struct {
	From      string `json:"from"`
	To        string `json:"to"`
	Overwrite bool   `json:"overwrite,omitempty"`
}

// DeleteArgs are the arguments of delete.
type DeleteArgs struct {
	Path string `json:"path"`
}

// UndoArgs are the arguments of undo.
type UndoArgs struct {
	Path string `json:"path"`
}

// ReadResult is the structured result of read.
type ReadResult struct {
	Path    string   `json:"path"`
	Version string   `json:"version"`
	Lines   int      `json:"lines"` // numbered lines in the whole file
	From    int      `json:"from"`  // first line of the window
	To      int      `json:"to"`    // last line of the window
	Frame   string   `json:"frame"`
	Notes   []string `json:"notes,omitempty"`
	// MimeType is set for an image or audio file, read as media: Frame is
	// then empty and Data holds the file's bytes (sent as MCP image or
	// audio content, never in the structured result).
	MimeType string `json:"mime_type,omitempty"`
	Bytes    int    `json:"bytes,omitempty"` // a media file's size
	Data     []byte `json:"-"`
}

// ReadFilesResult is the structured result of a read with paths: one
// element per path, in the order given, each a *ReadResult or the refusal
// of that file (a refusal object {refused, message, ...}).
type ReadFilesResult struct {
	Files []any `json:"files"`
}

// InfoResult is the structured result of info.
type InfoResult struct {
	Path    string `json:"path"`
	Type    string `json:"type"`    // file, dir or other (symlinks are followed)
	Size    int64  `json:"size"`    // bytes
	Lines   int    `json:"lines"`   // numbered lines of a text file as read shows them; 0 otherwise
	Mode    string `json:"mode"`    // octal permission bits, such as 0644
	Mtime   string `json:"mtime"`   // modification time, RFC 3339 (informational)
	Version string `json:"version"` // sha256 of a file's bytes; "" for a directory
	Links   int    `json:"links"`   // hard link count
}

// Root is one workspace root in a roots result.
type Root struct {
	Path    string `json:"path"`    // absolute directory
	Effects string `json:"effects"` // read-only or workspace-write
}

// RootsResult is the structured result of roots.
type RootsResult struct {
	Roots []Root `json:"roots"`
}

// MutationResult is the structured result of edit, write, delete, move and undo.
// The receipt's matches carry their bytes (Old, New) where they are a
// region of the file (an edit); a whole-file write's carry none.
type MutationResult struct {
	Message string          `json:"message"`
	Receipt receipt.Receipt `json:"receipt"`
	Diff    string          `json:"diff"`
}

// PatchResult is the structured result of patch.
type PatchResult struct {
	Message  string            `json:"message"`
	Receipts []receipt.Receipt `json:"receipts"`
	Diff     string            `json:"diff"`
}

// Entry is one row of a list result.
type Entry struct {
	Name string `json:"name"` // slash-separated, relative to the listed directory
	Type string `json:"type"` // file, dir, symlink or other
	Size int64  `json:"size"`
}

// ListResult is the structured result of list.
type ListResult struct {
	Path      string  `json:"path"`
	Entries   []Entry `json:"entries"`
	Truncated bool    `json:"truncated"`
	// Notes say what the walk could not show (a directory it could not
	// read, skipped as grep -r does).
	Notes []string `json:"notes,omitempty"`
}

// FindResult is the structured result of find.
type FindResult struct {
	Paths     []string `json:"paths"`
	Truncated bool     `json:"truncated"`
	Notes     []string `json:"notes,omitempty"` // as ListResult.Notes
}

// GrepMatch is one row of a grep result (a match or a context line).
type GrepMatch struct {
	Path string `json:"path"`
	Line int    `json:"line"`
	Text string `json:"text"`
	// Context marks a line shown around a match (grep's context argument).
	Context bool `json:"context,omitempty"`
}

// GrepCountRow is one row of a grep result in count mode.
type GrepCountRow struct {
	Path  string `json:"path"`
	Count int    `json:"count"` // matching lines in the file
}

// GrepResult is the structured result of grep. Exactly one of Matches
// (content mode), Paths (files_with_matches) and Counts (count) is non-nil.
type GrepResult struct {
	Matches   []GrepMatch    `json:"matches,omitzero"`
	Paths     []string       `json:"paths,omitzero"`
	Counts    []GrepCountRow `json:"counts,omitzero"`
	Truncated bool           `json:"truncated"`
	Notes     []string       `json:"notes,omitempty"` // as ListResult.Notes
}

// MkdirResult is the structured result of mkdir.
type MkdirResult struct {
	Message string `json:"message"`
	Path    string `json:"path"`
	// Created is false when the directory already existed and nothing was
	// done. It is not part of the wire result (the message says it); a
	// surface uses it to tell a change from a no-op.
	Created bool `json:"-"`
}
