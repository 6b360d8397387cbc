package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"runtime/pprof"
	"time"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/frame"
	"github.com/stet-dev/stet/mcpserver"
)

// A target does the benchmark's four operations on files under its own
// directory and times each; what it needs before a mutation (stet's
// observation rules) it does untimed inside the operation. Paths are
// relative to dir().
type target interface {
	name() string
	dir() string
	// read reads the whole file and checks that it returned want; windowed
	// is true when the answer was a window of the file, not all of it.
	read(rel string, want []byte) (d time.Duration, windowed bool, err error)
	// edit replaces old, which occurs once on the 1-based line, by new.
	edit(rel string, line int, old, new string) (time.Duration, error)
	// create writes a new file.
	create(rel string, content []byte) (time.Duration, error)
	// replace overwrites an existing file with content.
	replace(rel string, content []byte) (time.Duration, error)
	// pid is the server process, 0 for none.
	pid() int
	close()
}

// wireSizer is a target that sends requests over a wire: wire returns the
// sizes of the last timed call's request and response, in bytes.
type wireSizer interface {
	wire() (req, resp int)
}

// --- limit: the same operation done directly in Go, in this process ---

type limitTarget struct{ root string }

func (t *limitTarget) name() string { return "limit" }
func (t *limitTarget) dir() string  { return t.root }
func (t *limitTarget) pid() int     { return 0 }
func (t *limitTarget) close()       {}

func (t *limitTarget) read(rel string, want []byte) (time.Duration, bool, error) {
	start := time.Now()
	got, err := readFile(filepath.Join(t.root, rel))
	d := time.Since(start)
	if err == nil && !bytes.Equal(got, want) {
		err = errors.New("read returned other bytes")
	}
	return d, false, err
}

func (t *limitTarget) edit(rel string, _ int, old, new string) (time.Duration, error) {
	start := time.Now()
	err := limitEdit(filepath.Join(t.root, rel), old, new)
	return time.Since(start), err
}

func (t *limitTarget) create(rel string, content []byte) (time.Duration, error) {
	start := time.Now()
	err := durableWrite(filepath.Join(t.root, rel), content)
	return time.Since(start), err
}

func (t *limitTarget) replace(rel string, content []byte) (time.Duration, error) {
	return t.create(rel, content)
}

// --- peer: the reference server, tools read_text_file, edit_file, write_file ---

type peerTarget struct {
	root string
	p    *process
}

func (t *peerTarget) name() string { return "peer" }
func (t *peerTarget) dir() string  { return t.root }
func (t *peerTarget) pid() int     { return t.p.pid() }
func (t *peerTarget) close()       { t.p.close() }
func (t *peerTarget) wire() (int, int) {
	return t.p.lastReq, t.p.lastResp
}

// abs is the path the peer is given: absolute, inside its allowed directory.
func (t *peerTarget) abs(rel string) string { return filepath.Join(t.root, rel) }

func (t *peerTarget) read(rel string, want []byte) (time.Duration, bool, error) {
	r, d, err := t.p.call("read_text_file", map[string]any{"path": t.abs(rel)})
	if err != nil {
		return 0, false, t.p.describe(err)
	}
	if r.text() != string(want) {
		return 0, false, fmt.Errorf("read_text_file returned %d bytes of text, not the %d of the file", len(r.text()), len(want))
	}
	return d, false, nil
}

func (t *peerTarget) edit(rel string, _ int, old, new string) (time.Duration, error) {
	_, d, err := t.p.call("edit_file", map[string]any{
		"path":  t.abs(rel),
		"edits": []map[string]string{{"oldText": old, "newText": new}},
	})
	return d, t.p.describeErr(err)
}

func (t *peerTarget) create(rel string, content []byte) (time.Duration, error) {
	_, d, err := t.p.call("write_file", map[string]any{"path": t.abs(rel), "content": string(content)})
	return d, t.p.describeErr(err)
}

func (t *peerTarget) replace(rel string, content []byte) (time.Duration, error) {
	return t.create(rel, content)
}

func (p *process) describeErr(err error) error {
	if err == nil {
		return nil
	}
	return p.describe(err)
}

// --- stet: over MCP (a child process, or in this process for profiles) or
// through the facade directly ---

// toolCaller calls one stet tool and returns its structured result as
// JSON and the time of the call alone.
type toolCaller interface {
	callTool(tool string, args any) (structured json.RawMessage, d time.Duration, err error)
}

// mcpCaller calls tools over an MCP client.
type mcpCaller struct{ c *rpcClient }

func (m mcpCaller) callTool(tool string, args any) (json.RawMessage, time.Duration, error) {
	r, d, err := m.c.call(tool, args)
	if err != nil {
		return nil, 0, err
	}
	return r.Structured, d, nil
}

func (m mcpCaller) wire() (int, int) { return m.c.lastReq, m.c.lastResp }

// facadeCaller calls tools on a facade session in this process, as
// Session.Call (JSON arguments in, typed result out): stet without the
// MCP transport.
type facadeCaller struct {
	ctx context.Context
	s   *stet.Session
}

func (f facadeCaller) callTool(tool string, args any) (json.RawMessage, time.Duration, error) {
	raw, err := json.Marshal(args)
	if err != nil {
		return nil, 0, err
	}
	start := time.Now()
	out, err := f.s.Call(f.ctx, tool, raw)
	d := time.Since(start)
	if err != nil {
		return nil, 0, fmt.Errorf("%s: %w", tool, err)
	}
	if out.Refused != nil {
		return nil, 0, fmt.Errorf("%s: refused: %s", tool, out.Text)
	}
	b, err := json.Marshal(out.Structured)
	return b, d, err
}

// stetTarget drives stet's tools: read with a large limit, edit after an
// untimed read of the edited line's neighbourhood, create (write) after an
// untimed list of the directory, replace (write with overwrite) after an
// untimed read of the whole file.
type stetTarget struct {
	label string
	root  string
	c     toolCaller
	proc  *process // nil in process
	stop  func()
	// window is the line limit of a read (0: windowLines).
	window int
	// Sizes of the last timed call's request and response.
	req, resp int
}

func (t *stetTarget) wire() (int, int) { return t.req, t.resp }

// timed notes the wire sizes of the call just made as the timed one's.
func (t *stetTarget) timed() {
	if w, ok := t.c.(wireSizer); ok {
		t.req, t.resp = w.wire()
	}
}

func (t *stetTarget) name() string { return t.label }
func (t *stetTarget) dir() string  { return t.root }

func (t *stetTarget) pid() int {
	if t.proc == nil {
		return 0
	}
	return t.proc.pid()
}

func (t *stetTarget) close() {
	if t.stop != nil {
		t.stop()
	}
}

func (t *stetTarget) wrap(err error) error {
	if err != nil && t.proc != nil {
		return t.proc.describe(err)
	}
	return err
}

// windowLines is the line limit of stet's reads: all of a 1 MiB fixture
// (10,486 lines) in one call, and windows of a larger file that fit one
// response. stet answers with the frame twice (the text content and the
// structured result's frame), JSON-escaped, and keeps an answer under 9 MiB
// of JSON; 36,000 fixture lines make about 8 MB.
const windowLines = 36000

// stetRead is the structured result of read.
type stetRead struct {
	Lines int    `json:"lines"`
	From  int    `json:"from"`
	To    int    `json:"to"`
	Frame string `json:"frame"`
}

// read reads the whole file: one call when it fits one response, else
// window after window, timed as the sum of the calls (windowed).
func (t *stetTarget) read(rel string, want []byte) (time.Duration, bool, error) {
	limit := t.window
	if limit == 0 {
		limit = windowLines
	}
	var total time.Duration
	calls := 0
	for from := 1; ; calls++ {
		raw, d, err := t.c.callTool("read", map[string]any{"path": rel, "offset": from, "limit": limit})
		if err != nil {
			return 0, false, t.wrap(err)
		}
		total += d
		t.timed()
		r, err := checkFrame(raw, want, from)
		if err != nil {
			return 0, false, err
		}
		if r.To >= r.Lines {
			return total, calls > 0, nil
		}
		from = r.To + 1
	}
}

// checkFrame checks a read result against the file's bytes: a whole-file
// frame decodes to want, a window to want's bytes from its first line on,
// and the window starts at line from.
func checkFrame(raw json.RawMessage, want []byte, from int) (*stetRead, error) {
	var r stetRead
	if err := json.Unmarshal(raw, &r); err != nil {
		return nil, fmt.Errorf("read: bad structured result: %w", err)
	}
	if r.From != from {
		return nil, fmt.Errorf("read: window starts at line %d, not %d", r.From, from)
	}
	if r.From == 1 && r.To == r.Lines {
		text, err := frame.Decode(r.Frame)
		if err != nil {
			return nil, fmt.Errorf("read: %w", err)
		}
		if !bytes.Equal(text, want) {
			return nil, fmt.Errorf("read: frame holds %d bytes, not the %d of the file", len(text), len(want))
		}
		return &r, nil
	}
	first, text, err := frame.DecodeWindow(r.Frame)
	if err != nil {
		return nil, fmt.Errorf("read: %w", err)
	}
	at := frame.LineStart(want, first)
	if first != r.From || at < 0 || !bytes.HasPrefix(want[at:], text) {
		return nil, fmt.Errorf("read: window of lines %d-%d does not match the file", r.From, r.To)
	}
	return &r, nil
}

// observeAll reads the whole file untimed.
func (t *stetTarget) observeAll(rel string, want []byte) error {
	_, _, err := t.read(rel, want)
	return err
}

func (t *stetTarget) edit(rel string, line int, old, new string) (time.Duration, error) {
	if _, _, err := t.c.callTool("read", map[string]any{"path": rel, "offset": max(line-1, 1), "limit": 3}); err != nil {
		return 0, t.wrap(err)
	}
	raw, d, err := t.c.callTool("edit", map[string]any{"path": rel, "old_string": old, "new_string": new})
	if err != nil {
		return 0, t.wrap(err)
	}
	t.timed()
	return d, checkMutation(raw)
}

func (t *stetTarget) create(rel string, content []byte) (time.Duration, error) {
	if _, _, err := t.c.callTool("list", map[string]any{"path": filepath.ToSlash(filepath.Dir(rel))}); err != nil {
		return 0, t.wrap(err)
	}
	raw, d, err := t.c.callTool("write", map[string]any{"path": rel, "content": string(content)})
	if err != nil {
		return 0, t.wrap(err)
	}
	t.timed()
	return d, checkMutation(raw)
}

func (t *stetTarget) replace(rel string, content []byte) (time.Duration, error) {
	cur, err := readFile(filepath.Join(t.root, rel))
	if err != nil {
		return 0, err
	}
	if err := t.observeAll(rel, cur); err != nil {
		return 0, err
	}
	raw, d, err := t.c.callTool("write", map[string]any{"path": rel, "content": string(content), "overwrite": true})
	if err != nil {
		return 0, t.wrap(err)
	}
	t.timed()
	return d, checkMutation(raw)
}

// checkMutation checks that a mutation's result carries a verified receipt.
func checkMutation(raw json.RawMessage) error {
	var r struct {
		Message string `json:"message"`
		Receipt struct {
			ID       string `json:"id"`
			Verified bool   `json:"verified"`
		} `json:"receipt"`
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		return fmt.Errorf("bad mutation result: %w", err)
	}
	if r.Receipt.ID == "" || !r.Receipt.Verified {
		return fmt.Errorf("mutation result without a verified receipt: %s", head([]byte(r.Message)))
	}
	return nil
}

// --- starting the targets ---

// config holds what every target needs to start.
type config struct {
	stetBin  string
	peerJS   string
	node     string
	work     string // the run's work directory
	timeout  time.Duration
	env      []string
	maxRead  int
	noFacade bool
}

// stetArgv is the command line of stet's MCP server over root.
func (c *config) stetArgv(root, state string) []string {
	return []string{c.stetBin, "mcp", "--root", root, "--state", state, "--max-read-bytes", fmt.Sprint(c.maxRead)}
}

// peerArgv is the command line of the peer over root.
func (c *config) peerArgv(root string) []string {
	return []string{c.node, c.peerJS, root}
}

func startPeer(c *config, root string) (*peerTarget, error) {
	p, err := startProcess(c.peerArgv(root), root, c.env, c.timeout)
	if err != nil {
		return nil, fmt.Errorf("peer: %w", err)
	}
	if _, err := p.initialize(); err != nil {
		p.close()
		return nil, fmt.Errorf("peer: %w", p.describe(err))
	}
	return &peerTarget{root: root, p: p}, nil
}

func startStet(c *config, root, state string) (*stetTarget, error) {
	p, err := startProcess(c.stetArgv(root, state), root, c.env, c.timeout)
	if err != nil {
		return nil, fmt.Errorf("stet: %w", err)
	}
	if _, err := p.initialize(); err != nil {
		p.close()
		return nil, fmt.Errorf("stet: %w", p.describe(err))
	}
	return &stetTarget{label: "stet", root: root, c: mcpCaller{p.rpcClient}, proc: p, stop: p.close}, nil
}

// startFacade opens stet's facade on root in this process.
func startFacade(ctx context.Context, c *config, root, state string) (*stetTarget, error) {
	ws, err := stet.Open([]string{root}, stet.Options{State: state, MaxReadBytes: c.maxRead})
	if err != nil {
		return nil, fmt.Errorf("facade: %w", err)
	}
	s, err := ws.Session("stetbench")
	if err != nil {
		ws.Close()
		return nil, fmt.Errorf("facade: %w", err)
	}
	return &stetTarget{label: "stet-facade", root: root, c: facadeCaller{ctx: ctx, s: s}, stop: func() { ws.Close() }}, nil
}

// startInProcess serves stet's MCP server on root in this process over
// pipes, with the same client as a child process gets.
// Every goroutine it starts carries the pprof label serverLabel=serverSide;
// step, when not nil, is stet.Hooks.Step.
func startInProcess(ctx context.Context, root, state string, maxRead int, step func(string, time.Duration)) (*stetTarget, error) {
	pprof.SetGoroutineLabels(pprof.WithLabels(ctx, pprof.Labels(serverLabel, serverSide)))
	defer pprof.SetGoroutineLabels(ctx)
	ws, err := stet.Open([]string{root}, stet.Options{State: state, MaxReadBytes: maxRead, Hooks: stet.Hooks{Step: step}})
	if err != nil {
		return nil, err
	}
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srvCtx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		mcpserver.New(ws, mcpserver.Options{Version: "stetbench"}).ServeStdio(srvCtx, inR, outW)
		outW.Close()
		close(done)
	}()
	stop := func() {
		inW.Close()
		cancel()
		<-done
		ws.Close()
	}
	client := newRPCClient(inW, outR)
	if _, err := client.initialize(); err != nil {
		stop()
		return nil, err
	}
	return &stetTarget{label: "stet-inproc", root: root, c: mcpCaller{client}, stop: stop}, nil
}

// targetNames lists the targets a run has, in report order.
func targetNames(c *config) []string {
	names := []string{"limit", "peer", "stet"}
	if !c.noFacade {
		names = append(names, "stet-facade")
	}
	return names
}

// startTarget starts the named target over a fresh directory of the work
// directory (its state directory beside it, for stet).
func startTarget(ctx context.Context, c *config, name, tag string) (target, error) {
	root := filepath.Join(c.work, tag, name)
	if err := makeDir(root); err != nil {
		return nil, err
	}
	state := filepath.Join(c.work, tag, name+".state")
	switch name {
	case "limit":
		return &limitTarget{root: root}, nil
	case "peer":
		return startPeer(c, root)
	case "stet":
		return startStet(c, root, state)
	case "stet-facade":
		return startFacade(ctx, c, root, state)
	}
	return nil, fmt.Errorf("no target %q", name)
}
