package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/receipt"
)

func cmdTurn(e *env, args []string) error {
	var requestFile, request string
	var inputs stringList
	var end bool
	fs := e.newFlags("turn", "turn (--request-file F | --request TEXT) [--inputs a,b] | turn --end")
	fs.StringVar(&requestFile, "request-file", "", "file holding the user's request for this turn (- for standard input); a worker brief declares its INPUTS too")
	fs.StringVar(&request, "request", "", "the user's request for this turn")
	fs.Var(&inputs, "inputs", "declared input paths, comma-separated (repeatable)")
	fs.BoolVar(&end, "end", false, "end the turn: clear the pinned request and the declared inputs")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) > 0 {
		return usagef("turn takes no arguments")
	}
	switch {
	case end && (requestFile != "" || request != "" || len(inputs) > 0):
		return usagef("--end takes no --request, --request-file or --inputs")
	case end:
	case requestFile != "" && request != "":
		return usagef("give --request-file or --request, not both")
	case requestFile == "-":
		b, err := readAllStdin(e)
		if err != nil {
			return err
		}
		request = b
	case requestFile != "":
		// The request file is the operator's own argument, not a workspace path.
		b, err := os.ReadFile(requestFile)
		if err != nil {
			return fmt.Errorf("reading the request: %w", err)
		}
		request = string(b)
	case request == "":
		return usagef("missing --request-file (or --request)")
	}
	var in []string
	for _, v := range inputs {
		in = append(in, strings.Split(v, ",")...)
	}
	ws, s, err := e.open(false)
	if err != nil {
		return err
	}
	defer ws.Close()
	if end {
		err = s.EndTurn()
	} else {
		err = s.Turn(request, in...)
	}
	if err != nil {
		return err
	}
	_, got := s.Request()
	if got == nil {
		got = []string{}
	}
	msg := fmt.Sprintf("turn pinned for session %s (%s)", s.ID(), plural(len(got), "declared input"))
	if end {
		msg = fmt.Sprintf("turn ended for session %s: no pinned request, no declared inputs", s.ID())
	}
	res := map[string]any{"message": msg, "session": s.ID(), "inputs": got}
	if e.g.json {
		e.printJSON(res)
		return nil
	}
	fmt.Fprintln(e.stdout, msg)
	for _, p := range got {
		fmt.Fprintln(e.stdout, "  "+p)
	}
	return nil
}

// plural is n and the noun, with an s unless n is 1.
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}

func readAllStdin(e *env) (string, error) {
	var b strings.Builder
	buf := make([]byte, 32<<10)
	for {
		n, err := e.stdin.Read(buf)
		b.Write(buf[:n])
		if err != nil {
			break
		}
	}
	return b.String(), nil
}

func cmdLog(e *env, args []string) error {
	var path string
	fs := e.newFlags("log", "log [--session S] [--path P]")
	fs.StringVar(&path, "path", "", "only receipts of this file")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if path, err = onePath(path, pos, false); err != nil {
		return err
	}
	ws, _, err := e.open(false)
	if err != nil {
		return err
	}
	defer ws.Close()
	sess := ""
	if e.g.sessionSet {
		sess = e.g.session
	}
	entries, err := ws.Log(sess, path)
	if err != nil {
		return err
	}
	if e.g.json {
		out := make([]any, len(entries))
		for i, en := range entries {
			out[i] = en
		}
		e.printJSON(map[string]any{"receipts": out})
		return nil
	}
	if len(entries) == 0 {
		fmt.Fprintln(e.stdout, "(no receipts)")
		return nil
	}
	for _, en := range entries {
		r := en.Receipt
		state := "verified"
		if !r.Verified {
			state = "NOT VERIFIED"
		}
		extra := ""
		if en.Undone {
			extra = " (undone)"
		}
		if en.Undoes != "" {
			extra = " (reverts " + en.Undoes + ")"
		}
		name := stet.ShowName(r.Path)
		if r.From != "" {
			name = stet.ShowName(r.From) + " -> " + name
		}
		fmt.Fprintf(e.stdout, "%s  %s  %-7s %-8s %s  %s → %s  %s%s\n", r.ID, r.Time.Format("2006-01-02T15:04:05Z"), stet.ShowName(r.Session), r.Tool, name,
			shortState(r.Before), shortState(r.After), state, extra)
	}
	return nil
}

func shortState(s *receipt.State) string {
	if s == nil {
		return "-"
	}
	if s.Lines == 1 {
		return "1 line"
	}
	return fmt.Sprintf("%d lines", s.Lines)
}

func cmdShow(e *env, args []string) error {
	fs := e.newFlags("show", "show ID")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) != 1 {
		return usagef("expected one receipt ID (stet log lists them)")
	}
	ws, _, err := e.open(false)
	if err != nil {
		return err
	}
	defer ws.Close()
	en, diff, err := ws.Show(pos[0])
	if err != nil {
		return err
	}
	if e.g.json {
		e.printJSON(map[string]any{"receipt": en.Receipt, "diff": diff, "undone": en.Undone, "undoes": en.Undoes})
		return nil
	}
	e.printJSON(en.Receipt)
	if diff != "" {
		fmt.Fprintln(e.stdout)
		fmt.Fprint(e.stdout, diff)
	}
	return nil
}

func cmdVerify(e *env, args []string) error {
	var all bool
	var fleet string
	fs := e.newFlags("verify", "verify [ID | --all] | verify --all --journal URL")
	fs.BoolVar(&all, "all", false, "check every receipt and the whole journal")
	fs.StringVar(&fleet, "journal", "", "check every journal shipped to the PostgreSQL `URL` instead (stet sync)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if fleet != "" {
		if !all || len(pos) != 0 {
			return usagef("--journal checks every chain in the database: give --all and no receipt ID")
		}
		return verifyFleet(e, fleet)
	}
	id := ""
	switch {
	case len(pos) == 1 && !all:
		id = pos[0]
	case len(pos) == 0:
	default:
		return usagef("expected one receipt ID or --all")
	}
	ws, err := e.openWorkspace(false)
	if err != nil {
		return err
	}
	defer ws.Close()
	rep, err := ws.Verify(id)
	if err != nil {
		return err
	}
	if e.g.json {
		e.printJSON(map[string]any{"ok": rep.OK(), "report": rep})
	} else {
		for _, p := range rep.Problems {
			where := ""
			switch {
			case p.Receipt != "":
				where = "receipt " + p.Receipt + ": "
			case p.Blob != "":
				where = "blob " + fsys.Version(p.Blob).Short() + ": "
			case p.Line > 0:
				where = fmt.Sprintf("journal line %d: ", p.Line)
			}
			fmt.Fprintf(e.stdout, "PROBLEM %s%s\n", where, p.Msg)
		}
		fmt.Fprintf(e.stdout, "%s (%d re-checked against their files), %s, %s: %s\n",
			plural(rep.Receipts, "receipt"), rep.Checked, plural(rep.Lines, "journal line"), plural(rep.Blobs, "blob"),
			map[bool]string{true: "ok", false: "PROBLEMS FOUND"}[rep.OK()])
	}
	if !rep.OK() {
		return errVerifyFailed
	}
	return nil
}

var errVerifyFailed = fmt.Errorf("verification found problems")

func cmdGC(e *env, args []string) error {
	keep := "30d"
	fs := e.newFlags("gc", "gc [--keep DURATION]")
	fs.StringVar(&keep, "keep", keep, "keep records and saved contents younger than this (e.g. 30d, 12h)")
	pos, err := parse(fs, args)
	if err != nil {
		return parseErr(err)
	}
	if len(pos) != 0 {
		return usagef("gc takes no arguments")
	}
	d, err := parseRetention(keep)
	if err != nil {
		return usagef("--keep: %v", err)
	}
	ws, err := e.openWorkspace(false)
	if err != nil {
		return err
	}
	defer ws.Close()
	rep, err := ws.GC(d)
	if err != nil {
		return err
	}
	if e.g.json {
		e.printJSON(map[string]any{"report": rep, "freed": rep.Freed()})
		return nil
	}
	freed := fmt.Sprintf("freed %d bytes", rep.Freed())
	if rep.Freed() < 0 {
		// Nothing was old enough to drop, and the checkpoint record was
		// added: say so rather than "freed -403 bytes".
		freed = fmt.Sprintf("freed nothing (the checkpoint added %d bytes)", -rep.Freed())
	}
	fmt.Fprintf(e.stdout, "gc: kept %d of %d journal lines (records since %s, and unresolved intents), dropped %d lines and %d saved contents (%d bytes); %s (state directory %d -> %d bytes)\n",
		rep.Kept, rep.Lines, rep.Cutoff.Format(time.RFC3339), rep.Dropped, rep.BlobsDropped, rep.BlobBytes, freed, rep.BytesBefore, rep.BytesAfter)
	return nil
}

// parseRetention parses a duration as time.ParseDuration does, plus a
// whole number of days ("30d").
func parseRetention(s string) (time.Duration, error) {
	if n, ok := strings.CutSuffix(s, "d"); ok {
		days, err := strconv.Atoi(n)
		if err != nil || days < 0 {
			return 0, fmt.Errorf("bad duration %q", s)
		}
		return time.Duration(days) * 24 * time.Hour, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil || d < 0 {
		return 0, fmt.Errorf("bad duration %q", s)
	}
	return d, nil
}
