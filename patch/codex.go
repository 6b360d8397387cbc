package patch

import (
	"fmt"
	"strings"
)

// The lines of the Codex apply_patch envelope.
const (
	codexBegin  = "*** Begin Patch"
	codexEnd    = "*** End Patch"
	codexAdd    = "*** Add File:"
	codexDelete = "*** Delete File:"
	codexUpdate = "*** Update File:"
	codexMove   = "*** Move to:"
	codexEOF    = "*** End of File"
)

func isCodexFileHeader(t string) bool {
	return strings.HasPrefix(t, codexAdd) || strings.HasPrefix(t, codexDelete) || strings.HasPrefix(t, codexUpdate)
}

// isCodexMarker reports whether t, a line with its surrounding whitespace
// trimmed, is a line of the envelope itself (a file header, "*** Move to:",
// "*** End of File" or "*** End Patch") rather than a hunk line.
func isCodexMarker(t string) bool {
	return t == codexEnd || t == codexEOF || isCodexFileHeader(t) || strings.HasPrefix(t, codexMove)
}

// parseCodex reads lines lo..hi as one Codex envelope.
func parseCodex(p patchLines, lo, hi int) ([]File, error) {
	if t := strings.TrimSpace(p[lo]); t != codexBegin {
		return nil, &ParseError{Line: lo + 1, Msg: fmt.Sprintf("expected %q as the first line, found %q", codexBegin, clip(t, 60))}
	}
	var files []File
	i := lo + 1
	for i <= hi {
		t := strings.TrimSpace(p[i])
		switch {
		case t == "":
			i++
		case t == codexEnd:
			for j := i + 1; j <= hi; j++ {
				if !blank(p[j]) {
					return nil, &ParseError{Line: j + 1, Msg: fmt.Sprintf("text after %q: one envelope per patch", codexEnd)}
				}
			}
			return files, nil
		case strings.HasPrefix(t, codexAdd):
			f, next, err := parseCodexAdd(p, i, hi)
			if err != nil {
				return nil, err
			}
			files, i = append(files, f), next
		case strings.HasPrefix(t, codexDelete):
			path, err := headerPath(t, codexDelete, i)
			if err != nil {
				return nil, err
			}
			files, i = append(files, File{Kind: Delete, Path: path, Line: i + 1}), i+1
		case strings.HasPrefix(t, codexUpdate):
			f, next, err := parseCodexUpdate(p, i, hi)
			if err != nil {
				return nil, err
			}
			files, i = append(files, f), next
		case strings.HasPrefix(t, "***"):
			return nil, &ParseError{Line: i + 1, Msg: fmt.Sprintf("unknown header %q: expected \"*** Add File: PATH\", \"*** Update File: PATH\", \"*** Delete File: PATH\" or %q", clip(t, 60), codexEnd)}
		default:
			return nil, &ParseError{Line: i + 1, Msg: fmt.Sprintf("unexpected line %q: expected a file header (\"*** Add File: PATH\", \"*** Update File: PATH\", \"*** Delete File: PATH\") or %q", clip(p[i], 60), codexEnd)}
		}
	}
	return nil, &ParseError{Line: hi + 1, Msg: fmt.Sprintf("the patch ends without %q", codexEnd)}
}

func headerPath(t, prefix string, i int) (string, error) {
	path := strings.TrimSpace(strings.TrimPrefix(t, prefix))
	if path == "" {
		return "", &ParseError{Line: i + 1, Msg: fmt.Sprintf("%q needs a path", prefix)}
	}
	return path, nil
}

// parseCodexAdd reads "*** Add File: PATH" at line i and its "+" lines.
func parseCodexAdd(p patchLines, i, hi int) (File, int, error) {
	path, err := headerPath(strings.TrimSpace(p[i]), codexAdd, i)
	if err != nil {
		return File{}, 0, err
	}
	f := File{Kind: Add, Path: path, Line: i + 1}
	var lines []string
	pending := 0 // empty lines, content only if a "+" line follows
	j := i + 1
	for ; j <= hi; j++ {
		l := p[j]
		switch {
		case strings.HasPrefix(l, "+"):
			for ; pending > 0; pending-- {
				lines = append(lines, "")
			}
			lines = append(lines, l[1:])
			continue
		case l == "":
			pending++
			continue
		case blank(l) || strings.HasPrefix(strings.TrimSpace(l), "***"):
		default:
			return File{}, 0, &ParseError{Line: j + 1, Msg: fmt.Sprintf("bad line %q in \"*** Add File: %s\": every line of an added file starts with '+'", clip(l, 60), path)}
		}
		break
	}
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(l)
		b.WriteByte('\n')
	}
	f.Content = []byte(b.String())
	return f, j, nil
}

// parseCodexUpdate reads "*** Update File: PATH" at line i, an optional
// "*** Move to:", and its hunks.
func parseCodexUpdate(p patchLines, i, hi int) (File, int, error) {
	path, err := headerPath(strings.TrimSpace(p[i]), codexUpdate, i)
	if err != nil {
		return File{}, 0, err
	}
	f := File{Kind: Update, Path: path, Line: i + 1}
	j := i + 1
	for j <= hi && blank(p[j]) {
		j++
	}
	if j <= hi && strings.HasPrefix(strings.TrimSpace(p[j]), codexMove) {
		if f.MoveTo, err = headerPath(strings.TrimSpace(p[j]), codexMove, j); err != nil {
			return File{}, 0, err
		}
		if f.MoveTo == f.Path {
			f.MoveTo = ""
		}
		j++
	}

	c := &codexHunks{f: &f}
body:
	for ; j <= hi; j++ {
		l := p[j]
		var err error
		switch {
		case strings.HasPrefix(l, "***") || isCodexMarker(strings.TrimSpace(l)):
			// A marker may carry whitespace around it, as Codex accepts:
			// " *** End Patch" ends the file's hunks, it is no context line.
			if strings.TrimSpace(l) != codexEOF {
				break body
			}
			err = c.endOfFile(j)
		case strings.HasPrefix(l, "@@"):
			err = c.header(l, j)
		case l == "" || l[0] == ' ' || l[0] == '-' || l[0] == '+' || l[0] == '\\':
			err = c.line(l, j)
		default:
			err = badHunkLine(l, j+1)
		}
		if err != nil {
			return File{}, 0, err
		}
	}
	if err := c.close(); err != nil {
		return File{}, 0, err
	}
	if len(f.Hunks) == 0 && f.MoveTo == "" {
		return File{}, 0, &ParseError{Line: i + 1, Msg: fmt.Sprintf("\"*** Update File: %s\" has no hunks: add \"@@\" hunks, or \"*** Move to: PATH\" to only rename it", path)}
	}
	return f, j, nil
}

// codexHunks builds the hunks of one "*** Update File" section, line by
// line.
type codexHunks struct {
	f        *File
	cur      *hunkBuilder
	afterEOF bool // the last hunk ended with "*** End of File": the next needs "@@"
}

// close ends the hunk being built, if any, and adds it to the file. A
// chunk of only added lines that says nowhere where it goes is anchored
// at the end of the file, as Codex puts it.
func (c *codexHunks) close() error {
	if c.cur == nil {
		return nil
	}
	h, err := c.cur.finish()
	if err != nil {
		return err
	}
	if len(h.Old) == 0 && h.Context == "" && h.OldStart == 0 {
		// A chunk of only added lines that says nowhere where goes at
		// the end of the file, as Codex puts it.
		h.AtEOF = true
	}
	c.f.Hunks = append(c.f.Hunks, h)
	c.cur = nil
	return nil
}

// endOfFile is "*** End of File" at p[j]: it ends the hunk being built and
// anchors it at the end of the file.
func (c *codexHunks) endOfFile(j int) error {
	if c.cur == nil || c.cur.n == 0 {
		return &ParseError{Line: j + 1, Msg: fmt.Sprintf("%q must end a hunk's lines", codexEOF)}
	}
	if err := c.cur.flush(); err != nil {
		return err
	}
	c.cur.h.AtEOF = true
	if err := c.close(); err != nil {
		return err
	}
	c.afterEOF = true
	return nil
}

// header is an "@@" line at p[j]: it starts a hunk (or narrows the one
// not yet holding lines) with an anchor, or with a unified header's line
// hint and section heading.
func (c *codexHunks) header(l string, j int) error {
	if c.cur != nil && c.cur.n > 0 {
		if err := c.close(); err != nil {
			return err
		}
	}
	if c.cur == nil {
		c.cur = newHunkBuilder(j + 1)
	}
	cur := c.cur
	cur.blank = cur.blank[:0]
	switch uh := parseUnifiedHeader(l); {
	case uh.form >= headerHint || uh.double:
		// A unified header inside the envelope: its line number is a
		// hint, its counts are not checked, and its section heading
		// is not an anchor.
		if cur.h.OldStart == 0 {
			cur.h.OldStart = uh.oldStart()
		}
		if uh.section != "" {
			cur.h.Heading = uh.section
		}
	default:
		if anchor := strings.TrimSpace(l[2:]); anchor != "" {
			cur.ctx = append(cur.ctx, anchor)
		}
	}
	c.afterEOF = false
	return nil
}

// line is a hunk line at p[j] (context, removed, added, or "\ No newline
// at end of file"); an empty line before the first hunk separates.
func (c *codexHunks) line(l string, j int) error {
	if c.cur == nil {
		if l == "" {
			return nil // a separator before the first hunk
		}
		if c.afterEOF {
			return &ParseError{Line: j + 1, Msg: fmt.Sprintf("a hunk after %q must start with an \"@@\" line", codexEOF)}
		}
		c.cur = newHunkBuilder(j + 1)
	}
	return c.cur.take(l, j+1)
}
