package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"

	"github.com/spf13/pflag"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/policy"
)

// Exit codes.
const (
	exitOK      = 0
	exitFailed  = 1
	exitUsage   = 2
	exitRefused = 3
)

// version, when set at build time with -ldflags "-X main.version=...",
// overrides the version the build info records (see buildVersion).
var version = ""

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// usageError is bad usage: exit 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usagef(format string, args ...any) error { return &usageError{fmt.Sprintf(format, args...)} }

// env is one invocation's environment.
type env struct {
	ctx    context.Context
	g      *globals
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer

	// The command's flag set and usage line, once newFlags made them.
	fs       *flag.FlagSet
	synopsis string
}

// run executes one command line and returns the exit code.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	g := newGlobals()
	gfs := flag.NewFlagSet("stet", flag.ContinueOnError)
	gfs.SetOutput(io.Discard)
	g.register(gfs)
	showVersion := gfs.Bool("version", false, "print the version")
	if err := gfs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			fmt.Fprint(stdout, usageText)
			return exitOK
		}
		fmt.Fprintf(stderr, "stet: %v\n%s", flagError(gfs, err, args), shortUsage)
		return exitUsage
	}
	rest := gfs.Args()
	if *showVersion {
		fmt.Fprintf(stdout, "stet %s\n", buildVersion())
		return exitOK
	}
	if len(rest) == 0 {
		fmt.Fprint(stderr, usageText)
		return exitUsage
	}
	name, rest := rest[0], rest[1:]
	e := &env{ctx: ctx, g: g, stdin: stdin, stdout: stdout, stderr: stderr}
	cmd, ok := commands[name]
	switch {
	case name == "help":
		cmd = cmdHelp
	case !ok:
		fmt.Fprintf(stderr, "stet: %v\n%s", unknownCommand(name), shortUsage)
		return exitUsage
	}
	err := cmd(e, rest)
	return e.finish(name, err)
}

// finish prints an error and maps it to an exit code. A usage error is one
// line, then the command's usage line and where its help is.
func (e *env) finish(name string, err error) int {
	if err == nil {
		return exitOK
	}
	var ue *usageError
	if errors.As(err, &ue) {
		fmt.Fprintf(e.stderr, "stet %s: %s\n", name, ue.msg)
		if e.synopsis != "" && name != "help" {
			fmt.Fprintf(e.stderr, "usage: stet %s\nrun 'stet help %s' for details\n", e.synopsis, name)
		} else {
			fmt.Fprint(e.stderr, shortUsage)
		}
		return exitUsage
	}
	if errors.Is(err, flag.ErrHelp) {
		return exitOK
	}
	var he hookExit
	if errors.As(err, &he) {
		return int(he)
	}
	if errors.Is(err, errNoMatch) {
		return exitFailed
	}
	if errors.Is(err, errRefusedShown) {
		return exitRefused
	}
	if r, ok := stet.AsRefusal(err); ok {
		if e.g.json {
			e.printJSON(r)
		} else {
			fmt.Fprintln(e.stderr, stet.Text(r)) // the message, then the frame or listing it shows
		}
		return exitRefused
	}
	fmt.Fprintf(e.stderr, "stet %s: %v\n", name, err)
	var gf grepFailed
	if errors.As(err, &gf) {
		return exitUsage
	}
	return exitFailed
}

func (e *env) printJSON(v any) {
	enc := json.NewEncoder(e.stdout)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	enc.Encode(v)
}

// globals are the flags every command accepts, before or after its name.
type globals struct {
	roots            stringList
	session          string
	sessionSet       bool // --session given or STET_SESSION set
	state            string
	effects          string
	binding          string
	json             bool
	protect          stringList
	denyRead         stringList
	noDefaultProtect bool
	maxReadBytes     int
}

func newGlobals() *globals {
	return &globals{
		session:    os.Getenv("STET_SESSION"),
		sessionSet: os.Getenv("STET_SESSION") != "",
		state:      os.Getenv("STET_STATE"),
		effects:    os.Getenv("STET_EFFECTS"),
	}
}

func (g *globals) register(fs *flag.FlagSet) { g.registerSome(fs, false) }

// registerSome registers the global flags; call takes --json for its
// arguments, so it skips the boolean one.
func (g *globals) registerSome(fs *flag.FlagSet, noJSON bool) {
	fs.Var(&g.roots, "root", "workspace root `DIR` (repeatable; CLI default: the current directory, never / or the home directory; stet mcp: none)")
	fs.Func("session", "session `ID` (env STET_SESSION; default \"default\")", func(v string) error {
		g.session, g.sessionSet = v, true
		return nil
	})
	fs.StringVar(&g.state, "state", g.state, "journal directory `DIR` (env STET_STATE)")
	fs.StringVar(&g.effects, "effects", g.effects, "read-only or workspace-write (env STET_EFFECTS)")
	fs.StringVar(&g.binding, "binding", g.binding, "edit binding: seen, read or full")
	if !noJSON {
		fs.BoolVar(&g.json, "json", g.json, "print the structured result as JSON")
	}
	fs.Var(&g.protect, "protect", "`GLOB` no tool may change (repeatable; every .git is protected by default)")
	fs.Var(&g.denyRead, "deny-read", "`GLOB` hidden from every tool (repeatable)")
	fs.BoolVar(&g.noDefaultProtect, "no-default-protect", g.noDefaultProtect, "do not protect every .git by default")
	fs.IntVar(&g.maxReadBytes, "max-read-bytes", g.maxReadBytes, fmt.Sprintf("read window byte bound (default %d, at most %d)", stet.DefaultMaxReadBytes, stet.MaxMaxReadBytes))
}

// options turns the globals into workspace options.
func (g *globals) options() (stet.Options, error) {
	o := stet.Options{
		State: g.state, Protect: g.protect, DenyRead: g.denyRead,
		NoDefaultProtect: g.noDefaultProtect, MaxReadBytes: g.maxReadBytes,
	}
	if g.effects != "" {
		eff, err := policy.ParseEffects(g.effects)
		if err != nil {
			return o, usagef("%v", err)
		}
		o.Effects = eff
	}
	if g.binding != "" {
		b, err := policy.ParseBinding(g.binding)
		if err != nil {
			return o, usagef("%v", err)
		}
		o.Binding = b
	}
	if g.maxReadBytes < 0 || g.maxReadBytes > stet.MaxMaxReadBytes {
		return o, usagef("--max-read-bytes must be between 1 and %d", stet.MaxMaxReadBytes)
	}
	return o, nil
}

// rootDirs are the workspace roots of a CLI command: --root, else the
// working directory, as git takes it, except the filesystem root and the
// home directory, which only --root may name (a command run there by
// mistake would reach every file). Run there without --root, it is bad
// usage (exit 2), naming the flag.
func (g *globals) rootDirs() ([]string, error) {
	if len(g.roots) > 0 {
		return g.roots, nil
	}
	wd, err := os.Getwd()
	if err != nil {
		return nil, fmt.Errorf("the current directory: %w; pass --root DIR", err)
	}
	if what := broadDir(wd); what != "" {
		return nil, usagef("the current directory %s is %s, which stet serves only when --root names it; run stet in a project directory, or pass --root DIR", wd, what)
	}
	return []string{wd}, nil
}

// broadDir names dir when it is the filesystem root or the home directory
// (as spelled or with symlinks resolved), and is "" for any other.
func broadDir(dir string) string {
	forms := func(p string) []string {
		p = filepath.Clean(p)
		out := []string{p}
		if real, err := filepath.EvalSymlinks(p); err == nil && real != p { // a root argument, judged before any workspace opens: not a workspace path
			out = append(out, real)
		}
		return out
	}
	home, _ := os.UserHomeDir()
	for _, d := range forms(dir) {
		if filepath.Dir(d) == d {
			return "the filesystem root"
		}
		if home == "" {
			continue
		}
		for _, h := range forms(home) {
			if d == h {
				return "the home directory"
			}
		}
	}
	return ""
}

// openWorkspace opens the workspace without loading a session (verify must
// run on a journal whose session records do not check out).
func (e *env) openWorkspace(sweep bool) (*stet.Workspace, error) {
	o, err := e.g.options()
	if err != nil {
		return nil, err
	}
	o.NoSweep = !sweep
	roots, err := e.g.rootDirs()
	if err != nil {
		return nil, err
	}
	return stet.Open(roots, o)
}

// open opens the workspace and the session of this invocation.
func (e *env) open(sweep bool) (*stet.Workspace, *stet.Session, error) {
	ws, err := e.openWorkspace(sweep)
	if err != nil {
		return nil, nil, err
	}
	s, err := ws.Session(e.g.session)
	if err != nil {
		ws.Close()
		return nil, nil, err
	}
	return ws, s, nil
}

// stringList is a repeatable flag; commas also separate values.
type stringList []string

func (l *stringList) String() string { return strings.Join(*l, ",") }

func (l *stringList) Set(v string) error {
	*l = append(*l, v)
	return nil
}

// parse parses a command's flags as POSIX utilities do (spf13/pflag over
// the command's flag set): long flags take two dashes ("--limit 5",
// "--limit=5"), one-letter flags may be clustered ("-il", "-C1", "-A 2"),
// flags may follow positional arguments (stet read README.md --json), "--"
// ends the flags and a lone "-" is an argument. It returns the positionals.
func parse(fs *flag.FlagSet, args []string) ([]string, error) {
	ps := pflag.NewFlagSet(fs.Name(), pflag.ContinueOnError)
	ps.SetOutput(io.Discard)
	ps.Usage = func() {}
	fs.VisitAll(ps.AddGoFlag)
	if err := ps.Parse(args); err != nil {
		if errors.Is(err, pflag.ErrHelp) {
			if h, ok := helpers.LoadAndDelete(fs); ok {
				h.(func())()
			}
			return nil, flag.ErrHelp
		}
		return nil, flagError(fs, err, args)
	}
	return ps.Args(), nil
}

// newFlags makes a command's flag set with the global flags on it. The
// flag package prints nothing: errors become one-line usage errors (see
// parse), and --help prints the command's help on standard output.
func (e *env) newFlags(name, synopsis string) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	e.g.registerSome(fs, name == "call")
	e.fs, e.synopsis = fs, synopsis
	// The flag package calls Usage on errors too; parse prints the help
	// only when it was asked for.
	fs.Usage = func() {}
	helpers.Store(fs, func() { printHelp(e.stdout, name, synopsis, fs) })
	return fs
}

// helpers holds each flag set's help printer, for parse to call on --help.
var helpers sync.Map // *flag.FlagSet -> func()

func parseErr(err error) error {
	var ue *usageError
	if errors.Is(err, flag.ErrHelp) || errors.As(err, &ue) {
		return err
	}
	return usagef("%v", err)
}
