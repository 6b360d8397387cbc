package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/stet-dev/stet/frame"
)

// The load mode: `stetbench load` drives one `stet mcp --http` with 1, 4
// and 16 concurrent clients (see loadDoc).
const loadDoc = `usage: stetbench load [-stet bin/stet] [-clients 1,4,16] [-calls 1200] [-runs 3]

Drives one fresh ` + "`stet mcp --http`" + ` server per client count with that many
concurrent MCP clients over streamable HTTP, each its own MCP session, for
-calls tool calls in all (split evenly). Each client cycles through: read
a 4 KiB file, grep its directory, edit a 64 KiB file, create a 4 KiB file
(all its own), and edit one shared file every client edits; a ` + "`changed`" + `
refusal there is expected (the client re-reads and retries). It reports
throughput, p50/p99 latency per operation and overall, errors by kind,
lost updates on the shared file (its final bytes checked against the
receipts of every edit that landed) and the server's peak RSS. Client
counts take turns within each of -runs runs; the table gives medians.
`

// loadOptions are the flags of the load mode.
type loadOptions struct {
	stetBin  string
	clients  []int
	calls    int
	runs     int
	timeout  time.Duration
	workBase string
	keep     bool
	jsonOut  string
	profile  string // directory of in-process profiles, "" for none
	// inProcess serves stet in this process (always with -profile).
	inProcess bool
}

func parseLoadFlags(args []string, stderr io.Writer) (*loadOptions, error) {
	o := &loadOptions{}
	var clients string
	fs := flag.NewFlagSet("stetbench load", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, loadDoc); fs.PrintDefaults() }
	fs.StringVar(&o.stetBin, "stet", "bin/stet", "the stet `binary`")
	fs.StringVar(&clients, "clients", "1,4,16", "comma-separated client `counts`")
	fs.IntVar(&o.calls, "calls", 1200, "tool calls per client count and run, split among the clients")
	fs.IntVar(&o.runs, "runs", 3, "runs (each client count once per run; the table gives medians)")
	fs.DurationVar(&o.timeout, "timeout", 2*time.Minute, "longest one call may take")
	fs.StringVar(&o.workBase, "work", "", "parent `directory` of the temporary work directory (default: the system's)")
	fs.BoolVar(&o.keep, "keep", false, "keep the work directory")
	fs.StringVar(&o.jsonOut, "json", "", "write every run's results as JSON to `file`")
	fs.StringVar(&o.profile, "profile", "", "serve stet in this process instead and write CPU, mutex and block profiles of each client count to `dir` (peak RSS then n/a)")
	if err := fs.Parse(args); err != nil {
		return nil, err
	}
	if fs.NArg() > 0 {
		return nil, fmt.Errorf("load: unexpected arguments %q", fs.Args())
	}
	for f := range strings.SplitSeq(clients, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(f))
		if err != nil || n < 1 || n > 200 {
			return nil, fmt.Errorf("load: -clients %q: each count must be a number from 1 to 200, not %q", clients, f)
		}
		o.clients = append(o.clients, n)
	}
	if o.calls < 1 || o.runs < 1 {
		return nil, fmt.Errorf("load: -calls and -runs must be at least 1, not %d and %d", o.calls, o.runs)
	}
	return o, nil
}

// The operations of the mix, in the order each client cycles through them.
const (
	opLoadRead   = "read_4k"
	opLoadGrep   = "grep"
	opLoadEdit   = "edit_64k"
	opLoadCreate = "create_4k"
	opShared     = "edit_shared"
	opSharedRead = "reread_shared" // after a changed refusal
)

var loadOps = []string{opLoadRead, opLoadGrep, opLoadEdit, opLoadCreate, opShared, opSharedRead}

// loadRun is what one client count did in one run.
type loadRun struct {
	Clients    int                  `json:"clients"`
	Run        int                  `json:"run"`
	Calls      int                  `json:"calls"`
	Seconds    float64              `json:"seconds"`
	Samples    map[string][]float64 `json:"samples_ms"` // by operation
	Errors     map[string]int       `json:"errors"`     // by kind; "changed (shared, retried)" is expected
	Changed    int                  `json:"changed_refusals"`
	Shared     []sharedEdit         `json:"shared_edits"`
	Lost       int                  `json:"lost_updates"`
	LostWhy    string               `json:"lost_why,omitempty"`
	PeakRSS    int64                `json:"peak_rss_bytes"`     // 0: not known
	ServerCPU  float64              `json:"server_cpu_seconds"` // user+system during the timed calls; 0: not known
	FirstError string               `json:"first_error,omitempty"`
}

func (r *loadRun) throughput() float64 { return float64(r.Calls) / r.Seconds }

// all are every sample of the run.
func (r *loadRun) all() []float64 {
	var xs []float64
	for _, s := range r.Samples {
		xs = append(xs, s...)
	}
	return xs
}

// runLoad is the load mode.
func runLoad(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	o, err := parseLoadFlags(args, stderr)
	if err != nil {
		return err
	}
	bin, err := filepath.Abs(o.stetBin)
	if err != nil {
		return err
	}
	if _, err := os.Stat(bin); err != nil && o.profile == "" { // not a workspace path: the binary to run
		return fmt.Errorf("load: -stet %s: %w (build it first: go build -o bin/stet ./cmd/stet)", o.stetBin, err)
	}
	work, err := makeTemp(o.workBase, "stetbench-load-")
	if err != nil {
		return err
	}
	if work, err = filepath.EvalSymlinks(work); err != nil { // the benchmark's own temp directory, before stet runs: not a workspace path
		return err
	}
	if !o.keep {
		defer removeAll(work)
	} else {
		fmt.Fprintf(stderr, "work directory: %s\n", work)
	}
	began := time.Now()
	loadStart := loadAvg()
	var runs []*loadRun
	for run := 1; run <= o.runs; run++ {
		for k := range o.clients {
			// Client counts take turns, rotated every run, so that noise on
			// the shared machine hits them alike.
			n := o.clients[(k+run-1)%len(o.clients)]
			if ctx.Err() != nil {
				return ctx.Err()
			}
			dir := filepath.Join(work, fmt.Sprintf("r%d-c%d", run, n))
			r, err := loadOnce(ctx, o, bin, dir, n)
			if err != nil {
				return fmt.Errorf("load: run %d, %d clients: %w", run, n, err)
			}
			r.Run = run
			fmt.Fprintf(stderr, "[%5.1fs] run %d, %2d clients: %6.1f calls/s, p50 %s ms, p99 %s ms, %d changed, %d errors, %d lost, peak %s, server CPU %s\n",
				time.Since(began).Seconds(), run, n, r.throughput(), fmtMS(quantile(r.all(), 0.5)), fmtMS(quantile(r.all(), 0.99)),
				r.Changed, sumErrors(r.Errors), r.Lost, rssCell(r.PeakRSS), cpuCell(r.ServerCPU, r.Seconds))
			runs = append(runs, r)
		}
	}
	md := loadMarkdown(o, runs, describeLoadMachine(), loadStart+" → "+loadAvg())
	io.WriteString(stdout, strings.ReplaceAll(md, work, "$WORK"))
	if o.jsonOut != "" {
		b, err := json.MarshalIndent(runs, "", "  ")
		if err != nil {
			return err
		}
		return writeFixture(o.jsonOut, append(b, '\n'))
	}
	return nil
}

func sumErrors(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// describeLoadMachine is the machine line of the report.
func describeLoadMachine() machine {
	return describeMachine(&config{noFacade: true})
}

// loadFiles are one client's files, relative to the root.
type loadFiles struct{ read, edit, newDir, dir string }

func filesOf(i int) loadFiles {
	d := fmt.Sprintf("c%02d", i)
	return loadFiles{read: d + "/read.go", edit: d + "/edit.go", newDir: d + "/new", dir: d}
}

const (
	sharedRel  = "shared.txt"
	editSize   = 64 * kib
	headPrefix = "head: "
)

// sharedInitial is the shared file's first content: 4 KiB of fixture and
// the head line every edit moves (see sharedClient.edit).
func sharedInitial() []byte {
	return append(fixture(4*kib, 0, ""), headPrefix+"init\n"...)
}

// loadOnce starts a fresh server over dir, runs n clients for calls calls
// in all, and checks what they did.
func loadOnce(ctx context.Context, o *loadOptions, bin, dir string, n int) (*loadRun, error) {
	calls, timeout := o.calls, o.timeout
	root, state := filepath.Join(dir, "root"), filepath.Join(dir, "state")
	for i := range n {
		f := filesOf(i)
		if err := writeFixture(filepath.Join(root, f.read), fixture(4*kib, 0, "")); err != nil {
			return nil, err
		}
		if err := writeFixture(filepath.Join(root, f.edit), fixture(editSize, 0, tokenA)); err != nil {
			return nil, err
		}
		if err := makeDir(filepath.Join(root, f.newDir)); err != nil {
			return nil, err
		}
	}
	initial := sharedInitial()
	if err := writeFixture(filepath.Join(root, sharedRel), initial); err != nil {
		return nil, err
	}
	var srv loadServer
	var err error
	if o.profile != "" || o.inProcess {
		srv, err = startInProcessHTTP(ctx, root, state)
	} else {
		srv, err = startHTTPServer(ctx, bin, dir, root, state, timeout)
	}
	if err != nil {
		return nil, err
	}
	defer srv.stop()

	clients := make([]*loadClient, n)
	for i := range n {
		c := &loadClient{i: i, f: filesOf(i), hc: newHTTPClient(srv.endpoint(), srv.bearer(), timeout), root: root,
			samples: map[string][]float64{}, errors: map[string]int{}}
		defer c.hc.close()
		if err := c.setup(ctx); err != nil {
			return nil, srv.describe(fmt.Errorf("client %d setup: %w", i, err))
		}
		clients[i] = c
	}
	if o.profile != "" {
		stop, err := startProfiles(o.profile, n)
		if err != nil {
			return nil, err
		}
		defer stop()
	}
	per := (calls + n - 1) / n
	var wg sync.WaitGroup
	start := make(chan struct{})
	for _, c := range clients {
		wg.Go(func() {
			<-start
			c.loop(ctx, per)
		})
	}
	cpu0 := cpuSeconds(srv.pid())
	t0 := time.Now()
	close(start)
	wg.Wait()
	elapsed := time.Since(t0)
	cpu := cpuSeconds(srv.pid()) - cpu0

	r := &loadRun{Clients: n, Seconds: elapsed.Seconds(), Samples: map[string][]float64{}, Errors: map[string]int{}, ServerCPU: cpu}
	if pid := srv.pid(); pid > 0 {
		r.PeakRSS, _ = peakRSS(pid)
	}
	for _, c := range clients {
		r.Calls += c.calls
		r.Changed += c.changed
		for op, s := range c.samples {
			r.Samples[op] = append(r.Samples[op], s...)
		}
		for k, v := range c.errors {
			r.Errors[k] += v
		}
		if r.FirstError == "" {
			r.FirstError = c.firstErr
		}
		r.Shared = append(r.Shared, c.shared...)
		if err := c.checkOwn(); err != nil {
			r.Errors["own file wrong"]++
			if r.FirstError == "" {
				r.FirstError = err.Error()
			}
		}
	}
	final, err := readFile(filepath.Join(root, sharedRel))
	if err != nil {
		return nil, err
	}
	r.Lost, r.LostWhy = lostUpdates(initial, final, r.Shared)
	return r, nil
}

// cpuSeconds is the user and system time process pid has used, from
// /proc/<pid>/stat (clock ticks of 1/100 s, Linux's USER_HZ); 0 when not
// known.
func cpuSeconds(pid int) float64 {
	if pid <= 0 {
		return 0
	}
	b, err := readFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	// The command name (field 2) may hold spaces: count from its ')'.
	i := strings.LastIndexByte(string(b), ')')
	if i < 0 {
		return 0
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 13 {
		return 0
	}
	ut, err1 := strconv.ParseInt(f[11], 10, 64)
	st, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return float64(ut+st) / 100
}

// loadClient is one client of the mix: its own MCP session and files.
type loadClient struct {
	i    int
	f    loadFiles
	hc   *httpClient
	root string

	editCur  []byte // the edit file's content now
	created  int
	sharedAt string // the head id of the shared file's version the session last saw
	seq      int    // the client's shared edits, landed or not (names their entries)

	calls, changed int
	samples        map[string][]float64
	errors         map[string]int
	firstErr       string
	shared         []sharedEdit
}

// setup observes the client's files untimed, as an agent reads before it
// edits: the read file, the whole edit file, the new files' directory,
// the shared file.
func (c *loadClient) setup(ctx context.Context) error {
	if err := c.hc.initialize(ctx); err != nil {
		return err
	}
	for _, rel := range []string{c.f.read, c.f.edit} {
		if _, err := c.must(ctx, "read", map[string]any{"path": rel, "limit": 100000}); err != nil {
			return err
		}
	}
	if _, err := c.must(ctx, "list", map[string]any{"path": c.f.newDir}); err != nil {
		return err
	}
	c.editCur = fixture(editSize, 0, tokenA)
	return c.reread(ctx, false)
}

// must calls a tool that has to land.
func (c *loadClient) must(ctx context.Context, tool string, args any) (callOutcome, error) {
	out, err := c.hc.call(ctx, tool, args)
	if err == nil && out.refused != "" {
		err = fmt.Errorf("%s refused (%s): %s", tool, out.refused, head([]byte(out.text)))
	}
	return out, err
}

// reread reads the whole shared file and notes its head; timed, it counts
// as a call of the mix.
func (c *loadClient) reread(ctx context.Context, timed bool) error {
	out, err := c.must(ctx, "read", map[string]any{"path": sharedRel, "limit": 100000})
	if timed {
		c.note(opSharedRead, out, err)
	}
	if err != nil {
		return err
	}
	var rr stetRead
	if err := json.Unmarshal(out.structured, &rr); err != nil {
		return fmt.Errorf("read %s: bad structured result: %w", sharedRel, err)
	}
	text, err := frame.Decode(rr.Frame)
	if err != nil {
		return fmt.Errorf("read %s: %w", sharedRel, err)
	}
	i := strings.LastIndex(string(text), "\n"+headPrefix)
	if i < 0 {
		return fmt.Errorf("read %s: no %q line", sharedRel, headPrefix)
	}
	c.sharedAt = strings.TrimSuffix(string(text[i+1+len(headPrefix):]), "\n")
	return nil
}

// note records one call of the mix.
func (c *loadClient) note(op string, out callOutcome, err error) {
	c.calls++
	if err != nil {
		kind := "error"
		if out.refused != "" {
			kind = "refused " + out.refused
		} else if strings.Contains(err.Error(), "http:") {
			kind = "transport"
		}
		c.errors[op+": "+kind]++
		if c.firstErr == "" {
			c.firstErr = fmt.Sprintf("client %d, %s: %v", c.i, op, err)
		}
		return
	}
	c.samples[op] = append(c.samples[op], ms(out.d))
}

// loop makes at least n calls of the mix; it stops at the first error
// (which it has counted).
func (c *loadClient) loop(ctx context.Context, n int) {
	for k := 0; c.calls < n && ctx.Err() == nil; k++ {
		var err error
		switch k % 5 {
		case 0:
			var out callOutcome
			out, err = c.must(ctx, "read", map[string]any{"path": c.f.read, "limit": 100000})
			c.note(opLoadRead, out, err)
		case 1:
			var out callOutcome
			out, err = c.must(ctx, "grep", map[string]any{"pattern": "EDITME_[AB]+", "path": c.f.dir})
			c.note(opLoadGrep, out, err)
		case 2:
			err = c.editOwn(ctx)
		case 3:
			c.created++
			rel := fmt.Sprintf("%s/new_%05d.go", c.f.newDir, c.created)
			var out callOutcome
			out, err = c.must(ctx, "write", map[string]any{"path": rel, "content": string(fixture(4*kib, c.created%2, ""))})
			if err == nil {
				err = checkReceipt(out)
			}
			c.note(opLoadCreate, out, err)
		case 4:
			err = c.editShared(ctx)
		}
		if err != nil {
			return
		}
	}
}

func (c *loadClient) editOwn(ctx context.Context) error {
	old, new := swapToken(c.editCur)
	out, err := c.must(ctx, "edit", map[string]any{"path": c.f.edit, "old_string": old, "new_string": new})
	if err == nil {
		err = checkReceipt(out)
	}
	c.note(opLoadEdit, out, err)
	if err == nil {
		c.editCur = fixture(editSize, 0, new)
	}
	return err
}

// editShared adds the client's next entry to the shared file, moving its
// head line: old_string is the head the session last saw. A changed
// refusal (another client's edit landed since) is expected: the client
// re-reads and retries.
func (c *loadClient) editShared(ctx context.Context) error {
	c.seq++
	id := fmt.Sprintf("c%02d-%05d", c.i, c.seq)
	entry := "entry " + id + "\n"
	for attempt := 0; ; attempt++ {
		old := headPrefix + c.sharedAt + "\n"
		out, err := c.hc.call(ctx, "edit", map[string]any{"path": sharedRel, "old_string": old, "new_string": entry + headPrefix + id + "\n"})
		if err == nil && out.refused == "changed" && attempt < 1000 {
			c.calls++
			c.changed++
			c.samples[opShared] = append(c.samples[opShared], ms(out.d))
			if err := c.reread(ctx, true); err != nil {
				return err
			}
			continue
		}
		if err == nil && out.refused != "" {
			err = fmt.Errorf("edit %s refused (%s): %s", sharedRel, out.refused, head([]byte(out.text)))
		}
		var rc receiptOf
		if err == nil {
			rc, err = parseReceipt(out)
		}
		c.note(opShared, out, err)
		if err != nil {
			return err
		}
		c.shared = append(c.shared, sharedEdit{Receipt: rc.ID, Client: c.i, Before: rc.Before.Version, After: rc.After.Version, Added: entry})
		c.sharedAt = id
		return nil
	}
}

// checkOwn checks the client's own files on disk after the run: the edit
// file holds the last edit's bytes and every created file is there.
func (c *loadClient) checkOwn() error {
	if err := checkFile(filepath.Join(c.root, c.f.edit), c.editCur); err != nil {
		return fmt.Errorf("client %d: %w", c.i, err)
	}
	for k := 1; k <= c.created; k++ {
		rel := fmt.Sprintf("%s/new_%05d.go", c.f.newDir, k)
		if _, err := os.Stat(filepath.Join(c.root, rel)); err != nil && c.firstErr == "" { // not a workspace path: the benchmark's own check
			return fmt.Errorf("client %d: %w", c.i, err)
		}
	}
	return nil
}

// receiptOf is the part of a mutation's receipt the benchmark checks.
type receiptOf struct {
	ID       string `json:"id"`
	Verified bool   `json:"verified"`
	Before   struct {
		Version string `json:"version"`
	} `json:"before"`
	After struct {
		Version string `json:"version"`
	} `json:"after"`
}

func parseReceipt(out callOutcome) (receiptOf, error) {
	var r struct {
		Receipt receiptOf `json:"receipt"`
	}
	if err := json.Unmarshal(out.structured, &r); err != nil {
		return receiptOf{}, fmt.Errorf("bad mutation result: %w", err)
	}
	if r.Receipt.ID == "" || !r.Receipt.Verified {
		return receiptOf{}, fmt.Errorf("mutation result without a verified receipt: %s", head([]byte(out.text)))
	}
	return r.Receipt, nil
}

func checkReceipt(out callOutcome) error {
	_, err := parseReceipt(out)
	return err
}

// loadServer is the server under load.
type loadServer interface {
	endpoint() string
	bearer() string
	pid() int // 0: in this process
	stop()
	describe(error) error
}

// httpServer is `stet mcp --http` running as a child process.
type httpServer struct {
	cmd    *exec.Cmd
	url    string
	token  string
	stderr *tailBuffer
	done   chan struct{}
}

// freePort is a loopback port nothing listens on now. (stet mcp --http
// 127.0.0.1:0 reports the address as given, not the port it got.)
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// startHTTPServer starts stet mcp --http over root and waits until it
// answers.
func startHTTPServer(ctx context.Context, bin, dir, root, state string, timeout time.Duration) (*httpServer, error) {
	token := fmt.Sprintf("load-%d", time.Now().UnixNano())
	tokFile := filepath.Join(dir, "token")
	if err := writeFixture(tokFile, []byte(token+"\n")); err != nil {
		return nil, err
	}
	var lastErr error
	for range 5 { // another process may take the free port first
		port, err := freePort()
		if err != nil {
			return nil, err
		}
		addr := fmt.Sprintf("127.0.0.1:%d", port)
		cmd := exec.Command(bin, "mcp", "--root", root, "--state", state, "--http", addr, "--token-file", tokFile)
		cmd.Dir, cmd.Env = dir, cleanEnv()
		s := &httpServer{cmd: cmd, url: "http://" + addr + "/mcp", token: token, stderr: &tailBuffer{max: 8 << 10}, done: make(chan struct{})}
		cmd.Stderr = s.stderr
		if err := cmd.Start(); err != nil {
			return nil, err
		}
		go func() { cmd.Wait(); close(s.done) }()
		if lastErr = s.waitReady(ctx, timeout); lastErr == nil {
			return s, nil
		}
		s.stop()
	}
	return nil, lastErr
}

// waitReady initializes a client until one succeeds or the server exits.
func (s *httpServer) waitReady(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		c := newHTTPClient(s.url, s.token, timeout)
		err := c.initialize(ctx)
		c.close()
		if err == nil {
			return nil
		}
		select {
		case <-s.done:
			return s.describe(fmt.Errorf("stet mcp --http exited: %w", err))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return s.describe(fmt.Errorf("stet mcp --http did not answer: %w", err))
		}
	}
}

func (s *httpServer) pid() int         { return s.cmd.Process.Pid }
func (s *httpServer) endpoint() string { return s.url }
func (s *httpServer) bearer() string   { return s.token }

// stop interrupts the server and waits for it, killing it after a grace
// period.
func (s *httpServer) stop() {
	s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(5 * time.Second):
		s.cmd.Process.Kill()
		<-s.done
	}
}

func (s *httpServer) describe(err error) error {
	if t := strings.TrimSpace(s.stderr.String()); t != "" {
		return fmt.Errorf("%w (server stderr: %s)", err, t)
	}
	return err
}

// --- the report ---

// loadLevel summarizes the runs of one client count.
type loadLevel struct {
	clients                int
	throughput, ratio      float64 // medians over runs
	p50, p99               float64 // medians over runs
	errors                 map[string]int
	changed, lost, edits   int
	peak                   int64
	lostWhy, firstErr      string
	ops                    map[string][]float64 // pooled over runs
	runsThroughput, ratios []float64
	cpu                    float64 // the server's CPU time over wall time, median over runs; 0: not known
}

func summarize(clients []int, runs []*loadRun) []*loadLevel {
	base := map[int]float64{} // run → throughput of 1 client (or the smallest count)
	smallest := slicesMin(clients)
	for _, r := range runs {
		if r.Clients == smallest {
			base[r.Run] = r.throughput()
		}
	}
	var out []*loadLevel
	seen := map[int]bool{}
	for _, n := range clients {
		if seen[n] {
			continue
		}
		seen[n] = true
		l := &loadLevel{clients: n, errors: map[string]int{}, ops: map[string][]float64{}}
		var p50s, p99s, cpus []float64
		for _, r := range runs {
			if r.Clients != n {
				continue
			}
			l.runsThroughput = append(l.runsThroughput, r.throughput())
			if b := base[r.Run]; b > 0 {
				l.ratios = append(l.ratios, r.throughput()/b)
			}
			if r.ServerCPU > 0 {
				cpus = append(cpus, r.ServerCPU/r.Seconds)
			}
			all := r.all()
			p50s = append(p50s, quantile(all, 0.5))
			p99s = append(p99s, quantile(all, 0.99))
			for k, v := range r.Errors {
				l.errors[k] += v
			}
			l.changed += r.Changed
			l.lost += r.Lost
			l.edits += len(r.Shared)
			l.peak = max(l.peak, r.PeakRSS)
			if l.lostWhy == "" {
				l.lostWhy = r.LostWhy
			}
			if l.firstErr == "" {
				l.firstErr = r.FirstError
			}
			for op, s := range r.Samples {
				l.ops[op] = append(l.ops[op], s...)
			}
		}
		l.throughput = quantile(l.runsThroughput, 0.5)
		l.ratio = quantile(l.ratios, 0.5)
		l.p50, l.p99 = quantile(p50s, 0.5), quantile(p99s, 0.5)
		if len(cpus) > 0 {
			l.cpu = quantile(cpus, 0.5)
		}
		out = append(out, l)
	}
	return out
}

func slicesMin(xs []int) int {
	m := xs[0]
	for _, x := range xs[1:] {
		m = min(m, x)
	}
	return m
}

// Goals of the load benchmark.
const (
	goalLoadRatio4 = 1.7  // 4 clients: at least this times the throughput of one
	goalP99OverP50 = 10.0 // 16 clients: p99 at most this times p50
	goalLoadPeak   = 128 * mib
)

func loadMarkdown(o *loadOptions, runs []*loadRun, m machine, load string) string {
	var b strings.Builder
	levels := summarize(o.clients, runs)
	fmt.Fprintf(&b, "Machine: %s; %s; Go %s; load average %s. %d runs, %d calls per client count and run; medians over runs. Server CPU is its user and system time over the wall time (100%%: one core).\n\n",
		m.CPU, m.System, m.Go, load, o.runs, o.calls)
	b.WriteString("| clients | calls/s | vs 1 client | p50 ms | p99 ms | p99/p50 | errors | `changed` retried | lost updates (shared edits) | peak RSS | server CPU |\n")
	b.WriteString("|---:|---:|---:|---:|---:|---:|---|---:|---:|---:|---:|\n")
	for _, l := range levels {
		fmt.Fprintf(&b, "| %d | %.0f | %s | %s | %s | %s | %s | %d | %d (%d) | %s | %s |\n",
			l.clients, l.throughput, fmtRatio(l.ratio), fmtMS(l.p50), fmtMS(l.p99), fmtRatio(l.p99/l.p50),
			errorsCell(l.errors), l.changed, l.lost, l.edits, rssCell(l.peak), cpuCell(l.cpu, 1))
	}
	b.WriteString("\nPer operation, p50 / p99 ms (samples of every run pooled):\n\n| clients |")
	for _, op := range loadOps {
		fmt.Fprintf(&b, " %s |", op)
	}
	b.WriteString("\n|---:|")
	for range loadOps {
		b.WriteString("---:|")
	}
	b.WriteString("\n")
	for _, l := range levels {
		fmt.Fprintf(&b, "| %d |", l.clients)
		for _, op := range loadOps {
			s := l.ops[op]
			if len(s) == 0 {
				b.WriteString(" – |")
				continue
			}
			fmt.Fprintf(&b, " %s / %s |", fmtMS(quantile(s, 0.5)), fmtMS(quantile(s, 0.99)))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nGoals:\n\n")
	for _, l := range levels {
		switch l.clients {
		case 4:
			fmt.Fprintf(&b, "- 4 clients at least %.1f× the throughput of one: %s (%s)\n", goalLoadRatio4, fmtRatio(l.ratio), met(l.ratio >= goalLoadRatio4))
		case 16:
			fmt.Fprintf(&b, "- p99 under 16 clients at most %.0f× p50: %s (%s)\n", goalP99OverP50, fmtRatio(l.p99/l.p50), met(l.p99/l.p50 <= goalP99OverP50))
		}
	}
	lost, peak, errs := 0, int64(0), 0
	for _, l := range levels {
		lost += l.lost
		peak = max(peak, l.peak)
		errs += sumErrors(l.errors)
	}
	fmt.Fprintf(&b, "- no lost update: %d lost (%s)\n", lost, met(lost == 0))
	fmt.Fprintf(&b, "- no errors besides the expected `changed` refusals on the shared file: %d (%s)\n", errs, met(errs == 0))
	if peak > 0 {
		fmt.Fprintf(&b, "- peak memory under 128 MiB: %s (%s)\n", fmtMiB(peak), met(peak < goalLoadPeak))
	} else {
		b.WriteString("- peak memory under 128 MiB: n/a (no /proc)\n")
	}
	for _, l := range levels {
		if l.firstErr != "" {
			fmt.Fprintf(&b, "\n%d clients, first error: %s\n", l.clients, oneLine(l.firstErr))
		}
		if l.lostWhy != "" {
			fmt.Fprintf(&b, "\n%d clients, lost update: %s\n", l.clients, oneLine(l.lostWhy))
		}
	}
	b.WriteString("\n")
	return b.String()
}

func met(ok bool) string {
	if ok {
		return "met"
	}
	return "not met"
}

// cpuCell is the server's CPU time as a share of one core, "n/a" when
// not known.
func cpuCell(cpu, secs float64) string {
	if cpu <= 0 {
		return "n/a"
	}
	return fmt.Sprintf("%.0f%%", 100*cpu/secs)
}

func rssCell(b int64) string {
	if b <= 0 {
		return "n/a"
	}
	return fmtMiB(b)
}

func errorsCell(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s ×%d", k, m[k]))
	}
	return strings.Join(parts, "; ")
}
