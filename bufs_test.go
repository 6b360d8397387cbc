package stet

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stet-dev/stet/internal/engine"
)

func TestBufPoolSizes(t *testing.T) {
	var p engine.BufPool
	for _, n := range []int{0, 1, 4 << 10, 1<<engine.MinBufShift - 1, 1 << engine.MinBufShift, 1<<engine.MinBufShift + 1, 10<<20 + 1, 1 << engine.MaxBufShift, 1<<engine.MaxBufShift + 1} {
		b := p.Get(n)
		if len(b) != 0 || cap(b) < n {
			t.Errorf("Get(%d): len %d, cap %d", n, len(b), cap(b))
		}
		pooled := n >= 1<<engine.MinBufShift && n <= 1<<engine.MaxBufShift
		if pow2 := cap(b)&(cap(b)-1) == 0; pooled && (!pow2 || cap(b) >= 2*n) {
			t.Errorf("Get(%d): cap %d, want the smallest power of two that holds it", n, cap(b))
		}
		if !pooled && cap(b) != n {
			t.Errorf("Get(%d): cap %d, want exactly n outside the classes", n, cap(b))
		}
		p.Put(b)
	}
	// A slice put back serves the largest class it holds, never a larger
	// one: 768 KiB may come back for 512 KiB, never for 1 MiB.
	for range 8 {
		p.Put(make([]byte, 5, 3<<engine.MinBufShift))
		if b := p.Get(1 << 20); cap(b) < 1<<20 {
			t.Fatalf("Get(%d) = cap %d", 1<<20, cap(b))
		}
	}
	var nilPool *engine.BufPool
	if b := nilPool.Get(1 << 20); cap(b) < 1<<20 {
		t.Errorf("nil pool: cap %d", cap(b))
	}
	nilPool.Put(make([]byte, 1<<20))
}

// poisonBufs lends slices like bufPool, full of garbage as a reused one
// may be, and overwrites every slice it takes back, so that anything still
// reading one after its Put sees garbage.
type poisonBufs struct {
	mu   sync.Mutex
	lent int
	puts int
}

// Get lends a slice that is not zeroed, as a reused one is not.
func (p *poisonBufs) Get(n int) []byte {
	p.mu.Lock()
	p.lent++
	p.mu.Unlock()
	b := make([]byte, n)
	for i := range b {
		b[i] = '#'
	}
	return b[:0]
}

func (p *poisonBufs) Put(b []byte) {
	b = b[:cap(b)]
	for i := range b {
		b[i] = '#'
	}
	p.mu.Lock()
	p.puts++
	p.mu.Unlock()
}

// An edit hands its slices back only once nothing of the call refers to
// them: the result, the receipt's bytes, the journal's undo data and the
// diff stay whole when the slices are overwritten right after the call.
func TestEditLendsOnlyWhatNothingRefersTo(t *testing.T) {
	var sb strings.Builder
	for i := 0; sb.Len() < 600<<10; i++ {
		sb.WriteString("line " + strings.Repeat("x", i%50) + "\n")
	}
	orig := sb.String() + "MIDDLE_TOKEN here\n" + sb.String()
	ws, s, root, _ := openIntentWS(t, map[string]string{"big.txt": orig})
	defer ws.e.Close()
	pb := &poisonBufs{}
	ws.e.Bufs = pb
	ctx := context.Background()
	line := strings.Count(sb.String(), "\n") + 1
	if _, err := s.Read(ctx, ReadArgs{Path: "big.txt", Offset: line, Limit: 1}); err != nil {
		t.Fatal(err)
	}
	// A refused edit lends nothing back: its refusal quotes the file.
	miss, near, repl := "MIDDLE_TOKEN her", "MIDDLE_TOKEN hare", "NEW_TOKEN"
	_, err := s.Edit(ctx, EditArgs{Path: "big.txt", OldString: &near, NewString: &repl})
	if err == nil || !strings.Contains(err.Error(), "MIDDLE_TOKEN here") {
		t.Fatalf("a near miss: %v", err)
	}
	if pb.puts != 0 {
		t.Fatalf("a refused edit handed %d slices back", pb.puts)
	}
	// Nor does an edit whose commit fails after it began (a journal that
	// cannot take the intent): its goroutines may still read them.
	ws.e.Opts.Hooks.BeforeIntent = func(string) error { return errors.New("disk full") }
	if _, err := s.Edit(ctx, EditArgs{Path: "big.txt", OldString: &miss, NewString: &repl}); err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Fatalf("an edit whose intent fails: %v", err)
	}
	ws.e.Opts.Hooks.BeforeIntent = nil
	if pb.puts != 0 {
		t.Fatalf("a failed commit handed %d slices back", pb.puts)
	}
	lentBefore := pb.lent
	res, err := s.Edit(ctx, EditArgs{Path: "big.txt", OldString: &miss, NewString: &repl})
	if err != nil {
		t.Fatal(err)
	}
	if pb.lent-lentBefore != 2 || pb.puts != 2 {
		t.Fatalf("lent %d slices, %d back; want the file and its new text back", pb.lent-lentBefore, pb.puts)
	}
	want := strings.Replace(orig, miss, repl, 1)
	if got, _ := os.ReadFile(filepath.Join(root, "big.txt")); string(got) != want {
		t.Fatal("the file does not hold the edit's bytes")
	}
	m := res.Receipt.Matches
	if len(m) != 1 || string(m[0].Old) != miss || string(m[0].New) != repl {
		t.Fatalf("the receipt's match after the slices were overwritten: %+v", m)
	}
	if strings.Contains(res.Diff, "#") || !strings.Contains(res.Diff, "+NEW_TOKEN") || !strings.Contains(res.Message, "1 replacement") {
		t.Fatalf("the result after the slices were overwritten:\n%s\n%s", res.Message, res.Diff)
	}
	if rep, err := ws.Verify(res.Receipt.ID); err != nil || !rep.OK() {
		t.Fatalf("verify: %+v, %v", rep, err)
	}
	// Undo restores the old bytes from the journal's record of the edit.
	if _, err := s.Undo(ctx, UndoArgs{Path: "big.txt"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "big.txt")); !bytes.Equal(got, []byte(orig)) {
		t.Fatal("undo did not restore the file byte for byte")
	}
}

// A whole-file write hands its slices back only once it has succeeded,
// and its receipt then carries no bytes of them; what it wrote, the
// journal's copy of the bytes it replaced and its undo stay whole.
func TestWriteLendsOnlyWhatNothingRefersTo(t *testing.T) {
	orig := strings.Repeat("original line\n", 40<<10)
	next := strings.Repeat("the new line\n", 30<<10)
	ws, s, root, _ := openIntentWS(t, map[string]string{"big.txt": orig})
	defer ws.e.Close()
	pb := &poisonBufs{}
	ws.e.Bufs = pb
	ctx := context.Background()
	if _, err := s.List(ctx, ListArgs{}); err != nil {
		t.Fatal(err)
	}
	for from := 1; ; {
		r, err := s.Read(ctx, ReadArgs{Path: "big.txt", Offset: from})
		if err != nil {
			t.Fatal(err)
		}
		if r.To >= r.Lines {
			break
		}
		from = r.To + 1
	}
	ws.e.Opts.Hooks.BeforeIntent = func(string) error { return errors.New("disk full") }
	for _, a := range []WriteArgs{{Path: "big.txt", Content: next, Overwrite: true}, {Path: "new.txt", Content: next}} {
		if _, err := s.Write(ctx, a); err == nil || !strings.Contains(err.Error(), "disk full") {
			t.Fatalf("a write whose intent fails: %v", err)
		}
	}
	ws.e.Opts.Hooks.BeforeIntent = nil
	if pb.puts != 0 {
		t.Fatalf("failed writes handed %d slices back", pb.puts)
	}
	created, err := s.Write(ctx, WriteArgs{Path: "new.txt", Content: next})
	if err != nil {
		t.Fatal(err)
	}
	if pb.puts != 1 {
		t.Fatalf("a create handed %d slices back, want its content", pb.puts)
	}
	replaced, err := s.Write(ctx, WriteArgs{Path: "big.txt", Content: next, Overwrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if pb.puts != 3 {
		t.Fatalf("a replace handed %d slices back, want its content and the file it read", pb.puts-1)
	}
	for _, res := range []*MutationResult{created, replaced} {
		for _, m := range res.Receipt.Matches {
			if m.Old != nil || m.New != nil {
				t.Fatal("the receipt still refers to the lent slices")
			}
		}
		if strings.Contains(res.Diff+res.Message, "#") {
			t.Fatalf("the result after the slices were overwritten:\n%s\n%s", res.Message, res.Diff)
		}
		if rep, err := ws.Verify(res.Receipt.ID); err != nil || !rep.OK() {
			t.Fatalf("verify %s: %+v, %v", res.Receipt.ID, rep, err)
		}
	}
	for _, name := range []string{"new.txt", "big.txt"} {
		if got, _ := os.ReadFile(filepath.Join(root, name)); string(got) != next {
			t.Fatalf("%s does not hold the written bytes", name)
		}
	}
	if _, err := s.Undo(ctx, UndoArgs{Path: "big.txt"}); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(filepath.Join(root, "big.txt")); string(got) != orig {
		t.Fatal("undo did not restore the replaced file byte for byte")
	}
}
