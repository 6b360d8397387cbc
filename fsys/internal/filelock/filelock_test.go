package filelock

import (
	"context"
	"errors"
	"sync"
	"testing"
	"testing/synctest"
	"time"
)

// TestTable runs in a synctest bubble: the timed-out wait is on the
// lock's channel and the context's timer, so no wall time passes.
func TestTable(t *testing.T) { synctest.Test(t, testTable) }

func testTable(t *testing.T) {
	var tab Table
	ctx := context.Background()
	u1, err := tab.Lock(ctx, "a")
	if err != nil {
		t.Fatal(err)
	}
	u2, err := tab.Lock(ctx, "b")
	if err != nil {
		t.Fatal(err)
	}
	short, cancel := context.WithTimeout(ctx, 20*time.Millisecond)
	defer cancel()
	if _, err := tab.Lock(short, "a"); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second lock of a: %v", err)
	}
	u1()
	u1()
	u2()
	if n := tab.Len(); n != 0 {
		t.Fatalf("%d entries left after every unlock", n)
	}
	// Mutual exclusion under contention.
	var wg sync.WaitGroup
	inside := 0
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range 200 {
				u, err := tab.Lock(ctx, "k")
				if err != nil {
					t.Error(err)
					return
				}
				inside++
				if inside != 1 {
					t.Error("two holders at once")
				}
				inside--
				u()
			}
		}()
	}
	wg.Wait()
	if n := tab.Len(); n != 0 {
		t.Fatalf("%d entries left", n)
	}
}
