package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"runtime/pprof"
	"testing"
	"time"
)

// TestParseCPUProfile reads back a CPU profile of labelled work: the
// samples carry the label and the stack names the function that ran.
func TestParseCPUProfile(t *testing.T) {
	var buf bytes.Buffer
	if err := pprof.StartCPUProfile(&buf); err != nil {
		t.Skip("CPU profiling is not available:", err)
	}
	pprof.Do(context.Background(), pprof.Labels(serverLabel, serverSide), func(context.Context) {
		data := make([]byte, 1<<20)
		for end := time.Now().Add(300 * time.Millisecond); time.Now().Before(end); {
			sha256.Sum256(data)
		}
	})
	pprof.StopCPUProfile()
	samples, err := parseCPUProfile(buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	var hashing int64
	for _, s := range samples {
		if s.labels[serverLabel] == serverSide && categorize(s.stack) == "hashing (SHA-256)" {
			hashing += s.nanos
		}
	}
	if hashing == 0 {
		t.Fatalf("no labelled hashing sample among %d samples", len(samples))
	}
}

func TestCategorize(t *testing.T) {
	for _, c := range []struct {
		stack []string
		want  string
	}{
		{[]string{"runtime.memmove", "github.com/stet-dev/stet/mcpserver.appendEscaped", "github.com/stet-dev/stet/mcpserver.encodeResult"}, "transport: encode (result JSON)"},
		{[]string{"crypto/sha256.Sum256", "github.com/stet-dev/stet/journal.(*Journal).Append"}, "hashing (SHA-256)"},
		{[]string{"os.(*File).Write", "github.com/stet-dev/stet/internal/engine.(*Session).commit"}, "commit (temp file, swap, readback, receipt)"},
		{[]string{"main.main"}, otherCategory},
	} {
		if got := categorize(c.stack); got != c.want {
			t.Errorf("categorize(%q) = %q, want %q", c.stack, got, c.want)
		}
	}
}
