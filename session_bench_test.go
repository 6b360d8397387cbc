package stet_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet"
)

// BenchmarkOpenSession times what a CLI call pays to catch a session up:
// open the workspace, rebuild a session of n observation records (one grep
// that matched n files, then the rebuild that snapshots it), read one small
// file. A fresh session is the baseline in the same run.
func BenchmarkOpenSession(b *testing.B) {
	for _, n := range []int{10, 1000, 10000} {
		root, state := b.TempDir(), b.TempDir()
		for i := range n {
			dir := filepath.Join(root, fmt.Sprint("d", i/100))
			os.MkdirAll(dir, 0o755)
			os.WriteFile(filepath.Join(dir, fmt.Sprint("f", i, ".go")), benchText(2<<10), 0o644)
		}
		opts := stet.Options{State: state}
		ws, err := stet.Open([]string{root}, opts)
		if err != nil {
			b.Fatal(err)
		}
		s, _ := ws.Session("bench")
		if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "UNIQUETOKEN1", Limit: n + 1}); err != nil {
			b.Fatal(err)
		}
		ws.Close()
		open := func(b *testing.B, id string) {
			ws, err := stet.Open([]string{root}, opts)
			if err != nil {
				b.Fatal(err)
			}
			s, err := ws.Session(id)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := s.Read(ctx, stet.ReadArgs{Path: "d0/f0.go", Limit: 1}); err != nil {
				b.Fatal(err)
			}
			ws.Close()
		}
		open(b, "bench") // the first rebuild writes the snapshot
		b.Run(fmt.Sprint(n, "/session"), func(b *testing.B) {
			for b.Loop() {
				open(b, "bench")
			}
		})
		b.Run(fmt.Sprint(n, "/fresh"), func(b *testing.B) {
			for i := 0; b.Loop(); i++ {
				open(b, fmt.Sprint("fresh-", n, "-", i))
			}
		})
	}
}
