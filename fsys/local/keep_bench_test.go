//go:build unix

package local_test

import (
	"bytes"
	"encoding/binary"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/journal"
)

// BenchmarkKeep replaces a 1 MiB file keeping the previous bytes in a
// journal's object store, by copy (the bytes saved as a blob while the new
// ones are written, as the commit sequence does today) and by adoption
// (ReplaceKeep: the displaced file renamed into the store), against the
// plain durable limit (temp file, write, fsync, rename, directory fsync)
// and Replace keeping nothing. Each iteration runs the four in turn, on
// contents never stored before (a blob already stored costs no write), and
// reports each one's mean and its ratio to the limit.
func BenchmarkKeep(b *testing.B) {
	kb := newKeepBench(b, "limit", "replace", "copy", "adopt")
	rootDir, l, j, content, blob, cur := kb.root, kb.l, kb.j, kb.content, kb.blob, kb.cur
	names := kb.names
	syscall.Sync()
	spent := map[string]time.Duration{}
	var i uint64
	for b.Loop() {
		i++
		b.StopTimer()
		next := map[string][]byte{}
		for k, n := range names {
			next[n] = content(i, byte(k))
		}
		b.StartTimer()

		start := time.Now()
		if err := rawWrite(rootDir, filepath.Join(rootDir, "limit"), next["limit"]); err != nil {
			b.Fatal(err)
		}
		spent["limit"] += time.Since(start)

		start = time.Now()
		old := cur["replace"]
		if _, err := l.Replace("replace", next["replace"], fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}); err != nil {
			b.Fatal(err)
		}
		spent["replace"] += time.Since(start)

		start = time.Now()
		old = cur["copy"]
		saved := make(chan error, 1)
		go func() { _, err := j.Put(old); saved <- err }()
		ready := func() error { return <-saved }
		if _, err := l.Replace("copy", next["copy"], fsys.Expected{Version: fsys.VersionOf(old), Bytes: old, Ready: ready}); err != nil {
			b.Fatal(err)
		}
		spent["copy"] += time.Since(start)

		start = time.Now()
		old = cur["adopt"]
		v := fsys.VersionOf(old)
		a, err := j.Adopt(string(v), int64(len(old)))
		if err != nil {
			b.Fatal(err)
		}
		k := fsys.Keep{Dir: a.Dir(), Name: a.Name(), Adopt: a.Take, Save: func() error { _, err := j.Put(old); return err }}
		_, kept, err := l.ReplaceKeep("adopt", next["adopt"], fsys.Expected{Version: v, Bytes: old}, k)
		a.Close()
		if err != nil || !kept.Adopted {
			b.Fatal(err, kept)
		}
		spent["adopt"] += time.Since(start)

		b.StopTimer()
		for _, n := range []string{"copy", "adopt"} {
			if err := os.Remove(blob(cur[n])); err != nil {
				b.Fatal(err)
			}
		}
		cur = next
		b.StartTimer()
	}
	kb.report(spent)
}

// keepBench is the setup both keep benchmarks share: a root holding one
// 1 MiB file per way measured (named after it), the provider on it and a
// journal beside it.
type keepBench struct {
	b     *testing.B
	names []string
	root  string
	l     *local.FS
	j     *journal.Journal
	cur   map[string][]byte
}

func newKeepBench(b *testing.B, names ...string) *keepBench {
	base := b.TempDir()
	kb := &keepBench{b: b, names: names, root: filepath.Join(base, "root"), cur: map[string][]byte{}}
	if err := os.Mkdir(kb.root, 0o755); err != nil {
		b.Fatal(err)
	}
	for k, n := range names {
		kb.cur[n] = kb.content(0, byte(k))
		if err := os.WriteFile(filepath.Join(kb.root, n), kb.cur[n], 0o644); err != nil {
			b.Fatal(err)
		}
	}
	var err error
	if kb.l, err = local.Open(kb.root, local.Options{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { kb.l.Close() })
	if kb.j, err = journal.Open(filepath.Join(base, "state"), journal.Options{}); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { kb.j.Close() })
	return kb
}

// content is 1 MiB of iteration i's bytes for the way numbered salt:
// never stored before.
func (kb *keepBench) content(i uint64, salt byte) []byte {
	d := bytes.Repeat([]byte{'a' + salt, '\n'}, 1<<19)
	binary.BigEndian.PutUint64(d, i)
	return d
}

// blob is where the journal stores data.
func (kb *keepBench) blob(data []byte) string {
	h := string(fsys.VersionOf(data))[len("sha256:"):]
	return filepath.Join(kb.j.Dir(), "objects", h[:2], h[2:])
}

// report gives each way's mean time and its ratio to the limit's.
func (kb *keepBench) report(spent map[string]time.Duration) {
	n := float64(kb.b.N)
	limit := float64(spent["limit"]) / n
	for _, name := range kb.names {
		mean := float64(spent[name]) / n
		kb.b.ReportMetric(mean/1e6, name+"-ms")
		if name != "limit" {
			kb.b.ReportMetric(mean/limit, name+"/limit")
		}
	}
	kb.b.ReportMetric(0, "ns/op")
}
