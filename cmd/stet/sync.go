package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/stet-dev/stet/internal/fleetdb"
	"github.com/stet-dev/stet/internal/ship"
	"github.com/stet-dev/stet/journal"
)

// syncEnv names the database a shipper started by a hook ships to: the
// URL goes through the environment, never a command line (any local user
// can read those), since it may hold a password.
const syncEnv = "STET_SYNC"

// syncLogName is the file in the state directory where the newest
// background sync a hook started writes its errors: made afresh for each,
// so it is empty while that sync runs and after it went well, and holds
// its failure otherwise (see spawnSync, lastSyncFailure).
const syncLogName = "sync.log"

// maxSyncLog bounds what is read of sync.log.
const maxSyncLog = 4 << 10

// cmdSync is stet sync: ship this state directory's journal to PostgreSQL
// and return (--migrate: create or migrate the schema instead).
func cmdSync(e *env, args []string) error {
	var to, host string
	var migrate, ifIdle, quiet bool
	fs := e.newFlags("sync", "sync --to URL [--host NAME] | sync --migrate --to URL")
	fs.StringVar(&to, "to", os.Getenv(syncEnv), "the PostgreSQL `URL` to ship to (env "+syncEnv+"); TLS as libpq: sslmode=verify-full&sslrootcert=FILE")
	fs.StringVar(&host, "host", os.Getenv("STET_HOST"), "this machine's `NAME` in the database (env STET_HOST; default: its host name)")
	fs.BoolVar(&migrate, "migrate", false, "create or migrate stet's schema and roles in the database (as its owner), then exit")
	fs.BoolVar(&ifIdle, "if-idle", false, "exit at once when another stet is shipping this state directory (it ships what is there)")
	fs.BoolVar(&quiet, "quiet", false, "print nothing when all went well")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) != 0 {
		return usagef("sync takes no arguments")
	}
	if to == "" {
		return usagef("sync needs --to URL (or %s): the PostgreSQL database to ship to", syncEnv)
	}
	ctx := e.ctx
	db, err := fleetdb.Open(ctx, to)
	if fleetdb.CertificateRefused(err) {
		return fmt.Errorf("%w; local work continues; run `stet sync --to URL` again with the URL fixed", err)
	}
	if err != nil {
		return fmt.Errorf("%w; local work continues; run `stet sync --to URL` again later", err)
	}
	defer db.Close()
	if migrate {
		from, now, err := db.Migrate(ctx)
		if err != nil {
			return err
		}
		if from == now {
			fmt.Fprintf(e.stdout, "stet sync: %s holds stet schema version %d: nothing to do\n", db.Where(), now)
		} else {
			fmt.Fprintf(e.stdout, "stet sync: %s migrated from stet schema version %d to %d; roles stet_ship and stet_read exist (see README, \"Many machines\")\n", db.Where(), from, now)
		}
		return nil
	}
	j, err := e.stateJournal()
	if err != nil {
		return err
	}
	defer j.Close()
	s, err := ship.New(j, ship.Options{Host: host, DenyRead: e.g.denyRead})
	if err != nil {
		return err
	}
	start := time.Now()
	rep, err := s.Drain(ctx, db, ifIdle)
	if errors.Is(err, journal.ErrBusy) {
		return nil
	}
	if err != nil {
		if fleetdb.Down(err) {
			return fmt.Errorf("%w; local work continues; run `stet sync --to URL` again later", &fleetdb.UnreachableError{Where: db.Where(), Err: err})
		}
		return err
	}
	if !quiet || rep.Lines > 0 && !ifIdle {
		fmt.Fprintf(e.stdout, "stet sync: %s: %s to %s (journal %d, generation %d, through seq %d; %d redacted by deny-read), %s (%s), %s seen, in %s\n",
			j.Dir(), plural(rep.Lines, "new line"), db.Where(), rep.Journal, rep.Generation, rep.Seq, rep.Redacted,
			plural(rep.Blobs, "new blob"), byteCount(rep.BlobBytes), plural(rep.Sightings, "change state"), time.Since(start).Round(time.Millisecond))
	}
	return nil
}

// byteCount says n bytes in a short form.
func byteCount(n int64) string {
	switch {
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d bytes", n)
}

// stateJournal opens the journal of this invocation's state directory:
// --state, else the one the workspace of --root (or the current
// directory) uses.
func (e *env) stateJournal() (*journal.Journal, error) {
	dir := e.g.state
	if dir == "" {
		ws, err := e.openWorkspace(false)
		if err != nil {
			return nil, err
		}
		dir = ws.StateDir()
		ws.Close()
	}
	if _, err := os.Stat(dir); err != nil { // the state directory: stet's own, not a workspace path
		return nil, fmt.Errorf("state directory %s: %w; give the one stet uses with --state DIR", dir, err)
	}
	return journal.Open(dir, journal.Options{})
}

// shipInBackground ships the journal of stateDir to url until ctx is
// done, logging outages on w: the server never waits for it.
func shipInBackground(ctx context.Context, w io.Writer, stateDir, url, host string, denyRead []string) (stop func(), err error) {
	j, err := journal.Open(stateDir, journal.Options{})
	if err != nil {
		return nil, err
	}
	s, err := ship.New(j, ship.Options{Host: host, DenyRead: denyRead})
	if err != nil {
		j.Close()
		return nil, err
	}
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		s.Run(ctx, url, ship.RunOptions{Logf: func(format string, args ...any) { fmt.Fprintf(w, format+"\n", args...) }})
	}()
	return func() { cancel(); <-done; j.Close() }, nil
}

// spawnSync starts `stet sync --if-idle` for stateDir in the background,
// detached: a hook answers its client at once and the journal is shipped
// after. The URL goes through the environment.
func spawnSync(stateDir, url string, denyRead []string) error {
	self, err := os.Executable()
	if err != nil {
		return err
	}
	args := []string{"--state", stateDir}
	for _, d := range denyRead {
		args = append(args, "--deny-read", d)
	}
	args = append(args, "sync", "--if-idle", "--quiet")
	cmd := exec.Command(self, args...)
	cmd.Env = append(os.Environ(), syncEnv+"="+url)
	// Its errors go to a sync.log of its own in the state directory: the
	// hook that started it has answered and gone, and the next one
	// reports them. The old name is removed and the file made new
	// (O_EXCL), so what is written is never a link's target, the journal
	// least of all. Where that cannot be done, the sync runs without a log.
	if root, err := os.OpenRoot(stateDir); err == nil { // the state directory: stet's own, not a workspace path
		_ = root.Remove(syncLogName)
		if log, err := root.OpenFile(syncLogName, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600); err == nil {
			defer log.Close()
			cmd.Stderr = log
		}
		root.Close()
	}
	detach(cmd)
	if err := cmd.Start(); err != nil {
		return err
	}
	return cmd.Process.Release()
}

// lastSyncFailure returns, on one line, the error of the newest
// background sync of stateDir: "" while it runs, when it went well, or
// when none ran.
func lastSyncFailure(stateDir string) string {
	root, err := os.OpenRoot(stateDir) // the state directory: not a workspace path
	if err != nil {
		return ""
	}
	defer root.Close()
	if fi, err := root.Lstat(syncLogName); err != nil || !fi.Mode().IsRegular() {
		return ""
	}
	f, err := root.Open(syncLogName)
	if err != nil {
		return ""
	}
	defer f.Close()
	b, _ := io.ReadAll(io.LimitReader(f, maxSyncLog))
	return strings.Join(strings.Fields(string(b)), " ")
}

// verifyFleet is stet verify --all --journal URL.
func verifyFleet(e *env, url string) error {
	db, err := fleetdb.Open(e.ctx, url)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.CheckVersion(e.ctx); err != nil {
		return err
	}
	rep, err := db.Verify(e.ctx)
	if err != nil {
		return err
	}
	if e.g.json {
		e.printJSON(map[string]any{"ok": rep.OK(), "report": rep})
	} else {
		for _, p := range rep.Problems {
			fmt.Fprintf(e.stdout, "PROBLEM %s\n", p)
		}
		for _, p := range rep.Warnings {
			fmt.Fprintf(e.stdout, "warning %s\n", p)
		}
		fmt.Fprintf(e.stdout, "%s: %s, %s, %s (%d held without their bytes: deny-read), %s: %s\n", db.Where(),
			plural(rep.Journals, "journal"), plural(rep.Chains, "chain"), plural(int(rep.Lines), "line"), rep.Redacted,
			plural(int(rep.Blobs), "blob"), map[bool]string{true: "ok", false: "PROBLEMS FOUND"}[rep.OK()])
	}
	if !rep.OK() {
		return errVerifyFailed
	}
	return nil
}
