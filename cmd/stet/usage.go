package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"regexp"
	"runtime/debug"
	"sort"
	"strings"

	"github.com/spf13/pflag"

	"github.com/stet-dev/stet/tools"
)

// summaries are the one-line descriptions of the commands, for help.
var summaries = map[string]string{
	"read":       "print the numbered frame of a file (a window of it, its tail, or several files)",
	"info":       "describe a file or directory: type, size, lines, mode, mtime, version, links",
	"roots":      "list the workspace roots with their effects",
	"edit":       "replace exact text in a file read before",
	"write":      "create a file, or replace one read before",
	"patch":      "apply a Codex *** Begin Patch envelope or a unified diff, all or nothing",
	"list":       "list a directory (no PATH: the root, or every root)",
	"find":       "find files whose path matches a glob",
	"grep":       "search file contents with an RE2 regular expression",
	"mkdir":      "create a directory and its missing parents",
	"move":       "rename a file inside the workspace",
	"delete":     "delete a file read before (its bytes are kept in the journal)",
	"undo":       "revert this session's last change of PATH, or take back a session, turn or receipts exactly",
	"diff":       "print the combined diff per file of a session, a turn or the whole journal",
	"review":     "serve a local page over the journal: sessions, turns, diffs, stands, refusals, undo",
	"call":       "one tool call with JSON arguments; prints the result or refusal as JSON",
	"turn":       "pin this turn's request and declared inputs",
	"log":        "list receipts",
	"show":       "print one receipt with its diff",
	"verify":     "re-check receipts and the journal's hash chain",
	"sync":       "ship this state directory's journal to PostgreSQL and return (--migrate: create or migrate the schema)",
	"gc":         "drop journal records and saved contents older than the retention; kept receipts keep their undo data",
	"tools":      "print the tool definitions with JSON Schemas",
	"mcp":        "serve the tools over MCP (stdio, or streamable HTTP)",
	"setup":      "print the MCP configuration of a client (claude-code, claude-desktop, cursor, vscode, windsurf, zed, goose, codex) for this OS, or merge it into the client's file with --write",
	"hook":       "answer one hook event of a client's own file tools (claude-code, codex, cursor, gemini, vscode) by stet's rules: the event on stdin, the answer in the client's format",
	"version":    "print stet's version",
	"completion": "print a shell completion script (bash, zsh or fish)",
	"help":       "print help for a command",
}

// commandNames returns every command, sorted.
func commandNames() []string {
	names := make([]string, 0, len(commands)+1)
	for n := range commands {
		names = append(names, n)
	}
	names = append(names, "help")
	sort.Strings(names)
	return names
}

// globalFlagNames are the flags every command accepts.
func globalFlagNames() map[string]bool {
	fs := flag.NewFlagSet("", flag.ContinueOnError)
	newGlobals().register(fs)
	names := map[string]bool{}
	fs.VisitAll(func(f *flag.Flag) { names[f.Name] = true })
	return names
}

var (
	reUndefined = regexp.MustCompile(`^flag provided but not defined: -+(.*)$`)
	reNeedsArg  = regexp.MustCompile(`^flag needs an argument: -+(.*)$`)
	reBadValue  = regexp.MustCompile(`^invalid (?:boolean )?value "(.*)" for flag -+([^:]*): (.*)$`)
)

// flagError turns an error of the flag parsers (pflag for a command's
// flags, the flag package for the global flags before the command) into a
// usage error in our words: flags spelt with two dashes, the nearest known
// flag suggested for an unknown one. args are the arguments parsed.
func flagError(fs *flag.FlagSet, err error, args []string) error {
	var (
		notExist *pflag.NotExistError
		noValue  *pflag.ValueRequiredError
		badValue *pflag.InvalidValueError
	)
	switch {
	case errors.As(err, &notExist):
		if short := notExist.GetSpecifiedShortnames(); short != "" {
			return unknownShort(fs, notExist.GetSpecifiedName(), short, args)
		}
		return unknownLong(fs, notExist.GetSpecifiedName())
	case errors.As(err, &noValue):
		return usagef("flag %s needs a value", dashed(noValue.GetFlag().Name))
	case errors.As(err, &badValue):
		return badFlagValue(fs, badValue.GetFlag().Name, badValue.GetValue(), errors.Unwrap(badValue))
	}
	msg := err.Error()
	if m := reUndefined.FindStringSubmatch(msg); m != nil {
		return unknownLong(fs, m[1])
	}
	if m := reNeedsArg.FindStringSubmatch(msg); m != nil {
		return usagef("flag --%s needs a value", m[1])
	}
	if m := reBadValue.FindStringSubmatch(msg); m != nil {
		return badFlagValue(fs, m[2], m[1], errors.New(m[3]))
	}
	return usagef("%s", msg)
}

func unknownLong(fs *flag.FlagSet, name string) error {
	name, _, _ = strings.Cut(name, "=")
	var known []string
	fs.VisitAll(func(f *flag.Flag) { known = append(known, f.Name) })
	if s := tools.Nearest(name, known); s != "" {
		return usagef("unknown flag --%s; did you mean --%s?", name, s)
	}
	return usagef("unknown flag --%s", name)
}

// unknownShort reports an unknown one-letter flag c met in the cluster
// whose rest is short: a long flag given one dash ("-json"), or a letter
// the command does not have (naming those it has).
func unknownShort(fs *flag.FlagSet, c, short string, args []string) error {
	for _, a := range args {
		if a == "--" {
			break
		}
		word, _, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.HasSuffix(a, short) && len(word) > 1 && fs.Lookup(word) != nil {
			return usagef("unknown flag %s; long flags take two dashes: --%s", a, strings.TrimPrefix(a, "-"))
		}
	}
	var letters []string
	fs.VisitAll(func(f *flag.Flag) {
		if len(f.Name) == 1 {
			letters = append(letters, "-"+f.Name)
		}
	})
	in := ""
	if len(short) > 1 {
		in = fmt.Sprintf(" (in -%s)", short)
	}
	if len(letters) == 0 {
		return usagef("unknown flag -%s%s; this command's flags are long ones, with two dashes (see --help)", c, in)
	}
	sort.Strings(letters)
	return usagef("unknown flag -%s%s; the one-letter flags are %s", c, in, strings.Join(letters, " "))
}

func badFlagValue(fs *flag.FlagSet, name, value string, cause error) error {
	why := ""
	if cause != nil {
		why = cause.Error()
	}
	if f := fs.Lookup(name); f != nil {
		if g, ok := f.Value.(flag.Getter); ok {
			switch g.Get().(type) {
			case int:
				why = "want a whole number"
			case bool:
				why = "want true or false"
			}
		}
	}
	return usagef("invalid value %q for %s: %s", value, dashed(name), why)
}

// dashed is a flag's name as it is typed: "-A", "--after".
func dashed(name string) string {
	if len(name) == 1 {
		return "-" + name
	}
	return "--" + name
}

// printHelp writes a command's help: its usage line, what it does, its own
// flags, then the global flags, every flag with two dashes.
func printHelp(w io.Writer, name, synopsis string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: stet %s\n", synopsis)
	if s := summaries[name]; s != "" {
		fmt.Fprintf(w, "\n%s\n", s)
	}
	globals := globalFlagNames()
	var own, global []*flag.Flag
	fs.VisitAll(func(f *flag.Flag) {
		if globals[f.Name] && !(name == "call" && f.Name == "json") {
			global = append(global, f)
		} else {
			own = append(own, f)
		}
	})
	if len(own) > 0 {
		fmt.Fprintf(w, "\nflags:\n")
		printFlags(w, own, true)
	}
	fmt.Fprintf(w, "\nglobal flags (before or after the command):\n")
	printFlags(w, global, false)
}

// printFlags lists flags with two dashes; withDefaults adds the defaults
// (the global flags' defaults come from the environment, so their usage
// text says where instead).
// A one-letter flag (grep's -i, -A N, ...) is shown beside the long flag it
// stands for: "--ignore-case (-i)".
func printFlags(w io.Writer, flags []*flag.Flag, withDefaults bool) {
	short := map[string]string{} // usage text -> one-letter name
	for _, f := range flags {
		if len(f.Name) == 1 {
			short[f.Usage] = f.Name
		}
	}
	long := map[string]bool{} // usage texts that have a long flag
	for _, f := range flags {
		if len(f.Name) > 1 {
			long[f.Usage] = true
		}
	}
	for _, f := range flags {
		if len(f.Name) == 1 && long[f.Usage] {
			continue // shown beside its long flag
		}
		arg, usage := flag.UnquoteUsage(f)
		switch arg {
		case "string", "value":
			arg = "S"
		case "int":
			arg = "N"
		}
		left := "--" + f.Name
		if arg != "" {
			left += " " + arg
		}
		if c, ok := short[f.Usage]; ok && len(f.Name) > 1 {
			left += " (-" + c + ")"
		}
		if len(left) <= 22 {
			fmt.Fprintf(w, "  %-22s %s", left, usage)
		} else {
			fmt.Fprintf(w, "  %s\n  %-22s %s", left, "", usage)
		}
		if def := f.DefValue; withDefaults && def != "" && def != "false" && def != "0" && !strings.Contains(usage, "default") {
			fmt.Fprintf(w, " (default %s)", def)
		}
		fmt.Fprintln(w)
	}
}

// cmdHelp prints the help of a command (stet help CMD), or the overview.
func cmdHelp(e *env, args []string) error {
	switch len(args) {
	case 0:
		fmt.Fprint(e.stdout, usageText)
		return nil
	case 1:
	default:
		return usagef("expected one COMMAND, got %q", args)
	}
	name := args[0]
	if name == "help" {
		fmt.Fprintln(e.stdout, "usage: stet help [COMMAND]\n\n"+summaries["help"])
		return nil
	}
	cmd, ok := commands[name]
	if !ok {
		return unknownCommand(name)
	}
	return cmd(e, []string{"--help"})
}

func unknownCommand(name string) error {
	if s := tools.Nearest(name, commandNames()); s != "" {
		return usagef("unknown command %q; did you mean %q?", name, s)
	}
	return usagef("unknown command %q; the commands are %s", name, strings.Join(commandNames(), ", "))
}

// buildVersion is the version of this binary: -ldflags -X main.version
// when set; else the module version the build recorded (the tag of a `go
// install ...@vX`); else the VCS revision of a build from a checkout
// (with "-dirty" for uncommitted changes); else "(devel)".
func buildVersion() string {
	if version != "" {
		return version
	}
	info, ok := debug.ReadBuildInfo()
	if !ok {
		return "(devel)"
	}
	return versionOf(info)
}

func versionOf(info *debug.BuildInfo) string {
	if v := info.Main.Version; v != "" && v != "(devel)" && !strings.Contains(v, "+dirty") {
		return v
	}
	var rev, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		if modified == "true" {
			rev += "-dirty"
		}
		return "(devel) " + rev
	}
	if v := info.Main.Version; v != "" {
		return v
	}
	return "(devel)"
}

// flagsOf returns the flags of the command name (for completion), by
// building its flag set without running it.
func flagsOf(name string) []string {
	cmd, ok := commands[name]
	if !ok {
		return nil
	}
	e := &env{g: newGlobals(), stdout: io.Discard, stderr: io.Discard}
	cmd(e, []string{"--help"})
	if e.fs == nil {
		return nil
	}
	var out []string
	e.fs.VisitAll(func(f *flag.Flag) { out = append(out, "--"+f.Name) })
	return out
}

func cmdCompletion(e *env, args []string) error {
	fs := e.newFlags("completion", "completion bash|zsh|fish")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) != 1 {
		return usagef("expected one shell: bash, zsh or fish")
	}
	names := commandNames()
	switch pos[0] {
	case "bash":
		fmt.Fprint(e.stdout, bashCompletion(names))
	case "zsh":
		fmt.Fprint(e.stdout, "#compdef stet\n# stet completion for zsh: source it, or put it in a directory of $fpath as _stet.\nautoload -U +X bashcompinit && bashcompinit\n"+bashCompletion(names))
	case "fish":
		fmt.Fprint(e.stdout, fishCompletion(names))
	default:
		return usagef("unknown shell %q; want bash, zsh or fish", pos[0])
	}
	return nil
}

func bashCompletion(names []string) string {
	var b strings.Builder
	b.WriteString("# stet completion for bash: source <(stet completion bash)\n_stet() {\n")
	b.WriteString("  local cur=${COMP_WORDS[COMP_CWORD]} cmd= i\n")
	b.WriteString("  for ((i = 1; i < COMP_CWORD; i++)); do\n    case ${COMP_WORDS[i]} in -*) ;; *) cmd=${COMP_WORDS[i]}; break ;; esac\n  done\n")
	fmt.Fprintf(&b, "  if [[ -z $cmd ]]; then\n    COMPREPLY=($(compgen -W %q -- \"$cur\"))\n    return\n  fi\n", strings.Join(names, " ")+" --version --help")
	b.WriteString("  local flags=\n  case $cmd in\n")
	for _, n := range names {
		fl := flagsOf(n)
		switch {
		case n == "setup":
			// The client names, until one is given; then the flags.
			fmt.Fprintf(&b, "    %s) flags=%q\n      if [[ $cur != -* && ${COMP_WORDS[COMP_CWORD-1]} == setup ]]; then COMPREPLY=($(compgen -W %q -- \"$cur\")); return; fi ;;\n", n, strings.Join(fl, " "), strings.Join(clientNames(), " "))
		case len(fl) > 0:
			fmt.Fprintf(&b, "    %s) flags=%q ;;\n", n, strings.Join(fl, " "))
		}
	}
	b.WriteString("    help) COMPREPLY=($(compgen -W \"" + strings.Join(names, " ") + "\" -- \"$cur\")); return ;;\n")
	b.WriteString("    completion) COMPREPLY=($(compgen -W \"bash zsh fish\" -- \"$cur\")); return ;;\n")
	b.WriteString("  esac\n  if [[ $cur == -* ]]; then\n    COMPREPLY=($(compgen -W \"$flags\" -- \"$cur\"))\n  else\n    COMPREPLY=($(compgen -f -- \"$cur\"))\n  fi\n}\ncomplete -o filenames -F _stet stet\n")
	return b.String()
}

func fishCompletion(names []string) string {
	var b strings.Builder
	b.WriteString("# stet completion for fish: stet completion fish | source\n")
	b.WriteString("complete -c stet -f -n __fish_use_subcommand -l version -d 'print the version'\n")
	for _, n := range names {
		fmt.Fprintf(&b, "complete -c stet -f -n __fish_use_subcommand -a %s -d %s\n", n, fishQuote(summaries[n]))
	}
	for _, n := range names {
		for _, f := range flagsOf(n) {
			fmt.Fprintf(&b, "complete -c stet -n '__fish_seen_subcommand_from %s' -l %s\n", n, strings.TrimPrefix(f, "--"))
		}
	}
	b.WriteString("complete -c stet -f -n '__fish_seen_subcommand_from help' -a '" + strings.Join(names, " ") + "'\n")
	b.WriteString("complete -c stet -f -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'\n")
	b.WriteString("complete -c stet -f -n '__fish_seen_subcommand_from setup' -a '" + strings.Join(clientNames(), " ") + "'\n")
	return b.String()
}

func fishQuote(s string) string {
	return "'" + strings.ReplaceAll(strings.ReplaceAll(s, `\`, `\\`), "'", `\'`) + "'"
}
