package stet_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/internal/fstree"
)

// allocated returns the bytes f allocates on the heap.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// sparse makes root/name: head, then zeros up to size bytes, allocating no
// disk blocks for the zeros.
func sparse(t *testing.T, root, name, head string, size int64) {
	t.Helper()
	p := filepath.Join(root, name)
	if err := os.WriteFile(p, []byte(head), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Truncate(p, size); err != nil {
		t.Skipf("no sparse files here: %v", err)
	}
}

func fileVersion(t *testing.T, p string) string {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		t.Fatal(err)
	}
	return "sha256:" + hex.EncodeToString(h.Sum(nil))
}

// textHead is more than the 8 KiB the binary check looks at, so the zeros
// after it do not make the file binary.
var textHead = "first line\nsecond line\n" + strings.Repeat("text text text\n", 1000)

// TestWindowedReadStreams: a one-line read of a file far over the edit limit
// holds the window, not the file, and its version is still the hash of the
// whole file.
func TestWindowedReadStreams(t *testing.T) {
	_, s, root := open(t, nil, stet.Options{})
	const size = 512 << 20
	sparse(t, root, "huge.log", textHead, size)
	var res *stet.ReadResult
	var err error
	n := allocated(func() { res, err = s.Read(ctx, stet.ReadArgs{Path: "huge.log", Limit: 1}) })
	if err != nil {
		t.Fatal(err)
	}
	if n > size/16 {
		t.Errorf("a one-line read of a %d-byte file allocated %d bytes", size, n)
	}
	if res.Frame != "00001|first line\n(lines 1-1 of 1003; next: offset 2)" {
		t.Errorf("frame = %q", res.Frame)
	}
	if res.Lines != 1003 || res.From != 1 || res.To != 1 {
		t.Errorf("lines %d, window %d-%d", res.Lines, res.From, res.To)
	}
	if want := fileVersion(t, filepath.Join(root, "huge.log")); res.Version != want {
		t.Errorf("version %s, want the hash of the whole file %s", res.Version, want)
	}
	if len(res.Notes) == 0 || !strings.Contains(res.Notes[0], "edit limit") {
		t.Errorf("notes %q: want the edit-limit note", res.Notes)
	}
}

// TestTooLargeRefusedBeforeReading: every tool that would hold a file over
// the edit limit refuses it too_large without reading it.
func TestTooLargeRefusedBeforeReading(t *testing.T) {
	_, s, root := open(t, map[string]string{"small.txt": "x\n"}, stet.Options{})
	const size = 256 << 20
	sparse(t, root, "big.txt", textHead, size)
	calls := map[string]func() error{
		"edit": func() error {
			_, err := s.Edit(ctx, stet.EditArgs{Path: "big.txt", OldString: ptr("first"), NewString: ptr("1st")})
			return err
		},
		"write": func() error {
			_, err := s.Write(ctx, stet.WriteArgs{Path: "big.txt", Content: "short\n", Overwrite: true})
			return err
		},
		"delete": func() error {
			_, err := s.Delete(ctx, stet.DeleteArgs{Path: "big.txt"})
			return err
		},
		"move": func() error {
			_, err := s.Move(ctx, stet.MoveArgs{From: "big.txt", To: "moved.txt"})
			return err
		},
		"move onto": func() error {
			_, err := s.Move(ctx, stet.MoveArgs{From: "small.txt", To: "big.txt", Overwrite: true})
			return err
		},
		"patch": func() error {
			_, err := s.Patch(ctx, stet.PatchArgs{Patch: "*** Begin Patch\n*** Update File: big.txt\n@@\n-first line\n+1st line\n*** End Patch\n"})
			return err
		},
	}
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "small.txt"}); err != nil {
		t.Fatal(err)
	}
	for name, call := range calls {
		var err error
		n := allocated(func() { err = call() })
		if kindOf(err) != stet.KindTooLarge {
			t.Errorf("%s: %v, want too_large", name, err)
		} else if r, _ := stet.AsRefusal(err); !strings.Contains(r.Message, "268,435,456 bytes") {
			t.Errorf("%s: message %q does not state the size", name, r.Message)
		}
		if n > size/8 {
			t.Errorf("%s allocated %d bytes for a %d-byte file", name, n, size)
		}
	}
	// grep searches it as it streams (grep -rn would find what it holds),
	// without holding it: its one 256 MiB line of NUL bytes is not searched.
	var g *stet.GrepResult
	var gerr error
	if n := allocated(func() { g, gerr = s.Grep(ctx, stet.GrepArgs{Pattern: "first", Path: "big.txt"}) }); n > size/8 {
		t.Errorf("grep allocated %d bytes for a %d-byte file", n, size)
	}
	if gerr != nil || len(g.Matches) != 1 {
		t.Errorf("grep of the large file: %v %+v", gerr, g)
	}
	if fi, err := os.Stat(filepath.Join(root, "big.txt")); err != nil || fi.Size() != size {
		t.Errorf("big.txt changed: %v %v", fi, err)
	}
}

// TestReplaceAllResultSizeCheckedFirst: a replace_all whose result would be
// over the edit limit is refused with the sizes, before it is built.
func TestReplaceAllResultSizeCheckedFirst(t *testing.T) {
	_, s, root := open(t, map[string]string{"a.txt": strings.Repeat("a\n", 5000)}, stet.Options{Binding: "read"})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	repl := strings.Repeat("b", 64<<10)
	var err error
	n := allocated(func() {
		_, err = s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("a"), NewString: &repl, ReplaceAll: true})
	})
	r, ok := stet.AsRefusal(err)
	if !ok || r.Kind != stet.KindTooLarge {
		t.Fatalf("edit: %v, want too_large", err)
	}
	for _, want := range []string{"5,000", "327,685,000", "16,777,216"} {
		if !strings.Contains(r.Message, want) {
			t.Errorf("message %q lacks %s", r.Message, want)
		}
	}
	if n > 32<<20 {
		t.Errorf("allocated %d bytes", n)
	}
	if got := content(t, root, "a.txt"); got != strings.Repeat("a\n", 5000) {
		t.Errorf("a.txt changed")
	}
}

// TestGrepFIFOIsNotRegular: a FIFO named as grep's path is refused, without
// blocking on it.
func TestGrepFIFOIsNotRegular(t *testing.T) {
	_, s, root := open(t, nil, stet.Options{})
	if err := fstree.Mkfifo(filepath.Join(root, "pipe")); err != nil {
		t.Skipf("mkfifo: %v", err)
	}
	_, err := s.Grep(ctx, stet.GrepArgs{Pattern: "x", Path: "pipe"})
	if kindOf(err) != stet.KindNotRegular {
		t.Fatalf("grep of a FIFO: %v, want not_regular", err)
	}
}

// TestGrepHugeContextKeepsTheMatch: a context too large is refused with its
// bound; a context at the bound shows the match.
func TestGrepHugeContextKeepsTheMatch(t *testing.T) {
	_, s, _ := open(t, map[string]string{"a.txt": "one\ntwo\nthree\n"}, stet.Options{})
	res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "two", Path: "a.txt", Context: stet.MaxGrepContext})
	if err != nil || len(res.Matches) != 3 || res.Matches[1].Text != "two" || res.Matches[1].Context {
		t.Fatalf("context at the bound: %+v %v", res, err)
	}
	_, err = s.Grep(ctx, stet.GrepArgs{Pattern: "two", Path: "a.txt", Context: 1 << 62})
	if r, ok := stet.AsRefusal(err); !ok || r.Kind != stet.KindInvalid || !strings.Contains(r.Message, "1,000") {
		t.Fatalf("huge context: %v, want invalid naming the bound", err)
	}
	_, err = s.Grep(ctx, stet.GrepArgs{Pattern: "two", Path: "a.txt", Limit: stet.MaxGrepLimit + 1})
	if kindOf(err) != stet.KindInvalid {
		t.Fatalf("limit over the bound: %v", err)
	}
}

// TestGrepManyMatches: every match up to the limit comes back, in order,
// and each counts as seen.
func TestGrepManyMatches(t *testing.T) {
	var b strings.Builder
	for range 20000 {
		b.WriteString("hit\nmiss\n")
	}
	_, s, _ := open(t, map[string]string{"m.txt": b.String()}, stet.Options{})
	res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "hit", Path: "m.txt", Limit: 10000})
	if err != nil || len(res.Matches) != 10000 || !res.Truncated {
		t.Fatalf("grep: %d matches, truncated %v, %v", len(res.Matches), res.Truncated, err)
	}
	for i, m := range res.Matches {
		if m.Line != 2*i+1 || m.Text != "hit" {
			t.Fatalf("match %d: %+v", i, m)
		}
	}
	// The 10,000th hit was shown: editing it needs no read.
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "m.txt", OldString: ptr("miss\nhit\nmiss\nhit\nmiss\n"), NewString: ptr("x"), ReplaceAll: true}); kindOf(err) != stet.KindNotSeen {
		t.Fatalf("edit over unseen lines: %v, want not_seen", err)
	}
}

// cancelAfter is a context that reports itself cancelled after n calls of
// Err: a long loop that checks it stops part way.
type cancelAfter struct {
	context.Context
	n atomic.Int64
}

func (c *cancelAfter) Err() error {
	if c.n.Add(-1) < 0 {
		return context.Canceled
	}
	return nil
}

// TestCancelStopsWorkAndFreesTheLock: a cancelled edit or grep returns
// context.Canceled and the file's lock is free afterwards.
func TestCancelStopsWorkAndFreesTheLock(t *testing.T) {
	var b strings.Builder
	for range 200000 {
		b.WriteString("aaaa bbbb\n")
	}
	text := b.String()
	_, s, root := open(t, map[string]string{"a.txt": text}, stet.Options{Binding: "read"})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	for _, steps := range []int64{8, 16, 64} {
		c := &cancelAfter{Context: context.Background()}
		c.n.Store(steps)
		_, err := s.Edit(c, stet.EditArgs{Path: "a.txt", OldString: ptr("a"), NewString: ptr("c"), ReplaceAll: true})
		if !errors.Is(err, context.Canceled) {
			t.Fatalf("edit cancelled after %d checks: %v, want context.Canceled", steps, err)
		}
		c = &cancelAfter{Context: context.Background()}
		c.n.Store(steps)
		if _, err := s.Grep(c, stet.GrepArgs{Pattern: "z+", Path: "a.txt", Limit: stet.MaxGrepLimit}); !errors.Is(err, context.Canceled) {
			t.Fatalf("grep cancelled after %d checks: %v, want context.Canceled", steps, err)
		}
	}
	if content(t, root, "a.txt") != text {
		t.Fatal("a cancelled edit changed the file")
	}
	if _, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("aaaa"), NewString: ptr("cccc"), ReplaceAll: true}); err != nil {
		t.Fatalf("edit after the cancelled ones: %v", err)
	}
}

func writeFile(root, name, content string) error {
	return os.WriteFile(filepath.Join(root, name), []byte(content), 0o644)
}

// An old_string that matches a million times is refused with the count and
// a bounded list of lines, not a list of a million.
func TestAmbiguousDetailsAreBounded(t *testing.T) {
	_, s, _ := open(t, map[string]string{"a.txt": strings.Repeat("x\n", 200000)}, stet.Options{Binding: "read"})
	if _, err := s.Read(ctx, stet.ReadArgs{Path: "a.txt", Limit: 1}); err != nil {
		t.Fatal(err)
	}
	_, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr("x"), NewString: ptr("y")})
	r, ok := stet.AsRefusal(err)
	if !ok || r.Kind != stet.KindAmbiguous {
		t.Fatalf("got %v, want ambiguous", err)
	}
	if n := r.Details["count"]; n != 200000 {
		t.Errorf("count = %v, want 200000", n)
	}
	if lines, _ := r.Details["lines"].([]int); len(lines) == 0 || len(lines) > 100 {
		t.Errorf("details list %d lines, want 1 to 100", len(lines))
	}
	if b, _ := json.Marshal(r); len(b) > 4096 {
		t.Errorf("the refusal is %d bytes of JSON", len(b))
	}
}

// One multiline match that spans a whole file is shown up to grep's byte
// bound and marked truncated, not handed over whole.
func TestMultilineMatchIsBounded(t *testing.T) {
	big := strings.Repeat("a line of text for the match to span\n", 200000) // about 7 MB
	_, s, _ := open(t, map[string]string{"big.txt": big}, stet.Options{})
	res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "(?s)a.+", Multiline: true, Limit: 1, Path: "big.txt"})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, m := range res.Matches {
		n += len(m.Text)
	}
	if n > stet.MaxGrepBytes+4096 || !res.Truncated {
		t.Errorf("%d bytes of rows (bound %d), truncated %v", n, stet.MaxGrepBytes, res.Truncated)
	}
}
