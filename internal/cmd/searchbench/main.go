package main

import (
	"bufio"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"time"

	"github.com/stet-dev/stet"
)

func main() {
	stetBin := flag.String("stet", "bin/stet", "the stet binary")
	runs := flag.Int("n", 5, "runs of each command (the median is reported)")
	tree := flag.String("tree", "", "the generated tree (made when missing)")
	files := flag.Int("files", 200000, "files in the generated tree")
	largeMiB := flag.Int("large", 256, "MiB of the generated large log (one file over the edit limit)")
	only := flag.String("only", "", "measure only the trees whose name holds this (go, generated, large)")
	inproc := flag.String("inproc", "", "internal: run one in-process call (grep|find) in -root and exit")
	root := flag.String("root", "", "internal: the root of -inproc")
	pattern := flag.String("pattern", "", "internal: the pattern of -inproc")
	flag.Parse()
	if *inproc != "" {
		if err := inProcess(*inproc, *root, *pattern); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		return
	}
	if *tree == "" {
		*tree = filepath.Join(os.TempDir(), fmt.Sprintf("stet-search-bench-%d", *files))
	}
	large := filepath.Join(os.TempDir(), fmt.Sprintf("stet-search-bench-large-%d", *largeMiB))
	want := func(name string) bool { return *only == "" || strings.Contains(strings.ToLower(name), *only) }
	if want("generated") {
		if err := generate(*tree, *files); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	if want("large") {
		if err := generateLarge(large, *largeMiB); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
	}
	self, err := os.Executable()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	goroot, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		fmt.Fprintln(os.Stderr, "go env GOROOT:", err)
		os.Exit(1)
	}
	goSrc := filepath.Join(strings.TrimSpace(string(goroot)), "src")
	_, rgErr := exec.LookPath("rg")
	// not a workspace path: the benchmark's own trees and state
	state, err := os.MkdirTemp("", "stet-search-state-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	// not a workspace path: the benchmark's own trees and state
	defer os.RemoveAll(state)

	var out strings.Builder
	fmt.Fprintf(&out, "Run %s on %s, %d CPUs (GOMAXPROCS %d), %d runs each, median; warm cache (one unmeasured run first).\n\n",
		time.Now().UTC().Format("2006-01-02"), runtime.GOOS+"/"+runtime.GOARCH, runtime.NumCPU(), runtime.GOMAXPROCS(0), *runs)
	b := benchEnv{stetBin: *stetBin, state: state, self: self, goSrc: goSrc, runs: *runs, rg: rgErr == nil, large: large}
	for _, tr := range []searchTree{
		{"Go source tree (`$(go env GOROOT)/src`)", goSrc, "err != nil", "zzqqxnomatch"},
		{fmt.Sprintf("generated tree (%d small files)", *files), *tree, "needle", "zzqqxnomatch"},
		{fmt.Sprintf("large log (one file of %d MiB, over the edit limit)", *largeMiB), large, "needle", "zzqqxnomatch"},
	} {
		if want(tr.name) {
			b.measureTree(&out, tr)
		}
	}
	fmt.Print(out.String())
}

// searchTree is one tree measured: its heading, its directory, a pattern
// with many matches and one with none.
type searchTree struct{ name, dir, pattern, nomatch string }

// benchEnv is what every measurement uses: the stet binary and its state
// directory, this binary (for the in-process runs), the runs per command,
// and what the machine has.
type benchEnv struct {
	stetBin, state, self, goSrc, large string
	runs                               int
	rg                                 bool // ripgrep is installed
}

// benchCmd is one command of a scenario.
type benchCmd struct {
	label string
	argv  []string
	stet  bool // a stet CLI run: report the size of its state directory
}

// benchScenario is one search, done by each of its commands.
type benchScenario struct {
	name string
	cmds []benchCmd
}

// scenarios are the searches measured on tr.
func (b benchEnv) scenarios(tr searchTree) []benchScenario {
	stetArgs := func(a ...string) []string {
		// Each run is a new session: a session's own history makes its
		// later calls slower until the journal compacts it, and this
		// measures the search.
		return append([]string{b.stetBin, "--state", b.state, "--session", sessionArg}, a...)
	}
	self := b.self
	return []benchScenario{
		{"grep, many matches: `" + tr.pattern + "`", []benchCmd{
			{"grep -rn", []string{"grep", "-rn", tr.pattern, "."}, false},
			{"rg -n", []string{"rg", "-n", "--no-ignore", tr.pattern, "."}, false},
			{"stet grep (CLI)", stetArgs("grep", "--limit", "100000", tr.pattern), true},
			{"stet grep (in-process)", []string{self, "-inproc", "grep", "-root", tr.dir, "-pattern", tr.pattern}, false},
		}},
		{"grep, no match", []benchCmd{
			{"grep -rn", []string{"grep", "-rn", tr.nomatch, "."}, false},
			{"rg -n", []string{"rg", "-n", "--no-ignore", tr.nomatch, "."}, false},
			{"stet grep (CLI)", stetArgs("grep", tr.nomatch), true},
			{"stet grep (in-process)", []string{self, "-inproc", "grep", "-root", tr.dir, "-pattern", tr.nomatch}, false},
		}},
		{"grep -i, no match", []benchCmd{
			{"grep -rni", []string{"grep", "-rni", tr.nomatch, "."}, false},
			{"rg -ni", []string{"rg", "-ni", "--no-ignore", tr.nomatch, "."}, false},
			{"stet grep -i (CLI)", stetArgs("grep", "-i", tr.nomatch), true},
		}},
		{"find every `*.go` / `*.txt`", []benchCmd{
			{"find", []string{"find", ".", "-name", findGlob(tr.dir == b.goSrc)}, false},
			{"stet find (CLI)", stetArgs("find", "--limit", "100000", "**/"+findGlob(tr.dir == b.goSrc)), true},
			{"stet find (in-process)", []string{self, "-inproc", "find", "-root", tr.dir, "-pattern", "**/" + findGlob(tr.dir == b.goSrc)}, false},
		}},
	}
}

// measureTree writes tr's table: every scenario's commands, each timed
// against the first (grep or find).
func (b benchEnv) measureTree(out *strings.Builder, tr searchTree) {
	isLarge := tr.dir == b.large
	n := countFiles(tr.dir)
	fmt.Fprintf(out, "### %s: %d files\n\n", tr.name, n)
	fmt.Fprintln(out, "| scenario | command | median | × grep/find | first line | peak RSS | state dir after |")
	fmt.Fprintln(out, "| --- | --- | --- | --- | --- | --- | --- |")
	for _, sc := range b.scenarios(tr) {
		if isLarge && strings.HasPrefix(sc.name, "find") {
			continue // one file: nothing to find
		}
		var base time.Duration
		for _, c := range sc.cmds {
			if c.argv[0] == "rg" && !b.rg {
				continue
			}
			m, err := measure(tr.dir, c.argv, b.runs)
			if err != nil {
				fmt.Fprintf(out, "| %s | %s | failed: %v | | | | |\n", sc.name, c.label, err)
				continue
			}
			if base == 0 {
				base = m.median
			}
			st := ""
			if c.stet {
				st = size(b.state)
			}
			fmt.Fprintf(out, "| %s | %s | %s | %.2f× | %s | %s | %s |\n", sc.name, c.label, ms(m.median),
				float64(m.median)/float64(base), ms(m.first), mib(m.rss), st)
		}
	}
	fmt.Fprintln(out)
}

func findGlob(goTree bool) string {
	if goTree {
		return "*.go"
	}
	return "*.txt"
}

// measurement is the median wall time, the median time to the first
// byte of output, and the largest peak RSS of the runs.
type measurement struct {
	median, first time.Duration
	rss           int64
}

// sessionArg in a command line stands for a new session name each run.
const sessionArg = "@session"

var sessions int

func measure(dir string, argv []string, runs int) (measurement, error) {
	var walls, firsts []time.Duration
	var rss int64
	for i := -1; i < runs; i++ { // run -1 warms the cache
		args := make([]string, len(argv))
		for k, a := range argv {
			if a == sessionArg {
				sessions++
				a = fmt.Sprintf("bench-%d", sessions)
			}
			args[k] = a
		}
		c := exec.Command(args[0], args[1:]...)
		c.Dir = dir
		c.Env = append(os.Environ(), "LC_ALL=C.UTF-8")
		pipe, err := c.StdoutPipe()
		if err != nil {
			return measurement{}, err
		}
		start := time.Now()
		if err := c.Start(); err != nil {
			return measurement{}, err
		}
		r := bufio.NewReaderSize(pipe, 1<<16)
		var first time.Duration
		if _, err := r.ReadByte(); err == nil {
			first = time.Since(start)
		}
		io.Copy(io.Discard, r)
		err = c.Wait()
		wall := time.Since(start)
		if ee, ok := err.(*exec.ExitError); err != nil && !(ok && ee.ExitCode() == 1) {
			return measurement{}, err
		}
		if i < 0 {
			continue
		}
		walls = append(walls, wall)
		firsts = append(firsts, first)
		rss = max(rss, peakRSS(c.ProcessState))
	}
	return measurement{median: median(walls), first: median(firsts), rss: rss}, nil
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func ms(d time.Duration) string {
	if d == 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f ms", float64(d)/float64(time.Millisecond))
}

func mib(b int64) string { return fmt.Sprintf("%.0f MiB", float64(b)/(1<<20)) }

func size(dir string) string {
	var n int64
	// not a workspace path: the benchmark's own trees and state
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			if info, err := d.Info(); err == nil {
				n += info.Size()
			}
		}
		return nil
	})
	return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
}

func countFiles(dir string) int {
	n := 0
	// not a workspace path: the benchmark's own trees and state
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() {
			n++
		}
		return nil
	})
	return n
}

// generate makes a tree of n small text files (200 directories of 40
// subdirectories of files) unless dir already holds it; one file in 50
// holds "needle".
func generate(dir string, n int) error {
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil { // not a workspace path: the benchmark's own trees
		return nil
	}
	for i := range n {
		p := filepath.Join(dir, fmt.Sprintf("d%03d", i%200), fmt.Sprintf("s%02d", (i/200)%40), fmt.Sprintf("f%06d.txt", i))
		// not a workspace path: the benchmark's own trees and state
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		var b strings.Builder
		for l := range 8 {
			if l == 5 && i%50 == 0 {
				fmt.Fprintf(&b, "line %d of file %d has a needle\n", l, i)
				continue
			}
			fmt.Fprintf(&b, "line %d of file %d: lorem ipsum dolor sit amet\n", l, i)
		}
		// not a workspace path: the benchmark's own trees and state
		if err := os.WriteFile(p, []byte(b.String()), 0o644); err != nil {
			return err
		}
	}
	// not a workspace path: the benchmark's own trees and state
	return os.WriteFile(done, nil, 0o644)
}

// generateLarge makes, unless it is there, a directory holding one log of
// mib MiB: short lines of text, one in 1,000 holding "needle".
func generateLarge(dir string, mib int) error {
	done := filepath.Join(dir, ".complete")
	if _, err := os.Stat(done); err == nil { // not a workspace path: the benchmark's own trees
		return nil
	}
	// not a workspace path: the benchmark's own trees and state
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	// Written as it is made: a buffer of its size here would count in the
	// peak memory of every command the benchmark forks.
	// not a workspace path: the benchmark's own trees and state
	f, err := os.Create(filepath.Join(dir, "app.log"))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	for i, n := 0, 0; n < mib<<20; i++ {
		var k int
		if i%1000 == 999 {
			k, _ = fmt.Fprintf(w, "%08d INFO request served, a needle in the log\n", i)
		} else {
			k, _ = fmt.Fprintf(w, "%08d INFO request served in 12 ms from cache\n", i)
		}
		n += k
	}
	if err := errors.Join(w.Flush(), f.Close()); err != nil {
		return err
	}
	// not a workspace path: the benchmark's own trees and state
	return os.WriteFile(done, nil, 0o644)
}

// inProcess runs one stet call on the library and prints its rows, so
// the driver measures it as it measures a command.
func inProcess(tool, root, pattern string) error {
	// not a workspace path: the benchmark's own trees and state
	state, err := os.MkdirTemp("", "stet-search-inproc-")
	if err != nil {
		return err
	}
	// not a workspace path: the benchmark's own trees and state
	defer os.RemoveAll(state)
	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		return err
	}
	defer ws.Close()
	s, err := ws.Session("bench")
	if err != nil {
		return err
	}
	w := bufio.NewWriter(os.Stdout)
	defer w.Flush()
	ctx := context.Background()
	switch tool {
	case "grep":
		var b strings.Builder
		_, err = s.GrepEach(ctx, stet.GrepArgs{Pattern: pattern, Limit: stet.MaxGrepLimit}, func(part *stet.GrepResult) error {
			b.Reset()
			stet.GrepRowsText(&b, part)
			w.WriteString(b.String())
			return w.Flush()
		})
	case "find":
		var res *stet.FindResult
		res, err = s.Find(ctx, stet.FindArgs{Pattern: pattern, Limit: stet.MaxGrepLimit})
		if err == nil {
			for _, p := range res.Paths {
				fmt.Fprintln(w, p)
			}
		}
	default:
		err = fmt.Errorf("no in-process tool %q", tool)
	}
	return err
}
