// Package patch reads the two patch languages models write — the Codex
// apply_patch envelope ("*** Begin Patch" ... "*** End Patch") and unified
// diffs (git style or plain) — into per-file plans, and applies a plan's
// hunks to one file's bytes.
//
// Parse is lenient about wrapping and strict about content. It accepts blank
// lines around the patch, a heredoc wrapper (apply_patch <<'EOF' ... EOF,
// cat <<'EOF' | apply_patch) or a Markdown code fence around it, or both, a
// patch whose lines all end in "\r\n", a missing final newline, a commit
// message before a diff, Codex markers with whitespace around them, and a
// Codex first hunk without its "@@" line. A "cd DIR &&" before the heredoc
// resolves every path of the patch in DIR (as the shell would, ".." by
// name); a cd it cannot honour (a DIR the shell would expand, a cd not
// joined by "&&") is refused, never dropped. A Codex chunk of only added
// lines with no "@@" text or line number is anchored at the end of the file
// (Hunk.AtEOF), as Codex appends it. A unified hunk header may be written as
// git writes it ("@@ -l,s +l,s @@ section"), without counts ("@@ -l +l @@"),
// unclosed, or bare ("@@", "@@ @@", "@@ @@ section"); counts that disagree
// with the hunk's lines are ignored, and such a hunk runs to the first line
// that is not a hunk line. The text after the second "@@" is git's section
// heading (Hunk.Heading), never an anchor. A unified file section is named
// by its "---"/"+++" pair, else by its "diff --git" or "Index:" line; git's
// extended headers (index, modes, new file, deleted file, similarity,
// rename from/to) and "\ No newline at end of file" are read as git prints
// them. Modes are returned (File.OldMode, File.NewMode; ModeType says a
// symlink's or a submodule's), never acted on: a section that only changes
// a mode is an Update with no hunks. It refuses, with a *ParseError naming
// the patch line, a hunk line that does not start with ' ', '-' or '+' (an
// empty line counts as an empty context line), hunks that no header names a
// file for (saying which header to add), an unknown "***" header, a missing
// "*** End Patch", binary and copy patches, and a patch that names one path
// twice.
//
// Apply locates leniently and verifies strictly. A unified line number is
// a hint: the offset found for one hunk carries to the next, and a hunk
// whose lines are at the line so hinted goes there; otherwise its lines
// must occur exactly once below the previous hunk. When a hunk's lines
// occur more than once, the hunks are placed by their order: if exactly one
// placement puts every hunk at a run of its lines, in order and none
// overlapping the one before, that is where they go; otherwise the first
// hunk it does not fix is refused as ambiguous with every line it could
// start at. Hunks apply in order and never overlap, except that a Codex
// chunk appended at the end does not move where the next is looked for, as
// Codex places it. A Codex "@@" line is an anchor: it narrows the search to
// what follows the first line containing it (consecutive "@@" lines narrow in
// turn, and an "@@" line repeated from the hunk before is accepted above
// it); "*** End of File" anchors the hunk at the end. What a hunk removes
// must be in the file byte for byte, line terminators aside. Two
// adaptations locate a hunk when its lines are not in the file as written:
// for CRLF files, lines are compared with the "\r" of each file line's
// "\r\n" set aside, and the new lines are then written with "\r\n"
// (Applied.CRLFAdapted); and context lines (the lines a hunk keeps) may
// differ from the file's in trailing spaces and tabs, which models drop,
// and then keep the file's bytes (Applied.SpaceContext). Nothing looser
// is applied to the lines a hunk removes. Indentation, Unicode and fuzzy
// matching are never applied; a near miss is a *HunkError that names the
// nearest region and what differs (indentation, trailing space, line
// endings, quotes, dashes, no-break spaces, and whether the line is
// removed or kept). Every byte outside the replaced lines is kept: a byte
// order mark, tabs, the final newline or its absence (changed only where a
// "\ No newline at end of file" marker says so).
//
// CheckDelete checks a unified diff's deletion against the file as git
// apply does: its removed lines must be exactly the file's lines.
//
// Files: parse.go (Parse, the wrappers, one path named once), codex.go
// (the envelope), unified.go and hunk.go (unified diffs and hunk headers),
// apply.go (Apply: locating and placing hunks, with lines.go's line index),
// delete.go (CheckDelete), nearmiss.go (what a *HunkError says about the
// nearest region), patch.go (the plan and its modes), errors.go.
//
// No function here does IO or keeps state between calls, and this package
// must not grow either. It does not decide whether a path is allowed,
// whether a file exists, or whether a caller may change it: paths are
// returned as the patch wrote them (with one leading "a/" or "b/" removed
// from unified diff names, and joined to a cd wrapper's DIR) for the
// caller to confine and check, and a plan's files are the caller's to
// apply all or nothing. It never applies a hunk it could not verify.
package patch
