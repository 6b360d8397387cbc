package main

import (
	"fmt"
	"html"
	"net/url"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/fleetdb"
	"github.com/stet-dev/stet/internal/fleetreview"
	"github.com/stet-dev/stet/review"
)

// cmdUndo is the undo tool on one PATH (this session's last change of
// it), or, with --session and no PATH, --turn, --receipt or --dry-run, the
// exact undo of a set of changes (Workspace.UndoChanges).
func cmdUndoSet(e *env, args []string) error {
	var receipts stringList
	var turn int
	var dry bool
	var path string
	fs := e.newFlags("undo", "undo PATH | undo --session S [--turn T] [--dry-run] [PATH] | undo --receipt ID[,ID...] [--dry-run]")
	fs.StringVar(&path, "path", "", "file whose last change to revert")
	fs.Var(&receipts, "receipt", "a receipt to take back (repeatable; commas separate)")
	fs.IntVar(&turn, "turn", 0, "only this turn of the session")
	fs.BoolVar(&dry, "dry-run", false, "show what would be undone and what would be left alone; change nothing")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if path, err = onePath(path, pos, false); err != nil {
		return err
	}
	if len(receipts) == 0 && turn == 0 && !dry && (path != "" || !e.g.sessionSet) {
		// This session's last change of PATH (the undo tool).
		if path == "" {
			return usagef("missing PATH (or --session S, or --receipt ID)")
		}
		return e.toolCall(true, &stet.UndoArgs{Path: path})
	}
	spec := stet.UndoSpec{Turn: turn, DryRun: dry, Path: path}
	for _, r := range receipts {
		for _, id := range strings.Split(r, ",") {
			if id = strings.TrimSpace(id); id != "" {
				spec.Receipts = append(spec.Receipts, id)
			}
		}
	}
	if len(spec.Receipts) == 0 {
		if !e.g.sessionSet {
			return usagef("name the session (--session S) or the receipts (--receipt ID)")
		}
		spec.Session = e.g.session
	}
	ws, err := e.openWorkspace(!dry)
	if err != nil {
		return err
	}
	defer ws.Close()
	res, err := ws.UndoChanges(e.ctx, spec)
	if err != nil {
		return err
	}
	if e.g.json {
		e.printJSON(res)
		return nil
	}
	for _, st := range res.Steps {
		fmt.Fprintf(e.stdout, "%s %s %s (session %s)\n", st.Receipt, st.Tool, st.Path, st.Session)
		fmt.Fprint(e.stdout, st.Diff)
	}
	for _, sk := range res.Skipped {
		fmt.Fprintf(e.stdout, "left alone: %s %s: %s\n", sk.Receipt, sk.Path, sk.Reason)
	}
	fmt.Fprintln(e.stdout, res.Message)
	return nil
}

func cmdDiff(e *env, args []string) error {
	var spec stet.DiffSpec
	fs := e.newFlags("diff", "diff [--session S] [--turn T] [--offset N] [--limit N] [PATH]")
	fs.IntVar(&spec.Turn, "turn", 0, "only this turn of the session")
	fs.IntVar(&spec.Offset, "offset", 0, "skip this many files")
	fs.IntVar(&spec.Limit, "limit", 0, "at most this many files (0: all)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if spec.Path, err = onePath("", pos, false); err != nil {
		return err
	}
	if e.g.sessionSet {
		spec.Session = e.g.session
	}
	ws, err := e.openWorkspace(false)
	if err != nil {
		return err
	}
	defer ws.Close()
	page, err := ws.Diff(spec)
	if err != nil {
		return err
	}
	if e.g.json {
		e.printJSON(page)
		return nil
	}
	for _, f := range page.Files {
		fmt.Fprintf(e.stdout, "%s\n", fileLine(f.FileChange))
		fmt.Fprint(e.stdout, f.Diff)
	}
	if len(page.Files) == 0 {
		fmt.Fprintln(e.stdout, "(no changes)")
	} else if page.Offset+len(page.Files) < page.Total {
		fmt.Fprintf(e.stdout, "(files %d-%d of %d: --offset %d for more)\n", page.Offset+1, page.Offset+len(page.Files), page.Total, page.Offset+len(page.Files))
	}
	return nil
}

// fileLine is one file of a combined change, as people read it.
func fileLine(f stet.FileChange) string {
	var b strings.Builder
	b.WriteString("== " + stet.ShowName(f.Path))
	if f.From != "" {
		b.WriteString(" (moved from " + stet.ShowName(f.From) + ")")
	}
	switch {
	case f.Dir:
		b.WriteString(" directory")
	case f.Exact:
		fmt.Fprintf(&b, " +%d -%d", f.Added, f.Removed)
	default:
		b.WriteString(" (versions known by hash only)")
	}
	if f.Created {
		b.WriteString(" created")
	}
	if f.Deleted {
		b.WriteString(" deleted")
	}
	fmt.Fprintf(&b, " [%s]", strings.Join(f.Receipts, " "))
	return b.String()
}

func cmdReview(e *env, args []string) error {
	var addr, fleet string
	var open bool
	fs := e.newFlags("review", "review [--addr 127.0.0.1:0] [--open] [--journal URL]")
	fs.StringVar(&fleet, "journal", "", "serve the page over every journal shipped to the PostgreSQL `URL` (stet sync) instead of this workspace's")
	fs.StringVar(&addr, "addr", "127.0.0.1:0", "loopback address to serve on (port 0: a random one)")
	fs.BoolVar(&open, "open", false, "open the page with the system's opener")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) != 0 {
		return usagef("review takes no arguments")
	}
	var srv *review.Server
	if fleet != "" {
		db, err := fleetdb.Open(e.ctx, fleet)
		if err != nil {
			return err
		}
		defer db.Close()
		if err := db.CheckVersion(e.ctx); err != nil {
			return err
		}
		if srv, err = review.ListenSource(fleetreview.New(db), addr); err != nil {
			return err
		}
	} else {
		ws, err := e.openWorkspace(true)
		if err != nil {
			return err
		}
		defer ws.Close()
		if srv, err = review.Listen(ws, addr); err != nil {
			return err
		}
	}
	defer srv.Close()
	fmt.Fprintf(e.stdout, "stet review: %s\n(loopback only; the token in the address is the key: do not share it; Ctrl-C stops)\n", srv.URL())
	if open {
		// The token never goes on the opener's command line (any local
		// user can read that in the process list): the opener is given a
		// private page that sends the browser on to the address.
		page, cleanup, err := handOff(srv.URL())
		if err == nil {
			defer cleanup()
			err = openURL(page)
		}
		if err != nil {
			fmt.Fprintf(e.stderr, "stet review: could not open a browser (%v); open the address above\n", err)
		}
	}
	ctx, stop := signal.NotifyContext(e.ctx, os.Interrupt)
	defer stop()
	return srv.Serve(ctx)
}

// handOff writes a page that sends a browser on to target into a new
// directory only this user can enter (0700, the page 0600), and returns
// its file:// address, which holds no secret, and a cleanup that removes
// both. The page is how the address with its token reaches the browser
// without appearing in any process's arguments.
func handOff(target string) (string, func(), error) {
	// not a workspace path: the hand-off lives in a temp directory of stet's own
	dir, err := os.MkdirTemp("", "stet-review-")
	if err != nil {
		return "", nil, err
	}
	cleanup := func() { os.RemoveAll(dir) }      // not a workspace path: that directory
	if err := os.Chmod(dir, 0o700); err != nil { // not a workspace path: stet's own temp directory
		cleanup()
		return "", nil, err
	}
	q := html.EscapeString(target)
	body := "<!doctype html>\n<meta charset=\"utf-8\">\n<meta name=\"referrer\" content=\"no-referrer\">\n" +
		"<meta http-equiv=\"refresh\" content=\"0;url=" + q + "\">\n<title>stet review</title>\n" +
		"<p>Opening <a href=\"" + q + "\">stet review</a>…</p>\n"
	name := filepath.Join(dir, "open.html")
	if err := os.WriteFile(name, []byte(body), 0o600); err != nil { // not a workspace path: a page of stet's own
		cleanup()
		return "", nil, err
	}
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(name)}
	if runtime.GOOS == "windows" {
		u.Path = "/" + u.Path
	}
	return u.String(), cleanup, nil
}

// openURL opens u with the system's opener.
func openURL(u string) error {
	var cmd *exec.Cmd
	switch runtime.GOOS {
	case "darwin":
		cmd = exec.Command("open", u)
	case "windows":
		cmd = exec.Command("rundll32", "url.dll,FileProtocolHandler", u)
	default:
		cmd = exec.Command("xdg-open", u)
	}
	return cmd.Start()
}
