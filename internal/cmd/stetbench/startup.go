package main

import (
	"context"
	"fmt"
	"path/filepath"
	"time"
)

// startupRun is the start-up of one server over several fresh starts.
type startupRun struct {
	Target    string    `json:"target"`
	Init      []float64 `json:"initialize_ms"`   // exec to the initialize answer
	List      []float64 `json:"tools_list_ms"`   // exec to the first tools/list answer
	FirstRead []float64 `json:"first_read_ms"`   // the first tools/call (read 4 KiB) alone
	IdleRSS   []int64   `json:"idle_rss_bytes"`  // VmHWM after that read
	Err       string    `json:"error,omitempty"` // a start that failed
}

// startOnce starts a server, initializes it, lists its tools and reads a
// 4 KiB file, timing each step, then ends it.
func startOnce(c *config, name, root string, r *startupRun) error {
	var argv []string
	var read func(p *process) error
	switch name {
	case "peer":
		argv = c.peerArgv(root)
		read = func(p *process) error {
			_, _, err := p.call("read_text_file", map[string]any{"path": filepath.Join(root, "read_4k.go")})
			return err
		}
	case "stet":
		argv = c.stetArgv(root, filepath.Join(root, "..", "stet.state"))
		read = func(p *process) error {
			_, _, err := p.call("read", map[string]any{"path": "read_4k.go"})
			return err
		}
	default:
		return fmt.Errorf("no server %q", name)
	}
	start := time.Now()
	p, err := startProcess(argv, root, c.env, c.timeout)
	if err != nil {
		return err
	}
	defer p.close()
	if _, err := p.initialize(); err != nil {
		return p.describe(err)
	}
	initDone := time.Since(start)
	if _, _, err := p.request("tools/list", map[string]any{}); err != nil {
		return p.describe(err)
	}
	listDone := time.Since(start)
	readStart := time.Now()
	if err := read(p); err != nil {
		return p.describe(err)
	}
	readTime := time.Since(readStart)
	rss, err := peakRSS(p.pid())
	if err != nil {
		return err
	}
	r.Init = append(r.Init, ms(initDone))
	r.List = append(r.List, ms(listDone))
	r.FirstRead = append(r.FirstRead, ms(readTime))
	r.IdleRSS = append(r.IdleRSS, rss)
	return nil
}

// runStartup starts each server n times, taking turns.
func runStartup(c *config, n int) ([]*startupRun, error) {
	names := []string{"peer", "stet"}
	runs := make([]*startupRun, len(names))
	roots := make([]string, len(names))
	for i, name := range names {
		runs[i] = &startupRun{Target: name}
		roots[i] = filepath.Join(c.work, "startup", name)
		if err := writeFixture(filepath.Join(roots[i], "read_4k.go"), fixture(4*kib, 0, "")); err != nil {
			return nil, err
		}
	}
	for round := range n {
		for k := range names {
			i := (k + round) % len(names)
			if runs[i].Err != "" {
				continue
			}
			if err := startOnce(c, names[i], roots[i], runs[i]); err != nil {
				runs[i].Err = err.Error()
			}
		}
	}
	return runs, nil
}

// memoryRun is the peak memory of fresh servers, scenario by scenario.
type memoryRun struct {
	Scenario string    `json:"scenario"`
	Results  []*result `json:"results"` // PeakRSS set
}

// runMemory measures, for each scenario, the peak RSS (VmHWM) of a fresh
// server of each kind after one warm-up call and n calls.
func runMemory(ctx context.Context, c *config, scs []scenario, n int) []*memoryRun {
	var out []*memoryRun
	for si, sc := range scs {
		m := &memoryRun{Scenario: sc.name}
		for _, name := range []string{"peer", "stet"} {
			t, err := startTarget(ctx, c, name, fmt.Sprintf("mem%d", si))
			if err != nil {
				m.Results = append(m.Results, &result{Target: name, Err: err.Error()})
				continue
			}
			run := runScenario([]target{t}, sc, 1, n, map[string]bool{})
			r := run.Results[0]
			if rss, err := peakRSS(t.pid()); err != nil && r.Err == "" {
				r.Err = err.Error()
			} else {
				r.PeakRSS = rss
			}
			t.close()
			r.Samples = nil
			m.Results = append(m.Results, r)
		}
		out = append(out, m)
	}
	return out
}
