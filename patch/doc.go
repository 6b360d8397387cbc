// Package patch reads the two patch languages models write — the Codex
// apply_patch envelope ("*** Begin Patch" ... "*** End Patch") and unified
// diffs (git style or plain) — into per-file plans, and applies a plan's
// hunks to one file's bytes.
//
// Parse is lenient about wrapping and strict about content. It accepts blank
// lines around the patch, a heredoc wrapper (apply_patch <<'EOF' ... EOF) or
// a Markdown code fence around it, a patch whose lines all end in "\r\n",
// and a missing final newline; a Codex hunk may begin without its "@@" line
// when it is the first of its file, and consecutive "@@ text" lines narrow
// the search one after the other. It refuses, with a *ParseError naming the
// patch line, any line of a hunk that does not start with ' ', '-' or '+'
// (an empty line counts as an empty context line), an unknown "***" header,
// a missing "*** End Patch", a unified hunk whose line counts disagree with
// its "@@ -l,s +l,s @@" header, binary and copy patches, and a patch that
// names the same path twice.
//
// Apply locates leniently and verifies strictly. Where a hunk goes is only
// guided: a unified line number is a hint (the nearest occurrence wins), a
// Codex "@@" line narrows the search to what follows the first line
// containing it, "*** End of File" anchors the hunk at the end. What a hunk
// replaces must be in the file byte for byte, line terminators aside. The one
// adaptation is for CRLF files: when the lines do not match as written they
// are compared with the "\r" of each file line's "\r\n" set aside, and the new
// lines are then written with "\r\n" (Applied.CRLFAdapted). Whitespace,
// Unicode and fuzzy matching are never applied; a near miss is a *HunkError
// that names the nearest region and what differs (indentation, trailing
// space, line endings, quotes). Every byte outside the replaced lines is
// kept: a byte order mark, tabs, the final newline or its absence (changed
// only by an explicit "\ No newline at end of file" marker).
//
// Neither function does IO or keeps state between calls. This package does
// not decide whether a path is allowed, whether a file exists, or whether a
// caller may change it: paths are returned as the patch wrote them (with one
// leading "a/" or "b/" removed from unified diff names) for the caller to
// confine and check. It never applies a hunk it could not verify.
package patch
