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

// Tool descriptions, written for models: what the tool does and its rules.
// Every refusal names its own next step, so a description only names the
// refusals a model should expect. Each stays under 1,024 characters, the
// limit some model APIs put on a function description, and all of them
// together are held small by the context budget (docs/benchmarks.md).
const (
	readDesc = "Read a text file as numbered lines `NNNNN|text`, then a trailer: `(N lines)` is the whole file; `(lines A-B of N; next: offset B+1)`: call read with that offset for more. " +
		"The prefixes are not part of the file: never copy them into edits. " +
		"A window is 2,000 lines (limit) within a byte budget. tail: N reads the last N lines; paths: [...] several files. Images and audio come back as such. " +
		"Refusals (not_found, binary, not_utf8, too_large) say what to do."

	infoDesc = "Describe a file or directory without reading it: type, size, lines, mode, modification time, version, hard links. It observes nothing."

	rootsDesc = "List the workspace roots and their effects (read-only or workspace-write). A relative path resolves in the root where it exists; a new file goes to the first root."

	editDesc = "Replace exact text in a file you have read: old_string must match its bytes literally and occur once unless replace_all; " +
		"edits: [{old_string, new_string, replace_all?}] applies several in order, all or nothing. " +
		"Refusals name the next step: not_read (the refusal shows the file: retry), not_seen (read the range given), changed (read again, redo), " +
		"no_match (compare with the nearest region shown), ambiguous (add context or replace_all). dry_run: diff only, no write."

	writeDesc = "Create a file, or replace a whole one (edit: a part). content is the complete text. " +
		"A new file's directory must be listed, an existing file read whole: a not_read refusal shows the listing or the file, and the same call retried lands. changed: read again; exists: read it. " +
		"input: the user's input file; edit it in place, or pass overwrite: true only if the user asked for a rewrite. " +
		"A replaced file is saved: undo brings it back. dry_run: diff only, no write."

	patchDesc = "Apply a patch to several files, all or nothing: a `*** Begin Patch` envelope (`*** Add File:`, `*** Update File:` with `@@` hunks and optional `*** Move to:`, `*** Delete File:`, `*** End Patch`) " +
		"or a unified diff (git diff). Hunk line numbers may be wrong. " +
		"Files it changes must have been read. Refusals name the file and hunk: not_read, changed, no_match, ambiguous. dry_run: diff only, no write."

	listDesc = "List a directory's entries with type and size, to depth levels (default 1); path defaults to the root. It observes the directory (needed to create files in it). " +
		"truncated: true means more exist: list a subdirectory or raise limit. Skips what git ignores (no_ignore: true shows it); exclude leaves out globs."

	findDesc = "Find files whose path matches a glob (`**` crosses directories: `**/*.go`). Skips what git ignores (no_ignore: true); truncated: true means more matched. Use grep to search contents."

	grepDesc = "Search file contents with an RE2 regular expression: `path:line:text` rows in path order; context/before/after add lines. " +
		"Lines shown count as seen: you may edit them without reading the whole file. " +
		"output_mode files_with_matches or count shows no lines. Narrow with path, glob, type, exclude; skips binary files and what git ignores (no_ignore). " +
		"truncated: true: page with offset."

	mkdirDesc = "Create a directory and its missing parents; an existing one is fine. It counts as observed, so you can write files in it."

	moveDesc = "Move or rename a file inside the workspace. from must have been read (a not_read refusal shows it: retry). " +
		"to must not exist (exists) unless overwrite: true, and then it must have been read too; its bytes are saved. undo reverts the move."

	deleteDesc = "Delete one file you have read (never a directory). Its bytes are saved in the journal: undo brings it back. A not_read refusal shows the file: retry."

	undoDesc = "Revert this session's last change to path. Refused as changed when the file was changed since: read it and use edit."
)

// Argument descriptions shared by several tools.
const (
	pathDescRead        = "File to read (relative, or absolute inside a root). Or paths."
	dryRunDesc          = "Return the receipt and diff without writing."
	expectedVersionDesc = "Refuse as changed unless the file has this version (`sha256:...` as read reported it)."
	limitDesc           = "Maximum results."

	excludeDesc  = "Globs to leave out, e.g. `[\"vendor/\"]`."
	noIgnoreDesc = "Include what .gitignore and .ignore hide."
)
