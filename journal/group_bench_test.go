package journal_test

import (
	"fmt"
	"sync"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// BenchmarkDurableAppendParallel has 1, 4 and 16 goroutines append durable
// records to one journal; ns/op is per record, so the ratio of the 1 line
// to the 4 or 16 line is what concurrency buys.
func BenchmarkDurableAppendParallel(b *testing.B) {
	for _, n := range []int{1, 4, 16} {
		b.Run(fmt.Sprintf("goroutines=%d", n), func(b *testing.B) {
			j, err := journal.Open(b.TempDir(), journal.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			rec := journal.Record{Type: "intent", Session: "s", Data: data(map[string]any{"id": "0123456789abcdef", "files": []string{"src/a.go"}})}
			work := make(chan struct{})
			var wg sync.WaitGroup
			errs := make(chan error, n)
			for range n {
				wg.Go(func() {
					for range work {
						if _, err := j.Append(rec); err != nil {
							errs <- err
							return
						}
					}
				})
			}
			for b.Loop() {
				work <- struct{}{}
			}
			close(work)
			wg.Wait()
			close(errs)
			for err := range errs {
				b.Fatal(err)
			}
		})
	}
}
