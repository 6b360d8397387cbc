package local

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet/fsys"
)

// The parts of BenchmarkCommit's "stet" run beside the disk: comparing the
// swapped-out bytes, the facade's read back, and the version of the new
// bytes. They show where a commit's time goes beyond the plain write.

func partsFile(b *testing.B) (*FS, []byte) {
	dir := b.TempDir()
	data := bytes.Repeat([]byte("0123456789abcdef"), 10<<20/16)
	if err := os.WriteFile(filepath.Join(dir, "f"), data, 0o644); err != nil {
		b.Fatal(err)
	}
	l, err := Open(dir, Options{})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { l.Close() })
	b.SetBytes(int64(len(data)))
	return l, data
}

func BenchmarkParts10MiB(b *testing.B) {
	b.Run("check", func(b *testing.B) {
		l, data := partsFile(b)
		d, err := l.openDir(".")
		if err != nil {
			b.Fatal(err)
		}
		defer d.close()
		for b.Loop() {
			if f, err := l.check(d, "f", fsys.Expected{Bytes: data}); err != nil || !f.match {
				b.Fatal("no match", err)
			}
		}
	})
	b.Run("readback", func(b *testing.B) {
		l, data := partsFile(b)
		for b.Loop() {
			if back, err := l.ReadFile("f"); err != nil || !bytes.Equal(back, data) {
				b.Fatal("read back other bytes", err)
			}
		}
	})
	b.Run("version", func(b *testing.B) {
		_, data := partsFile(b)
		for b.Loop() {
			fsys.VersionOf(data)
		}
	})
}
