package main

import (
	"context"
	"fmt"
	"math"
	"strings"
	"testing"
	"time"
)

// sharedHistory applies edits to the shared file as the load mix makes
// them: each moves the head line and adds an entry. Each edit reads
// the version read[i] names (an index into the versions so far: -1 the
// latest), so a lost update is two edits applied to the same version, the
// second one's result overwriting the first's (last writer wins).
func sharedHistory(read []int) (initial, final []byte, edits []sharedEdit) {
	initial = sharedInitial()
	versions := [][]byte{initial}
	heads := []string{"init"}
	for i, r := range read {
		if r < 0 {
			r = len(versions) - 1
		}
		id := fmt.Sprintf("c%02d-%05d", i%4, i)
		entry := "entry " + id + "\n"
		next := strings.Replace(string(versions[r]), headPrefix+heads[r]+"\n", entry+headPrefix+id+"\n", 1)
		edits = append(edits, sharedEdit{Receipt: fmt.Sprintf("r_%d", i), Before: versionOf(versions[r]), After: versionOf([]byte(next)), Added: entry})
		versions = append(versions, []byte(next))
		heads = append(heads, id)
	}
	return initial, versions[len(versions)-1], edits
}

func TestLostUpdatesExplained(t *testing.T) {
	initial, final, edits := sharedHistory([]int{-1, -1, -1, -1, -1})
	if lost, why := lostUpdates(initial, final, edits); lost != 0 {
		t.Fatalf("a serial history: %d lost: %s", lost, why)
	}
	// Receipts come in per client, not in the order they landed.
	shuffled := []sharedEdit{edits[3], edits[0], edits[4], edits[2], edits[1]}
	if lost, why := lostUpdates(initial, final, shuffled); lost != 0 {
		t.Fatalf("the same receipts in another order: %d lost: %s", lost, why)
	}
	if lost, why := lostUpdates(initial, initial, nil); lost != 0 {
		t.Fatalf("no edit: %d lost: %s", lost, why)
	}
}

func TestLostUpdatesFabricated(t *testing.T) {
	// Edit 2 is applied to the version edit 0 left, as edit 1 was: the
	// file then holds edit 2's entry but not edit 1's, although both
	// clients were given a receipt.
	initial, final, edits := sharedHistory([]int{-1, 1, 1, -1})
	lost, why := lostUpdates(initial, final, edits)
	if lost == 0 || !strings.Contains(why, "both read version") {
		t.Fatalf("a lost update: %d lost (%q)", lost, why)
	}

	// The file ends elsewhere than the last receipt says (an update lost
	// after its receipt, or a write no receipt explains).
	initial, final, edits = sharedHistory([]int{-1, -1, -1})
	_, prev, _ := sharedHistory([]int{-1, -1})
	if lost, why := lostUpdates(initial, prev, edits); lost == 0 || !strings.Contains(why, "chain ends at") {
		t.Fatalf("a final file one edit behind its receipts: %d lost (%q)", lost, why)
	}
	if lost, _ := lostUpdates(initial, final, edits[:2]); lost == 0 {
		t.Fatal("a change no receipt explains counted as explained")
	}

	// A receipt of an edit that read a version no chain reaches.
	bogus := append(edits[:3:3], sharedEdit{Receipt: "r_x", Before: versionOf([]byte("other")), After: versionOf(final), Added: "entry x\n"})
	if lost, why := lostUpdates(initial, final, bogus); lost == 0 || !strings.Contains(why, "r_x") {
		t.Fatalf("an edit off the chain: %d lost (%q)", lost, why)
	}
}

func TestPercentiles(t *testing.T) {
	ms := make([]float64, 1000)
	for i := range ms {
		ms[i] = float64(1000 - i) // 1000 … 1, unsorted
	}
	if p := quantile(ms, 0.99); p != 990 {
		t.Errorf("p99 of 1…1000 = %v, want 990 (nearest rank)", p)
	}
	if p := quantile(ms, 0.5); p != 500.5 {
		t.Errorf("p50 of 1…1000 = %v, want 500.5", p)
	}
	// Of 50 calls, the p99 is the slowest (nearest rank 50).
	xs := make([]float64, 50)
	for i := range xs {
		xs[i] = 1
	}
	xs[17] = 100
	if p := quantile(xs, 0.99); p != 100 {
		t.Errorf("p99 of 50 calls with one slow = %v, want 100", p)
	}
	if p := quantile(xs[:0], 0.99); !math.IsNaN(p) {
		t.Errorf("p99 of nothing = %v, want NaN", p)
	}
}

func TestSummarizeRatios(t *testing.T) {
	run := func(run, clients int, secs float64) *loadRun {
		return &loadRun{Run: run, Clients: clients, Calls: 100, Seconds: secs, Samples: map[string][]float64{"read_4k": {1, 2, 3}}}
	}
	// Run 2 is slower for both counts (noise that hits both alike): the
	// ratio is taken within each run, then the median over runs.
	runs := []*loadRun{run(1, 1, 1), run(1, 4, 0.5), run(2, 1, 2), run(2, 4, 1), run(3, 1, 1), run(3, 4, 0.25)}
	levels := summarize([]int{1, 4}, runs)
	if len(levels) != 2 || levels[1].clients != 4 {
		t.Fatalf("levels: %+v", levels)
	}
	if r := levels[1].ratio; r != 2 {
		t.Errorf("4 clients vs 1: %v×, want 2× (the median of 2, 2, 4)", r)
	}
	if r := levels[0].ratio; r != 1 {
		t.Errorf("1 client vs itself: %v×", r)
	}
}

func TestResponseIn(t *testing.T) {
	sse := "event: message\ndata: {\"jsonrpc\":\"2.0\",\"method\":\"notifications/message\"}\n\n" +
		"event: message\ndata: {\"jsonrpc\":\"2.0\",\"id\":3,\"result\":{\"x\":1}}\n\n"
	m, err := responseIn("text/event-stream", []byte(sse), 3)
	if err != nil || string(m.Result) != `{"x":1}` {
		t.Fatalf("SSE: %v, %v", m, err)
	}
	if _, err := responseIn("text/event-stream", []byte(sse), 4); err == nil {
		t.Error("SSE without the id: no error")
	}
	m, err = responseIn("application/json", []byte(`{"jsonrpc":"2.0","id":5,"result":{}}`), 5)
	if err != nil || string(m.ID) != "5" {
		t.Fatalf("JSON: %v, %v", m, err)
	}
}

// TestLoadOnce runs the mix with three clients on stet's handler in this
// process: every call lands or is the expected changed refusal, and the
// shared file is explained by the receipts.
func TestLoadOnce(t *testing.T) {
	o := &loadOptions{calls: 60, timeout: time.Minute, inProcess: true}
	r, err := loadOnce(context.Background(), o, "", t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(r.Errors) > 0 {
		t.Fatalf("errors %v; first: %s", r.Errors, r.FirstError)
	}
	if r.Lost != 0 {
		t.Fatalf("%d lost updates: %s", r.Lost, r.LostWhy)
	}
	if r.Calls < o.calls || len(r.Shared) < 3 || len(r.Samples[opLoadEdit]) == 0 || len(r.Samples[opLoadGrep]) == 0 {
		t.Fatalf("%d calls, %d shared edits, samples %v", r.Calls, len(r.Shared), r.Samples)
	}
}
