package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/stet-dev/stet"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	run := run
	if len(os.Args) > 1 && os.Args[1] == "load" {
		run = func(ctx context.Context, args []string, stdout, stderr io.Writer) error {
			return runLoad(ctx, args[1:], stdout, stderr)
		}
	}
	if err := run(ctx, os.Args[1:], os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, "stetbench:", err)
		os.Exit(1)
	}
}

// options are the command-line flags.
type options struct {
	stetBin, peerJS, node  string
	n, nLarge, warmup      int
	starts, memN, cliN     int
	records                int
	scenarios              string
	extras, facade         bool
	startup, memory, cli   bool
	out, jsonOut, workBase string
	keep                   bool
	timeout                time.Duration
	maxRead                int
	cpuprofile, profile    string
	where                  string
}

func parseFlags(args []string, stderr io.Writer) (*options, error) {
	o := &options{}
	fs := flag.NewFlagSet("stetbench", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.StringVar(&o.stetBin, "stet", "bin/stet", "the stet `binary`")
	fs.StringVar(&o.peerJS, "peer", "bench/peer/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js", "the reference server's `index.js`")
	fs.StringVar(&o.node, "node", "node", "the node `binary`")
	fs.IntVar(&o.n, "n", 30, "timed calls per scenario and target")
	fs.IntVar(&o.nLarge, "n-large", 10, "timed calls of the 10 MiB scenarios")
	fs.IntVar(&o.warmup, "warmup", 3, "untimed calls before the timed ones")
	fs.IntVar(&o.starts, "starts", 10, "fresh starts per server for start-up (0 skips)")
	fs.IntVar(&o.memN, "mem-n", 5, "calls per fresh server for peak memory")
	fs.IntVar(&o.cliN, "cli-n", 30, "timed runs per CLI command")
	fs.IntVar(&o.records, "journal-records", 10000, "records of other sessions in the CLI's big state directory")
	fs.StringVar(&o.scenarios, "scenarios", "", "comma-separated `names` (default: all)")
	fs.BoolVar(&o.extras, "extras", true, "also run the extra scenarios (read_10m, replace_10m)")
	fs.BoolVar(&o.facade, "facade", true, "also time stet's library in process (stet-facade)")
	fs.BoolVar(&o.startup, "startup", true, "measure start-up")
	fs.BoolVar(&o.memory, "memory", true, "measure peak memory")
	fs.BoolVar(&o.cli, "cli", true, "measure CLI latency")
	fs.StringVar(&o.out, "out", "", "write the tables into the generated section of this markdown `file`")
	fs.StringVar(&o.jsonOut, "json", "", "write every sample as JSON to `file`")
	fs.StringVar(&o.workBase, "work", "", "parent `directory` of the temporary work directory (default: the system's)")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "longest one call may take")
	fs.IntVar(&o.maxRead, "max-read-bytes", stet.MaxMaxReadBytes, "stet's --max-read-bytes")
	fs.StringVar(&o.cpuprofile, "cpuprofile", "", "profile stet's MCP server in this process on -profile's scenario, to `file`")
	fs.StringVar(&o.profile, "profile", "edit_10m", "the `scenario` -cpuprofile runs (-n calls)")
	fs.StringVar(&o.where, "where", "", "instead, serve stet in this process and print where each scenario's call spends its time; CPU and allocation profiles go to `dir`")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("unexpected arguments %q", fs.Args())
	}
	if o.n < 1 || o.nLarge < 1 || o.warmup < 0 {
		return nil, errors.New("-n and -n-large must be at least 1, -warmup at least 0")
	}
	return o, nil
}

// pickScenarios returns the scenarios a run times.
func pickScenarios(list string, extras bool) ([]scenario, error) {
	if list == "" {
		var out []scenario
		for _, s := range scenarios {
			if extras || !s.extra {
				out = append(out, s)
			}
		}
		return out, nil
	}
	var out []scenario
	for name := range strings.SplitSeq(list, ",") {
		s, ok := scenarioNamed(strings.TrimSpace(name))
		if !ok {
			return nil, fmt.Errorf("no scenario %q", name)
		}
		out = append(out, s)
	}
	return out, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseFlags(args, stderr)
	if err != nil {
		return err
	}
	scs, err := pickScenarios(o.scenarios, o.extras)
	if err != nil {
		return err
	}
	c := &config{node: o.node, timeout: o.timeout, maxRead: o.maxRead, noFacade: !o.facade, env: cleanEnv()}
	if c.stetBin, err = filepath.Abs(o.stetBin); err != nil {
		return err
	}
	work, err := makeTemp(o.workBase, "stetbench-")
	if err != nil {
		return err
	}
	if c.work, err = filepath.EvalSymlinks(work); err != nil { // not a workspace path: the benchmark's own work directory
		return err
	}
	if !o.keep {
		defer removeAll(c.work)
	} else {
		fmt.Fprintf(stderr, "work directory: %s\n", c.work)
	}
	if o.cpuprofile != "" {
		return profile(ctx, c, o, stderr)
	}
	if o.where != "" {
		return where(ctx, c, o, scs, stdout, stderr)
	}
	if c.peerJS, err = filepath.Abs(o.peerJS); err != nil {
		return err
	}
	if _, err := readFile(c.peerJS); err != nil {
		return fmt.Errorf("the peer is not installed (run `npm ci --prefix bench/peer`): %w", err)
	}
	if _, err := exec.LookPath(c.node); err != nil {
		return fmt.Errorf("node: %w", err)
	}

	rep := &report{
		Machine: describeMachine(c), Command: commandLine(args),
		N: o.n, NLarge: o.nLarge, Warmup: o.warmup, Starts: o.starts, MemCalls: o.memN, CLIN: o.cliN,
		Targets: targetNames(c),
	}
	loadStart := loadAvg()
	began := time.Now()
	logf := func(format string, a ...any) {
		fmt.Fprintf(stderr, "[%5.1fs] "+format+"\n", append([]any{time.Since(began).Seconds()}, a...)...)
	}

	if err := measureLatency(ctx, c, o, scs, rep, logf); err != nil {
		return err
	}

	if o.startup && o.starts > 0 {
		logf("start-up (%d starts per server)", o.starts)
		if rep.Startup, err = runStartup(c, o.starts); err != nil {
			return err
		}
	}
	if o.memory {
		var mem []scenario
		for _, sc := range scs {
			if sc.op != opCreate {
				mem = append(mem, sc)
			}
		}
		logf("peak memory (%d scenarios)", len(mem))
		rep.Memory = runMemory(ctx, c, mem, o.memN)
	}
	if o.cli {
		logf("CLI latency (journal of %d records, %d runs per command)", o.records, o.cliN)
		if rep.CLI, err = runCLI(ctx, c, o.records, 3, o.cliN); err != nil {
			return err
		}
	}
	logf("done")
	rep.Machine.Load = loadStart + " → " + loadAvg()
	return writeReport(c, o, rep, stdout)
}

// measureLatency runs every scenario on one server per target, targets
// interleaved call by call, restarting a target after a failure, and adds
// the runs to rep.
func measureLatency(ctx context.Context, c *config, o *options, scs []scenario, rep *report, logf func(string, ...any)) error {
	ts := make([]target, len(rep.Targets))
	generation := 0
	startAll := func(which map[string]bool) error {
		generation++
		for i, name := range rep.Targets {
			if ts[i] != nil && !which[name] {
				continue
			}
			if ts[i] != nil {
				ts[i].close()
			}
			t, err := startTarget(ctx, c, name, fmt.Sprintf("lat%d", generation))
			if err != nil {
				return err
			}
			ts[i] = t
		}
		return nil
	}
	if err := startAll(nil); err != nil {
		return err
	}
	defer func() {
		for _, t := range ts {
			t.close()
		}
	}()
	for _, sc := range scs {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		n := o.n
		if sc.large {
			n = o.nLarge
		}
		broken := map[string]bool{}
		logf("latency %s (%d calls per target)", sc.name, n)
		rep.Latency = append(rep.Latency, runScenario(ts, sc, o.warmup, n, broken))
		if len(broken) > 0 {
			for name := range broken {
				logf("  %s failed; restarting it", name)
			}
			if err := startAll(broken); err != nil {
				return err
			}
		}
	}
	for i, t := range ts {
		t.close()
		ts[i] = &limitTarget{} // closed; nothing left to close
	}
	return nil
}

// writeReport writes the report as Markdown to stdout, and to o.jsonOut
// (JSON) and into o.out's section when they are given. No path of this
// machine is in it.
func writeReport(c *config, o *options, rep *report, stdout io.Writer) error {
	md := strings.ReplaceAll(rep.markdown(), c.work, "$WORK")
	io.WriteString(stdout, md)
	if o.jsonOut != "" {
		b, err := json.MarshalIndent(rep, "", "  ")
		if err != nil {
			return err
		}
		if err := writeFixture(o.jsonOut, append(b, '\n')); err != nil {
			return err
		}
	}
	if o.out != "" {
		doc, err := readFile(o.out)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
		if err := writeFixture(o.out, []byte(splice(string(doc), md))); err != nil {
			return err
		}
	}
	return nil
}

// commandLine is the run's command as a user would type it.
func commandLine(args []string) string {
	q := []string{"stetbench"}
	for _, a := range args {
		if a == "" || strings.ContainsAny(a, " \t\"'$") {
			a = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
		q = append(q, a)
	}
	return strings.Join(q, " ")
}

// cleanEnv is the environment of every server: this one without stet's
// own variables, so that none of them changes what is measured.
func cleanEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "STET_") {
			env = append(env, kv)
		}
	}
	return env
}

// profile serves stet's MCP server in this process over pipes and writes a
// CPU profile of warmup + n calls of one scenario (the untimed calls stet
// needs first included).
func profile(ctx context.Context, c *config, o *options, stderr io.Writer) error {
	sc, ok := scenarioNamed(o.profile)
	if !ok {
		return fmt.Errorf("no scenario %q", o.profile)
	}
	root := filepath.Join(c.work, "profile", "stet")
	if err := makeDir(root); err != nil {
		return err
	}
	t, err := startInProcess(ctx, root, root+".state", c.maxRead, nil)
	if err != nil {
		return err
	}
	defer t.close()
	n := o.n
	if sc.large {
		n = o.nLarge
	}
	f, err := os.Create(o.cpuprofile) // not a workspace path: the profile the operator asked for
	if err != nil {
		return err
	}
	defer f.Close()
	if err := pprof.StartCPUProfile(f); err != nil {
		return err
	}
	run := runScenario([]target{t}, sc, o.warmup, n, map[string]bool{})
	pprof.StopCPUProfile()
	r := run.Results[0]
	if r.Err != "" {
		return errors.New(r.Err)
	}
	fmt.Fprintf(stderr, "%s in process over MCP: median %s ms, p90 %s ms over %d calls; profile in %s\n",
		sc.name, fmtMS(r.median()), fmtMS(r.p90()), n, o.cpuprofile)
	return nil
}
