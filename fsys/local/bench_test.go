//go:build unix

// These benchmarks start from a quiet disk with sync(2), a POSIX call.

package local_test

import (
	"bytes"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
	"github.com/stet-dev/stet/receipt"
)

// BenchmarkCommit compares the full commit the facade does (version of the
// new bytes, compare-and-swap Replace, read back, compare) with the plain
// durable write every careful tool does (temp file, write, fsync, rename,
// directory fsync). Both alternate two contents of the same size.
func BenchmarkCommit(b *testing.B) {
	for _, size := range []struct {
		name string
		n    int
	}{{"4KiB", 4 << 10}, {"1MiB", 1 << 20}, {"10MiB", 10 << 20}} {
		one := bytes.Repeat([]byte("0123456789abcde\n"), size.n/16)
		two := bytes.Repeat([]byte("fedcba9876543210"), size.n/16)
		// The backend alone: Replace with the expected bytes, no hashing and
		// no read back.
		b.Run(size.name+"/replace", func(b *testing.B) {
			l := benchFile(b, one)
			b.SetBytes(int64(size.n))
			old, next := one, two
			v := fsys.VersionOf(old)
			for b.Loop() {
				if _, err := l.Replace("f", next, fsys.Expected{Version: v, Bytes: old}); err != nil {
					b.Fatal(err)
				}
				old, next = next, old
			}
		})
		// The full commit as the facade runs it: the version of the new bytes
		// hashed while the backend waits for the disk, the compare-and-swap,
		// the file read back and compared with the new bytes chunk by chunk
		// (fsys.Check), and receipt.VerifyShape over preimage and readback.
		b.Run(size.name+"/stet", func(b *testing.B) {
			l := benchFile(b, one)
			b.SetBytes(int64(size.n))
			old, next := one, two
			oldVersion := fsys.VersionOf(old)
			for b.Loop() {
				vc := make(chan fsys.Version, 1)
				go func(data []byte) { vc <- fsys.VersionOf(data) }(next)
				if _, err := l.Replace("f", next, fsys.Expected{Version: oldVersion, Bytes: old}); err != nil {
					b.Fatal(err)
				}
				v := <-vc
				same, err := fsys.Check(l, "f", fsys.Expected{Version: v, Bytes: next})
				if err != nil || !same {
					b.Fatal("read back other bytes", err)
				}
				back := next // the file holds exactly these bytes
				r := receipt.Receipt{
					Before:  &receipt.State{Version: string(oldVersion), Bytes: len(old), Lines: receipt.Lines(old)},
					After:   &receipt.State{Version: string(v), Bytes: len(next), Lines: receipt.Lines(next)},
					Matches: []receipt.Match{{Offset: 0, OldBytes: len(old), NewBytes: len(next), Line: 1, Old: old, New: next}},
				}
				if err := receipt.VerifyShape(old, back, r); err != nil {
					b.Fatal(err)
				}
				old, next, oldVersion = next, old, v
			}
		})
		b.Run(size.name+"/raw", func(b *testing.B) {
			dir := b.TempDir()
			name := filepath.Join(dir, "f")
			if err := os.WriteFile(name, one, 0o644); err != nil {
				b.Fatal(err)
			}
			// Start from a quiet disk, like benchFile.
			syscall.Sync()
			b.SetBytes(int64(size.n))
			next, after := two, one
			for b.Loop() {
				if err := rawWrite(dir, name, next); err != nil {
					b.Fatal(err)
				}
				next, after = after, next
			}
		})
	}
}

func rawWrite(dir, name string, data []byte) error {
	f, err := os.CreateTemp(dir, "raw")
	if err != nil {
		return err
	}
	if _, err := f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(f.Name(), name); err != nil {
		return err
	}
	d, err := os.Open(dir)
	if err != nil {
		return err
	}
	defer d.Close()
	return d.Sync()
}

// benchFile opens a root in a fresh directory holding f = data.
func benchFile(b *testing.B, data []byte) *local.FS {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	l, err := local.Open(dir, local.Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	// Start from a quiet disk: the previous run's deletes and writebacks
	// would otherwise be paid for by whichever benchmark runs next.
	syscall.Sync()
	return l
}
