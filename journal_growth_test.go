package stet_test

import (
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stet-dev/stet"
)

// stateSize is the total size of the files under a state directory.
func stateSize(t testing.TB, dir string) int64 {
	t.Helper()
	var n int64
	err := filepath.WalkDir(dir, func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if info, err := d.Info(); err == nil && info.Mode().IsRegular() {
			n += info.Size()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// wideTree is a tree of n small Go files, each with several matches of
// "err != nil".
func wideTree(n int) map[string]string {
	files := map[string]string{}
	for i := range n {
		var b strings.Builder
		fmt.Fprintf(&b, "package p%d\n\n", i)
		for k := range 8 {
			fmt.Fprintf(&b, "func f%d() error {\n\tif err := g(); err != nil {\n\t\treturn err\n\t}\n\treturn nil\n}\n\n", k)
		}
		files[fmt.Sprintf("pkg%02d/f%03d.go", i%10, i)] = b.String()
	}
	return files
}

func TestRepeatedSearchesAndReadsAddNothing(t *testing.T) {
	state := t.TempDir()
	_, s, _ := open(t, wideTree(20), stet.Options{State: state})
	log := filepath.Join(state, "journal.jsonl")
	size := func() int64 {
		info, err := os.Stat(log)
		if err != nil {
			t.Fatal(err)
		}
		return info.Size()
	}
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "err != nil"}); err != nil {
		t.Fatal(err)
	}
	after := size()
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "err != nil"}); err != nil {
		t.Fatal(err)
	}
	if got := size(); got != after {
		t.Errorf("a repeated grep grew the journal from %d to %d bytes", after, got)
	}
	// A narrower search inside what was shown adds nothing either.
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "err != nil", Path: "pkg01"}); err != nil {
		t.Fatal(err)
	}
	if got := size(); got != after {
		t.Errorf("a grep showing nothing new grew the journal from %d to %d bytes", after, got)
	}
	// A search that shows new lines records them.
	if _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "return nil"}); err != nil {
		t.Fatal(err)
	}
	grown := size()
	if grown == after {
		t.Errorf("a grep showing new lines recorded nothing")
	}

	read := stet.ReadArgs{Path: "pkg01/f001.go", Offset: 3, Limit: 5}
	if _, err := s.Read(ctx, read); err != nil {
		t.Fatal(err)
	}
	afterRead := size()
	if _, err := s.Read(ctx, read); err != nil {
		t.Fatal(err)
	}
	if got := size(); got != afterRead {
		t.Errorf("a repeated read grew the journal from %d to %d bytes", afterRead, got)
	}
	whole := stet.ReadArgs{Path: "pkg02/f002.go"}
	if _, err := s.Read(ctx, whole); err != nil {
		t.Fatal(err)
	}
	afterWhole := size()
	for _, a := range []stet.ReadArgs{whole, {Path: "pkg02/f002.go", Offset: 2, Limit: 3}} {
		if _, err := s.Read(ctx, a); err != nil {
			t.Fatal(err)
		}
	}
	if got := size(); got != afterWhole {
		t.Errorf("reads of a file already read whole grew the journal from %d to %d bytes", afterWhole, got)
	}
}

func TestJournalGrowthThousandWideGreps(t *testing.T) {
	if testing.Short() {
		t.Skip("1,000 greps")
	}
	// 250 in the test command; the soak (STET_SOAK=1) runs 1,000. Either
	// way identical greps may not grow the journal past a fixed bound.
	n := 250
	if os.Getenv("STET_SOAK") == "1" {
		n = 1000
	}
	state := t.TempDir()
	_, s, _ := open(t, wideTree(100), stet.Options{State: state})
	before := stateSize(t, state)
	for range n {
		res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "err != nil", Limit: 100000})
		if err != nil {
			t.Fatal(err)
		}
		if len(res.Matches) != 800 {
			t.Fatalf("%d matches, want 800", len(res.Matches))
		}
	}
	grown := stateSize(t, state) - before
	t.Logf("%d wide greps grew the state directory by %d bytes", n, grown)
	if grown >= 1<<20 {
		t.Errorf("%d identical wide greps grew the state directory by %d bytes, want < 1 MiB", n, grown)
	}
}

func TestReadOnlyCallsNeverSync(t *testing.T) {
	var mu sync.Mutex
	var synced []string
	hooks := stet.Hooks{JournalSync: func(name string) {
		mu.Lock()
		synced = append(synced, name)
		mu.Unlock()
	}}
	takeSynced := func() []string {
		mu.Lock()
		defer mu.Unlock()
		out := synced
		synced = nil
		return out
	}
	state := t.TempDir()
	ws, s, root := open(t, wideTree(5), stet.Options{State: state, Hooks: hooks})
	calls := []func() error{
		func() error { _, err := s.Read(ctx, stet.ReadArgs{Path: "pkg01/f001.go"}); return err },
		func() error {
			_, err := s.Read(ctx, stet.ReadArgs{Path: "pkg02/f002.go", Offset: 2, Limit: 2})
			return err
		},
		func() error { _, err := s.Grep(ctx, stet.GrepArgs{Pattern: "err != nil"}); return err },
		func() error { _, err := s.List(ctx, stet.ListArgs{Path: "pkg03"}); return err },
		func() error { _, err := s.Find(ctx, stet.FindArgs{Pattern: "**/*.go"}); return err },
	}
	for i, call := range calls {
		if err := call(); err != nil {
			t.Fatal(err)
		}
		if got := takeSynced(); len(got) > 0 {
			t.Errorf("read-only call %d fsynced %v", i, got)
		}
	}
	// A CLI-like process: a new workspace on the same state rebuilds the
	// session and reads.
	ws2, err := stet.Open([]string{root}, stet.Options{State: state, Hooks: hooks})
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.Close()
	s2, err := ws2.Session("test")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.Read(ctx, stet.ReadArgs{Path: "pkg04/f004.go"}); err != nil {
		t.Fatal(err)
	}
	if got := takeSynced(); len(got) > 0 {
		t.Errorf("opening and reading in a new process fsynced %v", got)
	}
	// A change is made durable.
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "pkg01/f001.go", OldString: ptr("package p1"), NewString: ptr("package q1")}); err != nil {
		t.Fatal(err)
	}
	if got := takeSynced(); len(got) == 0 {
		t.Errorf("an edit fsynced nothing in the journal")
	}
	_ = ws
}
