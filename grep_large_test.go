package stet_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// largeTree writes files with lines that match "needle" here and there,
// CRLF and long lines among them, and one binary and one invalid UTF-8 file.
func largeTree(t *testing.T, root string) {
	t.Helper()
	rng := rand.New(rand.NewPCG(7, 7))
	for f := range 4 {
		var b strings.Builder
		for i := range 400 + f*150 {
			switch {
			case rng.IntN(9) == 0:
				fmt.Fprintf(&b, "line %d has a needle in it\n", i)
			case rng.IntN(40) == 0:
				b.WriteString(strings.Repeat("long ", 600) + "needle at the end\n")
			case rng.IntN(12) == 0:
				b.WriteString("\n")
			case f == 2:
				fmt.Fprintf(&b, "crlf line %d\r\n", i)
			default:
				fmt.Fprintf(&b, "plain line %d\n", i)
			}
		}
		if f == 3 {
			b.WriteString("needle on the last line, no newline")
		}
		write(t, root, fmt.Sprintf("f%d.txt", f), b.String())
	}
	write(t, root, "bin.dat", "needle\x00"+strings.Repeat("needle\n", 1000))
	write(t, root, "bad.txt", strings.Repeat("needle\n", 1000)+"\xff\xfe\n")
}

func write(t *testing.T, root, name, s string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(root, name), []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A file over the edit limit is searched as it streams, and grep answers
// for it exactly what it answers for the same file under the limit: every
// mode, context, paging. (The limit is made small here so that every file
// of the tree is over it in one workspace and under it in the other.)
func TestGrepLargeFilesAsSmall(t *testing.T) {
	root := t.TempDir()
	largeTree(t, root)
	open := func(max int64) *stet.Session {
		ws, err := stet.Open([]string{root}, stet.Options{State: t.TempDir(), MaxFileBytes: max})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { ws.Close() })
		s, _ := ws.Session("t")
		return s
	}
	small, large := open(0), open(4096) // 16 MiB, and 4 KiB: every file is over it
	for _, a := range []stet.GrepArgs{
		{Pattern: "needle"},
		{Pattern: "needle", Context: 2},
		{Pattern: "needle", Before: 3, After: 1},
		{Pattern: "needle", Offset: 7, Limit: 5, Context: 1},
		{Pattern: "needle", Offset: 40, Limit: 3, After: 2},
		{Pattern: "needle", OutputMode: "count"},
		{Pattern: "needle", OutputMode: "files_with_matches"},
		{Pattern: `line \d+3 `},
		{Pattern: "NEEDLE", IgnoreCase: true, Limit: 10},
		{Pattern: "NEEDLE IN", IgnoreCase: true, Context: 1, Offset: 3},
		{Pattern: "Has A Needle", IgnoreCase: true, Limit: 4},
		{Pattern: "plain LINE 2[0-9]$", IgnoreCase: true},
		{Pattern: "crlf line 1", FixedStrings: true, Context: 1},
		{Pattern: "nothing like this"},
		{Pattern: "needle", Path: "f3.txt", Context: 1},
	} {
		want, werr := small.Grep(ctx, a)
		got, gerr := large.Grep(ctx, a)
		if (werr == nil) != (gerr == nil) {
			t.Errorf("%+v: error %v over the limit, %v under it", a, gerr, werr)
			continue
		}
		if werr != nil {
			t.Errorf("%+v: %v", a, werr)
			continue
		}
		if n := len(want.Matches) + len(want.Paths) + len(want.Counts); (n == 0) != (a.Pattern == "nothing like this") {
			t.Errorf("%+v: %d results under the limit: the case checks nothing", a, n)
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%+v: over the limit and under it differ: %s", a, firstDiff(got, want))
		}
	}
	if g, err := large.Grep(ctx, stet.GrepArgs{Pattern: "needle", Path: "bin.dat"}); err != nil || len(g.Matches) != 0 {
		t.Errorf("a large binary file is searched: %v %+v", err, g)
	}
}

// firstDiff says where two grep results part.
func firstDiff(got, want *stet.GrepResult) string {
	if got.Truncated != want.Truncated {
		return fmt.Sprintf("truncated %v, want %v", got.Truncated, want.Truncated)
	}
	for i := range max(len(got.Matches), len(want.Matches)) {
		var g, w stet.GrepMatch
		if i < len(got.Matches) {
			g = got.Matches[i]
		}
		if i < len(want.Matches) {
			w = want.Matches[i]
		}
		if g != w {
			return fmt.Sprintf("row %d: %s:%d (context %v) %.60q, want %s:%d (context %v) %.60q", i, g.Path, g.Line, g.Context, g.Text, w.Path, w.Line, w.Context, w.Text)
		}
	}
	return fmt.Sprintf("paths %v / %v, counts %v / %v", got.Paths, want.Paths, got.Counts, want.Counts)
}

// A large file whose matching lines are more than one search keeps: the
// first pages come as usual, and a page past what can be kept is refused
// with a way forward, never answered empty with "more exist".
func TestGrepLargeFilePagedPastWhatIsKept(t *testing.T) {
	root := t.TempDir()
	line := "needle " + strings.Repeat("x", 93) + "\n" // 101 bytes
	write(t, root, "big.log", strings.Repeat(line, 100_000))
	ws, err := stet.Open([]string{root}, stet.Options{State: t.TempDir(), MaxFileBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("t")
	g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Limit: 10})
	if err != nil || len(g.Matches) != 10 || !g.Truncated {
		t.Fatalf("first page: %v %d rows, truncated %v", err, len(g.Matches), g != nil && g.Truncated)
	}
	_, err = s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Offset: 99_000, Limit: 10})
	if kindOf(err) != stet.KindTooLarge {
		t.Fatalf("a page past what is kept: %v, want too_large", err)
	}
}
