package stet_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

// BenchmarkMoveOver1MiB times a move over a 1 MiB file the session read,
// through the whole facade (the replaced bytes kept in the journal), and in
// the same loop the durable limit of writing 1 MiB (temp file, write,
// fsync, rename, directory fsync); it reports both means and their ratio.
// The two files, with contents never stored before, are made and read
// outside the timing.
func BenchmarkMoveOver1MiB(b *testing.B) {
	const size = 1 << 20
	root, state := b.TempDir(), b.TempDir()
	ws, err := stet.Open([]string{root}, stet.Options{State: state, MaxReadBytes: 4 << 20})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("bench")
	content := func(i uint64, tag byte) []byte {
		d := make([]byte, size)
		for k := range d {
			d[k] = tag
			if k%64 == 63 {
				d[k] = '\n'
			}
		}
		copy(d, fmt.Sprintf("%016x", i)) // never stored before
		return d
	}
	var move, limit time.Duration
	var i uint64
	for b.Loop() {
		i++
		b.StopTimer()
		for _, f := range []struct {
			name string
			tag  byte
		}{{"a.txt", 'a'}, {"b.txt", 'b'}} {
			if err := os.WriteFile(filepath.Join(root, f.name), content(i, f.tag), 0o644); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Read(ctx, stet.ReadArgs{Path: f.name, Limit: 1 << 20}); err != nil {
				b.Fatal(err)
			}
		}
		lim := content(i, 'l')
		b.StartTimer()
		t := time.Now()
		if _, err := s.Move(ctx, stet.MoveArgs{From: "a.txt", To: "b.txt", Overwrite: true}); err != nil {
			b.Fatal(err)
		}
		move += time.Since(t)
		t = time.Now()
		f, _ := os.CreateTemp(root, ".lim-")
		f.Write(lim)
		f.Sync()
		f.Close()
		os.Rename(f.Name(), filepath.Join(root, "limit"))
		d, _ := os.Open(root)
		d.Sync()
		d.Close()
		limit += time.Since(t)
	}
	n := float64(b.N)
	b.ReportMetric(float64(move)/n/1e6, "move-ms")
	b.ReportMetric(float64(limit)/n/1e6, "limit-ms")
	b.ReportMetric(float64(move)/float64(limit), "move/limit")
	b.ReportMetric(0, "ns/op")
}
