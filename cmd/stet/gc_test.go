package main

import (
	"context"
	"fmt"
	"io/fs"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

func TestGCThenVerifyAndUndo(t *testing.T) {
	w := newWS(t, map[string]string{"a.txt": "one\ntwo\n", "b.txt": "bee\n"})
	w.ok("read", "a.txt")
	w.ok("read", "b.txt")
	w.ok("edit", "a.txt", "--old-string", "two", "--new-string", "TWO")
	w.ok("write", "b.txt", "--content", "BEE\n", "--overwrite")
	w.ok("grep", "o")

	r := w.ok("gc")
	if !strings.Contains(r.stdout, "freed") {
		t.Errorf("gc output: %s", r.stdout)
	}
	w.ok("verify", "--all")
	w.ok("undo", "b.txt")
	w.ok("undo", "a.txt")
	if w.get("a.txt") != "one\ntwo\n" || w.get("b.txt") != "bee\n" {
		t.Errorf("undo after gc: a=%q b=%q", w.get("a.txt"), w.get("b.txt"))
	}
	w.ok("verify", "--all")

	m := w.ok("--json", "gc", "--keep", "0s").json(t)
	rep := m["report"].(map[string]any)
	if rep["dropped"].(float64) == 0 || rep["generation"].(float64) != 2 {
		t.Errorf("gc --keep 0s: %v", m)
	}
	w.ok("verify", "--all")
	if r := w.run("", "gc", "--keep", "soon"); r.code != 2 {
		t.Errorf("gc --keep soon: exit %d, want 2", r.code)
	}
}

// BenchmarkCLIReadAfterWideGreps compares a CLI read in a session that ran
// 1,000 identical wide greps with the same read in a fresh session. It
// reports both latencies and their ratio (the goal: under 1.5) and the
// state directory's growth over the greps.
func BenchmarkCLIReadAfterWideGreps(b *testing.B) {
	t := &testing.T{}
	w := &ws{t: t, root: b.TempDir(), state: b.TempDir()}
	for i := range 200 {
		var s strings.Builder
		fmt.Fprintf(&s, "package p\n\n")
		for k := range 8 {
			fmt.Fprintf(&s, "func f%d() error {\n\tif err := g(); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n", k)
		}
		w.put(fmt.Sprintf("d%02d/f%03d.go", i%20, i), s.String())
	}
	ws, err := stet.Open([]string{w.root}, stet.Options{State: w.state})
	if err != nil {
		b.Fatal(err)
	}
	s, err := ws.Session("greps")
	if err != nil {
		b.Fatal(err)
	}
	before := dirSize(b, w.state)
	for range 1000 {
		if _, err := s.Grep(context.Background(), stet.GrepArgs{Pattern: "err != nil", Limit: 100000}); err != nil {
			b.Fatal(err)
		}
	}
	ws.Close()
	grown := dirSize(b, w.state) - before
	read := func(session string) time.Duration {
		cmd := exec.Command(bin, "--session", session, "read", "d01/f001.go")
		cmd.Dir = w.root
		cmd.Env = append(cmd.Environ(), "STET_STATE="+w.state)
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %s", err, out)
		}
		return time.Since(start)
	}
	read("greps")
	b.ResetTimer()
	var fresh, after time.Duration
	for i := 0; b.Loop(); i++ {
		fresh += read(fmt.Sprintf("fresh-%d", i))
		after += read("greps")
	}
	n := float64(b.N)
	b.ReportMetric(float64(fresh.Microseconds())/n/1000, "fresh-ms")
	b.ReportMetric(float64(after.Microseconds())/n/1000, "after-greps-ms")
	b.ReportMetric(float64(after)/float64(fresh), "ratio")
	b.ReportMetric(float64(grown), "state-growth-bytes")
}

func dirSize(tb testing.TB, dir string) int64 {
	tb.Helper()
	var n int64
	filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err == nil {
			if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
				n += info.Size()
			}
		}
		return nil
	})
	return n
}
