package stet_test

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

// orderTree writes a tree of many small files in nested directories,
// some with matches of "needle" on chosen lines, and returns its files.
func orderTree(t *testing.T) map[string]string {
	t.Helper()
	files := map[string]string{}
	for d := range 12 {
		for f := range 40 {
			var b strings.Builder
			for l := range 1 + (d*7+f)%9 {
				if (d+f+l)%4 == 0 {
					fmt.Fprintf(&b, "needle %d/%d line %d\n", d, f, l)
				} else {
					fmt.Fprintf(&b, "hay %d\n", l)
				}
			}
			name := fmt.Sprintf("d%02d/f%02d.txt", d, f)
			if d%3 == 0 {
				name = fmt.Sprintf("d%02d/sub%d/f%02d.txt", d, f%3, f)
			}
			files[name] = b.String()
		}
	}
	return files
}

// serialGrep is the answer one reader going through the tree in path
// order (directories in place, by name) gives: path:line:text rows.
func serialGrep(t *testing.T, root, pattern string) []string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	var rows []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(root, p)
		for i, line := range strings.Split(strings.TrimSuffix(string(data), "\n"), "\n") {
			if re.MatchString(line) {
				rows = append(rows, fmt.Sprintf("%s:%d:%s", filepath.ToSlash(rel), i+1, line))
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func rowsOf(res *stet.GrepResult) []string {
	var rows []string
	for _, m := range res.Matches {
		rows = append(rows, fmt.Sprintf("%s:%d:%s", m.Path, m.Line, m.Text))
	}
	return rows
}

// TestGrepParallelKeepsWalkOrder: with several workers (as many as eight
// CPUs would give), the rows of a tree of many files come in the walk's
// order, the same rows one reader going through the files in turn finds;
// every page of them, too.
func TestGrepParallelKeepsWalkOrder(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	_, s, root := open(t, orderTree(t), stet.Options{})
	want := serialGrep(t, root, "needle")
	if len(want) < 500 {
		t.Fatalf("the tree holds %d matches; the test wants many", len(want))
	}
	for range 3 {
		res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Limit: stet.MaxGrepLimit})
		if err != nil {
			t.Fatal(err)
		}
		if got := rowsOf(res); strings.Join(got, "\n") != strings.Join(want, "\n") {
			t.Fatalf("rows out of order or missing: got %d rows, want %d\nfirst got:  %v\nfirst want: %v", len(got), len(want), got[:min(5, len(got))], want[:5])
		}
		if res.Truncated {
			t.Fatal("truncated")
		}
	}
	// Pages: offset and limit cut the same sequence.
	var paged []string
	for off := 0; ; off += 97 {
		res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Offset: off, Limit: 97})
		if err != nil {
			t.Fatal(err)
		}
		paged = append(paged, rowsOf(res)...)
		if !res.Truncated {
			break
		}
	}
	if strings.Join(paged, "\n") != strings.Join(want, "\n") {
		t.Fatalf("paged rows differ: %d rows, want %d", len(paged), len(want))
	}
	// Files mode: the files in walk order.
	res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", OutputMode: stet.GrepFilesWithMatches, Limit: stet.MaxGrepLimit})
	if err != nil {
		t.Fatal(err)
	}
	var files []string
	for _, r := range want {
		p := r[:strings.Index(r, ":")]
		if len(files) == 0 || files[len(files)-1] != p {
			files = append(files, p)
		}
	}
	if strings.Join(res.Paths, "\n") != strings.Join(files, "\n") {
		t.Fatalf("files %v…, want %v…", res.Paths[:min(3, len(res.Paths))], files[:3])
	}
}

// settledGoroutines waits for the goroutine count to fall back to at most
// n, and returns what it is.
func settledGoroutines(n int) int {
	got := runtime.NumGoroutine()
	for i := 0; i < 200 && got > n; i++ {
		time.Sleep(5 * time.Millisecond)
		got = runtime.NumGoroutine()
	}
	return got
}

// TestGrepStopsEarly: a full page, an error from the caller's callback, or
// a cancelled context ends the search with its workers and its walk: the
// page holds the first matches in walk order, and no goroutine of the
// search is left behind.
func TestGrepStopsEarly(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(8))
	_, s, root := open(t, orderTree(t), stet.Options{})
	want := serialGrep(t, root, "needle")
	before := runtime.NumGoroutine()

	res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Limit: 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := rowsOf(res); !res.Truncated || strings.Join(got, "\n") != strings.Join(want[:5], "\n") {
		t.Fatalf("a page of 5: %v (truncated %v), want %v", got, res.Truncated, want[:5])
	}

	stop := errors.New("enough")
	calls := 0
	_, err = s.GrepEach(ctx, stet.GrepArgs{Pattern: "needle", Limit: stet.MaxGrepLimit}, func(*stet.GrepResult) error {
		calls++
		return stop
	})
	if !errors.Is(err, stop) || calls != 1 {
		t.Fatalf("each's error: %v after %d calls, want it after 1", err, calls)
	}

	cctx, cancel := context.WithCancel(ctx)
	calls = 0
	_, err = s.GrepEach(cctx, stet.GrepArgs{Pattern: "needle", Limit: stet.MaxGrepLimit}, func(*stet.GrepResult) error {
		if calls++; calls == 3 {
			cancel()
		}
		return nil
	})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled search: %v after %d calls, want context.Canceled", err, calls)
	}
	if calls > 3+1 {
		// A file already searched may still be handed over before the
		// reader sees the cancellation; the rest of the tree is not.
		t.Fatalf("%d calls after the cancellation at the third", calls)
	}
	if got := settledGoroutines(before); got > before {
		t.Fatalf("%d goroutines after the searches, %d before: workers or the walk left running", got, before)
	}
}
