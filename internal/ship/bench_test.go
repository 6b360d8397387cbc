package ship

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stet-dev/stet/internal/history"
	"github.com/stet-dev/stet/journal"
	"github.com/stet-dev/stet/receipt"
)

// BenchmarkShip ships a journal of 10,000 receipts, one in ten saving a
// 4 KiB preimage, into a local PostgreSQL: lines and blob bytes a second.
func BenchmarkShip(b *testing.B) { benchShip(b, 10000, 10, 4096) }

// BenchmarkShipBlobs ships 200 receipts each saving a 256 KiB preimage.
func BenchmarkShipBlobs(b *testing.B) { benchShip(b, 200, 1, 256<<10) }

func benchShip(b *testing.B, n, every, size int) {
	dir := b.TempDir()
	j, err := journal.Open(dir, journal.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	var recs []journal.Record
	for i := range n {
		p := fmt.Sprintf("src/f%d.go", i%100)
		d := history.Receipt{Receipt: receipt.Receipt{ID: fmt.Sprintf("r_%d", i), Session: "s", Tool: "edit", Path: p, Verified: true,
			Before:  &receipt.State{Version: "sha256:" + strings.Repeat("a", 64), Bytes: 4096, Lines: 80},
			After:   &receipt.State{Version: "sha256:" + strings.Repeat("b", 64), Bytes: 4100, Lines: 80},
			Matches: []receipt.Match{{Offset: 100, OldBytes: 10, NewBytes: 14, Line: 3}}}, Old: []string{"old bytes!"}}
		if i%every == 0 {
			if d.Pre, err = j.Put([]byte(fmt.Sprintf("%d\n%s", i, strings.Repeat("x", size-8)))); err != nil {
				b.Fatal(err)
			}
		}
		data, _ := history.Encode(d)
		recs = append(recs, journal.Record{Type: history.TypeReceipt, Session: "s", Path: "0:" + p, Data: data})
	}
	if _, err := j.AppendLazy(recs...); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	var lines, blobBytes int64
	var spent time.Duration
	for range b.N {
		b.StopTimer()
		f := newFleet(b)
		db := f.open(b, "host_a")
		s, err := New(j, Options{Host: "bench"})
		if err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		start := time.Now()
		rep, err := s.Once(context.Background(), db)
		spent += time.Since(start)
		if err != nil {
			b.Fatal(err)
		}
		lines += int64(rep.Lines)
		blobBytes += rep.BlobBytes
	}
	b.ReportMetric(float64(lines)/spent.Seconds(), "lines/s")
	b.ReportMetric(float64(blobBytes)/spent.Seconds()/(1<<20), "blobMiB/s")
}
