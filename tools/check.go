package tools

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/glob"
	"github.com/stet-dev/stet/policy"
)

// Bounds of the numeric arguments (rule 1). Each tool's schema states its
// bounds as minimum and maximum, and Validate and Decode refuse a value
// outside them, naming the bound. They keep line arithmetic far from
// overflow and a single call's work proportionate; none of them limits what
// a file may hold.
const (
	// MaxLines bounds read's offset and limit (line numbers and counts).
	MaxLines = 1_000_000_000
	// MaxResults bounds the limit of list, find and grep.
	MaxResults = 100_000
	// MaxDepth bounds list's depth.
	MaxDepth = 1_000
	// MaxContext bounds grep's context lines.
	MaxContext = 1_000
	// MaxPaths bounds the files of one read with paths.
	MaxPaths = 100
	// MaxEdits bounds the replacements of one edit call.
	MaxEdits = 10_000
)

// Validate checks rule 1 for a read call given as a Go value: the same
// checks, in the same words, as Decode applies to JSON arguments. It
// returns nil or an *ArgError.
func (a ReadArgs) Validate() error { return checkArgs("read", &a) }

// Validate checks rule 1 for an info call (see ReadArgs.Validate).
func (a InfoArgs) Validate() error { return checkArgs("info", &a) }

// Validate checks rule 1 for a roots call (see ReadArgs.Validate).
func (a RootsArgs) Validate() error { return checkArgs("roots", &a) }

// Validate checks rule 1 for an edit call (see ReadArgs.Validate).
func (a EditArgs) Validate() error { return checkArgs("edit", &a) }

// Validate checks rule 1 for a write call (see ReadArgs.Validate).
func (a WriteArgs) Validate() error { return checkArgs("write", &a) }

// Validate checks rule 1 for a patch call (see ReadArgs.Validate). Whether
// the text parses as a patch is the facade's to say, with the patch's line.
func (a PatchArgs) Validate() error { return checkArgs("patch", &a) }

// Validate checks rule 1 for a list call (see ReadArgs.Validate).
func (a ListArgs) Validate() error { return checkArgs("list", &a) }

// Validate checks rule 1 for a find call (see ReadArgs.Validate).
func (a FindArgs) Validate() error { return checkArgs("find", &a) }

// Validate checks rule 1 for a grep call (see ReadArgs.Validate).
func (a GrepArgs) Validate() error { return checkArgs("grep", &a) }

// Validate checks rule 1 for a mkdir call (see ReadArgs.Validate).
func (a MkdirArgs) Validate() error { return checkArgs("mkdir", &a) }

// Validate checks rule 1 for a move call (see ReadArgs.Validate).
func (a MoveArgs) Validate() error { return checkArgs("move", &a) }

// Validate checks rule 1 for a delete call (see ReadArgs.Validate).
func (a DeleteArgs) Validate() error { return checkArgs("delete", &a) }

// Validate checks rule 1 for an undo call (see ReadArgs.Validate).
func (a UndoArgs) Validate() error { return checkArgs("undo", &a) }

// checkArgs runs the checks of the tool named name on a, a pointer to its
// argument type.
func checkArgs(name string, a any) error {
	t, ok := lookupTool(name)
	if !ok {
		panic("tools: no tool " + name)
	}
	if err := t.check(a); err != nil {
		return err
	}
	return nil
}

// checkBounds checks every integer argument against its param's bounds:
// 0 or more, and at most p.max.
func checkBounds(params []param, fields []any) *ArgError {
	for i, p := range params {
		if p.kind != kindInt {
			continue
		}
		n := *fields[i].(*int)
		switch {
		case n < 0:
			return invalid(p.name, "%s must be 0 or more, got %s.", p.name, policy.Thousands(n))
		case p.max > 0 && n > p.max:
			return invalid(p.name, "%s must be at most %s, got %s.", p.name, policy.Thousands(p.max), policy.Thousands(n))
		}
	}
	return nil
}

// Semantic checks (rule 1 beyond JSON types). They leave Tool empty; the
// caller fills it in.

func invalid(field, msg string, args ...any) *ArgError {
	return &ArgError{Field: field, Msg: fmt.Sprintf(msg, args...)}
}

func requirePath(field, value string) *ArgError {
	if value == "" {
		return invalid(field, "%s must not be empty; name a path relative to the workspace root.", field)
	}
	return nil
}

func checkPath[A any](get func(*A) string) func(*A) *ArgError {
	return func(a *A) *ArgError { return requirePath("path", get(a)) }
}

func checkRead(a *ReadArgs) *ArgError {
	switch {
	case a.Path != "" && len(a.Paths) > 0:
		return invalid("paths", "pass either path or paths, not both; put this path into paths as well.")
	case a.Tail > 0 && a.Offset > 0:
		return invalid("tail", "pass either tail (the last lines) or offset (a window from a line), not both.")
	case a.Tail > 0 && a.Limit > 0:
		return invalid("tail", "tail already says how many lines to show; leave limit out.")
	case a.Paths != nil:
		if len(a.Paths) == 0 {
			return invalid("paths", "paths is empty; name at least one file, or pass path.")
		}
		if len(a.Paths) > MaxPaths {
			return invalid("paths", "paths names %d files; at most %d per call.", len(a.Paths), MaxPaths)
		}
		for i, p := range a.Paths {
			if p == "" {
				return invalid(fmt.Sprintf("paths[%d]", i), "paths[%d] must be a non-empty path.", i)
			}
		}
		return nil
	case a.Path == "":
		return invalid("path", "missing required argument \"path\": path must not be empty; name a file relative to a workspace root, or pass paths for several files.")
	}
	return nil
}

// checkVersion checks that v is empty or a version exactly as stet writes
// it: "sha256:" and 64 lowercase hex digits. Other spellings of the same
// hash (upper case) are refused rather than normalized, on every surface:
// a version is copied, never retyped, and a surface that normalized would
// bind to a string the model was never shown.
func checkVersion(v string) *ArgError {
	if v == "" || fsys.Version(v).Valid() {
		return nil
	}
	return invalid("expected_version", "expected_version must be %q followed by 64 lowercase hex digits, exactly as read and receipts report it; got %q. Leave it out to use the version you read.", fsys.VersionPrefix, truncate(v))
}

func checkReplacement(field, old, new string) *ArgError {
	if old == "" {
		return invalid(field+"old_string", "%sold_string must not be empty: to insert text, put a neighbouring line in old_string and repeat it with the new text in new_string; to create a file, use write.", field)
	}
	if old == new {
		return invalid(field+"new_string", "%sold_string and %snew_string are identical, so the edit would change nothing; put the text you want in new_string.", field, field)
	}
	return nil
}

func checkEdit(a *EditArgs) *ArgError {
	if err := requirePath("path", a.Path); err != nil {
		return err
	}
	if err := checkVersion(a.ExpectedVersion); err != nil {
		return err
	}
	if len(a.Edits) > 0 {
		if a.OldString != nil || a.NewString != nil {
			field := "old_string"
			if a.OldString == nil {
				field = "new_string"
			}
			return invalid(field, "pass either old_string and new_string, or edits, not both; put this replacement into edits as well.")
		}
		if a.ReplaceAll {
			return invalid("replace_all", "with edits, replace_all goes inside each edit: {old_string, new_string, replace_all: true}.")
		}
		if len(a.Edits) > MaxEdits {
			return invalid("edits", "%d edits in one call is over the bound of %d; split them into several calls (each is all or nothing), or write the file whole.", len(a.Edits), MaxEdits)
		}
		for i, op := range a.Edits {
			if err := checkReplacement(fmt.Sprintf("edits[%d].", i), op.OldString, op.NewString); err != nil {
				return err
			}
		}
		return nil
	}
	switch {
	case a.OldString == nil && a.NewString == nil:
		return invalid("", "edit needs old_string and new_string, or edits: [{old_string, new_string}, ...].")
	case a.OldString == nil:
		return invalid("old_string", "missing required argument \"old_string\": the exact text to replace.")
	case a.NewString == nil:
		return invalid("new_string", "missing required argument \"new_string\": the text to put in place of old_string (\"\" to delete it).")
	}
	return checkReplacement("", *a.OldString, *a.NewString)
}

func checkWrite(a *WriteArgs) *ArgError {
	if err := requirePath("path", a.Path); err != nil {
		return err
	}
	return checkVersion(a.ExpectedVersion)
}

func checkPatch(a *PatchArgs) *ArgError {
	if strings.TrimSpace(a.Patch) == "" {
		return invalid("patch", "patch is empty; send a `*** Begin Patch` envelope or a unified diff.")
	}
	return nil
}

func checkGlob(field, g string) *ArgError {
	if err := glob.Valid(g); err != nil {
		return invalid(field, "%s %q is not a valid glob: %v. Use * within a name, ** across directories, ? for one character, [...] for a set and {a,b} for alternatives.", field, truncate(g), err)
	}
	return nil
}

func checkExclude(globs []string) *ArgError {
	for i, g := range globs {
		if err := checkGlob(fmt.Sprintf("exclude[%d]", i), g); err != nil {
			return err
		}
	}
	return nil
}

func checkList(a *ListArgs) *ArgError {
	switch a.Sort {
	case "", ListSortName, ListSortSize:
	default:
		return invalid("sort", "sort must be %q or %q, got %q.", ListSortName, ListSortSize, truncate(a.Sort))
	}
	return checkExclude(a.Exclude)
}

func checkFind(a *FindArgs) *ArgError {
	if a.Pattern == "" {
		return invalid("pattern", "pattern must not be empty; use a glob such as `**/*.go`.")
	}
	if err := checkGlob("pattern", a.Pattern); err != nil {
		return err
	}
	return checkExclude(a.Exclude)
}

// GrepRegexp is the regular expression of a grep call's pattern: quoted
// when FixedStrings, made case-insensitive by IgnoreCase, with ^ and $
// matching at line breaks under Multiline. Word is not in it: the grep
// engine bounds a whole-word match itself, by GNU grep's word characters
// (Unicode letters and digits, and _), which RE2's ASCII \b is not.
func GrepRegexp(a GrepArgs) string {
	p := a.Pattern
	if a.FixedStrings {
		p = regexp.QuoteMeta(p)
	}
	flags := ""
	if a.IgnoreCase {
		flags += "i"
	}
	if a.Multiline {
		flags += "m"
	}
	if flags != "" {
		p = "(?" + flags + ")" + p
	}
	return p
}

func checkGrep(a *GrepArgs) *ArgError {
	if a.Pattern == "" {
		return invalid("pattern", "pattern must not be empty; use a regular expression such as `func main`.")
	}
	if !a.FixedStrings {
		if _, err := regexp.Compile(a.Pattern); err != nil {
			return invalid("pattern", "pattern is not a valid RE2 regular expression: %v. RE2 has no backreferences or lookaround; escape a literal metacharacter with a backslash, or pass fixed_strings: true to search for the text as is.", err)
		}
	}
	if _, err := regexp.Compile(GrepRegexp(*a)); err != nil {
		return invalid("pattern", "pattern is not a valid RE2 regular expression with these options: %v.", err)
	}
	if a.Glob != "" {
		if err := checkGlob("glob", a.Glob); err != nil {
			return err
		}
	}
	if a.Type != "" {
		if _, ok := FileTypes[a.Type]; !ok {
			msg := fmt.Sprintf("type %q is not a known file type; use one of %s.", truncate(a.Type), typeList())
			if n := Nearest(a.Type, FileTypeNames()); n != "" {
				msg = fmt.Sprintf("type %q is not a known file type; did you mean %q? The types are %s.", truncate(a.Type), n, typeList())
			}
			return invalid("type", "%s", msg)
		}
	}
	switch a.OutputMode {
	case "", GrepContent, GrepFilesWithMatches, GrepCount:
	default:
		return invalid("output_mode", "output_mode must be %q, %q or %q, got %q.", GrepContent, GrepFilesWithMatches, GrepCount, truncate(a.OutputMode))
	}
	return checkExclude(a.Exclude)
}

// typeList is the names of FileTypes as prose: "c, cpp, ..." .
func typeList() string { return strings.Join(FileTypeNames(), ", ") }

func checkMove(a *MoveArgs) *ArgError {
	if err := requirePath("from", a.From); err != nil {
		return err
	}
	if err := requirePath("to", a.To); err != nil {
		return err
	}
	if a.From == a.To {
		return invalid("to", "from and to are the same path; name a different destination.")
	}
	return nil
}
