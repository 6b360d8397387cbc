package stet_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// goSrc is the Go source tree of the toolchain running the benchmark.
func goSrc(b *testing.B) string {
	out, err := exec.Command("go", "env", "GOROOT").Output()
	if err != nil {
		b.Skipf("go env GOROOT: %v", err)
	}
	dir := filepath.Join(strings.TrimSpace(string(out)), "src")
	if _, err := os.Stat(dir); err != nil {
		b.Skipf("no Go source tree: %v", err)
	}
	return dir
}

// BenchmarkGrepGoSrc greps the Go source tree in one session (the bench
// script compares it with grep -rn on the same tree).
func BenchmarkGrepGoSrc(b *testing.B) {
	for _, bc := range []struct {
		name string
		args stet.GrepArgs
	}{
		{"literal", stet.GrepArgs{Pattern: "err != nil", Limit: stet.MaxGrepLimit}},
		{"nomatch", stet.GrepArgs{Pattern: "zzqq[x]nomatch"}},
		{"files", stet.GrepArgs{Pattern: "err != nil", OutputMode: stet.GrepFilesWithMatches, Limit: stet.MaxGrepLimit}},
		{"regexp", stet.GrepArgs{Pattern: `func \w+Handler`, Limit: stet.MaxGrepLimit}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ws, err := stet.Open([]string{goSrc(b)}, stet.Options{State: b.TempDir()})
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			s, _ := ws.Session("bench")
			for b.Loop() {
				if _, err := s.Grep(ctx, bc.args); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkGrepGoSrcNewSession is BenchmarkGrepGoSrc/literal in a new
// session each time, as each `stet grep` of the CLI is: every matching
// file's observation is new, so the journal records all 2,500 of them.
func BenchmarkGrepGoSrcNewSession(b *testing.B) {
	ws, err := stet.Open([]string{goSrc(b)}, stet.Options{State: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	n := 0
	for b.Loop() {
		n++
		s, err := ws.Session(fmt.Sprintf("bench%d", n))
		if err != nil {
			b.Fatal(err)
		}
		if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "err != nil", Limit: stet.MaxGrepLimit}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFindGoSrc finds every Go file of the Go source tree.
func BenchmarkFindGoSrc(b *testing.B) {
	ws, err := stet.Open([]string{goSrc(b)}, stet.Options{State: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("bench")
	for b.Loop() {
		if _, err := s.Find(ctx, stet.FindArgs{Pattern: "**/*.go", Limit: stet.MaxGrepLimit}); err != nil {
			b.Fatal(err)
		}
	}
}
