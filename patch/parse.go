package patch

import (
	"fmt"
	"path"
	"slices"
	"strings"
)

// Parse reads a Codex apply_patch envelope or a unified diff into one plan
// per file, in patch order. The format is detected from the text. A patch
// that cannot be read is refused with a *ParseError; no partial plan is
// returned.
func Parse(text string) ([]File, error) {
	src := splitPatch(text)
	lo, hi, dir, err := src.unwrap()
	if err != nil {
		return nil, err
	}
	if lo > hi {
		return nil, &ParseError{Line: 1, Msg: "empty patch: expected \"*** Begin Patch\" or a unified diff"}
	}
	var files []File
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
	if dir != "" {
		for i := range files {
			files[i].Path = inDir(dir, files[i].Path)
			if files[i].MoveTo != "" {
				files[i].MoveTo = inDir(dir, files[i].MoveTo)
			}
		}
	}
	if err := checkPaths(files); err != nil {
		return nil, err
	}
	return files, nil
}

// inDir resolves a patch path in the directory of a "cd DIR &&" wrapper,
// as the shell would: an absolute path stays, a relative one is joined to
// DIR (".." steps are resolved by name, as cd does).
func inDir(dir, p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return path.Join(dir, p)
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
// blank lines and the wrappers models put around a patch: a Markdown code
// fence, a shell heredoc (apply_patch <<'EOF', cat <<'EOF' | apply_patch),
// or both, the fence outside. dir is the directory of a "cd DIR &&" before
// the heredoc, "" without one.
func (p patchLines) unwrap() (lo, hi int, dir string, err error) {
	lo, hi = p.trim(0, len(p)-1)
	fenced := false
	for lo <= hi {
		first := strings.TrimSpace(p[lo])
		closer := ""
		switch {
		case !fenced && dir == "" && strings.HasPrefix(first, "```"):
			closer, fenced = "```", true
		default:
			w, ok, werr := heredoc(first)
			if werr != nil {
				return 0, 0, "", &ParseError{Line: lo + 1, Msg: werr.Error()}
			}
			if !ok {
				return lo, hi, dir, nil
			}
			closer, dir = w.tag, w.dir
		}
		lo++
		if hi >= lo && strings.TrimSpace(p[hi]) == closer {
			hi--
		}
		lo, hi = p.trim(lo, hi)
		if closer != "```" {
			break // nothing wraps inside a heredoc
		}
	}
	return lo, hi, dir, nil
}

// trim narrows lo..hi to the lines between leading and trailing blank ones.
func (p patchLines) trim(lo, hi int) (int, int) {
	for lo <= hi && blank(p[lo]) {
		lo++
	}
	for hi >= lo && blank(p[hi]) {
		hi--
	}
	return lo, hi
}

// wrapper is what the first line of a shell heredoc says.
type wrapper struct {
	tag string // the heredoc's terminator
	dir string // the directory of a "cd DIR &&" before it, or ""
}

// applyCommands are the names a heredoc may be piped to, or given to.
var applyCommands = []string{"apply_patch", "applypatch"}

// heredoc reads a shell line that opens a heredoc: anything, then "<<" (or
// "<<-"), the tag (bare or quoted), and optionally "| apply_patch" after
// it. ok is false when the line opens none. A "cd DIR &&" at its start
// gives the directory the patch's paths are relative to; a DIR the shell
// would expand or split is refused, as is a cd not joined by "&&".
func heredoc(line string) (w wrapper, ok bool, err error) {
	i := strings.Index(line, "<<")
	if i < 0 {
		return wrapper{}, false, nil
	}
	before, rest := strings.TrimSpace(line[:i]), strings.TrimSpace(line[i+2:])
	rest = strings.TrimSpace(strings.TrimPrefix(rest, "-"))
	tag, after := rest, ""
	if len(rest) > 0 && (rest[0] == '\'' || rest[0] == '"') {
		end := strings.IndexByte(rest[1:], rest[0])
		if end < 0 {
			return wrapper{}, false, nil
		}
		tag, after = rest[1:end+1], rest[end+2:]
	} else if j := strings.IndexAny(rest, " \t|"); j >= 0 {
		tag, after = rest[:j], rest[j:]
	}
	if !heredocTagOK(tag) {
		return wrapper{}, false, nil
	}
	if after = strings.TrimSpace(after); after != "" {
		cmd, piped := strings.CutPrefix(after, "|")
		if !piped || !slices.Contains(applyCommands, strings.TrimSpace(cmd)) {
			return wrapper{}, false, nil
		}
	}
	w.tag = tag
	w.dir, err = cdDir(before)
	return w, true, err
}

// heredocTagOK says whether tag can end a heredoc: letters, digits, "_",
// "-" and ".".
func heredocTagOK(tag string) bool {
	if tag == "" {
		return false
	}
	for _, r := range tag {
		if !(r == '_' || r == '-' || r == '.' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// cdDir returns DIR when cmd (the part of a heredoc line before "<<")
// starts "cd DIR &&"; "" when it does not start with cd.
func cdDir(cmd string) (string, error) {
	rest, ok := strings.CutPrefix(cmd, "cd")
	if !ok || rest == "" || rest[0] != ' ' && rest[0] != '\t' {
		return "", nil
	}
	rest = strings.TrimSpace(rest)
	var dir string
	switch {
	case rest != "" && (rest[0] == '\'' || rest[0] == '"'):
		end := strings.IndexByte(rest[1:], rest[0])
		if end < 0 {
			return "", fmt.Errorf("the cd before the heredoc has an unclosed quote: %q", clip(cmd, 60))
		}
		dir, rest = rest[1:end+1], rest[end+2:]
	default:
		j := strings.IndexAny(rest, " \t&;|")
		if j < 0 {
			j = len(rest)
		}
		dir, rest = rest[:j], rest[j:]
	}
	if dir == "" || strings.ContainsAny(dir, "$`~*?[\\") {
		return "", fmt.Errorf("the cd before the heredoc names %q, which a shell would expand; give the directory as a plain path, or drop the cd and give paths from the workspace root", clip(dir, 60))
	}
	if !strings.HasPrefix(strings.TrimSpace(rest), "&&") {
		return "", fmt.Errorf("%q: only \"cd DIR && apply_patch <<'EOF'\" is read as a directory for the patch; join the cd with && or drop it and give paths from the workspace root", clip(cmd, 60))
	}
	return dir, nil
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
