//go:build unix

package local_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stet-dev/stet/fsys"
)

// BenchmarkKeepMove moves a file over a 1 MiB file keeping the replaced
// bytes in a journal's object store, by copy (the bytes saved as a blob
// before the swap, then Rename: what a move over a file did before
// RenameKeep) and by adoption (RenameKeep: the replaced file renamed into
// the store after the exchange), against the plain durable limit of
// writing 1 MiB (temp file, write, fsync, rename, directory fsync). Each
// iteration runs the three in turn, on contents never stored before, and
// reports each one's mean and its ratio to the limit. The file moved is
// made, outside the timing, before each move.
func BenchmarkKeepMove(b *testing.B) {
	kb := newKeepBench(b, "limit", "copy", "adopt")
	rootDir, l, j, content, blob, cur := kb.root, kb.l, kb.j, kb.content, kb.blob, kb.cur
	names := kb.names
	spent := map[string]time.Duration{}
	var i uint64
	for b.Loop() {
		i++
		b.StopTimer()
		next := map[string][]byte{}
		for k, n := range names {
			next[n] = content(i, byte(k))
			if n != "limit" {
				if err := rawWrite(rootDir, filepath.Join(rootDir, n+".new"), next[n]); err != nil {
					b.Fatal(err)
				}
			}
		}
		syscall.Sync()
		b.StartTimer()

		start := time.Now()
		if err := rawWrite(rootDir, filepath.Join(rootDir, "limit"), next["limit"]); err != nil {
			b.Fatal(err)
		}
		spent["limit"] += time.Since(start)

		start = time.Now()
		old := cur["copy"]
		if _, err := j.Put(old); err != nil {
			b.Fatal(err)
		}
		over := fsys.Expected{Version: fsys.VersionOf(old), Bytes: old}
		if _, err := l.Rename("copy.new", "copy", fsys.Expected{Version: fsys.VersionOf(next["copy"]), Bytes: next["copy"]}, &over); err != nil {
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
		_, kept, err := l.RenameKeep("adopt.new", "adopt", fsys.Expected{Version: fsys.VersionOf(next["adopt"]), Bytes: next["adopt"]}, fsys.Expected{Version: v, Bytes: old}, k)
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
