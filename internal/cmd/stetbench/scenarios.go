package main

import (
	"fmt"
	"path/filepath"
	"slices"
	"time"
)

// op is what a scenario does to a file.
type op int

const (
	opRead op = iota
	opEdit
	opCreate
	opReplace
)

// scenario is one timed operation on one kind of file.
type scenario struct {
	name  string
	op    op
	size  int
	large bool // timed -n-large times instead of -n
	extra bool // not part of the goals
}

const (
	kib = 1 << 10
	mib = 1 << 20
)

// scenarios are every scenario, in report order.
var scenarios = []scenario{
	{name: "read_4k", op: opRead, size: 4 * kib},
	{name: "read_1m", op: opRead, size: mib},
	{name: "edit_1m", op: opEdit, size: mib},
	{name: "edit_10m", op: opEdit, size: 10 * mib, large: true},
	{name: "create_4k", op: opCreate, size: 4 * kib},
	{name: "replace_1m", op: opReplace, size: mib},
	{name: "read_10m", op: opRead, size: 10 * mib, large: true, extra: true},
	{name: "replace_10m", op: opReplace, size: 10 * mib, large: true, extra: true},
}

func scenarioNamed(name string) (scenario, bool) {
	i := slices.IndexFunc(scenarios, func(s scenario) bool { return s.name == name })
	if i < 0 {
		return scenario{}, false
	}
	return scenarios[i], true
}

// fileState is what one target's scenario file holds now.
type fileState struct {
	rel      string
	content  []byte
	versions [2][]byte // an edit's or a replace's two fixtures, which calls alternate
	cur      int       // the version the file holds
	n        int       // calls made (names create's new files)
}

// prepare writes a target's fixture for sc (untimed) and returns its state.
func prepare(t target, sc scenario) (*fileState, error) {
	st := &fileState{rel: sc.name + ".go"}
	switch sc.op {
	case opRead:
		st.content = fixture(sc.size, 0, "")
	case opReplace:
		st.versions = [2][]byte{fixture(sc.size, 0, ""), fixture(sc.size, 1, "")}
		st.content = st.versions[0]
	case opEdit:
		st.versions = [2][]byte{fixture(sc.size, 0, tokenA), fixture(sc.size, 0, tokenB)}
		st.content = st.versions[0]
	case opCreate:
		st.versions = [2][]byte{fixture(sc.size, 0, ""), fixture(sc.size, 1, "")}
		st.rel = sc.name
		return st, makeDir(filepath.Join(t.dir(), st.rel))
	}
	return st, writeFixture(filepath.Join(t.dir(), st.rel), st.content)
}

// step does one call of sc on t, checks its effect untimed and returns its
// time; windowed reports a read that returned a window.
func step(t target, sc scenario, st *fileState) (d time.Duration, windowed bool, err error) {
	st.n++
	path := filepath.Join(t.dir(), st.rel)
	switch sc.op {
	case opRead:
		return t.read(st.rel, st.content)
	case opEdit:
		old, new := swapToken(st.content)
		want := st.versions[1-st.cur]
		d, err = t.edit(st.rel, tokenLine(sc.size), old, new)
		if err == nil {
			err = checkFile(path, want)
		}
		st.cur = 1 - st.cur
		st.content = want
	case opCreate:
		rel := filepath.Join(st.rel, fmt.Sprintf("new_%05d.go", st.n))
		content := st.versions[st.n%2]
		d, err = t.create(rel, content)
		if err == nil {
			err = checkFile(filepath.Join(t.dir(), rel), content)
		}
	case opReplace:
		want := st.versions[1-st.cur]
		d, err = t.replace(st.rel, want)
		if err == nil {
			err = checkFile(path, want)
		}
		st.cur = 1 - st.cur
		st.content = want
	}
	return d, false, err
}

// result is what one target did in one scenario.
type result struct {
	Target   string    `json:"target"`
	Samples  []float64 `json:"samples_ms,omitempty"`
	Windowed bool      `json:"windowed,omitempty"` // reads returned a window, not the whole file
	Err      string    `json:"error,omitempty"`    // the call that failed, when one did
	PeakRSS  int64     `json:"peak_rss_bytes,omitempty"`
	// Wire sizes of the last timed call (MCP targets): request and
	// response lines, in bytes.
	ReqBytes  int `json:"request_bytes,omitempty"`
	RespBytes int `json:"response_bytes,omitempty"`
}

// median and p90 of the samples, in ms.
func (r *result) median() float64 { return quantile(r.Samples, 0.5) }
func (r *result) p90() float64    { return quantile(r.Samples, 0.9) }
func (r *result) ok() bool        { return r != nil && r.Err == "" && len(r.Samples) > 0 }

// quantile is the q-quantile of xs: the median interpolates between the
// two middle values of an even count; other quantiles take the nearest
// rank. NaN for no samples.
func quantile(xs []float64, q float64) float64 {
	if len(xs) == 0 {
		return nan
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	if q == 0.5 {
		m := len(s) / 2
		if len(s)%2 == 0 {
			return (s[m-1] + s[m]) / 2
		}
		return s[m]
	}
	i := int(q*float64(len(s))+0.999999999) - 1
	return s[min(max(i, 0), len(s)-1)]
}

// scenarioRun is one scenario's results, target by target.
type scenarioRun struct {
	Scenario string    `json:"scenario"`
	Results  []*result `json:"results"`
}

func (s *scenarioRun) of(target string) *result {
	for _, r := range s.Results {
		if r.Target == target {
			return r
		}
	}
	return nil
}

// runScenario times sc on every target: warmup untimed rounds, then n
// timed ones; in each round every target makes one call, in an order
// rotated by one each round. A target whose call fails is dropped from the
// scenario (its error recorded) and marked broken, so that the caller can
// restart it.
func runScenario(ts []target, sc scenario, warmup, n int, broken map[string]bool) *scenarioRun {
	run := &scenarioRun{Scenario: sc.name}
	states := make([]*fileState, len(ts))
	live := make([]bool, len(ts))
	for i, t := range ts {
		run.Results = append(run.Results, &result{Target: t.name()})
		st, err := prepare(t, sc)
		if err != nil {
			run.Results[i].Err = "fixture: " + err.Error()
			continue
		}
		states[i], live[i] = st, true
	}
	for round := range warmup + n {
		for k := range ts {
			i := (k + round) % len(ts)
			if !live[i] {
				continue
			}
			d, windowed, err := step(ts[i], sc, states[i])
			r := run.Results[i]
			if err != nil {
				r.Err = fmt.Sprintf("call %d: %v", states[i].n, err)
				live[i] = false
				broken[ts[i].name()] = true
				continue
			}
			r.Windowed = r.Windowed || windowed
			if w, ok := ts[i].(wireSizer); ok {
				r.ReqBytes, r.RespBytes = w.wire()
			}
			if round >= warmup {
				r.Samples = append(r.Samples, ms(d))
			}
		}
	}
	return run
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
