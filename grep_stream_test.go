package stet_test

import (
	"fmt"
	"io"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/memfs"
)

// hookFS is a provider whose opens of a file go through open first, and
// whose readers go through wrap (nil: as they are).
type hookFS struct {
	fsys.Provider
	open func(name string)
	wrap func(name string, r io.ReadCloser) io.ReadCloser
}

func (h hookFS) Open(name string) (io.ReadCloser, fsys.Info, error) {
	if h.open != nil {
		h.open(name)
	}
	f, info, err := fsys.Open(h.Provider, name)
	if err == nil && h.wrap != nil {
		f = h.wrap(name, f)
	}
	return f, info, err
}

func hookSession(t *testing.T, p fsys.Provider, opts stet.Options) *stet.Session {
	t.Helper()
	opts.State = t.TempDir()
	opts.Providers = []fsys.Provider{p}
	ws, err := stet.Open([]string{"/mem"}, opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ws.Close() })
	s, err := ws.Session("test")
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestGrepStreamsRowsBeforeSearchEnds: GrepEach hands the first rows over
// while the search is still going: the files of the last directory are
// held unopened until a row has arrived, and the rows still come, all of
// them, in path order.
func TestGrepStreamsRowsBeforeSearchEnds(t *testing.T) {
	m := memfs.New()
	var want []string
	for d := range 4 {
		for f := range 40 {
			name := fmt.Sprintf("d%d/f%02d.txt", d, f)
			m.MkdirAll(fmt.Sprintf("d%d", d))
			if err := m.WriteFile(name, []byte("a needle\nplain\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			want = append(want, name)
		}
	}
	first := make(chan struct{})
	var once sync.Once
	var heldOut atomic.Bool // a file of d3 was opened with no row handed over
	p := hookFS{Provider: m, open: func(name string) {
		if !strings.HasPrefix(name, "d3/") || heldOut.Load() {
			return
		}
		select {
		case <-first:
		case <-time.After(30 * time.Second): // a hang guard, not a measure: streaming hands a row over at once
			heldOut.Store(true)
		}
	}}
	s := hookSession(t, p, stet.Options{})
	var got []string
	_, err := s.GrepEach(ctx, stet.GrepArgs{Pattern: "needle", Limit: 1000}, func(part *stet.GrepResult) error {
		for _, m := range part.Matches {
			got = append(got, m.Path)
		}
		once.Do(func() { close(first) })
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if heldOut.Load() {
		t.Error("no row was handed over before the search reached its last directory: grep does not stream")
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Errorf("rows for %v\nwant %v", got, want)
	}
}

// TestGrepStreamsLargeFile: a file over the edit limit is searched as it
// streams, never held whole: no read of it asks for more than a small
// buffer, and what grep finds in it is all there.
func TestGrepStreamsLargeFile(t *testing.T) {
	m := memfs.New()
	var b strings.Builder
	lines := 0
	for b.Len() < 8<<20 {
		if lines%1000 == 0 {
			fmt.Fprintf(&b, "line %d holds a needle\n", lines)
		} else {
			fmt.Fprintf(&b, "line %d is plain text of no interest\n", lines)
		}
		lines++
	}
	size := b.Len()
	if err := m.WriteFile("big.log", []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	var biggest, total atomic.Int64
	p := hookFS{Provider: m, wrap: func(name string, r io.ReadCloser) io.ReadCloser {
		if name != "big.log" {
			return r
		}
		return &countReader{r: r, biggest: &biggest, total: &total}
	}}
	s := hookSession(t, p, stet.Options{MaxFileBytes: 1 << 20})
	g, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Path: "big.log", OutputMode: stet.GrepCount})
	if err != nil {
		t.Fatal(err)
	}
	if len(g.Counts) != 1 || g.Counts[0].Count != (lines+999)/1000 {
		t.Errorf("counts %+v, want %d matches", g.Counts, (lines+999)/1000)
	}
	if total.Load() != int64(size) {
		t.Errorf("grep read %d of the file's %d bytes through the provider's reader", total.Load(), size)
	}
	if n := biggest.Load(); n > 1<<20 {
		t.Errorf("one read asked for %d bytes of an %d-byte file: it is held whole, not streamed", n, size)
	}
}

// countReader records the largest buffer a read asks to fill, and the
// bytes read.
type countReader struct {
	r              io.ReadCloser
	biggest, total *atomic.Int64
}

func (c *countReader) Read(p []byte) (int, error) {
	for {
		old := c.biggest.Load()
		if int64(len(p)) <= old || c.biggest.CompareAndSwap(old, int64(len(p))) {
			break
		}
	}
	n, err := c.r.Read(p)
	c.total.Add(int64(n))
	return n, err
}

func (c *countReader) Close() error { return c.r.Close() }
