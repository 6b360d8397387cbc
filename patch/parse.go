package patch

import (
	"fmt"
	"strings"
)

// Parse reads a Codex apply_patch envelope or a unified diff into one plan
// per file, in patch order. The format is detected from the text. A patch
// that cannot be read is refused with a *ParseError; no partial plan is
// returned.
func Parse(text string) ([]File, error) {
	src := splitPatch(text)
	lo, hi := src.unwrap()
	if lo > hi {
		return nil, &ParseError{Line: 1, Msg: "empty patch: expected \"*** Begin Patch\" or a unified diff"}
	}
	var (
		files []File
		err   error
	)
	switch src.detect(lo, hi) {
	case formatCodex:
		files, err = parseCodex(src, lo, hi)
	case formatUnified:
		// Blank lines trimmed from the end may still be the empty context
		// lines a hunk's counts call for.
		end := hi
		for end+1 < len(src) && blank(src[end+1]) {
			end++
		}
		files, err = parseUnified(src, lo, hi, end)
	default:
		return nil, &ParseError{Line: lo + 1, Msg: "not a patch: expected \"*** Begin Patch\" (Codex envelope) or a unified diff (\"--- a/path\", \"+++ b/path\", \"@@ -l,s +l,s @@\")"}
	}
	if err != nil {
		return nil, err
	}
	if err := checkPaths(files); err != nil {
		return nil, err
	}
	return files, nil
}

// checkPaths refuses a patch that touches one path twice: its plans could
// not be applied independently of their order.
func checkPaths(files []File) error {
	seen := make(map[string]int, len(files))
	for _, f := range files {
		for _, p := range []string{f.Path, f.MoveTo} {
			if p == "" {
				continue
			}
			if line, ok := seen[p]; ok {
				return &ParseError{Line: f.Line, Msg: fmt.Sprintf("%s is named again (first at patch line %d): give each path one section", p, line)}
			}
			seen[p] = f.Line
		}
	}
	return nil
}

type format int

const (
	formatUnknown format = iota
	formatCodex
	formatUnified
)

// patchLines is the patch text cut into lines without terminators; line i
// is patch line i+1.
type patchLines []string

// splitPatch cuts text into lines. A text whose every line ends in "\r\n"
// was carried with CRLF line endings: the "\r"s are dropped. Otherwise a
// "\r" is content (a git diff of a CRLF file carries one at the end of each
// hunk line but not of its headers).
func splitPatch(text string) patchLines {
	text = strings.TrimSuffix(text, "\n")
	lines := strings.Split(text, "\n")
	allCR := true
	for _, l := range lines {
		if !strings.HasSuffix(l, "\r") {
			allCR = false
			break
		}
	}
	if allCR {
		for i, l := range lines {
			lines[i] = strings.TrimSuffix(l, "\r")
		}
	}
	return lines
}

func blank(s string) bool { return strings.TrimSpace(s) == "" }

// unwrap returns the first and last line index of the patch proper, after
// blank lines and a heredoc or code fence wrapper.
func (p patchLines) unwrap() (lo, hi int) {
	lo, hi = 0, len(p)-1
	for lo <= hi && blank(p[lo]) {
		lo++
	}
	for hi >= lo && blank(p[hi]) {
		hi--
	}
	if lo > hi {
		return lo, hi
	}
	closer := ""
	first := strings.TrimSpace(p[lo])
	switch {
	case strings.HasPrefix(first, "```"):
		closer = "```"
	case heredocTag(first) != "":
		closer = heredocTag(first)
	default:
		return lo, hi
	}
	lo++
	if hi >= lo && strings.TrimSpace(p[hi]) == closer {
		hi--
	}
	for lo <= hi && blank(p[lo]) {
		lo++
	}
	for hi >= lo && blank(p[hi]) {
		hi--
	}
	return lo, hi
}

// heredocTag returns the terminator of a shell heredoc opened at the end of
// line (apply_patch <<'EOF', cat <<-"PATCH", ...), or "".
func heredocTag(line string) string {
	i := strings.LastIndex(line, "<<")
	if i < 0 {
		return ""
	}
	tag := strings.TrimSpace(line[i+2:])
	tag = strings.TrimPrefix(tag, "-")
	tag = strings.TrimSpace(tag)
	if len(tag) >= 2 && (tag[0] == '\'' || tag[0] == '"') && tag[len(tag)-1] == tag[0] {
		tag = tag[1 : len(tag)-1]
	}
	if tag == "" {
		return ""
	}
	for _, r := range tag {
		if !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return ""
		}
	}
	return tag
}

// detect decides the format of lines lo..hi: Codex when it starts like an
// envelope, unified when it has a diff header or hunk header anywhere (a
// commit message may come first), else Codex when an envelope line appears
// later (so the refusal can say what the first line should be).
func (p patchLines) detect(lo, hi int) format {
	if t := strings.TrimSpace(p[lo]); t == codexBegin || isCodexFileHeader(t) {
		return formatCodex
	}
	for i := lo; i <= hi; i++ {
		l := p[i]
		if strings.HasPrefix(l, "diff --git ") || strings.HasPrefix(l, "@@ -") ||
			strings.HasPrefix(l, "--- ") && i < hi && strings.HasPrefix(p[i+1], "+++ ") {
			return formatUnified
		}
	}
	for i := lo; i <= hi; i++ {
		if t := strings.TrimSpace(p[i]); t == codexBegin || isCodexFileHeader(t) {
			return formatCodex
		}
	}
	// Hunks with bare "@@" lines and no file header: read as a unified
	// diff, so the refusal can say what header to add.
	for i := lo; i <= hi; i++ {
		if strings.HasPrefix(p[i], "@@") {
			return formatUnified
		}
	}
	return formatUnknown
}
