package journal_test

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet/journal"
)

func BenchmarkAppend(b *testing.B) {
	for _, noSync := range []bool{false, true} {
		b.Run(fmt.Sprintf("nosync=%v", noSync), func(b *testing.B) {
			j, err := journal.Open(b.TempDir(), journal.Options{NoSync: noSync})
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			rec := journal.Record{Type: "observe", Session: "s", Path: "src/a.go", Data: data(map[string]any{"version": "sha256:0123456789abcdef", "ranges": [][2]int{{0, 100}}})}
			for b.Loop() {
				if _, err := j.Append(rec); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkPut(b *testing.B) {
	for _, size := range []int{4 << 10, 1 << 20} {
		b.Run(fmt.Sprintf("%dKiB", size>>10), func(b *testing.B) {
			j, err := journal.Open(b.TempDir(), journal.Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer j.Close()
			buf := make([]byte, size)
			b.SetBytes(int64(size))
			n := 0
			for b.Loop() {
				n++
				copy(buf, fmt.Sprint(n)) // a new blob each time
				if _, err := j.Put(buf); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAdopt adopts a new 4 KiB file per call into the object store of
// a fresh state directory (Adopt, the file staged, Take), as a replace or a
// delete hands over the bytes it displaced. Run it with a fixed -benchtime
// (e.g. 100x): on a young store most adoptions land in a blob directory no
// blob used yet.
func BenchmarkAdopt(b *testing.B) {
	j, err := journal.Open(b.TempDir(), journal.Options{})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	buf := make([]byte, 4<<10)
	n := 0
	for b.Loop() {
		n++
		copy(buf, fmt.Sprint(n))
		sum := sha256.Sum256(buf)
		a, err := j.Adopt("sha256:"+hex.EncodeToString(sum[:]), int64(len(buf)))
		if err != nil {
			b.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(a.Dir().Name(), a.Name()), buf, 0o600); err != nil {
			b.Fatal(err)
		}
		if err := a.Take(nil); err != nil {
			b.Fatal(err)
		}
		a.Close()
	}
}

// BenchmarkSession compares rebuilding one session of 50 records through its
// index with scanning a journal of 100,000 records for it.
func BenchmarkSession(b *testing.B) {
	const total, mine = 100_000, 50
	dir := b.TempDir()
	j, err := journal.Open(dir, journal.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	batch := make([]journal.Record, 0, 1000)
	for i := range total {
		s := fmt.Sprint("other-", i%500)
		if i%(total/mine) == 0 {
			s = "mine"
		}
		batch = append(batch, journal.Record{Type: "observe", Session: s, Path: fmt.Sprintf("src/file%d.go", i%97), Data: data(map[string]any{"version": "sha256:0123456789abcdef0123456789abcdef", "ranges": [][2]int{{0, i % 1000}}})})
		if len(batch) == cap(batch) {
			if _, err := j.Append(batch...); err != nil {
				b.Fatal(err)
			}
			batch = batch[:0]
		}
	}
	b.Run("index", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := j.Session("mine", func(journal.Record) error { n++; return nil }); err != nil || n != mine {
				b.Fatal(n, err)
			}
		}
	})
	// What a CLI call pays: open the state directory, rebuild one session.
	b.Run("open+index", func(b *testing.B) {
		for b.Loop() {
			j2, err := journal.Open(dir, journal.Options{})
			if err != nil {
				b.Fatal(err)
			}
			n := 0
			if err := j2.Session("mine", func(journal.Record) error { n++; return nil }); err != nil || n != mine {
				b.Fatal(n, err)
			}
			j2.Close()
		}
	})
	b.Run("scan", func(b *testing.B) {
		for b.Loop() {
			n := 0
			if err := j.Scan(func(r journal.Record) error {
				if r.Session == "mine" {
					n++
				}
				return nil
			}); err != nil || n != mine {
				b.Fatal(n, err)
			}
		}
	})
}

// BenchmarkAppendToSession appends one record at a time to a session that
// already holds n records (10, 1,000, 10,000), with records of other
// sessions between them: the time per append must not grow with n (each
// append reads only the log's tail and the pending state of its handle,
// never the session's index or the log from its start). Run it with a
// fixed -benchtime (e.g. 200x) so that the session grows little during it.
//
// With other=true a second handle (as another process would) appends a
// record of another session before each of them, so each append finds the
// log moved on past its handle's own lines; the time is then per pair.
func BenchmarkAppendToSession(b *testing.B) {
	for _, c := range []struct{ durable, other bool }{{false, false}, {true, false}, {false, true}, {true, true}} {
		durable := c.durable
		for _, n := range []int{10, 1_000, 10_000} {
			b.Run(fmt.Sprintf("durable=%v/other=%v/n=%d", durable, c.other, n), func(b *testing.B) {
				dir := b.TempDir()
				fill, err := journal.Open(dir, journal.Options{NoSync: true})
				if err != nil {
					b.Fatal(err)
				}
				batch := make([]journal.Record, 0, 500)
				for i := range 2 * n {
					s := "mine"
					if i%2 == 1 {
						s = fmt.Sprint("other-", i%7)
					}
					batch = append(batch, journal.Record{Type: "observe", Session: s, Path: fmt.Sprintf("src/file%d.go", i%97), Data: data(map[string]any{"version": "sha256:0123456789abcdef0123456789abcdef", "ranges": [][2]int{{0, i % 1000}}})})
					if len(batch) == cap(batch) || i == 2*n-1 {
						if _, err := fill.Append(batch...); err != nil {
							b.Fatal(err)
						}
						batch = batch[:0]
					}
				}
				if err := fill.Close(); err != nil {
					b.Fatal(err)
				}
				j, err := journal.Open(dir, journal.Options{})
				if err != nil {
					b.Fatal(err)
				}
				defer j.Close()
				write := j.AppendLazy
				if durable {
					write = j.Append
				}
				rec := journal.Record{Type: "receipt", Session: "mine", Path: "src/a.go", Data: data(map[string]any{"version": "sha256:0123456789abcdef", "verified": true})}
				otherWrite := func() error { return nil }
				if c.other {
					k, err := journal.Open(dir, journal.Options{})
					if err != nil {
						b.Fatal(err)
					}
					defer k.Close()
					orec := journal.Record{Type: "observe", Session: "other", Path: "src/b.go"}
					otherWrite = func() error { _, err := k.AppendLazy(orec); return err }
				}
				if _, err := write(rec); err != nil { // the first append of a handle may settle the index
					b.Fatal(err)
				}
				for b.Loop() {
					if err := otherWrite(); err != nil {
						b.Fatal(err)
					}
					if _, err := write(rec); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// BenchmarkAppendLazyBatch appends observations in batches of 256, as grep
// does while it searches: the cost is the encoding of the records.
func BenchmarkAppendLazyBatch(b *testing.B) {
	j, err := journal.Open(b.TempDir(), journal.Options{NoSync: true})
	if err != nil {
		b.Fatal(err)
	}
	defer j.Close()
	recs := make([]journal.Record, 256)
	for i := range recs {
		recs[i] = journal.Record{Type: "observe", Session: "s", Path: fmt.Sprintf("src/pkg%d/file%d.go", i%16, i),
			Data: data(map[string]any{"version": "sha256:0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef", "lines": [][2]int{{10, 12}, {40, 41}}})}
	}
	for b.Loop() {
		if _, err := j.AppendLazy(recs...); err != nil {
			b.Fatal(err)
		}
	}
}
