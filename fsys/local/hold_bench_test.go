//go:build unix

package local_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet/fsys"
	"github.com/stet-dev/stet/fsys/local"
)

// BenchmarkCallLookups times the look-ups one edit of a 4 KiB file three
// directories down makes besides its swap (which both paths share): the
// rules' traces, the hard-link check's stat, the git-directory look-ups in
// the file's directory, the lock, the read, the receipt's stat and the
// readback. "by-name" walks the path from the root for each, as every call
// did before a name was held; "held" resolves it once (Hold) and works
// relative to the directory held open.
//
//	go test -run '^$' -bench CallLookups -count 5 ./fsys/local
func BenchmarkCallLookups(b *testing.B) {
	root := b.TempDir()
	dir := filepath.Join(root, "d1", "d2", "d3")
	must(b, os.MkdirAll(dir, 0o755))
	data := bytes.Repeat([]byte("0123456789abcde\n"), 256)
	must(b, os.WriteFile(filepath.Join(dir, "f.go"), data, 0o644))
	l, err := local.Open(root, local.Options{})
	must(b, err)
	defer l.Close()
	const name = "d1/d2/d3/f.go"
	want := fsys.Expected{Version: fsys.VersionOf(data), Bytes: data}
	ctx := context.Background()
	b.Run("by-name", func(b *testing.B) {
		for b.Loop() {
			l.Resolve(name)
			for range 3 {
				l.Trace(name)
			}
			l.Stat(name)
			l.Lstat("d1/d2/d3/.git")
			l.Lstat("d1/d2/d3/HEAD")
			unlock, err := l.Lock(ctx, name)
			must(b, err)
			rc, _, err := l.Open(name)
			must(b, err)
			io.Copy(io.Discard, rc)
			rc.Close()
			l.Stat(name)
			if ok, err := l.Check(name, want); !ok || err != nil {
				b.Fatal(ok, err)
			}
			unlock()
		}
	})
	b.Run("held", func(b *testing.B) {
		for b.Loop() {
			h, err := l.Hold(name)
			must(b, err)
			for range 3 {
				h.Trace()
			}
			h.Stat()
			h.Beside(".git")
			h.Beside("HEAD")
			unlock, err := h.Lock(ctx)
			must(b, err)
			rc, _, err := h.Open()
			must(b, err)
			io.Copy(io.Discard, rc)
			rc.Close()
			h.Stat()
			if ok, err := h.Check(want); !ok || err != nil {
				b.Fatal(ok, err)
			}
			unlock()
			h.Close()
		}
	})
}
