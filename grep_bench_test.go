package stet_test

import (
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// BenchmarkGrep10kMatches: grep cost grows with the matches shown, not
// with their square.
func BenchmarkGrep10kMatches(b *testing.B) {
	var sb strings.Builder
	for range 20000 {
		sb.WriteString("hit here\nmiss\n")
	}
	root := b.TempDir()
	if err := writeFile(root, "m.txt", sb.String()); err != nil {
		b.Fatal(err)
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("bench")
	for b.Loop() {
		res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "hit", Path: "m.txt", Limit: 10000})
		if err != nil || len(res.Matches) != 10000 {
			b.Fatalf("%d matches, %v", len(res.Matches), err)
		}
	}
}
