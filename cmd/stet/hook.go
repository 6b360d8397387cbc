package main

import (
	"fmt"
	"io"
	"path/filepath"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/hook"
)

// maxHookEvent bounds the event a hook reads: a Write's content is at
// most the file limit, and JSON escaping may double it.
const maxHookEvent = 64 << 20

// cmdHook answers one hook event of a client's own tool (SPEC section 10):
// the event on stdin, the answer on stdout in the client's format. It
// never exits non-zero for a reason of its own: a bad event is "no
// opinion", reported on stderr.
func cmdHook(e *env, args []string) error {
	var syncTo string
	fs := e.newFlags("hook", "hook CLIENT [--root DIR ...] [--protect GLOB ...] [--deny-read GLOB ...] [--effects E] [--state DIR] [--sync URL]  (one event on stdin)")
	fs.StringVar(&syncTo, "sync", "", "after answering, ship the journal to the PostgreSQL `URL` in a background process (see stet sync)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) != 1 {
		return usagef("expected one client: %s", hookClientNames())
	}
	c, err := hook.Find(pos[0])
	if err != nil {
		return usagef("%v", err)
	}
	logf := func(format string, args ...any) { fmt.Fprintf(e.stderr, format+"\n", args...) }
	in, err := io.ReadAll(io.LimitReader(e.stdin, maxHookEvent+1))
	if err == nil && len(in) > maxHookEvent {
		err = fmt.Errorf("the event is over %d bytes", maxHookEvent)
	}
	if err != nil {
		logf("stet hook %s: reading the event: %v; answered with no opinion", c.Name, err)
		in = nil
	}
	stateDir := ""
	open := func(cwd, session string) (hook.Session, func(), error) {
		o, err := e.g.options()
		if err != nil {
			return nil, nil, err
		}
		o.NoSweep = true
		roots := e.g.roots
		if len(roots) == 0 {
			// The client's working directory, as the CLI takes its own.
			if cwd == "" {
				return nil, nil, fmt.Errorf("the event names no working directory and the hook command no --root; add --root DIR to the hook command (stet setup %s --hooks does)", c.Name)
			}
			if what := broadDir(cwd); what != "" {
				return nil, nil, fmt.Errorf("the client runs in %s, which stet guards only when --root names it; add --root DIR to the hook command", what)
			}
			roots = []string{cwd}
		}
		ws, err := stet.Open(roots, o)
		if err != nil {
			return nil, nil, err
		}
		stateDir = ws.StateDir()
		s, err := ws.Session(session)
		if err != nil {
			ws.Close()
			return nil, nil, err
		}
		return s, func() { ws.Close() }, nil
	}
	reply := hook.Handle(e.ctx, c, in, open, logf)
	e.stdout.Write(reply.Stdout)
	if syncTo != "" && stateDir != "" {
		// The previous background sync's failure, if it failed: it
		// had no one to tell.
		if msg := lastSyncFailure(stateDir); msg != "" {
			logf("stet hook %s: the last background sync failed: %s (its log: %s)", c.Name, msg, filepath.Join(stateDir, syncLogName))
		}
		// After the answer is written: the client never waits for the
		// network.
		if err := spawnSync(stateDir, syncTo, e.g.denyRead); err != nil {
			logf("stet hook %s: shipping the journal: %v; local work continues; run `stet sync --to URL` later", c.Name, err)
		}
	}
	if reply.Stderr != "" {
		fmt.Fprintln(e.stderr, reply.Stderr)
	}
	if reply.Code != 0 {
		return hookExit(reply.Code)
	}
	return nil
}

// hookExit is a hook's exit code, as its client reads it.
type hookExit int

func (h hookExit) Error() string { return fmt.Sprintf("exit %d", int(h)) }

func hookClientNames() string {
	s := ""
	for i, c := range hook.Clients {
		if i > 0 {
			s += ", "
		}
		s += c.Name
	}
	return s
}
