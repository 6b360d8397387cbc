package stet_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet"
)

// benchText is n bytes of 100-byte lines of Go-like text with one unique
// token in the middle.
func benchText(n int) []byte {
	line := "\tfmt.Println(\"value\", x, \"other\") // a comment that pads the line to one hundred bytes, and then some more text"
	line = line[:99] + "\n"
	var b bytes.Buffer
	for b.Len() < n/2 {
		b.WriteString(line)
	}
	b.WriteString("\tUNIQUETOKEN1\n")
	for b.Len() < n {
		b.WriteString(line)
	}
	return b.Bytes()[:n-1]
}

// BenchmarkEdit times one edit of a unique token through the whole facade
// (lock, read, freshness, match, binding, commit, readback, verify, journal)
// against the durable limit measured in the same run: read, replace, temp
// file, write, fsync, rename, directory fsync.
func BenchmarkEdit(b *testing.B) {
	for _, size := range []int{1 << 20, 10 << 20} {
		name := fmt.Sprintf("%dMiB", size>>20)
		text := benchText(size)
		b.Run(name+"/stet", func(b *testing.B) {
			root, state := b.TempDir(), b.TempDir()
			os.WriteFile(filepath.Join(root, "f.go"), text, 0o644)
			ws, err := stet.Open([]string{root}, stet.Options{State: state})
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			s, _ := ws.Session("bench")
			line := strings.Count(string(text[:bytes.Index(text, []byte("UNIQUETOKEN"))]), "\n") + 1
			if _, err := s.Read(ctx, stet.ReadArgs{Path: "f.go", Offset: line, Limit: 1}); err != nil {
				b.Fatal(err)
			}
			toks := []string{"UNIQUETOKEN1", "UNIQUETOKEN2"}
			b.SetBytes(int64(size))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				_, err := s.Edit(ctx, stet.EditArgs{Path: "f.go", OldString: &toks[i%2], NewString: &toks[(i+1)%2]})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(name+"/limit", func(b *testing.B) {
			root := b.TempDir()
			p := filepath.Join(root, "f.go")
			os.WriteFile(p, text, 0o644)
			toks := [][]byte{[]byte("UNIQUETOKEN1"), []byte("UNIQUETOKEN2")}
			b.SetBytes(int64(size))
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				cur, _ := os.ReadFile(p)
				if bytes.Count(cur, toks[i%2]) != 1 {
					b.Fatal("token not unique")
				}
				next := bytes.Replace(cur, toks[i%2], toks[(i+1)%2], 1)
				f, _ := os.CreateTemp(root, ".tmp-")
				f.Write(next)
				f.Sync()
				f.Close()
				os.Rename(f.Name(), p)
				d, _ := os.Open(root)
				d.Sync()
				d.Close()
			}
		})
	}
}

// BenchmarkRead4KiB times a whole-file read of a 4 KiB file through the
// facade against os.ReadFile.
func BenchmarkRead4KiB(b *testing.B) {
	text := benchText(4 << 10)
	root, state := b.TempDir(), b.TempDir()
	os.WriteFile(filepath.Join(root, "f.go"), text, 0o644)
	ws, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("bench")
	b.Run("stet", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			if _, err := s.Read(ctx, stet.ReadArgs{Path: "f.go"}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("limit", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			os.ReadFile(filepath.Join(root, "f.go"))
		}
	})
}
