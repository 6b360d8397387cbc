package patch

import (
	"cmp"
	"errors"
	"fmt"
	"strconv"
	"strings"
)

// parseUnified reads lines lo..hi as a unified diff of one or more files.
// Text before the first file header (a mail header, a commit message, a
// diffstat) is skipped; after it, a hunk line outside any hunk is an error,
// since it means a hunk header counts fewer lines than the hunk has.
//
// Lines hi+1..end are blank lines after the patch, read only as the last
// lines of a hunk whose counts are not yet met.
func parseUnified(p patchLines, lo, hi, end int) ([]File, error) {
	var files []File
	lastHunk := 0 // patch line of the last hunk header read
	for i := lo; i <= hi; {
		l := p[i]
		switch {
		case strings.HasPrefix(l, "diff --git ") || isFileHeaderPair(p, i, hi) || isIndexHeader(p, i, hi):
			f, next, last, err := parseUnifiedFile(p, i, hi, end)
			if err != nil {
				return nil, err
			}
			if last > 0 {
				lastHunk = last
			}
			files, i = append(files, f), next
		case strings.HasPrefix(l, "@@"):
			return nil, &ParseError{Line: i + 1, Msg: noFileHeader}
		case len(files) > 0 && (l == "-- " || l == "--"):
			return files, nil // a mail signature ends the patch
		case len(files) > 0 && isHunkLine(l) && !blank(l):
			msg := "hunk line outside any hunk"
			if lastHunk > 0 {
				msg += fmt.Sprintf(": the hunk header at patch line %d counts fewer lines than its hunk has", lastHunk)
			}
			return nil, &ParseError{Line: i + 1, Msg: msg}
		default:
			i++
		}
	}
	if len(files) == 0 {
		return nil, &ParseError{Line: lo + 1, Msg: "no file in this diff: expected \"--- a/PATH\" and \"+++ b/PATH\" lines"}
	}
	return files, nil
}

// noFileHeader is the refusal of hunks that no header names a file for.
const noFileHeader = "hunk without a file header: add the lines \"--- a/PATH\" and \"+++ b/PATH\" before the first hunk " +
	"(PATH relative to the workspace root), or send it as \"*** Begin Patch\", \"*** Update File: PATH\", the hunks, \"*** End Patch\""

// isIndexHeader reports whether line i is an "Index: PATH" line (svn, cvs,
// some models) that names the file of the hunks after it.
func isIndexHeader(p patchLines, i, hi int) bool {
	if !strings.HasPrefix(p[i], "Index: ") || strings.TrimSpace(p[i][len("Index: "):]) == "" {
		return false
	}
	j := i + 1
	for j <= hi && strings.HasPrefix(p[j], "===") {
		j++
	}
	return j <= hi && (strings.HasPrefix(p[j], "@@") || isFileHeaderPair(p, j, hi))
}

func isFileHeaderPair(p patchLines, i, hi int) bool {
	return strings.HasPrefix(p[i], "--- ") && i < hi && strings.HasPrefix(p[i+1], "+++ ")
}

const devNull = "/dev/null"

// parseUnifiedFile reads one file section starting at line i: an optional
// "diff --git" line with its extended headers, the "---"/"+++" pair, and the
// hunks. It returns the line after the section and the patch line of its
// last hunk header.
func parseUnifiedFile(p patchLines, i, hi, end int) (File, int, int, error) {
	f := File{Line: i + 1}
	h, i, err := parseFileHeader(p, i, hi)
	if err != nil {
		return File{}, 0, 0, err
	}
	lastHunk := 0
	if f.Hunks, i, lastHunk, err = parseUnifiedHunks(p, i, hi, end); err != nil {
		return File{}, 0, 0, err
	}
	return h.file(f, i, lastHunk)
}

// fileHeader is what the header lines of a unified file section say:
// the "diff --git" or "Index:" names, git's extended headers, and the
// "---"/"+++" pair.
type fileHeader struct {
	git                        bool
	gitOld, gitNew             string
	renameFrom, renameTo       string
	newFile, deletedFile       bool
	oldName, newName           string
	oldNull, newNull, hasNames bool
	// oldMode and newMode are the modes of "old mode"/"deleted file
	// mode" and "new mode"/"new file mode"; indexMode the one an "index"
	// line ends with (a mode the change keeps).
	oldMode, newMode, indexMode string
}

// parseFileHeader reads the header lines of the section at p[i] and
// returns the index of the line after them.
func parseFileHeader(p patchLines, i, hi int) (h fileHeader, next int, err error) {
	if rest, ok := strings.CutPrefix(p[i], "Index: "); ok {
		h.gitOld = unquoteName(rest)
		h.gitNew = h.gitOld
		for i++; i <= hi && strings.HasPrefix(p[i], "==="); i++ {
		}
	} else if rest, ok := strings.CutPrefix(p[i], "diff --git "); ok {
		h.git = true
		if h.gitOld, h.gitNew, err = gitHeaderNames(rest); err != nil {
			return fileHeader{}, 0, &ParseError{Line: i + 1, Msg: err.Error()}
		}
		if i, err = h.gitExtended(p, i+1, hi); err != nil {
			return fileHeader{}, 0, err
		}
	}
	if i <= hi && isFileHeaderPair(p, i, hi) {
		h.hasNames = true
		h.oldName, h.oldNull = headerName(strings.TrimPrefix(p[i], "--- "))
		h.newName, h.newNull = headerName(strings.TrimPrefix(p[i+1], "+++ "))
		if h.oldName == "" && !h.oldNull || h.newName == "" && !h.newNull {
			return fileHeader{}, 0, &ParseError{Line: i + 1, Msg: "\"---\" and \"+++\" need a path (or /dev/null)"}
		}
		i += 2
	}
	return h, i, nil
}

// gitExtended reads git's extended header lines from p[i] (modes, new and
// deleted file, renames, similarity, index) and returns the index of the
// first other line. Copy and binary patches are refused.
func (h *fileHeader) gitExtended(p patchLines, i, hi int) (int, error) {
	for ; i <= hi; i++ {
		l := p[i]
		var err error
		switch {
		case strings.HasPrefix(l, "new file mode "):
			h.newFile = true
			h.newMode, err = gitMode(l, "new file mode ", i)
		case strings.HasPrefix(l, "deleted file mode "):
			h.deletedFile = true
			h.oldMode, err = gitMode(l, "deleted file mode ", i)
		case strings.HasPrefix(l, "old mode "):
			h.oldMode, err = gitMode(l, "old mode ", i)
		case strings.HasPrefix(l, "new mode "):
			h.newMode, err = gitMode(l, "new mode ", i)
		case strings.HasPrefix(l, "index "):
			// "index HASH..HASH MODE": the mode, when there, is kept by the
			// change; the hashes are not checked, nor is a third word that
			// is no mode (other tools write index lines too).
			if f := strings.Fields(l); len(f) == 3 {
				if _, ok := parseMode(f[2]); ok {
					h.indexMode = f[2]
				}
			}
		case strings.HasPrefix(l, "rename from "):
			h.renameFrom = unquoteName(strings.TrimPrefix(l, "rename from "))
		case strings.HasPrefix(l, "rename to "):
			h.renameTo = unquoteName(strings.TrimPrefix(l, "rename to "))
		case strings.HasPrefix(l, "copy from ") || strings.HasPrefix(l, "copy to "):
			return 0, &ParseError{Line: i + 1, Msg: "copy patches are not supported: add the new file with its full content instead"}
		case strings.HasPrefix(l, "Binary files ") || strings.HasPrefix(l, "GIT binary patch"):
			return 0, &ParseError{Line: i + 1, Msg: "binary patches are not supported"}
		case strings.HasPrefix(l, "similarity index ") || strings.HasPrefix(l, "dissimilarity index "):
		default:
			return i, nil
		}
		if err != nil {
			return 0, err
		}
	}
	return i, nil
}

// gitMode reads the mode at the end of line i, which starts with prefix.
func gitMode(l, prefix string, i int) (string, error) {
	m := strings.TrimSpace(strings.TrimPrefix(l, prefix))
	if _, ok := parseMode(m); !ok {
		return "", &ParseError{Line: i + 1, Msg: fmt.Sprintf("bad mode %q after %q: expected git's octal mode, like 100644", clip(m, 20), strings.TrimSpace(prefix))}
	}
	return m, nil
}

// parseUnifiedHunks reads the hunks from p[i], blank lines between them
// allowed, and returns the index after the last and the line after the
// last hunk's header (0 when there is none).
func parseUnifiedHunks(p patchLines, i, hi, end int) (hunks []Hunk, next, lastHunk int, err error) {
	for i <= hi {
		j := i
		for j <= hi && blank(p[j]) {
			j++
		}
		if j > hi || !strings.HasPrefix(p[j], "@@") {
			break
		}
		i, lastHunk = j, j+1
		h, next, err := parseUnifiedHunk(p, i, hi, end)
		if err != nil {
			return nil, 0, 0, err
		}
		hunks, i = append(hunks, h), next
	}
	return hunks, i, lastHunk, nil
}

// file completes f, whose hunks end before p[i], from the header: its
// kind and paths (the ---/+++ names, else the diff --git names; rename
// headers override both), refusing a section that names no path, both
// creates and deletes, or changes nothing.
func (h fileHeader) file(f File, i, lastHunk int) (File, int, int, error) {
	oldPath, newPath := h.oldName, h.newName
	if !h.hasNames {
		oldPath, newPath = h.gitOld, h.gitNew
	}
	if h.renameFrom != "" {
		oldPath = h.renameFrom
	}
	if h.renameTo != "" {
		newPath = h.renameTo
	}
	isAdd, isDel := h.oldNull || h.newFile, h.newNull || h.deletedFile
	f.OldMode, f.NewMode = cmp.Or(h.oldMode, h.indexMode), cmp.Or(h.newMode, h.indexMode)
	switch {
	case isAdd && isDel:
		return File{}, 0, 0, &ParseError{Line: f.Line, Msg: "a file section cannot both create and delete its file"}
	case isAdd:
		f.OldMode = ""
		return addFromHunks(f, newPath, i, lastHunk)
	case isDel:
		f.Kind, f.Path, f.NewMode, f.Exact = Delete, oldPath, "", true
		for _, h := range f.Hunks {
			if len(h.New) > 0 {
				return File{}, 0, 0, &ParseError{Line: f.Line, Msg: fmt.Sprintf("the deletion of %s has hunk lines that are kept or added", oldPath)}
			}
		}
		return f, i, lastHunk, nil
	}
	f.Kind, f.Path = Update, oldPath
	if oldPath != newPath {
		if !h.git {
			return File{}, 0, 0, &ParseError{Line: f.Line, Msg: fmt.Sprintf("\"---\" names %s and \"+++\" names %s: a plain diff must name one file on both sides (a git diff with \"rename from\"/\"rename to\" moves a file)", oldPath, newPath)}
		}
		f.MoveTo = newPath
	}
	if f.Path == "" {
		return File{}, 0, 0, &ParseError{Line: f.Line, Msg: "no path for this file section"}
	}
	if len(f.Hunks) == 0 && f.MoveTo == "" && (f.OldMode == "" || f.NewMode == "" || f.OldMode == f.NewMode) {
		return File{}, 0, 0, &ParseError{Line: f.Line, Msg: fmt.Sprintf("the section for %s changes nothing: give hunks, a rename (\"rename from\"/\"rename to\") or a mode change (\"old mode\"/\"new mode\")", f.Path)}
	}
	return f, i, lastHunk, nil
}

// addFromHunks makes f the creation of path from hunks that add every line.
func addFromHunks(f File, path string, next, lastHunk int) (File, int, int, error) {
	if path == "" {
		return File{}, 0, 0, &ParseError{Line: f.Line, Msg: "no path for the new file"}
	}
	var b strings.Builder
	for _, h := range f.Hunks {
		if len(h.Old) > 0 {
			return File{}, 0, 0, &ParseError{Line: f.Line, Msg: fmt.Sprintf("the creation of %s has hunk lines that are removed or kept", path)}
		}
		for k, l := range h.New {
			b.WriteString(l)
			if k < len(h.New)-1 || !h.NewNoEOL {
				b.WriteByte('\n')
			}
		}
	}
	return File{Kind: Add, Path: path, Content: []byte(b.String()), Line: f.Line, NewMode: f.NewMode}, next, lastHunk, nil
}

// parseUnifiedHunk reads the hunk whose "@@" line is line i. A header with
// counts ends the hunk where its counts say; when the lines that follow
// disagree with them (models miscount), or the header has no counts, the
// hunk runs to the first line that is not a hunk line. Line numbers are
// kept as a hint.
func parseUnifiedHunk(p patchLines, i, hi, end int) (Hunk, int, error) {
	hdr := parseUnifiedHeader(p[i])
	switch hdr.form {
	case headerBad:
		return Hunk{}, 0, &ParseError{Line: i + 1, Msg: fmt.Sprintf("bad hunk header %q: expected \"@@ -l,s +l,s @@\" (or a bare \"@@\")", clip(p[i], 60))}
	case headerCounted:
		if h, next, ok := parseCountedHunk(p, i, hi, end, hdr); ok {
			return h, next, nil
		}
	}
	return parseBareHunk(p, i, hi, hdr)
}

// parseCountedHunk reads the hunk at line i as its header counts it; ok is
// false when its lines disagree with the counts.
func parseCountedHunk(p patchLines, i, hi, end int, hdr unifiedHeader) (Hunk, int, bool) {
	b := newHunkBuilder(i + 1)
	b.h.OldStart, b.h.Heading = hdr.oldStart(), hdr.section
	oldN, newN := 0, 0
	j := i + 1
	for ; oldN < hdr.oldCount || newN < hdr.newCount; j++ {
		if j > end || j > hi && !blank(p[j]) {
			return Hunk{}, 0, false
		}
		l := p[j]
		if l == "" {
			l = " "
		}
		over := false
		switch l[0] {
		case ' ':
			over = oldN >= hdr.oldCount || newN >= hdr.newCount
			oldN, newN = oldN+1, newN+1
		case '-':
			over = oldN >= hdr.oldCount
			oldN++
		case '+':
			over = newN >= hdr.newCount
			newN++
		case '\\':
		default:
			return Hunk{}, 0, false
		}
		if over || b.add(l, j+1) != nil {
			return Hunk{}, 0, false
		}
	}
	if j <= hi && strings.HasPrefix(p[j], "\\") {
		if b.add(p[j], j+1) != nil {
			return Hunk{}, 0, false
		}
		j++
	}
	// A hunk line after the counted ones means the counts are too small.
	k := j
	for k <= hi && blank(p[k]) && p[k] != "" {
		k++
	}
	if k <= hi && isHunkLine(p[k]) && !isFileHeaderPair(p, k, hi) && !isSignature(p, k, hi) {
		return Hunk{}, 0, false
	}
	h, err := b.finish()
	return h, j, err == nil
}

// isHunkLine reports whether l starts like a line of a hunk's body.
func isHunkLine(l string) bool {
	return l != "" && strings.IndexByte(" -+\\", l[0]) >= 0
}

// isSignature reports whether line i is a mail signature separator ("-- ",
// as git format-patch ends a patch, followed by its version line). Followed
// by anything else, or nothing, it is a removed line "- " or "-".
func isSignature(p patchLines, i, hi int) bool {
	if p[i] != "-- " && p[i] != "--" || i == hi {
		return false
	}
	next := p[i+1]
	return !blank(next) && !isHunkLine(next) && !strings.HasPrefix(next, "@@") && !strings.HasPrefix(next, "diff --git ")
}

// parseBareHunk reads a hunk whose lines run to the first line that is not
// a hunk line, the next file's "---"/"+++" pair, or a mail signature.
func parseBareHunk(p patchLines, i, hi int, hdr unifiedHeader) (Hunk, int, error) {
	b := newHunkBuilder(i + 1)
	b.h.OldStart, b.h.Heading = hdr.oldStart(), hdr.section
	j := i + 1
	for ; j <= hi; j++ {
		l := p[j]
		if l != "" && !isHunkLine(l) || isFileHeaderPair(p, j, hi) || isSignature(p, j, hi) {
			break
		}
		if err := b.take(l, j+1); err != nil {
			return Hunk{}, 0, err
		}
	}
	h, err := b.finish()
	return h, j, err
}

// headerName reads the name of a "---" or "+++" line: quoted or not,
// without a trailing tab and timestamp, with one leading "a/" or "b/"
// removed.
func headerName(s string) (name string, null bool) {
	if strings.HasPrefix(s, "\"") {
		if q, _, ok := cutQuoted(s); ok {
			s = q
		}
	} else {
		s, _, _ = strings.Cut(s, "\t")
		s = strings.TrimSpace(s)
	}
	if s == devNull {
		return "", true
	}
	return stripPrefix(s), false
}

func stripPrefix(s string) string {
	if rest, ok := strings.CutPrefix(s, "a/"); ok {
		return rest
	}
	if rest, ok := strings.CutPrefix(s, "b/"); ok {
		return rest
	}
	return s
}

// unquoteName reads a name that git may have C-quoted.
func unquoteName(s string) string {
	s = strings.TrimSpace(s)
	if strings.HasPrefix(s, "\"") {
		if q, _, ok := cutQuoted(s); ok {
			return q
		}
	}
	return s
}

// cutQuoted reads the C-quoted string at the start of s and returns it
// unquoted with the rest of s.
func cutQuoted(s string) (string, string, bool) {
	for k := 1; k < len(s); k++ {
		switch s[k] {
		case '\\':
			k++
		case '"':
			q, err := strconv.Unquote(s[:k+1])
			if err != nil {
				return "", "", false
			}
			return q, s[k+1:], true
		}
	}
	return "", "", false
}

// gitHeaderNames reads the two names of a "diff --git" line.
func gitHeaderNames(rest string) (string, string, error) {
	bad := errors.New("bad \"diff --git\" line: expected \"diff --git a/PATH b/PATH\"")
	var a, b string
	if strings.HasPrefix(rest, "\"") {
		q, tail, ok := cutQuoted(rest)
		if !ok {
			return "", "", bad
		}
		a, b = q, unquoteName(tail)
	} else if n := len(rest); n%2 == 1 && rest[n/2] == ' ' && stripPrefix(rest[:n/2]) == stripPrefix(rest[n/2+1:]) {
		a, b = rest[:n/2], rest[n/2+1:]
	} else if k := strings.Index(rest, " b/"); k >= 0 {
		a, b = rest[:k], unquoteName(rest[k+1:])
	} else if k := strings.LastIndex(rest, " \""); k >= 0 {
		a, b = rest[:k], unquoteName(rest[k+1:])
	} else if x, y, ok := strings.Cut(rest, " "); ok {
		a, b = x, y
	} else {
		return "", "", bad
	}
	if a == "" || b == "" {
		return "", "", bad
	}
	return stripPrefix(a), stripPrefix(b), nil
}
