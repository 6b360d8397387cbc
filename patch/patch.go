package patch

// Kind says what a File plan does to its path.
type Kind string

// The kinds of file plan.
const (
	Add    Kind = "add"    // create Path with Content
	Update Kind = "update" // apply Hunks to Path, then move it to MoveTo if set
	Delete Kind = "delete" // remove Path
)

// File is the plan for one path of a patch.
type File struct {
	Kind Kind
	// Path is the slash path as the patch wrote it: the Codex header's path,
	// or the unified diff's name with one leading "a/" or "b/" removed.
	Path string
	// MoveTo is the new path of an update that also renames its file (Codex
	// "*** Move to:", git "rename to"); "" when the file stays.
	MoveTo string
	// Content is the whole new file of an Add. A Codex Add's lines are each
	// followed by "\n"; a unified diff's keep a missing final newline when
	// the diff marks it.
	Content []byte
	// Hunks are the changes of an Update, in file order. A Delete from a
	// unified diff also carries its hunks, which remove the whole file:
	// applying them to the file must leave it empty, so a caller can check
	// the file still holds what the patch expected (CheckDelete).
	Hunks []Hunk
	// Exact says that a Delete gives the file's whole content: a unified
	// diff's deletion, whose removed lines must be exactly the file's lines
	// (none: the file must be empty), as git apply checks. A Codex
	// "*** Delete File:" names the file only.
	Exact bool
	// OldMode and NewMode are the file modes a git diff's headers give
	// before and after the change, in git's octal ("100644", "100755",
	// "120000" for a symlink, "160000" for a submodule): "old mode" and
	// "new mode", "deleted file mode" (OldMode), "new file mode"
	// (NewMode), or the mode after an "index" line (both). "" when the
	// patch gives none (a Codex envelope, a plain diff). An Update with
	// no Hunks and no MoveTo changes only the mode. Neither Parse nor
	// Apply acts on a mode: see ModeType and Executable.
	OldMode, NewMode string
	// Line is the 1-based line of the patch where this file's section starts.
	Line int
}

// Hunk is one change of a file: its Old lines are replaced by its New lines.
// Lines are stored without terminators; an empty string is an empty line.
type Hunk struct {
	// Context is the text of a Codex "@@ <line>" anchor: the hunk lies
	// below the first line of the file containing it. Several consecutive
	// "@@" lines are joined with "\n". It may be "". Apply uses it to narrow
	// the search only when OldStart is 0. A unified hunk never has one.
	Context string
	// Heading is the text after a unified hunk header's second "@@" (git's
	// section heading, which names some line above the hunk), or after a
	// lone "@@" that carries no numbers. It is kept for messages; Apply never
	// requires it to be in the file.
	Heading string
	// OldStart is the 1-based line where the Old lines start according to a
	// unified hunk header; for a hunk with no Old lines, the line the New
	// lines go before. It is a hint, not a rule. 0 when unknown (Codex).
	OldStart int
	// Old and New are the hunk's lines before and after: context and
	// removed lines make Old, context and added lines make New.
	Old, New []string
	// AtEOF anchors the hunk at the end of the file: Codex "*** End of File",
	// a Codex chunk of only added lines that says nowhere where it goes (no
	// "@@" text), or a unified hunk that carries a "\ No newline at end of
	// file" marker.
	AtEOF bool
	// OldNoEOL and NewNoEOL record a "\ No newline at end of file" marker
	// after the last Old line or the last New line: the file ends without a
	// newline before the change, or after it.
	OldNoEOL, NewNoEOL bool
}

// The types of entry a git mode names (ModeType).
const (
	TypeFile      = "file"      // a regular file: 100644, 100755
	TypeSymlink   = "symlink"   // 120000: the "content" is the link's target
	TypeSubmodule = "submodule" // 160000: a commit of another repository
)

// ModeType returns the type of entry a git mode names: TypeFile,
// TypeSymlink or TypeSubmodule, or "" for no mode. A mode without git's
// type bits (a model's "new file mode 755") is a regular file's.
func ModeType(mode string) string {
	m, ok := parseMode(mode)
	switch {
	case !ok:
		return ""
	case m&0o170000 == 0o120000:
		return TypeSymlink
	case m&0o170000 == 0o160000:
		return TypeSubmodule
	}
	return TypeFile
}

// Executable reports whether mode is a regular file's with an executable
// bit (git writes 100755).
func Executable(mode string) bool {
	m, ok := parseMode(mode)
	return ok && ModeType(mode) == TypeFile && m&0o111 != 0
}

// parseMode reads a git mode: one to six octal digits.
func parseMode(mode string) (uint32, bool) {
	if mode == "" || len(mode) > 6 {
		return 0, false
	}
	var m uint32
	for _, c := range mode {
		if c < '0' || c > '7' {
			return 0, false
		}
		m = m<<3 | uint32(c-'0')
	}
	return m, true
}
