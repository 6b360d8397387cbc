package stet_test

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

// stepNames are the commit's steps as Hooks.Step names them, in order.
var stepNames = []string{"read", "plan", "save", "intent", "temp", "wait", "swap", "dirsync", "readback", "receipt", "commit", "release"}

// stepTimes sums Hooks.Step's reports.
type stepTimes struct {
	mu  sync.Mutex
	sum map[string]time.Duration
}

func (st *stepTimes) add(step string, d time.Duration) {
	st.mu.Lock()
	st.sum[step] += d
	st.mu.Unlock()
}

// report puts each step's mean cost per call beside the benchmark's own.
func (st *stepTimes) report(b *testing.B) {
	for _, n := range stepNames {
		b.ReportMetric(float64(st.sum[n].Microseconds())/float64(b.N), n+"-µs/op")
	}
}

// durableWrite is the limit: the bytes written durably in Go, as the
// benchmark's limit rows do (temp file, write, fsync, rename, fsync of the
// directory).
func durableWrite(b *testing.B, dir, name string, data []byte) {
	f, err := os.CreateTemp(dir, ".tmp-")
	if err != nil {
		b.Fatal(err)
	}
	f.Write(data)
	f.Sync()
	f.Close()
	if err := os.Rename(f.Name(), filepath.Join(dir, name)); err != nil {
		b.Fatal(err)
	}
	syncDir(dir)
}

func syncDir(dir string) {
	d, _ := os.Open(dir)
	d.Sync()
	d.Close()
}

// BenchmarkCommitSteps times each step of the commit sequence per scenario
// (Hooks.Step), beside the durable limit of the same work in the same run:
//
//	go test -run '^$' -bench CommitSteps -benchtime 40x -count 5 .
//
// Each stet row reports, per call, the whole call (ns/op) and each step's
// mean cost (save, intent, temp, wait, swap, dirsync, readback, receipt,
// and the commit as a whole); save, intent and temp overlap.
func BenchmarkCommitSteps(b *testing.B) {
	type scenario struct {
		name     string
		size     int
		versions bool // the calls write versions
		setup    func(b *testing.B, s *stet.Session, root string, text []byte)
		call     func(b *testing.B, s *stet.Session, root string, text []byte, i int)
		limit    func(b *testing.B, root string, text []byte, i int)
	}
	toks := []string{"UNIQUETOKEN1", "UNIQUETOKEN2"}
	readAll := func(b *testing.B, s *stet.Session, name string) {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: name, Limit: 1 << 20}); err != nil {
			b.Fatal(err)
		}
	}
	edit := scenario{
		setup: func(b *testing.B, s *stet.Session, root string, text []byte) {
			os.WriteFile(filepath.Join(root, "f.go"), text, 0o644)
			line := strings.Count(string(text[:bytes.Index(text, []byte("UNIQUETOKEN"))]), "\n") + 1
			if _, err := s.Read(ctx, stet.ReadArgs{Path: "f.go", Offset: line, Limit: 1}); err != nil {
				b.Fatal(err)
			}
		},
		call: func(b *testing.B, s *stet.Session, root string, text []byte, i int) {
			if _, err := s.Edit(ctx, stet.EditArgs{Path: "f.go", OldString: &toks[i%2], NewString: &toks[(i+1)%2]}); err != nil {
				b.Fatal(err)
			}
		},
		limit: func(b *testing.B, root string, text []byte, i int) {
			p := filepath.Join(root, "f.go")
			if i == 0 {
				os.WriteFile(p, text, 0o644)
			}
			cur, _ := os.ReadFile(p)
			if bytes.Count(cur, []byte(toks[i%2])) != 1 {
				b.Fatal("token not unique")
			}
			durableWrite(b, root, "f.go", bytes.Replace(cur, []byte(toks[i%2]), []byte(toks[(i+1)%2]), 1))
		},
	}
	// replace writes new content each call, so the previous bytes it keeps
	// are never in the journal already. The contents are made before the
	// timer starts, for stet and the limit alike (versions).
	version := func(text []byte, i int) []byte {
		return append([]byte(fmt.Sprintf("// version %d\n", i)), text[:len(text)-20]...)
	}
	var versions struct {
		bytes   [][]byte
		strings []string
	}
	made := func(text []byte, n int) {
		versions.bytes, versions.strings = nil, nil
		for i := range n {
			versions.bytes = append(versions.bytes, version(text, i))
			versions.strings = append(versions.strings, string(versions.bytes[i]))
		}
	}
	scenarios := []scenario{
		{name: "create_4k", size: 4 << 10,
			setup: func(b *testing.B, s *stet.Session, root string, text []byte) {
				if _, err := s.List(ctx, stet.ListArgs{}); err != nil {
					b.Fatal(err)
				}
			},
			call: func(b *testing.B, s *stet.Session, root string, text []byte, i int) {
				if _, err := s.Write(ctx, stet.WriteArgs{Path: fmt.Sprintf("new%d.go", i), Content: string(text)}); err != nil {
					b.Fatal(err)
				}
			},
			limit: func(b *testing.B, root string, text []byte, i int) {
				durableWrite(b, root, fmt.Sprintf("new%d.go", i), text)
			},
		},
		{name: "edit_1m", size: 1 << 20, setup: edit.setup, call: edit.call, limit: edit.limit},
		{name: "edit_10m", size: 10 << 20, setup: edit.setup, call: edit.call, limit: edit.limit},
		{name: "replace_1m", size: 1 << 20, versions: true,
			setup: func(b *testing.B, s *stet.Session, root string, text []byte) {
				os.WriteFile(filepath.Join(root, "f.go"), text, 0o644)
				readAll(b, s, "f.go")
			},
			call: func(b *testing.B, s *stet.Session, root string, text []byte, i int) {
				if _, err := s.Write(ctx, stet.WriteArgs{Path: "f.go", Content: versions.strings[i], Overwrite: true}); err != nil {
					b.Fatal(err)
				}
			},
			limit: func(b *testing.B, root string, text []byte, i int) {
				durableWrite(b, root, "f.go", versions.bytes[i])
			},
		},
		{name: "delete_1m", size: 1 << 20, versions: true,
			call: func(b *testing.B, s *stet.Session, root string, text []byte, i int) {
				b.StopTimer()
				name := fmt.Sprintf("d%d.go", i)
				os.WriteFile(filepath.Join(root, name), versions.bytes[i], 0o644)
				readAll(b, s, name)
				b.StartTimer()
				if _, err := s.Delete(ctx, stet.DeleteArgs{Path: name}); err != nil {
					b.Fatal(err)
				}
			},
			limit: func(b *testing.B, root string, text []byte, i int) {
				b.StopTimer()
				name := filepath.Join(root, fmt.Sprintf("d%d.go", i))
				os.WriteFile(name, versions.bytes[i], 0o644)
				b.StartTimer()
				os.Remove(name)
				syncDir(root)
			},
		},
	}
	for _, sc := range scenarios {
		text := benchText(sc.size)
		b.Run(sc.name+"/stet", func(b *testing.B) {
			root, state := b.TempDir(), b.TempDir()
			st := &stepTimes{sum: map[string]time.Duration{}}
			ws, err := stet.Open([]string{root}, stet.Options{State: state, MaxReadBytes: stet.MaxMaxReadBytes, Hooks: stet.Hooks{Step: st.add}})
			if err != nil {
				b.Fatal(err)
			}
			defer ws.Close()
			s, _ := ws.Session("bench")
			if sc.setup != nil {
				sc.setup(b, s, root, text)
			}
			// A state directory in use has stored blobs before: one replace,
			// untimed, makes its object store's directories (the first blob
			// write of a new state directory does). Its create needs the
			// root listed, which delete's scenario does not do itself.
			if _, err := s.List(ctx, stet.ListArgs{}); err != nil {
				b.Fatal(err)
			}
			for _, ow := range []bool{false, true} {
				if _, err := s.Write(ctx, stet.WriteArgs{Path: "warm.txt", Content: fmt.Sprintf("warm %v\n", ow), Overwrite: ow}); err != nil {
					b.Fatal(err)
				}
			}
			st.sum = map[string]time.Duration{}
			if sc.versions {
				made(text, b.N)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sc.call(b, s, root, text, i)
			}
			b.StopTimer()
			st.report(b)
		})
		b.Run(sc.name+"/limit", func(b *testing.B) {
			root := b.TempDir()
			if sc.versions {
				made(text, b.N)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				sc.limit(b, root, text, i)
			}
		})
	}
}
