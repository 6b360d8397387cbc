package review_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"testing"

	"github.com/stet-dev/stet"
	"github.com/stet-dev/stet/review"
)

// BenchmarkFirstScreen measures what the page loads first for a session of
// 1,000 receipts (50 files, 20 turns): the sessions list and the first
// page of diffs.
func BenchmarkFirstScreen(b *testing.B) {
	ctx := context.Background()
	root := b.TempDir()
	for i := range 50 {
		os.WriteFile(filepath.Join(root, fmt.Sprintf("f%02d.txt", i)), []byte("v0\nsecond line\n"), 0o644)
	}
	ws, err := stet.Open([]string{root}, stet.Options{State: b.TempDir()})
	if err != nil {
		b.Fatal(err)
	}
	defer ws.Close()
	s, _ := ws.Session("big")
	for i := range 50 {
		if _, err := s.Read(ctx, stet.ReadArgs{Path: fmt.Sprintf("f%02d.txt", i)}); err != nil {
			b.Fatal(err)
		}
	}
	for i := range 1000 {
		if i%50 == 0 {
			s.Turn(fmt.Sprintf("step %d", i/50))
		}
		old, repl := fmt.Sprintf("v%d\n", i/50), fmt.Sprintf("v%d\n", i/50+1)
		if _, err := s.Edit(ctx, stet.EditArgs{Path: fmt.Sprintf("f%02d.txt", i%50), OldString: &old, NewString: &repl}); err != nil {
			b.Fatal(err)
		}
	}
	h, _ := review.NewHandler(ws, token)
	srv := httptest.NewServer(h)
	defer srv.Close()
	b.ResetTimer()
	for b.Loop() {
		for _, p := range []string{"/api/sessions", "/api/diff?session=big&limit=1"} {
			if code, body := do(b, srv, call{method: "GET", path: withToken(p, token)}); code != 200 {
				b.Fatalf("%s: %d %s", p, code, body)
			}
		}
	}
}
