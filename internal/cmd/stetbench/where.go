package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"slices"
	"strings"
	"sync"
	"time"
)

// Where a call's time goes (-where DIR): each scenario runs against stet's
// MCP server served in this process over pipes, as a client drives it, with
// a CPU profile of the timed calls and an allocation profile written to DIR.
// The server's goroutines carry the pprof label side=server, so the
// client's own work (encoding requests, decoding and checking answers) is
// left out; the untimed calls a scenario makes first (a read before an edit
// or a replace, a list before a create) are profiled again alone and
// subtracted. Each sample is put in the first category one of its stack's
// functions names (whereCategories, in order), and the table gives CPU
// milliseconds per timed call by category, beside the wall time of the call
// and, for changes, the commit's steps as stet.Hooks.Step reports them.

// category is one row of the table: a sample belongs to it when a function
// on its stack has one of the prefixes (or, with a leading '=', is exactly
// that name).
type category struct {
	name  string
	funcs []string
}

// whereCategories are the rows, in the order a sample is matched: a hash
// inside the journal is hashing, an encode inside a write is the encode.
var whereCategories = []category{
	{"hashing (SHA-256)", []string{"crypto/sha256.", "crypto/internal/fips140/sha256."}},
	{"transport: decode (envelope, arguments)", []string{
		"/mcpserver.parseEnvelope", "/mcpserver.parseCallParams",
		"/mcpserver.parseID", "/internal/jsonscan.",
		"/tools.",
	}},
	{"transport: encode (result JSON)", []string{
		"/mcpserver.encodeResult", "/mcpserver.appendEscaped",
		"/mcpserver.marshal",
		"/mcpserver.(*toolResult).", "/mcpserver.(*Server).reply",
		"/mcpserver.(*readFit)",
	}},
	{"transport: write (response to the pipe)", []string{"/mcpserver.(*lineConn).writeFull"}},
	{"transport: read (request from the pipe)", []string{"/mcpserver.readLine", "/mcpserver.(*lineConn).readLoop"}},
	{"diff", []string{"/textedit.Diff", ".(*change).diff", "github.com/aymanbagabas/go-udiff."}},
	{"frame", []string{"/frame."}},
	{"journal", []string{"/journal."}},
	{"rules (confinement, policy, globs)", []string{
		"/policy.", "/glob.", "/ignore.",
		".(*Session).gate", ".(*Workspace).denied",
		".(*Workspace).protected", ".(*Workspace).place",
		".(*Session).resolve", ".(*Workspace).resolve",
		".(*Session).checkEditable", ".(*ruleSet)",
	}},
	{"commit (temp file, swap, readback, receipt)", []string{
		".(*Session).commit", ".(*Session).land", ".land",
		".(*change)", "/receipt.", "/fsys/local.(*held).Replace",
		"/fsys/local.(*FS).writeTemp", "/fsys/local.(*FS).discard",
	}},
	{"the change: match, replace, checks", []string{
		"/textedit.", ".(*Session).editableVersion", ".hashKeeping",
		".scanWindow", ".checkContent", ".checkText",
		".(*Session).plan", ".(*Session).Edit", ".(*Session).Write",
	}},
	{"the read (open, read, checks)", []string{
		"/fsys", ".(*Session).prepareRead", ".readHead",
		".(*Session).readFit", ".(*Session).Read", ".target.",
	}},
	{"garbage collection (assists)", []string{"runtime.gcAssistAlloc", "runtime.gcDrain", "runtime.gcBgMarkWorker"}},
	{"scheduler, other runtime", []string{"runtime.", "internal/runtime/", "syscall.", "runtime/internal/"}},
}

// otherCategory is the row of what no category names.
const otherCategory = "other"

// whereRun is one scenario's profile: CPU per category and wall times.
type whereRun struct {
	scenario string
	n        int
	wall     []float64          // ms, each timed call
	cpu      map[string]float64 // ms per timed call, by category
	total    float64            // ms per timed call, the server's CPU
	steps    map[string]float64 // ms per timed call, median, by commit step
}

// stepLog gathers stet.Hooks.Step reports while a timed call runs.
type stepLog struct {
	mu  sync.Mutex
	on  bool
	cur map[string]time.Duration
	all map[string][]float64
}

func (l *stepLog) add(step string, d time.Duration) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.on {
		l.cur[step] += d
	}
}

// begin and end bracket one timed call.
func (l *stepLog) begin() {
	l.mu.Lock()
	l.on, l.cur = true, map[string]time.Duration{}
	l.mu.Unlock()
}

func (l *stepLog) end() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.on = false
	if l.all == nil {
		l.all = map[string][]float64{}
	}
	for k, d := range l.cur {
		l.all[k] = append(l.all[k], ms(d))
	}
}

// where profiles every scenario of scs and writes the table to stdout.
func where(ctx context.Context, c *config, o *options, scs []scenario, stdout, stderr io.Writer) error {
	if err := makeDir(o.where); err != nil {
		return err
	}
	var runs []*whereRun
	for _, sc := range scs {
		r, err := whereScenario(ctx, c, o, sc)
		if err != nil {
			return fmt.Errorf("%s: %w", sc.name, err)
		}
		fmt.Fprintf(stderr, "%s: median %s ms, server CPU %s ms per call\n", sc.name, fmtMS(quantile(r.wall, 0.5)), fmtMS(r.total))
		runs = append(runs, r)
	}
	_, err := io.WriteString(stdout, whereTable(runs))
	return err
}

// whereScenario profiles one scenario on a fresh server.
func whereScenario(ctx context.Context, c *config, o *options, sc scenario) (*whereRun, error) {
	root := filepath.Join(c.work, "where-"+sc.name, "stet")
	if err := makeDir(root); err != nil {
		return nil, err
	}
	steps := &stepLog{}
	t, err := startInProcess(ctx, root, root+".state", c.maxRead, steps.add)
	if err != nil {
		return nil, err
	}
	defer t.close()
	n := o.n
	if sc.large {
		n = o.nLarge
	}
	st, err := prepare(t, sc)
	if err != nil {
		return nil, err
	}
	for range o.warmup {
		if _, _, err := step(t, sc, st); err != nil {
			return nil, err
		}
	}
	r := &whereRun{scenario: sc.name, n: n}
	base := filepath.Join(o.where, sc.name)
	// The calls a scenario makes before the timed one, alone.
	prepCPU, err := cpuProfileOf(base+".prep.cpu.pprof", func() error {
		for range n {
			if err := prepOnly(t, sc, st); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	runtime.GC()
	if err := writeHeapProfile(base + ".allocs.base.pprof"); err != nil {
		return nil, err
	}
	allCPU, err := cpuProfileOf(base+".cpu.pprof", func() error {
		for range n {
			steps.begin()
			d, _, err := step(t, sc, st)
			steps.end()
			if err != nil {
				return err
			}
			r.wall = append(r.wall, ms(d))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	if err := writeHeapProfile(base + ".allocs.pprof"); err != nil {
		return nil, err
	}
	r.cpu = map[string]float64{}
	for k, v := range allCPU {
		r.cpu[k] += v
	}
	for k, v := range prepCPU {
		r.cpu[k] -= v
	}
	for k, v := range r.cpu {
		v = max(v, 0) / float64(n)
		r.cpu[k] = v
		r.total += v
	}
	r.steps = map[string]float64{}
	for k, v := range steps.all {
		r.steps[k] = quantile(v, 0.5)
	}
	return r, nil
}

// prepOnly makes the untimed calls that come before sc's timed call.
func prepOnly(t *stetTarget, sc scenario, st *fileState) error {
	var err error
	switch sc.op {
	case opEdit:
		_, _, err = t.c.callTool("read", map[string]any{"path": st.rel, "offset": max(tokenLine(sc.size)-1, 1), "limit": 3})
	case opCreate:
		_, _, err = t.c.callTool("list", map[string]any{"path": st.rel})
	case opReplace:
		err = t.observeAll(st.rel, st.content)
	}
	return err
}

// cpuProfileOf profiles f into file and returns the server's CPU time by
// category, in milliseconds.
func cpuProfileOf(file string, f func() error) (map[string]float64, error) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		return nil, err
	}
	err := f()
	pprof.StopCPUProfile()
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(file, buf.Bytes(), 0o644); err != nil { // not a workspace path: the profile the operator asked for
		return nil, err
	}
	samples, err := parseCPUProfile(buf.Bytes())
	if err != nil {
		return nil, err
	}
	out := map[string]float64{}
	for _, s := range samples {
		if s.labels[serverLabel] != serverSide {
			continue
		}
		out[categorize(s.stack)] += float64(s.nanos) / 1e6
	}
	return out, nil
}

// categorize names the category of a stack (leaf first).
func categorize(stack []string) string {
	names := make([]string, len(stack))
	for i, fn := range stack {
		names[i] = shortName(fn)
	}
	for _, c := range whereCategories {
		for _, fn := range names {
			for _, p := range c.funcs {
				if strings.HasPrefix(fn, p) {
					return c.name
				}
			}
		}
	}
	return otherCategory
}

// shortName is a function's name as whereCategories spells it: stet's
// module path left out, the engine's functions named as the root
// package's ("/mcpserver.reply", ".(*Session).commit").
func shortName(fn string) string {
	const module, engine = "github.com/stet-dev/stet", "/internal/engine."
	if rest, ok := strings.CutPrefix(fn, module); ok {
		if e, ok := strings.CutPrefix(rest, engine); ok {
			return "." + e
		}
		return rest
	}
	return fn
}

func writeHeapProfile(file string) error {
	f, err := os.Create(file) // not a workspace path: the profile the operator asked for
	if err != nil {
		return err
	}
	if err := pprof.Lookup("allocs").WriteTo(f, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// stepOrder is the order of the commit's steps in the table.
var stepOrder = []string{"read", "plan", "save", "intent", "temp", "wait", "swap", "dirsync", "readback", "receipt", "commit", "release"}

// whereTable renders the runs as one markdown table, scenarios as columns.
func whereTable(runs []*whereRun) string {
	var b strings.Builder
	b.WriteString("| | " + strings.Join(mapRuns(runs, func(r *whereRun) string { return r.scenario }), " | ") + " |\n")
	b.WriteString("|---" + strings.Repeat("|---", len(runs)) + "|\n")
	row := func(name string, f func(r *whereRun) float64) {
		cells := mapRuns(runs, func(r *whereRun) string {
			v := f(r)
			if math.IsNaN(v) {
				return ""
			}
			return fmtMS(v)
		})
		if strings.Join(cells, "") == "" {
			return
		}
		b.WriteString("| " + name + " | " + strings.Join(cells, " | ") + " |\n")
	}
	row("**wall: the call, median**", func(r *whereRun) float64 { return quantile(r.wall, 0.5) })
	row("**CPU of the server per call**", func(r *whereRun) float64 { return r.total })
	names := append(mapCats(), otherCategory)
	for _, name := range names {
		row("CPU: "+name, func(r *whereRun) float64 {
			if v, ok := r.cpu[name]; ok && v > 0 {
				return v
			}
			return nan
		})
	}
	for _, s := range stepOrder {
		row("wall, commit step: "+s, func(r *whereRun) float64 {
			if v, ok := r.steps[s]; ok {
				return v
			}
			return nan
		})
	}
	return b.String()
}

func mapRuns(runs []*whereRun, f func(*whereRun) string) []string {
	out := make([]string, len(runs))
	for i, r := range runs {
		out[i] = f(r)
	}
	return out
}

func mapCats() []string {
	var out []string
	for _, c := range whereCategories {
		out = append(out, c.name)
	}
	return slices.Clip(out)
}

// The pprof label every goroutine of the in-process server carries.
const (
	serverLabel = "stetbench"
	serverSide  = "server"
)
