//go:build linux

package stet_test

import (
	"errors"
	"os"
	"os/exec"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stet-dev/stet"
)

// A program that embeds stet and starts processes beside it (an agent host
// running a build while it edits) must not see its own next change refused
// as "open for writing": a child forked while stet's temp file was open for
// writing holds a copy of that descriptor until its exec closes it
// (O_CLOEXEC acts at the exec, not at the fork), a moment after the temp
// file became the file. Without the wait for such a writer to go, a few
// percent of these edits were refused.
func TestChangesBesideProcessStarts(t *testing.T) {
	if testing.Short() {
		t.Skip("600 edits beside process starts")
	}
	bin, err := exec.LookPath("true")
	if err != nil {
		t.Skip("no true(1) to start:", err)
	}
	_, s, _ := open(t, map[string]string{"a.txt": "v0\n"}, stet.Options{})
	readAll(t, s, "a.txt")
	var stop atomic.Bool
	var wg sync.WaitGroup
	var starts atomic.Int64
	for range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for !stop.Load() {
				if exec.Command(bin).Run() == nil {
					starts.Add(1)
				}
			}
		}()
	}
	defer func() { stop.Store(true); wg.Wait() }()
	edits := 200 // the soak (STET_SOAK=1): 600
	if os.Getenv("STET_SOAK") == "1" {
		edits = 600
	}
	refused := 0
	cur := "v0"
	for i := range edits {
		next := "v" + strings.Repeat("x", i%7) + string(rune('a'+i%26))
		_, err := s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: ptr(cur), NewString: ptr(next)})
		var ref *stet.Refusal
		if errors.As(err, &ref) && strings.Contains(ref.Message, "open for writing") {
			refused++
			continue
		}
		if err != nil {
			t.Fatalf("edit %d: %v", i, err)
		}
		cur = next
	}
	t.Logf("%d process starts, %d refused", starts.Load(), refused)
	if refused > 0 {
		t.Errorf("%d of %d edits refused as open for writing: the only writers were children forked beside them", refused, edits)
	}
}
