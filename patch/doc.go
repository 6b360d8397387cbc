// Package patch reads the two patch languages models write — the Codex
// apply_patch envelope ("*** Begin Patch" ... "*** End Patch") and unified
// diffs (git style or plain) — into per-file plans, and applies a plan's
// hunks to one file's bytes.
//
// Parse is lenient about wrapping and strict about content. It accepts blank
// lines around the patch, a heredoc wrapper (apply_patch <<'EOF' ... EOF) or
// a Markdown code fence around it, a patch whose lines all end in "\r\n",
// a missing final newline, a commit message before a diff, and a Codex
// first hunk without its "@@" line. It refuses, with a *ParseError naming
// the patch line, a hunk line that does not start with ' ', '-' or '+' (an
// empty line counts as an empty context line), an unknown "***" header, a
// missing "*** End Patch", a unified hunk whose lines disagree with the
// counts of its "@@ -l,s +l,s @@" header, binary and copy patches, and a
// patch that names one path twice.
//
// Apply locates leniently and verifies strictly. Where a hunk goes is only
// guided: a unified line number is a hint (the nearest occurrence wins and
// the offset found carries to the next hunk); a Codex "@@" line narrows the
// search to what follows the first line containing it (consecutive "@@"
// lines narrow in turn, and an "@@" line repeated from the hunk before is
// accepted above it); "*** End of File" anchors the hunk at the end. What
// a hunk replaces must be in the file byte for byte, line terminators
// aside. The one adaptation is for CRLF files: lines that do not match as
// written are compared with the "\r" of each file line's "\r\n" set aside,
// and the new lines are then written with "\r\n" (Applied.CRLFAdapted).
// Whitespace, Unicode and fuzzy matching are never applied; a near miss is
// a *HunkError that names the nearest region and what differs (indentation,
// trailing space, line endings, quotes). Every byte outside the replaced
// lines is kept: a byte order mark, tabs, the final newline or its absence
// (changed only where a "\ No newline at end of file" marker says so).
//
// Neither function does IO or keeps state between calls, and this package
// must not grow either. It does not decide whether a path is allowed,
// whether a file exists, or whether a caller may change it: paths are
// returned as the patch wrote them (with one leading "a/" or "b/" removed
// from unified diff names) for the caller to confine and check, and a
// plan's files are the caller's to apply all or nothing. It never applies
// a hunk it could not verify.
package patch
