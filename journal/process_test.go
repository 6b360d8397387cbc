package journal_test

import (
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// childEnv, when set, makes TestAppendingChild act as one of the processes
// of TestManyProcesses: "<state dir>|<session>".
const childEnv = "STET_JOURNAL_TEST_CHILD"

const perProcess = 200

// TestManyProcesses runs 4 child processes appending to one journal while
// the parent appends too, as CLI calls do beside a running server.
func TestManyProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts child processes")
	}
	exe, err := os.Executable()
	if err != nil {
		t.Skip("cannot find the test binary:", err)
	}
	dir := t.TempDir()
	const children = 4
	var wg sync.WaitGroup
	for c := range children {
		cmd := exec.Command(exe, "-test.run=^TestAppendingChild$", "-test.count=1")
		cmd.Env = append(os.Environ(), fmt.Sprintf("%s=%s|child-%d", childEnv, dir, c))
		wg.Go(func() {
			if out, err := cmd.CombinedOutput(); err != nil {
				t.Errorf("child %d: %v\n%s", c, err, out)
			}
		})
	}
	wg.Go(func() { appendNumbered(t, dir, "parent") })
	wg.Wait()
	if t.Failed() {
		return
	}

	j := open(t, dir)
	mustVerifyOK(t, j)
	recs := scanAll(t, j)
	if want := (children + 1) * perProcess; len(recs) != want {
		t.Fatalf("%d records, want %d", len(recs), want)
	}
	next := map[string]int{}
	switches := 0
	for i, r := range recs {
		if i > 0 && r.Session != recs[i-1].Session {
			switches++
		}
		if r.Seq != int64(i+1) {
			t.Fatalf("record %d has seq %d", i, r.Seq)
		}
		// Each process's records are all there, in its own order.
		if string(r.Data) != strconv.Itoa(next[r.Session]) {
			t.Fatalf("seq %d: %s record %s, want %d", r.Seq, r.Session, r.Data, next[r.Session])
		}
		next[r.Session]++
	}
	t.Logf("appends of different processes interleaved %d times", switches)
	for c := range children {
		s := fmt.Sprint("child-", c)
		if got := sessionAll(t, j, s); len(got) != perProcess || next[s] != perProcess {
			t.Errorf("%s: %d records in its index, %d in the log; want %d", s, len(got), next[s], perProcess)
		}
	}
}

// TestAppendingChild is one child process of TestManyProcesses; run on its
// own it does nothing.
func TestAppendingChild(t *testing.T) {
	v := os.Getenv(childEnv)
	if v == "" {
		t.Skip("only runs as a child of TestManyProcesses")
	}
	var dir, session string
	for i := len(v) - 1; i >= 0; i-- {
		if v[i] == '|' {
			dir, session = v[:i], v[i+1:]
			break
		}
	}
	appendNumbered(t, dir, session)
}

// appendNumbered appends perProcess records to session, one Append each,
// numbered from 0 in Data.
func appendNumbered(t *testing.T, dir, session string) {
	j, err := journal.Open(dir, journal.Options{})
	if err != nil {
		t.Error(err)
		return
	}
	defer j.Close()
	for i := range perProcess {
		if _, err := j.Append(journal.Record{Type: "turn", Session: session, Data: data(i)}); err != nil {
			t.Error(err)
			return
		}
	}
}
