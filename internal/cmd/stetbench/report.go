package main

import (
	"bytes"
	"fmt"
	"math"
	"slices"
	"strings"
)

var nan = math.NaN()

// Goals, from the issue that asked for this benchmark.
const (
	goalVsPeer     = 0.5  // every scenario: stet at most this times the peer's median
	goalVsLimit    = 2.0  // edits: stet at most this times the durable limit's median
	goalStartupMS  = 20.0 // exec to the first tools/list answer
	goalMemVsPeer  = 0.25 // peak memory: under a quarter of the peer's
	goalCLIReadMS  = 15.0 // `stet read` of a 4 KiB file, process start to exit
	reportMarkerOn = "<!-- stetbench: begin generated section; bench/run.sh rewrites it -->"
	reportMarkerOf = "<!-- stetbench: end generated section -->"
)

// report is everything a run measured.
type report struct {
	Machine  machine        `json:"machine"`
	Command  string         `json:"command"`
	N        int            `json:"n"`
	NLarge   int            `json:"n_large"`
	Warmup   int            `json:"warmup"`
	Latency  []*scenarioRun `json:"latency"`
	Startup  []*startupRun  `json:"startup,omitempty"`
	Starts   int            `json:"starts"`
	Memory   []*memoryRun   `json:"memory,omitempty"`
	MemCalls int            `json:"memory_calls"`
	CLI      *cliRun        `json:"cli,omitempty"`
	CLIN     int            `json:"cli_n"`
	Targets  []string       `json:"targets"`
}

// fmtMS formats milliseconds with about three significant digits.
func fmtMS(v float64) string {
	switch {
	case math.IsNaN(v):
		return "–"
	case v < 1:
		return fmt.Sprintf("%.3f", v)
	case v < 10:
		return fmt.Sprintf("%.2f", v)
	case v < 100:
		return fmt.Sprintf("%.1f", v)
	}
	return fmt.Sprintf("%.0f", v)
}

// fmtRatio formats a ratio like "0.42×".
func fmtRatio(v float64) string {
	switch {
	case math.IsNaN(v) || math.IsInf(v, 0):
		return "–"
	case v < 10:
		return fmt.Sprintf("%.2f×", v)
	case v < 100:
		return fmt.Sprintf("%.1f×", v)
	}
	return fmt.Sprintf("%.0f×", v)
}

func fmtMiB(b int64) string {
	if b <= 0 {
		return "–"
	}
	return fmt.Sprintf("%.0f MiB", float64(b)/mib)
}

// cell is "median (p90)" of a result, or what went wrong.
func cell(r *result) string {
	switch {
	case r == nil:
		return "–"
	case r.Err != "":
		return "**fails**"
	case len(r.Samples) == 0:
		return "–"
	}
	s := fmt.Sprintf("%s (%s)", fmtMS(r.median()), fmtMS(r.p90()))
	if r.Windowed {
		s += " †"
	}
	return s
}

func ratio(a, b *result) float64 {
	if !a.ok() || !b.ok() {
		return nan
	}
	return a.median() / b.median()
}

// latencyGoal says whether stet met its goals in a scenario.
func latencyGoal(sc scenario, run *scenarioRun) string {
	stet, peer, limit := run.of("stet"), run.of("peer"), run.of("limit")
	if !stet.ok() {
		return "no: stet failed"
	}
	if sc.extra {
		if !peer.ok() {
			return "(extra; peer fails)"
		}
		return "(extra)"
	}
	var misses []string
	if vp := ratio(stet, peer); math.IsNaN(vp) {
		misses = append(misses, "no peer number")
	} else if vp > goalVsPeer {
		misses = append(misses, fmt.Sprintf("%s peer > %.1f×", fmtRatio(vp), goalVsPeer))
	}
	if sc.op == opEdit {
		if vl := ratio(stet, limit); vl > goalVsLimit {
			misses = append(misses, fmt.Sprintf("%s limit > %.0f×", fmtRatio(vl), goalVsLimit))
		}
	}
	if len(misses) == 0 {
		return "yes"
	}
	return "**no** (" + strings.Join(misses, "; ") + ")"
}

// markdown renders the report's tables.
func (r *report) markdown() string {
	var b bytes.Buffer
	m := r.Machine
	fmt.Fprintf(&b, "Measured %s on %s; %s; Go %s, Node %s; peer `@modelcontextprotocol/server-filesystem@%s` (TS SDK %s); stet %s. "+
		"Load average (1 min) at the start and the end of the run: %s.\n\n",
		m.Date, m.CPU, m.System, m.Go, m.Node, m.PeerVersion, m.PeerSDK, m.Stet, m.Load)
	fmt.Fprintf(&b, "Reproduce with `bench/run.sh` (it runs `%s`).\n\n", r.Command)

	r.writeLatency(&b)
	r.writeFacade(&b)
	r.writeStartup(&b)
	r.writeMemory(&b)
	r.writeCLI(&b)
	return b.String()
}

// writeLatency writes the per-call latency table, with the reads made in
// several windows and the failures under it.
func (r *report) writeLatency(b *bytes.Buffer) {
	fmt.Fprintf(b, "### Per-call latency over stdio\n\n")
	fmt.Fprintf(b, "Milliseconds, median (p90) of %d calls (%d for the 10 MiB scenarios) after %d warm-up calls, targets interleaved call by call. "+
		"Goals: stet at most %.1f× the peer on every scenario, and edits within %.0f× the durable limit.\n\n", r.N, r.NLarge, r.Warmup, goalVsPeer, goalVsLimit)
	b.WriteString("| scenario | limit | peer | stet | stet/peer | stet/limit | goal met? |\n|---|---|---|---|---|---|---|\n")
	var windowed, failed []string
	for _, run := range r.Latency {
		sc, _ := scenarioNamed(run.Scenario)
		name := sc.name
		if sc.extra {
			name += " (extra)"
		}
		stet, peer, limit := run.of("stet"), run.of("peer"), run.of("limit")
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s |\n", name, cell(limit), cell(peer), cell(stet),
			fmtRatio(ratio(stet, peer)), fmtRatio(ratio(stet, limit)), latencyGoal(sc, run))
		for _, res := range run.Results {
			if res.Windowed {
				windowed = append(windowed, res.Target+" "+run.Scenario)
			}
			if res.Err != "" {
				failed = append(failed, fmt.Sprintf("%s %s: %s", res.Target, run.Scenario, oneLine(res.Err)))
			}
		}
	}
	b.WriteString("\n")
	if len(windowed) > 0 {
		fmt.Fprintf(b, "† read in several windows, timed as the sum of the calls (%s): stet answers a read with the frame twice "+
			"(text content and structured result) and keeps an answer under 9 MiB of JSON, so a 10 MiB file is read in %d-line windows.\n\n",
			strings.Join(windowed, ", "), windowLines)
	}
	if len(failed) > 0 {
		b.WriteString("Failures:\n\n")
		for _, f := range failed {
			fmt.Fprintf(b, "- %s\n", f)
		}
		b.WriteString("\n")
	}
}

// writeFacade writes where stet's time goes (the facade alone against MCP
// over stdio), when the facade was measured.
func (r *report) writeFacade(b *bytes.Buffer) {
	if slices.Contains(r.Targets, "stet-facade") {
		b.WriteString("### Where stet's time goes\n\n")
		b.WriteString("`stet-facade` is the same call made on stet's library in this process (`Session.Call` with the JSON arguments, no transport): " +
			"stet − stet-facade is what MCP over stdio costs (JSON-RPC framing, go-sdk, encoding the result). " +
			"The last two columns are the sizes of one call's request and response lines.\n\n")
		b.WriteString("| scenario | limit | stet-facade | stet (MCP) | facade/limit | MCP share of stet | stet request / response | peer request / response |\n|---|---|---|---|---|---|---|---|\n")
		for _, run := range r.Latency {
			f, s, l := run.of("stet-facade"), run.of("stet"), run.of("limit")
			share := nan
			if f.ok() && s.ok() {
				share = (s.median() - f.median()) / s.median() * 100
			}
			shareS := "–"
			if !math.IsNaN(share) {
				shareS = fmt.Sprintf("%.0f %%", share)
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", run.Scenario, cell(l), cell(f), cell(s), fmtRatio(ratio(f, l)), shareS,
				wireCell(s), wireCell(run.of("peer")))
		}
		b.WriteString("\n")
	}
}

// writeStartup writes the start-up table, when start-up was measured.
func (r *report) writeStartup(b *bytes.Buffer) {
	if len(r.Startup) > 0 {
		fmt.Fprintf(b, "### Start-up\n\nMilliseconds, median (p90) of %d fresh starts each, interleaved: exec to the `initialize` answer, "+
			"exec to the first `tools/list` answer (the goal: under %.0f ms), then the first tool call (read 4 KiB) alone, and VmHWM after it.\n\n", r.Starts, goalStartupMS)
		b.WriteString("| server | exec + initialize | + first tools/list answer | first read_4k | peak RSS | goal met? |\n|---|---|---|---|---|---|\n")
		for _, s := range r.Startup {
			if s.Err != "" && len(s.List) == 0 {
				fmt.Fprintf(b, "| %s | **fails**: %s | | | | |\n", s.Target, oneLine(s.Err))
				continue
			}
			goal := ""
			if s.Target == "stet" {
				goal = "yes"
				if quantile(s.List, 0.5) >= goalStartupMS {
					goal = "**no**"
				}
			}
			rss := slices.Max(s.IdleRSS)
			fmt.Fprintf(b, "| %s | %s (%s) | %s (%s) | %s (%s) | %s | %s |\n", s.Target,
				fmtMS(quantile(s.Init, 0.5)), fmtMS(quantile(s.Init, 0.9)),
				fmtMS(quantile(s.List, 0.5)), fmtMS(quantile(s.List, 0.9)),
				fmtMS(quantile(s.FirstRead, 0.5)), fmtMS(quantile(s.FirstRead, 0.9)), fmtMiB(rss), goal)
		}
		b.WriteString("\n")
	}
}

// writeMemory writes the peak memory table, when memory was measured.
func (r *report) writeMemory(b *bytes.Buffer) {
	if len(r.Memory) > 0 {
		fmt.Fprintf(b, "### Peak memory\n\nVmHWM of a fresh server after 1 warm-up call and %d calls of one scenario. Goal: stet under a quarter of the peer.\n\n", r.MemCalls)
		b.WriteString("| scenario | peer | stet | stet/peer | goal met? |\n|---|---|---|---|---|\n")
		for _, m := range r.Memory {
			var peer, stet *result
			for _, res := range m.Results {
				switch res.Target {
				case "peer":
					peer = res
				case "stet":
					stet = res
				}
			}
			sc, _ := scenarioNamed(m.Scenario)
			name := m.Scenario
			if sc.extra {
				name += " (extra)"
			}
			pc, sc2 := memCell(peer), memCell(stet)
			q, goal := nan, "–"
			if peer != nil && stet != nil && peer.Err == "" && stet.Err == "" && peer.PeakRSS > 0 {
				q = float64(stet.PeakRSS) / float64(peer.PeakRSS)
				goal = "yes"
				if q >= goalMemVsPeer {
					goal = "**no**"
				}
				if sc.extra {
					goal = "(extra)"
				}
			} else if stet != nil && stet.Err != "" {
				goal = "no: stet failed"
			} else if peer != nil && peer.Err != "" {
				goal = "(peer fails)"
			}
			fmt.Fprintf(b, "| %s | %s | %s | %s | %s |\n", name, pc, sc2, fmtRatio(q), goal)
		}
		b.WriteString("\n")
	}
}

// writeCLI writes the CLI latency table and its failures, when the CLI
// was timed.
func (r *report) writeCLI(b *bytes.Buffer) {
	if r.CLI != nil {
		fmt.Fprintf(b, "### CLI latency\n\nMilliseconds from process start to exit, median (p90) of %d runs after warm-up, each in a session of its own: "+
			"with a fresh state directory per run, and with one state directory whose journal holds %d records of other sessions. "+
			"Before each edit, an untimed `stet read` of the edited line's neighbourhood. Goal: `stet read` of 4 KiB under %.0f ms.\n\n",
			r.CLIN, r.CLI.Records, goalCLIReadMS)
		b.WriteString("| command | fresh state | journal of other sessions | goal met? |\n|---|---|---|---|\n")
		var names []string
		for _, c := range r.CLI.Cases {
			if !slices.Contains(names, c.Name) {
				names = append(names, c.Name)
			}
		}
		for _, name := range names {
			var fresh, big *cliCase
			for _, c := range r.CLI.Cases {
				if c.Name == name && c.Big {
					big = c
				} else if c.Name == name {
					fresh = c
				}
			}
			goal := "–"
			if name == "read_4k" {
				goal = "yes"
				for _, c := range []*cliCase{fresh, big} {
					if c == nil || c.Err != "" || quantile(c.Samples, 0.5) >= goalCLIReadMS {
						goal = "**no**"
					}
				}
			}
			fmt.Fprintf(b, "| `%s` | %s | %s | %s |\n", fresh.Command, cliCell(fresh), cliCell(big), goal)
		}
		b.WriteString("\n")
		for _, c := range r.CLI.Cases {
			if c.Err != "" {
				fmt.Fprintf(b, "- %s fails: %s\n", c.Command, oneLine(c.Err))
			}
		}
	}
}

func wireCell(r *result) string {
	if !r.ok() || r.RespBytes == 0 {
		return "–"
	}
	return fmtBytes(r.ReqBytes) + " / " + fmtBytes(r.RespBytes)
}

func fmtBytes(n int) string {
	switch {
	case n < 10*kib:
		return fmt.Sprintf("%d B", n)
	case n < 10*mib:
		return fmt.Sprintf("%.0f KiB", float64(n)/kib)
	}
	return fmt.Sprintf("%.1f MiB", float64(n)/mib)
}

func memCell(r *result) string {
	if r == nil {
		return "–"
	}
	if r.Err != "" {
		return "**fails**"
	}
	return fmtMiB(r.PeakRSS)
}

func cliCell(c *cliCase) string {
	if c == nil {
		return "–"
	}
	if c.Err != "" {
		return "**fails**"
	}
	return fmt.Sprintf("%s (%s)", fmtMS(quantile(c.Samples, 0.5)), fmtMS(quantile(c.Samples, 0.9)))
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > 400 {
		s = s[:400] + "…"
	}
	return s
}

// splice puts section between the markers of doc, replacing what was
// there; a doc without markers gets the section appended, an empty one a
// title first.
func splice(doc, section string) string {
	block := reportMarkerOn + "\n" + section + reportMarkerOf + "\n"
	i := strings.Index(doc, reportMarkerOn)
	j := strings.Index(doc, reportMarkerOf)
	if i >= 0 && j > i {
		rest := doc[j+len(reportMarkerOf):]
		rest = strings.TrimPrefix(rest, "\n")
		return doc[:i] + block + rest
	}
	if strings.TrimSpace(doc) == "" {
		return "# Benchmarks\n\n" + block
	}
	if !strings.HasSuffix(doc, "\n") {
		doc += "\n"
	}
	return doc + "\n" + block
}
