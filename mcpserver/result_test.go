package mcpserver

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"testing"

	"github.com/stet-dev/stet"
)

// TestReplySizeBound: a read whose result would be over the response bound
// is refused as too_large with the next step; a change that landed is
// reported without its diff, never as refused.
func TestReplySizeBound(t *testing.T) { eachTransport(t, testReplySizeBound) }

func testReplySizeBound(t *testing.T, connect connectFunc) {
	body := strings.Repeat("line of text\n", 400)
	f := newFixture(t, map[string]string{"a.txt": body}, stet.Options{})
	srv := New(f.ws, Options{})
	srv.maxReply = 8 << 10
	cs, _ := connect(t, srv, nil, nil)

	r := mustRefuse(t, "big read", call(t, cs, "read", map[string]any{"path": "a.txt"}), stet.KindTooLarge)
	if !strings.Contains(r.Text, "smaller window") {
		t.Errorf("too_large text = %q", r.Text)
	}
	r = mustOK(t, "small window", call(t, cs, "read", map[string]any{"path": "a.txt", "limit": 100}))
	if !strings.Contains(r.Text, "next: offset 101") {
		t.Errorf("window text ends %q", r.Text[len(r.Text)-60:])
	}
	for off := 101; off <= 401; off += 100 {
		mustOK(t, "window", call(t, cs, "read", map[string]any{"path": "a.txt", "offset": off, "limit": 100}))
	}
	r = mustOK(t, "big change", call(t, cs, "write", map[string]any{"path": "a.txt", "content": strings.ToUpper(body), "overwrite": true}))
	if !strings.Contains(r.Text, "diff omitted") || r.Structured["diff"] != "" || r.Structured["receipt"] == nil {
		t.Errorf("big change: text %q, structured diff %q", r.Text, r.Structured["diff"])
	}
	if got := f.read(t, "a.txt"); got != strings.ToUpper(body) {
		t.Fatal("the change did not land")
	}
}

func TestCause(t *testing.T) {
	err := fmt.Errorf("write a.txt: saving: %w", &fs.PathError{Op: "openat", Path: "/home/u/.local/state/x", Err: syscall.ENOSPC})
	got := cause(err)
	if strings.Contains(got, "openat") || strings.Contains(got, "/home/u") || !strings.Contains(got, "no space left on device") {
		t.Errorf("cause = %q", got)
	}
	if got := cause(errors.New("a\nb")); got != "a; b" {
		t.Errorf("cause = %q", got)
	}
}

func TestThousands(t *testing.T) {
	for n, want := range map[int]string{0: "0", 999: "999", 1000: "1,000", 9437184: "9,437,184", -1234: "-1,234"} {
		if got := thousands(n); got != want {
			t.Errorf("thousands(%d) = %q, want %q", n, got, want)
		}
	}
}
