package journal_test

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// Durable and lazy appends from many goroutines on two handles of one
// state directory (as a server and a CLI call beside it) all land: seqs run
// 1..n without gaps, the chain holds, every session's index has each of its
// records, and Verify finds nothing wrong.
func TestConcurrentDurableAppends(t *testing.T) {
	dir := t.TempDir()
	handles := []*journal.Journal{open(t, dir), open(t, dir)}
	const goroutines, each = 6, 20
	var wg sync.WaitGroup
	errs := make(chan error, len(handles)*goroutines)
	for h, j := range handles {
		for g := range goroutines {
			wg.Go(func() {
				for i := range each {
					rec := journal.Record{Type: "receipt", Session: fmt.Sprintf("s%d", g%3), Data: data(map[string]any{"h": h, "g": g, "i": i})}
					var err error
					if i%4 == 3 {
						_, err = j.AppendLazy(rec)
					} else {
						_, err = j.Append(rec)
					}
					if err != nil {
						errs <- err
						return
					}
				}
			})
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}

	const total = 2 * goroutines * each
	for _, j := range append(handles, open(t, dir)) {
		recs := scanAll(t, j)
		if len(recs) != total {
			t.Fatalf("Scan found %d records, want %d", len(recs), total)
		}
		for i, r := range recs {
			if r.Seq != int64(i+1) {
				t.Fatalf("record %d has seq %d", i, r.Seq)
			}
		}
		for s := range 3 {
			id := fmt.Sprintf("s%d", s)
			if got, want := len(sessionAll(t, j, id)), total/3; got != want {
				t.Errorf("Session(%s) has %d records, want %d", id, got, want)
			}
		}
		rep, err := j.Verify()
		if err != nil {
			t.Fatal(err)
		}
		if !rep.OK() || rep.Lines != total {
			t.Errorf("Verify: %d lines, problems %v", rep.Lines, rep.Problems)
		}
	}
}

// A durable Append does not return before the log holding its record was
// synced: while the sync of journal.jsonl is held up, Append waits.
func TestDurableAppendWaitsForSync(t *testing.T) {
	dir := t.TempDir()
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	var mu sync.Mutex
	hold := false
	j := openWith(t, dir, journal.Options{Now: clock(), OnSync: func(name string) {
		mu.Lock()
		h := hold
		mu.Unlock()
		if h && name == "journal.jsonl" {
			entered <- struct{}{}
			<-release
		}
	}})
	mustAppend(t, j, journal.Record{Type: "receipt", Session: "s"})
	mu.Lock()
	hold = true
	mu.Unlock()

	done := make(chan error, 1)
	go func() {
		_, err := j.Append(journal.Record{Type: "receipt", Session: "s"})
		done <- err
	}()
	select {
	case <-entered:
	case err := <-done:
		t.Fatalf("Append returned (err %v) without syncing journal.jsonl", err)
	}
	select {
	case err := <-done:
		t.Fatalf("Append returned (err %v) while the sync of journal.jsonl had not run", err)
	default:
	}
	mu.Lock()
	hold = false
	mu.Unlock()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if n := len(sessionAll(t, j, "s")); n != 2 {
		t.Errorf("Session has %d records, want 2", n)
	}
}

// watermarkOf reads how far journal.lock says the session indexes are
// complete, and the size of journal.jsonl.
func watermarkOf(t *testing.T, dir string) (wm, logSize int64) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, "journal.lock"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := fmt.Sscanf(string(b), "index %d\n", &wm); err != nil {
		t.Fatalf("journal.lock holds %q: %v", b, err)
	}
	info, err := os.Stat(filepath.Join(dir, "journal.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return wm, info.Size()
}

// The watermark never vouches for index lines before they were synced:
// a durable Append leaves it behind its record (the index line waits for
// the log's sync, and its own fsync is the flush's); while the flush's
// fsync of the index is held up, the watermark stays behind and a lazy
// append meanwhile does not move it; it reaches the log's end once that
// fsync is done. This handle's Session sees every record throughout.
func TestWatermarkWaitsForIndexSync(t *testing.T) {
	dir := t.TempDir()
	entered := make(chan struct{}, 1)
	release := make(chan struct{})
	var mu sync.Mutex
	hold := false
	j := openWith(t, dir, journal.Options{Now: clock(), OnSync: func(name string) {
		mu.Lock()
		h := hold
		mu.Unlock()
		if h && strings.HasPrefix(name, "sessions/") && strings.HasSuffix(name, ".jsonl") {
			entered <- struct{}{}
			<-release
		}
	}})
	mustAppend(t, j, journal.Record{Type: "receipt", Session: "s"})
	mustFlush(t, j)
	mustAppend(t, j, journal.Record{Type: "receipt", Session: "s"})
	if wm, size := watermarkOf(t, dir); wm >= size {
		t.Errorf("watermark at %d covers the whole log (%d bytes) right after a durable Append", wm, size)
	}
	if n := len(sessionAll(t, j, "s")); n != 2 {
		t.Errorf("Session(s) has %d records before the flush, want 2", n)
	}
	mu.Lock()
	hold = true
	mu.Unlock()
	done := make(chan error, 1)
	go func() { done <- j.Flush() }()
	<-entered
	if _, err := j.AppendLazy(journal.Record{Type: "observe", Session: "s2"}); err != nil {
		t.Fatal(err)
	}
	if wm, size := watermarkOf(t, dir); wm >= size {
		t.Errorf("watermark at %d covers the whole log (%d bytes) while a record's index line is not synced", wm, size)
	}
	if n := len(sessionAll(t, j, "s")); n != 2 {
		t.Errorf("Session(s) has %d records while the index sync runs, want 2", n)
	}
	mu.Lock()
	hold = false
	mu.Unlock()
	close(release)
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	mustFlush(t, j)
	if wm, size := watermarkOf(t, dir); wm != size {
		t.Errorf("watermark at %d after the flush, want the log's end %d", wm, size)
	}
	if n := len(sessionAll(t, j, "s2")); n != 1 {
		t.Errorf("Session(s2) has %d records, want 1", n)
	}
}

// A handle that appended many records lazily (a grep's observations) and
// nothing durably writes their index lines before it closes, after one
// sync of the log, so the next process finds the index complete and need
// not copy them from the log before its first answer. A handle with a few
// lazy lines leaves them (no fsync at its close).
func TestCloseWritesManyLazyLines(t *testing.T) {
	for _, c := range []struct {
		name     string
		records  int
		complete bool
	}{
		{"many", 400, true},
		{"few", 3, false},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			var mu sync.Mutex
			var synced []string
			j := openWith(t, dir, journal.Options{Now: clock(), OnSync: func(name string) {
				mu.Lock()
				synced = append(synced, name)
				mu.Unlock()
			}})
			mustAppend(t, j, journal.Record{Type: "receipt", Session: "s"})
			mustFlush(t, j)
			mu.Lock()
			synced = nil
			mu.Unlock()
			pad := strings.Repeat("x", 200)
			// In batches, as grep appends its observations.
			var batch []journal.Record
			for i := range c.records {
				batch = append(batch, journal.Record{Type: "observe", Session: "s", Data: json.RawMessage(fmt.Sprintf(`{"n":%d,"pad":%q}`, i, pad))})
				if len(batch) == 100 || i == c.records-1 {
					if _, err := j.AppendLazy(batch...); err != nil {
						t.Fatal(err)
					}
					batch = nil
				}
			}
			if err := j.Close(); err != nil {
				t.Fatal(err)
			}
			wm, size := watermarkOf(t, dir)
			if c.complete && wm != size {
				t.Errorf("after Close the watermark is at %d of a %d-byte log: the next process must copy %d bytes of index lines first", wm, size, size-wm)
			}
			mu.Lock()
			n := len(synced)
			mu.Unlock()
			if !c.complete && n != 0 {
				t.Errorf("Close of a handle with %d lazy records fsynced %v, want nothing", c.records, synced)
			}
			k := open(t, dir)
			if got := len(sessionAll(t, k, "s")); got != c.records+1 {
				t.Errorf("the next handle reads %d records of session s, want %d", got, c.records+1)
			}
		})
	}
}
