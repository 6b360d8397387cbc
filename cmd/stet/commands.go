package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"regexp"
	"runtime/debug"
	"slices"
	"strings"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/policy"
	"github.com/stet-dev/stet/tools"
)

type command func(e *env, args []string) error

var commands map[string]command

func init() {
	commands = map[string]command{
		"read": cmdRead, "edit": cmdEdit, "write": cmdWrite, "patch": cmdPatch,
		"list": cmdList, "find": cmdFind, "grep": cmdGrep, "mkdir": cmdMkdir,
		"move": cmdMove, "delete": cmdDelete, "undo": cmdUndo,
		"call": cmdCall, "turn": cmdTurn, "log": cmdLog, "show": cmdShow,
		"verify": cmdVerify, "gc": cmdGC, "tools": cmdTools, "mcp": cmdMCP, "version": cmdVersion,
		"info": cmdInfo, "roots": cmdRoots, "completion": cmdCompletion,
		"diff": cmdDiff, "review": cmdReview, "setup": cmdSetup, "hook": cmdHook,
		"sync": cmdSync,
	}
}

const shortUsage = "run 'stet help' for usage\n"

const usageText = `stet: file tools an AI agent cannot use to lose the user's data

usage: stet [global flags] <command> [flags] [args]

tools:
  read    [--offset N] [--limit N | --tail N] PATH [PATH ...]   numbered frame of a file (a window, the tail, several files)
  info    PATH                                     type, size, lines, mode, mtime, version, links
  roots                                            the workspace roots with their effects
  edit    --old-string S --new-string S [--replace-all] [--edits JSON] [--dry-run] [--expected-version V] PATH
  write   (--content S | --content - | --stdin) [--overwrite] [--dry-run] [--expected-version V] PATH
  patch   [--patch TEXT | --stdin] [--dry-run]    Codex *** Begin Patch envelope or unified diff (stdin by default)
  list    [--depth N] [--sort name|size] [--limit N] [--exclude GLOB]... [--no-ignore] [PATH]
  find    [--limit N] [--exclude GLOB]... [--no-ignore] PATTERN [PATH]
  grep    [-i] [-F] [-w] [-U] [-l | -c] [-h | -H] [-q] [-A N] [-B N] [-C N] [-e PATTERN]... [--glob G]
          [--type T] [--exclude GLOB]... [--no-ignore] [--offset N] [--limit N] PATTERN [PATH ...]
                                                   skips what git ignores; PATH - is standard input;
                                                   one-letter flags cluster as grep's do (-il, -C1)
  mkdir   PATH
  move    [--overwrite] FROM TO
  delete  PATH
  undo    PATH                                     revert this session's last change of PATH
  undo    --session S [--turn T] [--dry-run] [PATH]  take back a session's (turn's, file's) changes, all or nothing
  undo    --receipt ID[,ID...] [--dry-run]         take back those changes (an undo's receipt: redo)

more:
  call TOOL --json ARGS      one tool call with JSON arguments; prints the result or refusal as JSON
  turn --request-file F [--inputs a,b]   pin this turn's request and declared inputs (--end clears them)
  log [--path P]             list receipts (this session with --session, else all)
  show ID                    one receipt with its diff
  diff [--turn T] [--offset N] [--limit N] [PATH]   combined diff per file of a session (--session) or turn
  review [--addr 127.0.0.1:0] [--open]   a local page over the journal: sessions, diffs, stands, undo
  review --journal URL       the same page over every journal shipped to PostgreSQL (undo: the command to run)
  verify [ID | --all]        re-check receipts and the journal's hash chain
  verify --all --journal URL  check every journal chain and blob shipped to PostgreSQL
  sync --to URL [--host NAME]  ship this state directory's journal to PostgreSQL and return
  sync --migrate --to URL    create or migrate stet's schema and roles (as the database's owner)
  gc [--keep DURATION]       drop journal records and saved contents older than the
                             retention (default 30d); receipts kept keep their undo data
  tools [--format mcp|openai|openai-responses|anthropic] [--strict]   tool definitions with JSON Schemas
  mcp [--session NAME] [--http 127.0.0.1:PORT [--token-file F] [--allow-origin O]] [--stall-steps N]
                             serve MCP (stdio by default); the HTTP token comes from
                             --token-file F or STET_TOKEN (--token T also works, but
                             shows the token in the process list); browser origins
                             other than loopback ones are refused unless allowed;
                             --session NAME puts every connection in that one session
  setup CLIENT [--root DIR ...] [--project] [--config FILE] [--write]
                             the MCP configuration of CLIENT for this OS (claude-code,
                             claude-desktop, cursor, vscode, windsurf, zed, goose,
                             codex); --write merges it into the client's file
  version                    the module version (also stet --version)
  completion bash|zsh|fish   shell completion script
  help [COMMAND]             a command's help (also stet COMMAND --help)

global flags (before or after the command):
  --root DIR (repeatable; default .)  --session ID  --state DIR  --effects read-only|workspace-write
  --json  --binding seen|read|full  --protect GLOB  --deny-read GLOB  --no-default-protect  --max-read-bytes N

exit codes: 0 done, 1 failed, 2 bad usage, 3 refused by policy
  (grep: 0 a match, 1 no match, 2 an error or bad usage, 3 refused)
`

// toolCall opens the workspace, runs one tool and prints its output.
func (e *env) toolCall(mutating bool, args any) error {
	ws, s, err := e.open(mutating)
	if err != nil {
		return err
	}
	defer ws.Close()
	res, err := s.Do(e.ctx, args)
	if err != nil {
		return err
	}
	e.print(res)
	return nil
}

func (e *env) print(res any) {
	if e.g.json {
		e.printJSON(res)
		return
	}
	text := stet.Text(res)
	fmt.Fprint(e.stdout, text)
	if !strings.HasSuffix(text, "\n") {
		fmt.Fprintln(e.stdout)
	}
}

// onePath takes the PATH positional or the --path flag.
func onePath(flagVal string, pos []string, required bool) (string, error) {
	switch {
	case len(pos) > 1:
		return "", usagef("expected one PATH, got %q", pos)
	case len(pos) == 1 && flagVal != "" && pos[0] != flagVal:
		return "", usagef("give the path once (flag --path %q and argument %q)", flagVal, pos[0])
	case len(pos) == 1:
		return pos[0], nil
	case flagVal == "" && required:
		return "", usagef("missing PATH")
	}
	return flagVal, nil
}

func cmdRead(e *env, args []string) error {
	var a stet.ReadArgs
	fs := e.newFlags("read", "read [--offset N] [--limit N | --tail N] PATH [PATH ...]")
	fs.StringVar(&a.Path, "path", "", "file to read")
	fs.IntVar(&a.Offset, "offset", 0, "first line, 1-based")
	fs.IntVar(&a.Limit, "limit", 0, "lines to show (default 2000)")
	fs.IntVar(&a.Tail, "tail", 0, "show the last `N` lines")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) > 1 {
		if a.Path != "" {
			return usagef("give the paths once, as arguments")
		}
		a.Paths = pos
		return e.toolCall(false, &a)
	}
	if a.Path, err = onePath(a.Path, pos, true); err != nil {
		return err
	}
	return e.toolCall(false, &a)
}

func cmdInfo(e *env, args []string) error {
	var a stet.InfoArgs
	return e.pathCommand("info", "file or directory to describe", &a.Path, args, false, &a)
}

func cmdRoots(e *env, args []string) error {
	fs := e.newFlags("roots", "roots")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) > 0 {
		return usagef("roots takes no arguments")
	}
	return e.toolCall(false, &stet.RootsArgs{})
}

// optString is a string flag that remembers whether it was set.
type optString struct {
	v   string
	set bool
}

func (o *optString) String() string { return o.v }
func (o *optString) Set(v string) error {
	o.v, o.set = v, true
	return nil
}

func cmdEdit(e *env, args []string) error {
	var a stet.EditArgs
	var oldS, newS optString
	var edits string
	fs := e.newFlags("edit", "edit --old-string S --new-string S [--replace-all] [--dry-run] [--expected-version V] PATH")
	fs.StringVar(&a.Path, "path", "", "file to edit")
	fs.Var(&oldS, "old-string", "exact text to replace")
	fs.Var(&newS, "new-string", "replacement text")
	fs.BoolVar(&a.ReplaceAll, "replace-all", false, "replace every occurrence")
	fs.StringVar(&edits, "edits", "", "JSON array of {old_string,new_string,replace_all?}, applied in order (- reads standard input)")
	fs.BoolVar(&a.DryRun, "dry-run", false, "show the receipt and diff, write nothing")
	fs.StringVar(&a.ExpectedVersion, "expected-version", "", "the version the file must hold (sha256:...)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if a.Path, err = onePath(a.Path, pos, true); err != nil {
		return err
	}
	if oldS.set {
		a.OldString = &oldS.v
	}
	if newS.set {
		a.NewString = &newS.v
	}
	if edits == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return fmt.Errorf("standard input: %w", err)
		}
		if edits = string(b); strings.TrimSpace(edits) == "" {
			return usagef("--edits - read nothing from standard input; send the JSON array of edits there")
		}
	}
	if edits != "" {
		var ops []json.RawMessage
		if err := json.Unmarshal([]byte(edits), &ops); err != nil {
			return usagef("--edits must be a JSON array of {old_string, new_string, replace_all?}: %v", err)
		}
		if oldS.set || newS.set {
			return usagef("give --old-string and --new-string, or --edits, not both")
		}
		// The edits go through the tool's own JSON decoding, as in stet call,
		// so an unknown key is refused with the nearest one suggested.
		raw, err := json.Marshal(struct {
			Path            string          `json:"path"`
			Edits           json.RawMessage `json:"edits"`
			DryRun          bool            `json:"dry_run,omitempty"`
			ExpectedVersion string          `json:"expected_version,omitempty"`
			ReplaceAll      bool            `json:"replace_all,omitempty"`
		}{a.Path, json.RawMessage(edits), a.DryRun, a.ExpectedVersion, a.ReplaceAll})
		if err != nil {
			return err
		}
		return e.rawCall("edit", raw)
	}
	switch {
	case !oldS.set && !newS.set:
		return usagef("missing --old-string and --new-string (or --edits)")
	case !oldS.set:
		return usagef("missing --old-string (the exact text to replace)")
	case !newS.set:
		return usagef("missing --new-string (the replacement; --new-string '' deletes)")
	}
	return e.toolCall(true, &a)
}

func cmdWrite(e *env, args []string) error {
	var a stet.WriteArgs
	var content optString
	var fromStdin bool
	fs := e.newFlags("write", "write (--content S | --stdin) [--overwrite] [--dry-run] PATH")
	fs.StringVar(&a.Path, "path", "", "file to write")
	fs.Var(&content, "content", "the file's full new content (- reads standard input, as --stdin does)")
	fs.BoolVar(&fromStdin, "stdin", false, "read the content from standard input")
	fs.BoolVar(&a.Overwrite, "overwrite", false, "replacing a file the request names is really what the user asked for")
	fs.BoolVar(&a.DryRun, "dry-run", false, "show the receipt and diff, write nothing")
	fs.StringVar(&a.ExpectedVersion, "expected-version", "", "the version the file must hold (sha256:...)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if a.Path, err = onePath(a.Path, pos, true); err != nil {
		return err
	}
	switch {
	case content.set && fromStdin:
		return usagef("give --content or --stdin, not both")
	case fromStdin || (content.set && content.v == "-"):
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return err
		}
		a.Content = string(b)
	case content.set:
		a.Content = content.v
	default:
		return usagef("missing --content (or --stdin)")
	}
	return e.toolCall(true, &a)
}

func cmdPatch(e *env, args []string) error {
	var a stet.PatchArgs
	var text optString
	var fromStdin bool
	fs := e.newFlags("patch", "patch [--patch TEXT | --stdin] [--dry-run]")
	fs.Var(&text, "patch", "the patch text (default, or -: read standard input)")
	fs.BoolVar(&fromStdin, "stdin", false, "read the patch from standard input (the default)")
	fs.BoolVar(&a.DryRun, "dry-run", false, "show the receipts and diff, write nothing")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) > 0 {
		return usagef("patch takes no arguments; pass the patch on standard input or with --patch")
	}
	if text.set && fromStdin && text.v != "-" {
		return usagef("give --patch or --stdin, not both")
	}
	if text.set && text.v != "-" {
		a.Patch = text.v
	} else {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return err
		}
		a.Patch = string(b)
	}
	return e.toolCall(true, &a)
}

func cmdList(e *env, args []string) error {
	var a stet.ListArgs
	fs := e.newFlags("list", "list [--depth N] [--sort name|size] [--limit N] [--exclude GLOB]... [--no-ignore] [PATH]")
	fs.StringVar(&a.Path, "path", "", "directory to list (default: the root)")
	fs.IntVar(&a.Depth, "depth", 0, "levels to descend (default 1)")
	fs.IntVar(&a.Limit, "limit", 0, "entries to show at most")
	fs.StringVar(&a.Sort, "sort", "", "name (the default) or size (the largest first)")
	ignoreFlags(fs, &a.Exclude, &a.NoIgnore)
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if a.Path, err = onePath(a.Path, pos, false); err != nil {
		return err
	}
	return e.toolCall(false, &a)
}

// globList is a repeatable flag collecting globs.
type globList []string

func (g *globList) String() string     { return strings.Join(*g, ",") }
func (g *globList) Set(v string) error { *g = append(*g, v); return nil }

// ignoreFlags adds --exclude and --no-ignore, shared by list, find and grep.
func ignoreFlags(fs *flag.FlagSet, exclude *[]string, noIgnore *bool) {
	fs.Var((*globList)(exclude), "exclude", "leave out paths matching this glob (repeatable)")
	fs.BoolVar(noIgnore, "no-ignore", false, "also show what .gitignore, .git/info/exclude, the global excludes file and .ignore hide")
}

// patternAndPath reads PATTERN [PATH] positionals for find and grep.
func patternAndPath(pattern, path *string, pos []string) error {
	if *pattern == "" && len(pos) > 0 {
		*pattern, pos = pos[0], pos[1:]
	}
	if len(pos) > 1 || (len(pos) == 1 && *path != "") {
		return usagef("expected PATTERN [PATH], got extra arguments %q", pos)
	}
	if len(pos) == 1 {
		*path = pos[0]
	}
	if *pattern == "" {
		return usagef("missing PATTERN")
	}
	return nil
}

func cmdFind(e *env, args []string) error {
	var a stet.FindArgs
	fs := e.newFlags("find", "find [--path DIR] [--limit N] [--exclude GLOB]... [--no-ignore] PATTERN [PATH]")
	fs.StringVar(&a.Pattern, "pattern", "", "glob; ** crosses directories")
	fs.StringVar(&a.Path, "path", "", "directory to search (default: the root)")
	fs.IntVar(&a.Limit, "limit", 0, "paths to show at most")
	ignoreFlags(fs, &a.Exclude, &a.NoIgnore)
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if err := patternAndPath(&a.Pattern, &a.Path, pos); err != nil {
		return err
	}
	return e.toolCall(false, &a)
}

const grepSynopsis = "grep [-i] [-F] [-w] [-U] [-l | -c] [-h | -H] [-q] [-A N] [-B N] [-C N] [-e PATTERN]... [--glob G] [--type T] [--exclude GLOB]... [--no-ignore] [--offset N] [--limit N] PATTERN [PATH ...]"

// stdinName names standard input in grep's rows, as grep does.
const stdinName = "(standard input)"

// grepOpts are the CLI's own grep flags: how rows are printed and which
// paths are searched.
type grepOpts struct {
	noFilename bool
	quiet      bool
	paths      []string
}

func cmdGrep(e *env, args []string) error {
	var a stet.GrepArgs
	var o grepOpts
	var patterns stringList
	fs := e.newFlags("grep", grepSynopsis)
	fs.StringVar(&a.Pattern, "pattern", "", "RE2 regular expression")
	fs.StringVar(&a.Path, "path", "", "file or directory to search (default: the root); - is standard input")
	fs.StringVar(&a.Glob, "glob", "", "only files whose path matches this glob")
	fs.StringVar(&a.Type, "type", "", "only files of this type (go, py, js, ts, rs, java, c, cpp, md, json, yaml, ...)")
	for _, name := range []string{"e", "regexp"} {
		fs.Var(&patterns, name, "a `PATTERN` (repeatable: a line matching any of them matches; every argument is then a PATH)")
	}
	for _, name := range []string{"i", "ignore-case"} {
		fs.BoolVar(&a.IgnoreCase, name, false, "match letters in either case")
	}
	for _, name := range []string{"F", "fixed-strings"} {
		fs.BoolVar(&a.FixedStrings, name, false, "PATTERN is literal text")
	}
	for _, name := range []string{"w", "word"} {
		fs.BoolVar(&a.Word, name, false, "match whole words only")
	}
	for _, name := range []string{"U", "multiline"} {
		fs.BoolVar(&a.Multiline, name, false, "a match may span lines")
	}
	var files, counts, ignored bool
	fs.BoolVar(&files, "l", false, "show only the paths of files with a match (output_mode files_with_matches)")
	fs.BoolVar(&files, "files-with-matches", false, "show only the paths of files with a match (output_mode files_with_matches)")
	fs.BoolVar(&counts, "c", false, "show matching lines per file (output_mode count)")
	fs.BoolVar(&counts, "count", false, "show matching lines per file (output_mode count)")
	fs.StringVar(&a.OutputMode, "output-mode", "", "content, files_with_matches or count")
	for _, name := range []string{"h", "no-filename"} {
		fs.BoolVar(&o.noFilename, name, false, "leave the path out of each row (line:text)")
	}
	for _, name := range []string{"H", "with-filename"} {
		fs.BoolVar(new(bool), name, false, "start each row with its path (the default)")
	}
	for _, name := range []string{"q", "quiet"} {
		fs.BoolVar(&o.quiet, name, false, "print nothing: the exit code says whether a line matched")
	}
	for _, name := range []string{"n", "line-number"} {
		fs.BoolVar(&ignored, name, false, "accepted as grep has it: rows always carry line numbers")
	}
	for _, name := range []string{"r", "recursive"} {
		fs.BoolVar(&ignored, name, false, "accepted as grep has it: a directory is always searched through")
	}
	for _, name := range []string{"E", "extended-regexp"} {
		fs.BoolVar(&ignored, name, false, "accepted as grep has it: PATTERN is always RE2, an extended syntax")
	}
	for _, name := range []string{"A", "after"} {
		fs.IntVar(&a.After, name, 0, "lines of context after each match")
	}
	for _, name := range []string{"B", "before"} {
		fs.IntVar(&a.Before, name, 0, "lines of context before each match")
	}
	for _, name := range []string{"C", "context"} {
		fs.IntVar(&a.Context, name, 0, "lines of context around each match")
	}
	fs.IntVar(&a.Offset, "offset", 0, "results to skip (paging)")
	fs.IntVar(&a.Limit, "limit", 0, "results to show at most")
	ignoreFlags(fs, &a.Exclude, &a.NoIgnore)
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	switch {
	case len(patterns) > 0 && a.Pattern != "":
		return usagef("give the pattern once: -e PATTERN or --pattern PATTERN")
	case len(patterns) > 0:
		a.Pattern, a.FixedStrings = joinPatterns(patterns, a.FixedStrings)
	case a.Pattern == "" && len(pos) > 0:
		a.Pattern, pos = pos[0], pos[1:]
	}
	if a.Pattern == "" {
		return usagef("missing PATTERN")
	}
	switch {
	case len(pos) > 0 && a.Path != "":
		return usagef("give the paths once: --path %q and arguments %q", a.Path, pos)
	case len(pos) > 0:
		o.paths = pos
	default:
		o.paths = []string{a.Path}
	}
	switch {
	case files && counts:
		return usagef("give -l or -c, not both")
	case files:
		a.OutputMode = stet.GrepFilesWithMatches
	case counts:
		a.OutputMode = stet.GrepCount
	}
	return e.grep(a, o)
}

// joinPatterns makes one RE2 expression of several -e patterns: a line
// matches when any of them matches. Fixed strings are quoted first, so
// the result is a regular expression either way.
func joinPatterns(patterns []string, fixed bool) (string, bool) {
	if len(patterns) == 1 {
		return patterns[0], fixed
	}
	alts := make([]string, len(patterns))
	for i, p := range patterns {
		if fixed {
			p = regexp.QuoteMeta(p)
		}
		alts[i] = "(?:" + p + ")"
	}
	return strings.Join(alts, "|"), false
}

// errNoMatch ends a grep that found nothing: exit 1, as grep does, with
// nothing on stderr.
var errNoMatch = errors.New("no match")

// grepFailed is an error of grep other than a refusal or bad usage: exit
// 2, as grep does.
type grepFailed struct{ err error }

func (g grepFailed) Error() string { return g.err.Error() }
func (g grepFailed) Unwrap() error { return g.err }

// grep runs a grep call on each path in turn ("-": standard input's
// text). Text output is streamed: each file's rows are formatted as soon
// as the files before it are done and written within streamDelay (or when
// the buffer fills), so a reader that needs only the first lines gets them
// at once. --json prints the whole result at the end. A
// refusal for one of several paths is said on standard error and the
// others are searched; the exit code is then 3.
func (e *env) grep(a stet.GrepArgs, o grepOpts) error {
	if os.Getenv("GOGC") == "" {
		defer debug.SetGCPercent(debug.SetGCPercent(grepGCPercent))
	}
	r := &grepRun{e: e, o: o, out: newGrepOut(e.stdout)}
	r.out.groups = a.Context > 0 || a.Before > 0 || a.After > 0
	defer r.close()
	if o.quiet {
		// Whether any line matches is all that is asked.
		a.OutputMode, a.Offset, a.Limit = stet.GrepFilesWithMatches, 0, 1
	}
	all := &stet.GrepResult{}
	truncated := false
	var refused error
	for _, p := range o.paths {
		a.Path = p
		part, err, openErr := r.search(a)
		if openErr != nil {
			return openErr
		}
		if err != nil {
			r.out.flush()
			if _, ok := stet.AsRefusal(err); ok && len(o.paths) > 1 && !e.g.json {
				ref, _ := stet.AsRefusal(err)
				fmt.Fprintln(e.stderr, ref.Message)
				refused = err
				continue
			}
			return grepErr(err)
		}
		all.Matches = append(all.Matches, part.Matches...)
		all.Paths = append(all.Paths, part.Paths...)
		all.Counts = append(all.Counts, part.Counts...)
		truncated = truncated || part.Truncated
	}
	return r.finish(a, all, truncated, refused)
}

// grepRun is one grep command's state across its paths: the workspace,
// opened at the first path that is not "-", standard input's text, read
// once, and the rows written so far.
type grepRun struct {
	e   *env
	o   grepOpts
	out *grepOut
	n   int // rows written

	ws *stet.Workspace
	s  *stet.Session

	stdin    []byte
	stdinErr error
	readIn   bool
}

// close closes the workspace, if one was opened.
func (r *grepRun) close() {
	if r.ws != nil {
		r.ws.Close()
	}
}

// session opens the workspace and its session on first use.
func (r *grepRun) session() (*stet.Session, error) {
	if r.s == nil {
		var err error
		if r.ws, r.s, err = r.e.open(false); err != nil {
			return nil, err
		}
	}
	return r.s, nil
}

// text reads standard input, bounded, on first use.
func (r *grepRun) text() ([]byte, error) {
	if !r.readIn {
		r.readIn = true
		r.stdin, r.stdinErr = readBounded(r.e.stdin, stet.DefaultMaxFileBytes)
	}
	return r.stdin, r.stdinErr
}

// search greps one path (a.Path; "-" is standard input), writing its rows
// as they come unless the output is JSON or quiet. err is the search's
// error; openErr a workspace that could not be opened, which ends the
// command.
func (r *grepRun) search(a stet.GrepArgs) (part *stet.GrepResult, err, openErr error) {
	e, o := r.e, r.o
	if a.Path == "-" {
		var b []byte
		if b, err = r.text(); err == nil {
			part, err = stet.GrepText(e.ctx, a, stdinName, b)
		}
		if err == nil && !e.g.json && !o.quiet {
			n, _ := r.out.rows(part, o.noFilename)
			r.n += n
		}
		return part, err, nil
	}
	sess, err := r.session()
	if err != nil {
		return nil, nil, err
	}
	if e.g.json || o.quiet {
		part, err = sess.Grep(e.ctx, a)
		return part, err, nil
	}
	part = &stet.GrepResult{}
	part.Truncated, err = sess.GrepEach(e.ctx, a, func(rows *stet.GrepResult) error {
		n, err := r.out.rows(rows, o.noFilename)
		r.n += n
		return err
	})
	return part, err, nil
}

// finish prints what is left once every path is searched (the JSON
// result, or the text trailer) and returns the command's outcome: a
// refusal already said, no match, or success.
func (r *grepRun) finish(a stet.GrepArgs, all *stet.GrepResult, truncated bool, refused error) error {
	e, w := r.e, r.out.done()
	found := grepFound(all) || r.out.matched
	switch {
	case r.o.quiet:
		if found {
			return nil // grep -q: a match is success, whatever else happened
		}
	case e.g.json:
		switch a.OutputMode {
		case stet.GrepFilesWithMatches:
			all.Paths = append([]string{}, all.Paths...)
		case stet.GrepCount:
			all.Counts = append([]stet.GrepCountRow{}, all.Counts...)
		default:
			all.Matches = append([]stet.GrepMatch{}, all.Matches...)
		}
		all.Truncated = truncated
		e.printJSON(all)
	default:
		shape := &stet.GrepResult{Truncated: truncated}
		switch a.OutputMode {
		case stet.GrepFilesWithMatches:
			shape.Paths = []string{}
		case stet.GrepCount:
			shape.Counts = []stet.GrepCountRow{}
		}
		// Standard output holds grep's rows alone (| xargs, | wc -l); the
		// trailer, and the note that more results exist, go to standard
		// error.
		if err := w.Flush(); err != nil {
			return grepErr(err)
		}
		fmt.Fprintln(e.stderr, stet.GrepTrailer(shape, r.n))
	}
	if refused != nil {
		return errRefusedShown
	}
	if !found && !truncated {
		return errNoMatch
	}
	return nil
}

// errRefusedShown ends a grep of several paths one of which was refused:
// exit 3, the refusal already said.
var errRefusedShown = errors.New("refused (said above)")

// readBounded reads r to its end, refusing more than max bytes.
func readBounded(r io.Reader, max int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r, max+1))
	if err != nil {
		return nil, fmt.Errorf("standard input: %w", err)
	}
	if int64(len(b)) > max {
		return nil, fmt.Errorf("standard input holds more than %s bytes; save it to a file inside the workspace and name that file instead", policy.Thousands(int(max)))
	}
	return b, nil
}

func grepErr(err error) error {
	if _, ok := stet.AsRefusal(err); ok {
		return err
	}
	return grepFailed{err}
}

// pathCommand is a tool whose only argument is a required PATH.
func (e *env) pathCommand(name, usage string, path *string, args []string, mutating bool, a any) error {
	fs := e.newFlags(name, name+" PATH")
	fs.StringVar(path, "path", "", usage)
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if *path, err = onePath(*path, pos, true); err != nil {
		return err
	}
	return e.toolCall(mutating, a)
}

func cmdMkdir(e *env, args []string) error {
	var a stet.MkdirArgs
	return e.pathCommand("mkdir", "directory to create", &a.Path, args, true, &a)
}

func cmdMove(e *env, args []string) error {
	var a stet.MoveArgs
	fs := e.newFlags("move", "move [--overwrite] FROM TO")
	fs.StringVar(&a.From, "from", "", "path to move")
	fs.StringVar(&a.To, "to", "", "new path")
	fs.BoolVar(&a.Overwrite, "overwrite", false, "replace TO if it exists (it must have been read)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	switch {
	case len(pos) == 2 && a.From == "" && a.To == "":
		a.From, a.To = pos[0], pos[1]
	case len(pos) == 1 && a.From == "" && a.To != "":
		a.From = pos[0]
	case len(pos) == 1 && a.From != "" && a.To == "":
		a.To = pos[0]
	case len(pos) == 0 && a.From != "" && a.To != "":
	default:
		return usagef("expected FROM TO")
	}
	return e.toolCall(true, &a)
}

func cmdDelete(e *env, args []string) error {
	var a stet.DeleteArgs
	return e.pathCommand("delete", "file to delete", &a.Path, args, true, &a)
}

func cmdUndo(e *env, args []string) error {
	return cmdUndoSet(e, args)
}

func cmdCall(e *env, args []string) error {
	var raw string
	fs := e.newFlags("call", "call TOOL --json ARGS")
	// In call, --json takes the arguments; the output is always JSON.
	fs.Func("json", "the tool's arguments as a JSON `object` (- reads standard input)", func(v string) error { raw = v; return nil })
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) == 0 {
		return usagef("missing TOOL (one of %s)", strings.Join(tools.Names(false), ", "))
	}
	if len(pos) == 2 && raw == "" {
		raw = pos[1]
	} else if len(pos) > 1 {
		return usagef("expected TOOL --json ARGS, got extra arguments %q", pos[1:])
	}
	if raw == "-" {
		b, err := io.ReadAll(e.stdin)
		if err != nil {
			return err
		}
		raw = string(b)
	}
	if raw == "" {
		raw = "{}"
	}
	e.g.json = true
	mutating, ok := tools.Mutating(pos[0])
	ws, s, err := e.open(!ok || mutating)
	if err != nil {
		return err
	}
	defer ws.Close()
	out, err := s.Call(e.ctx, pos[0], json.RawMessage(raw))
	if err != nil {
		return err
	}
	if out.Refused != nil {
		return out.Refused
	}
	e.printJSON(out.Structured)
	return nil
}

// rawCall runs one tool call from its JSON arguments, as stet call does,
// and prints its output as the tool's own command would.
func (e *env) rawCall(name string, raw json.RawMessage) error {
	mutating, _ := tools.Mutating(name)
	ws, s, err := e.open(mutating)
	if err != nil {
		return err
	}
	defer ws.Close()
	out, err := s.Call(e.ctx, name, raw)
	if err != nil {
		return err
	}
	if out.Refused != nil {
		return out.Refused
	}
	e.print(out.Structured)
	return nil
}

func cmdVersion(e *env, args []string) error {
	fs := e.newFlags("version", "version")
	if _, err := parse(fs, args); err != nil {
		return parseErr(err)
	}
	if e.g.json {
		e.printJSON(map[string]string{"version": buildVersion()})
		return nil
	}
	fmt.Fprintf(e.stdout, "stet %s\n", buildVersion())
	return nil
}

func cmdTools(e *env, args []string) error {
	var format string
	var strict bool
	fs := e.newFlags("tools", "tools [--format mcp|openai|openai-responses|anthropic] [--strict]")
	fs.StringVar(&format, "format", "mcp", "mcp, openai, openai-responses or anthropic")
	fs.BoolVar(&strict, "strict", false, "schemas valid for strict function calling: every property required, optional ones nullable, no default")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) > 0 {
		return usagef("tools takes no arguments")
	}
	if !slices.Contains(tools.Formats(), format) {
		if s := tools.Nearest(format, tools.Formats()); s != "" {
			return usagef("unknown --format %q; did you mean %q?", format, s)
		}
		return usagef("unknown --format %q; want %s", format, strings.Join(tools.Formats(), ", "))
	}
	o, err := e.g.options()
	if err != nil {
		return err
	}
	b, err := tools.DefinitionsWith(format, tools.DefinitionOptions{ReadOnly: o.Effects == "read-only", Strict: strict})
	if err != nil {
		return err
	}
	e.stdout.Write(b)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		fmt.Fprintln(e.stdout)
	}
	return nil
}
