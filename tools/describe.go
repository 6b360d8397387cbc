package tools

import "strings"

// Persona is the line that tells a model whose files it is working on. The
// MCP server sends it first in its instructions; agent harnesses put it in
// their system prompt.
const Persona = "Files that existed before this turn are the user's: edit them in place and write new files beside them; do not regenerate a provided file from memory. If the user asked for a rewrite, say so and pass overwrite: true."

// Instructions returns the MCP server instructions: Persona, then the rules a
// model needs before its first call.
func Instructions() string {
	return strings.Join([]string{
		Persona,
		"",
		"Rules of these file tools:",
		"- Read a file before you edit, replace, move or delete it. The `NNNNN|` line numbers in a read are not part of the file: never copy them into old_string, new_string or content.",
		"- Edits are literal: old_string must match the file's bytes exactly. They are bound to what you read: change only text you were shown, and read again after the file changes.",
		"- A refusal changes nothing and names the next step (read this range, re-read the file, add context, pass overwrite). Follow it; do not repeat the same call.",
		"- Every change returns a receipt and a diff. A replaced or deleted file is saved in the journal, and undo reverts this session's last change to a path.",
	}, "\n")
}

// Tool descriptions, written for models: what the tool does, its rules, and
// the next step after each refusal it can return. Each stays under 1,024
// characters, the limit some model APIs put on a function description.
const (
	readDesc = "Read a text file as numbered lines: `NNNNN|text` (line number, `|`, the line's exact bytes), then a trailer. " +
		"`(N lines)` means you saw the whole file; `(lines A-B of N; next: offset B+1)` means more follows: call read with that offset. tail: N shows the last N lines; paths: [...] reads several files at once. " +
		"An image or audio file comes back as image or audio content. " +
		"A window is 2,000 lines unless limit sets another, and never more than the byte budget (256 KiB by default). " +
		"The `NNNNN|` prefixes are not part of the file: never copy them into edits. " +
		"Read a file before editing, replacing, moving or deleting it, and again after it changes. " +
		"Refusals: not_found (check the path with list or find); binary or not_utf8 (not a text file; leave it alone); " +
		"too_large (the file or one line is over a size limit: read smaller windows with offset and limit; a file over the limit cannot be edited); outside (the path leaves the workspace)."

	infoDesc = "Describe a file or directory without reading it: type, size in bytes, lines (for a text file, as read numbers them), mode, modification time, " +
		"version (`sha256:` and 64 hex digits, the version edits bind to) and hard link count. It observes nothing: read a file before editing it. " +
		"Refusals: not_found (check the path with list or find), outside (the path leaves the workspace)."

	rootsDesc = "List the workspace roots: every directory these tools may reach, with its effects (read-only or workspace-write). " +
		"A relative path resolves in the root where it exists; a new file goes to the first root; a name that exists in several roots is refused as ambiguous: use its absolute path."

	editDesc = "Replace exact text in a file you have read. old_string must match the file's bytes literally (indentation, whitespace, quotes) " +
		"and occur exactly once unless replace_all; new_string may be empty to delete. Copy text from read without the `NNNNN|` prefixes. " +
		"For several changes to one file pass edits: [{old_string, new_string, replace_all?}], applied in order, all or nothing. " +
		"Refusals and the next step: not_read: read the file first. not_seen: you were not shown that text; read the offset and limit given. " +
		"changed: the file changed since you read it; read it again and redo the edit. " +
		"no_match: compare with the nearest region shown (indentation, trailing space, line endings, quotes) and retry with the file's exact text. " +
		"ambiguous: add surrounding lines to old_string, or set replace_all. protected or read_only: this file cannot be changed here. " +
		"dry_run: true returns the diff without writing."

	writeDesc = "Create a new file with content, or replace a whole file. To change part of an existing file use edit or patch: write replaces every byte. " +
		"content is the complete text, without `NNNNN|` prefixes. Creating a file needs its directory observed: list it first (or mkdir). " +
		"Replacing an existing file needs it read in full first (not_read: read it; not_seen: read the rest, the refusal gives offset and limit). changed: read it again. exists: someone created the file first; read it. " +
		"input: the file is one of the user's inputs; edit it in place with edit or patch, or pass overwrite: true only if the user asked for a rewrite. " +
		"A declared input of this turn is edit-only: write never replaces or recreates it, whatever overwrite says; if the task needs that, say so in your reply. " +
		"Replacing an existing file saves its previous bytes in the journal; the result says so, and undo brings them back. " +
		"dry_run: true returns the diff without writing."

	patchDesc = "Apply a patch to several files at once, all or nothing. Either a Codex envelope: `*** Begin Patch`, `*** Add File: path` (lines prefixed `+`), " +
		"`*** Update File: path` (optional `*** Move to: path`, then `@@` hunks of ` ` context, `-` removed, `+` added lines), `*** Delete File: path`, `*** End Patch`; " +
		"or a unified diff (`--- a/path`, `+++ b/path`, `@@` hunks; `git diff` output works as is). " +
		"Hunk headers may be bare (`@@ @@`) or have wrong numbers: a hunk is found by its lines and must match one place. " +
		"Files it updates, moves or deletes must have been read (an added file's directory listed); removed lines must match exactly. " +
		"On failure nothing changes and the refusal names the file and hunk: not_read or not_seen: read that file or range; " +
		"changed: read it again, rebuild the patch; no_match: fix the hunk against the nearest region shown; ambiguous: add unchanged lines around the change; exists: an added file is there; input: a declared input is update-only. " +
		"dry_run: true returns the diff without writing."

	listDesc = "List a directory: each entry's name, type (file, dir, symlink, other) and size, down to depth levels (default 1). " +
		"Listing a directory observes it, which is needed before creating a file in it. " +
		"truncated: true means more entries exist: list a subdirectory or raise limit. path defaults to the workspace root. " +
		"Like find and grep, it skips what git ignores (" + ignoreWords + "); no_ignore: true shows those too, exclude: [globs] leaves more out. " +
		"Refusals: not_found (check the path), outside (the path leaves the workspace)."

	findDesc = "Find files whose path matches a glob: `*` matches within one path segment, `**` any number of directories, `?` one character, `[abc]` a class " +
		"(e.g. `**/*.go`, `src/**/test_*.py`). path limits the search to a directory. " +
		"truncated: true means more paths matched: narrow the pattern or path, or raise limit. " +
		"Skips what git ignores (" + ignoreWords + "); no_ignore: true finds those too; exclude: [globs] leaves paths out. " +
		"find does not look inside files; use grep to search contents."

	grepDesc = "Search file contents with an RE2 regular expression (no backreferences or lookaround), like grep -rn. " +
		"Returns `path:line:text` rows in path order; context, before and after add lines around matches (`path-line-text`). " +
		"Options: ignore_case, fixed_strings (literal text), word, multiline (a match may span lines). " +
		"output_mode `files_with_matches` gives paths only, `count` matching lines per file; they show no lines. " +
		"Lines shown in content mode count as seen: you can edit them without reading the whole file, while it is unchanged. " +
		"path: a directory or file; glob (e.g. `*.go`), type (`go`, `py`, `ts`, ...) and exclude narrow the files. " +
		"Skips binary and non-UTF-8 files, and what git ignores (" + ignoreWords + "); no_ignore: true searches those too. " +
		"truncated: true means more results: pass offset (results skipped so far) to page, or narrow the search."

	mkdirDesc = "Create a directory and any missing parents inside the workspace; an existing directory is not an error. " +
		"A directory you create counts as observed, so you can write new files in it. " +
		"Refusals: exists (a file, not a directory, is in the way), outside, protected, read_only."

	moveDesc = "Rename or move a file inside the workspace. from must have been read in this session. " +
		"to must not exist unless overwrite: true, and then to must have been read too and its previous bytes are saved in the journal. " +
		"Refusals and the next step: not_read: read from (and to, when overwriting). exists: to is taken; choose another path, or pass overwrite: true if replacing it is intended. " +
		"changed: read the file again. outside or protected: choose another path. input: a declared input is edit-only and never moved away or replaced; edit it in place, or say so in your reply. undo reverts the move."

	deleteDesc = "Delete one file you have read in this session (never a directory). Its bytes are saved in the journal: undo with the same path brings the file back. " +
		"Refusals and the next step: not_read: read the file first. changed: it changed since you read it; read it again and decide. " +
		"not_regular: only regular files can be deleted. protected or read_only: this file cannot be changed here. " +
		"input: a declared input is edit-only and never deleted; edit it in place, or say so in your reply."

	undoDesc = "Revert this session's last change to path (edit, write, patch, move or delete), restoring the bytes the journal saved. " +
		"Refused as changed when the file no longer holds what that change produced (it was changed since): read it and fix it with edit instead. " +
		"Refused when this session has made no change to path."
)

// Argument descriptions shared by several tools.
const (
	pathDescRead        = "File to read: relative to a workspace root, or absolute inside one. Required unless paths is given."
	dryRunDesc          = "Return the receipt and diff this call would produce without writing anything (default false)."
	expectedVersionDesc = "Version the file must have now: `sha256:` followed by 64 lowercase hex digits, copied exactly as read and receipts report it. " +
		"If the file's version differs, the call is refused as changed. Default: the version you last observed."
	limitDesc = "Maximum number of results; 0 or omitted means the server's default."

	excludeDesc  = "Globs of paths to leave out, relative to path, e.g. `[\"vendor/\", \"*.min.js\"]`; a pattern without `/` matches a name at any depth, and a matching directory leaves out everything under it."
	noIgnoreDesc = "Also show what the ignore files hide: .gitignore at every level, .git/info/exclude, the global git excludes file and .ignore (default false)."
	ignoreWords  = ".gitignore, .git/info/exclude, global excludes, .ignore; dotfiles are included, .git is not"
)
