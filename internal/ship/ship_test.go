package ship

import (
	"github.com/stet-dev/stet"

	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stet-dev/stet/internal/fleetdb"
	"github.com/stet-dev/stet/internal/pgtest"
)

// TestTwoHostsAtOnce: two hosts (two workspaces and state directories,
// two roles) work and ship at the same time, each with two shippers
// racing; the database ends holding each journal's lines exactly once, in
// order, and its chains verify.
func TestTwoHostsAtOnce(t *testing.T) {
	f := newFleet(t)
	ctx := context.Background()
	hosts := map[string]*host{}
	for _, name := range []string{"host_a", "host_b"} {
		files := map[string]string{}
		for i := range 5 {
			files[fmt.Sprintf("src/f%d.go", i)] = fmt.Sprintf("package f\n\nvar v = %d\n", i)
		}
		hosts[name] = newHost(t, files)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for name, h := range hosts {
		done := make(chan struct{})
		wg.Add(1)
		go func() { // the agent
			defer wg.Done()
			defer close(done)
			v := []int{0, 1, 2, 3, 4}
			for i := range 20 {
				k := i % 5
				h.edit(t, fmt.Sprintf("src/f%d.go", k), fmt.Sprintf("= %d", v[k]), fmt.Sprintf("= %d", v[k]+10))
				v[k] += 10
			}
		}()
		for range 2 { // two shippers of one journal
			wg.Add(1)
			go func() {
				defer wg.Done()
				s, err := New(h.journal(t), Options{Host: name, Batch: 7})
				if err != nil {
					errs <- err
					return
				}
				db := f.open(t, name)
				for {
					select {
					case <-done:
						_, err := s.Once(ctx, db)
						errs <- err
						return
					default:
					}
					if _, err := s.Once(ctx, db); err != nil {
						errs <- err
						return
					}
				}
			}()
		}
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	for name, h := range hosts {
		sameLines(t, f, h, name)
	}
	rep, err := f.open(t, "reader").Verify(ctx)
	if err != nil || !rep.OK() || rep.Journals != 2 {
		t.Fatalf("verify: %+v, %v", rep, err)
	}
	if got := f.query(t, "SELECT sum(receipts)::text FROM stet.sessions WHERE session = 'agent'"); got[0] != "40" {
		t.Fatalf("the sessions count %s changes, want 40", got[0])
	}
	if got := f.query(t, "SELECT count(*)::text FROM stet.standing WHERE state = 'stands'"); got[0] != "10" {
		t.Fatalf("%s changes stand, want the last of each file: 10", got[0])
	}
}

// TestStopMidPass: a pass stopped after its first batch (as a kill would
// stop it) leaves a prefix of the chain; the next pass sends the rest,
// nothing twice.
func TestStopMidPass(t *testing.T) {
	f := newFleet(t)
	h := newHost(t, map[string]string{"a.txt": "one\ntwo\n"})
	for i := range 10 {
		h.edit(t, "a.txt", fmt.Sprintf("one%s", strings.Repeat("!", i)), fmt.Sprintf("one%s", strings.Repeat("!", i+1)))
	}
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(h.journal(t), Options{Host: "host_a", Batch: 5, AfterBatch: func(int) { cancel() }})
	if err != nil {
		t.Fatal(err)
	}
	db := f.open(t, "host_a")
	if _, err := s.Once(ctx, db); !errors.Is(err, context.Canceled) {
		t.Fatalf("a stopped pass: %v", err)
	}
	if got := f.query(t, "SELECT count(*)::text FROM stet.records"); got[0] != "5" {
		t.Fatalf("%s lines after the first batch, want 5", got[0])
	}
	s2, _ := New(h.journal(t), Options{Host: "host_a", Batch: 5})
	rep, err := s2.Once(context.Background(), db)
	if err != nil {
		t.Fatal(err)
	}
	if want := len(h.localLines(t)) - 5; rep.Lines != want {
		t.Fatalf("the second pass added %d lines, want %d", rep.Lines, want)
	}
	sameLines(t, f, h, "host_a")
}

// TestDatabaseDown: while the database is down the agent's changes land
// as ever (the journal is the record); Run reports the outage once and
// catches up when the database is back.
func TestDatabaseDown(t *testing.T) {
	f := newFleet(t)
	h := newHost(t, map[string]string{"a.txt": "v0\n"})
	s, err := New(h.journal(t), Options{Host: "host_a"})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var logs []string
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	ran := make(chan struct{})
	go func() {
		defer close(ran)
		s.Run(ctx, f.url("host_a"), RunOptions{Every: 20 * time.Millisecond, MaxBackoff: 100 * time.Millisecond, Logf: func(format string, a ...any) {
			mu.Lock()
			logs = append(logs, fmt.Sprintf(format, a...))
			mu.Unlock()
		}})
	}()
	h.edit(t, "a.txt", "v0", "v1")
	waitFor(t, func() bool { return len(f.query(t, "SELECT receipt FROM stet.records WHERE type = 'receipt'")) == 1 })

	f.srv.Stop()
	// Edits never wait on the shipper: they finish while it is retrying
	// (a shipper that held the journal while it dialled would hang them;
	// the bound is a hang detector, not a speed check).
	edited := make(chan error, 1)
	go func() {
		for i := 1; i < 6; i++ {
			old, new := fmt.Sprintf("v%d", i), fmt.Sprintf("v%d", i+1)
			if _, err := h.s.Read(ctx, stet.ReadArgs{Path: "a.txt"}); err != nil {
				edited <- err
				return
			}
			if _, err := h.s.Edit(ctx, stet.EditArgs{Path: "a.txt", OldString: &old, NewString: &new}); err != nil {
				edited <- err
				return
			}
		}
		edited <- nil
	}()
	select {
	case err := <-edited:
		if err != nil {
			t.Fatalf("an edit with the database down: %v", err)
		}
	case <-time.After(2 * time.Minute):
		t.Fatal("five edits did not finish with the database down: the shipper blocks the journal")
	}
	time.Sleep(300 * time.Millisecond)
	if err := f.srv.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { return len(f.query(t, "SELECT receipt FROM stet.records WHERE type = 'receipt'")) == 6 })
	waitFor(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return strings.Contains(strings.Join(logs, "\n"), "caught up")
	})
	cancel()
	<-ran
	sameLines(t, f, h, "host_a")
	mu.Lock()
	defer mu.Unlock()
	all := strings.Join(logs, "\n")
	// The outage is reported when it starts and once more when it ends,
	// not on every pass around it.
	if i, j := strings.Index(all, "local work continues"), strings.Index(all, "caught up"); i < 0 || j < i || strings.Count(all, "caught up") != 1 {
		t.Fatalf("Run said:\n%s", all)
	}
	if b, err := os.ReadFile(filepath.Join(h.root, "a.txt")); err != nil || string(b) != "v6\n" {
		t.Fatalf("a.txt holds %q, %v", b, err)
	}
}

func waitFor(t *testing.T, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatal("timed out")
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// TestDenyReadNeverShipped: the bytes of a deny-read file (written before
// the rule, then changed) reach neither a line nor a blob of the
// database; its lines keep their place in the chain, redacted, and verify.
func TestDenyReadNeverShipped(t *testing.T) {
	f := newFleet(t)
	const secret = "TOKEN=hunter2-the-secret"
	h := newHost(t, map[string]string{"config/prod.env": secret + "\nA=1\n", "main.go": "package main\n"})
	h.edit(t, "config/prod.env", "A=1", "A=2")
	h.write(t, "notes.txt", "public notes\n")
	h.edit(t, "main.go", "package main", "package main // edited")
	rep := shipRedacted(t, f, h, Options{Host: "host_a", DenyRead: []string{"config/*.env"}})
	if got := f.query(t, "SELECT count(*)::text FROM stet.records WHERE line IS NULL AND path LIKE '%prod.env'"); got[0] == "0" {
		t.Fatal("the deny-read file's lines are not in the chain")
	}
	if got := f.query(t, "SELECT convert_from(data, 'UTF8') FROM stet.blobs WHERE convert_from(data, 'UTF8') LIKE '%edited%'"); len(got) != 1 {
		t.Fatalf("the edited file's result was not shipped for the review: %q", got)
	}
	vr, err := f.open(t, "reader").Verify(context.Background())
	if err != nil || !vr.OK() || vr.Redacted != int64(rep.Redacted) {
		t.Fatalf("verify: %+v, %v", vr, err)
	}
	// Without the rule the same journal would ship the secret: the test
	// sees it when it is there.
	f2 := newFleet(t)
	s2, _ := New(h.journal(t), Options{Host: "host_a"})
	if _, err := s2.Once(context.Background(), f2.open(t, "host_a")); err != nil {
		t.Fatal(err)
	}
	if got := f2.query(t, "SELECT convert_from(line, 'UTF8') FROM stet.records WHERE convert_from(line, 'UTF8') LIKE '%A=1%'"); len(got) == 0 {
		t.Fatal("without deny-read the edit's old bytes are not shipped: the check above proves nothing")
	}
}

// TestRecordedDenyReadNeverShipped: a shipper given no --deny-read still
// keeps back a file that a process of the same state directory hid (the
// rule recorded beside the journal), as a stet sync run without the
// server's flags would otherwise ship its bytes.
func TestRecordedDenyReadNeverShipped(t *testing.T) {
	f := newFleet(t)
	const secret = "TOKEN=hunter2-the-secret"
	h := newHost(t, map[string]string{"config/prod.env": secret + "\nA=1\n"})
	h.edit(t, "config/prod.env", "A=1", "A=2")
	// Later, a server of this workspace is started with the rule.
	ws, err := stet.Open([]string{h.root}, stet.Options{State: h.state, DenyRead: []string{"config/*.env"}})
	if err != nil {
		t.Fatal(err)
	}
	ws.Close()
	shipRedacted(t, f, h, Options{Host: "host_a"})
}

// TestLinkToDenyReadNeverRead: a changed file that is a symlink now, or
// lies under a directory that is one, is not followed into a file deny-read
// hides when the host reports whether the change stands: neither its bytes
// nor their size and line count (what a "changed since" line shows) leave.
func TestLinkToDenyReadNeverRead(t *testing.T) {
	f := newFleet(t)
	const secret = "TOKEN=hunter2-the-secret\nA=1\n"
	h := newHost(t, map[string]string{"config/prod.env": secret}, "config/*.env")
	h.write(t, "notes.txt", "public notes\n")
	h.write(t, "pub/prod.env", "PUBLIC=1\n")
	// Later the names are turned into links to the hidden file.
	if err := os.Remove(filepath.Join(h.root, "notes.txt")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join("config", "prod.env"), filepath.Join(h.root, "notes.txt")); err != nil {
		t.Skip("no symlinks here:", err)
	}
	if err := os.RemoveAll(filepath.Join(h.root, "pub")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink("config", filepath.Join(h.root, "pub")); err != nil {
		t.Fatal(err)
	}
	s, err := New(h.journal(t), Options{Host: "host_a", DenyRead: []string{"config/*.env"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Once(context.Background(), f.open(t, "host_a")); err != nil {
		t.Fatal(err)
	}
	noSecret(t, f)
	msgs := f.query(t, "SELECT message FROM stet.stands")
	if len(msgs) != 2 {
		t.Fatalf("sightings: %q, want one for each of the two changes", msgs)
	}
	for _, m := range msgs {
		if strings.Contains(m, fmt.Sprint(len(secret))) || !strings.Contains(m, "deny-read") {
			t.Errorf("a change whose name now leads to the hidden file is reported as %q: want it said that deny-read keeps it, without its size", m)
		}
	}
}

// shipRedacted ships h's journal to f with o once, and fails unless some
// line went redacted and no byte of the deny-read file reached f.
func shipRedacted(t *testing.T, f *fleet, h *host, o Options) Report {
	t.Helper()
	s, err := New(h.journal(t), o)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Once(context.Background(), f.open(t, "host_a"))
	if err != nil {
		t.Fatal(err)
	}
	if rep.Redacted == 0 {
		t.Fatal("nothing was redacted")
	}
	noSecret(t, f)
	return rep
}

// noSecret fails when the deny-read file's bytes of the tests above (its
// token, or the line an edit replaced) are in a line, a blob or a state
// sent of f's database.
func noSecret(t *testing.T, f *fleet) {
	t.Helper()
	for _, q := range []string{
		"SELECT convert_from(line, 'UTF8') FROM stet.records WHERE line IS NOT NULL",
		"SELECT convert_from(data, 'UTF8') FROM stet.blobs",
		"SELECT message FROM stet.stands",
	} {
		for _, v := range f.query(t, q) {
			if strings.Contains(v, "hunter2") || strings.Contains(v, "A=1") {
				t.Fatalf("%s: the deny-read file's bytes are in the database: %.300s", q, v)
			}
		}
	}
}

// TestFork: a local journal rewritten after it was shipped is refused,
// named, and nothing of it is added.
func TestFork(t *testing.T) {
	f := newFleet(t)
	h := newHost(t, map[string]string{"a.txt": "x\n"})
	h.edit(t, "a.txt", "x", "y")
	db := f.open(t, "host_a")
	s, _ := New(h.journal(t), Options{Host: "host_a"})
	if _, err := s.Once(context.Background(), db); err != nil {
		t.Fatal(err)
	}
	before := f.query(t, "SELECT count(*)::text FROM stet.records")[0]
	// Another journal in the same state directory's place.
	h.ws.Close()
	if err := os.RemoveAll(h.state); err != nil {
		t.Fatal(err)
	}
	other := reopen(t, h)
	other.edit(t, "a.txt", "y", "z")
	other.edit(t, "a.txt", "z", "w")
	s2, _ := New(other.journal(t), Options{Host: "host_a"})
	_, err := s2.Once(context.Background(), db)
	var fe *fleetdb.ForkError
	if !errors.As(err, &fe) {
		t.Fatalf("shipping a rewritten journal: %v, want a fork", err)
	}
	if !strings.Contains(err.Error(), "stet verify --all --journal") {
		t.Fatalf("the refusal names no next step: %v", err)
	}
	if after := f.query(t, "SELECT count(*)::text FROM stet.records")[0]; after != before {
		t.Fatalf("%s lines after the fork, %s before", after, before)
	}
}

// TestShipAfterCompaction: after stet gc rewrites the journal (a new
// generation that carries the kept records over), the next sync ships the
// new generation, and the records it carried from a generation already in
// the database are marked carried, so the review counts each change once;
// carried from a generation never shipped, they are the only copy and
// count.
func TestShipAfterCompaction(t *testing.T) {
	for _, shippedBefore := range []bool{true, false} {
		t.Run(fmt.Sprint("shipped before: ", shippedBefore), func(t *testing.T) {
			f := newFleet(t)
			var mu sync.Mutex
			clock := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
			now := func() time.Time { mu.Lock(); defer mu.Unlock(); return clock }
			files := map[string]string{"a.txt": "v0\n"}
			for i := range 20 {
				files[fmt.Sprintf("b%02d.txt", i)] = "b\n"
			}
			h := newHostWith(t, files, stet.Options{Now: now})
			// An older session's many lines, which gc drops: the new
			// generation's lines then come at seqs the old one had
			// already followed.
			old, err := h.ws.Session("older")
			if err != nil {
				t.Fatal(err)
			}
			for i := range 20 {
				if _, err := old.Read(context.Background(), stet.ReadArgs{Path: fmt.Sprintf("b%02d.txt", i)}); err != nil {
					t.Fatal(err)
				}
			}
			mu.Lock()
			clock = clock.Add(3 * time.Hour)
			mu.Unlock()
			h.edit(t, "a.txt", "v0", "v1")
			h.edit(t, "a.txt", "v1", "v2")
			s, err := New(h.journal(t), Options{Host: "host_a"})
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			db := f.open(t, "host_a")
			if shippedBefore {
				if _, err := s.Once(ctx, db); err != nil {
					t.Fatal(err)
				}
			}
			if _, err := h.ws.GC(time.Hour); err != nil {
				t.Fatal(err)
			}
			h.edit(t, "a.txt", "v2", "v3")
			if _, err := s.Once(ctx, db); err != nil {
				t.Fatal(err)
			}
			all := f.query(t, "SELECT receipt FROM stet.records WHERE type = 'receipt' ORDER BY generation, seq")
			counted := f.query(t, "SELECT receipt FROM stet.records WHERE type = 'receipt' AND NOT carried ORDER BY generation, seq")
			gens := f.query(t, "SELECT DISTINCT generation::text FROM stet.records ORDER BY 1")
			want := 2
			if shippedBefore {
				want = 4 // two receipts, shipped again as carried by generation 1
			}
			if len(gens) != 1+btoi(shippedBefore) || len(all) != want+1 {
				t.Fatalf("generations %q, receipts %q: want the compacted generation shipped beside what was there", gens, all)
			}
			if len(counted) != 3 || counted[0] == counted[1] || counted[1] == counted[2] || counted[0] == counted[2] {
				t.Fatalf("receipts the review counts: %q, want the three changes once each (all rows: %q)", counted, all)
			}
			// The same shipper follows the changes of the new generation:
			// the newest change stands, the two before it were changed.
			for i, want := range []string{"changed", "changed", "stands"} {
				if got := f.query(t, "SELECT state FROM stet.standing WHERE receipt = $1", counted[i]); len(got) != 1 || got[0] != want {
					t.Errorf("change %d (%s) is seen as %q, want %s", i+1, counted[i], got, want)
				}
			}
			// Exactly the carried-over lines are marked: not the
			// checkpoint before them, not the new line after them.
			v, err := h.journal(t).View()
			if err != nil {
				t.Fatal(err)
			}
			marked := f.query(t, "SELECT coalesce(min(seq), 0)::text || '-' || coalesce(max(seq), 0)::text || '/' || count(*)::text FROM stet.records WHERE carried")
			wantMarked := "0-0/0"
			if kept := v.Head().Kept; shippedBefore {
				wantMarked = fmt.Sprintf("2-%d/%d", kept+1, kept)
			}
			if marked[0] != wantMarked {
				t.Fatalf("carried rows (first-last/count) %s, want %s", marked[0], wantMarked)
			}
			vr, err := f.open(t, "reader").Verify(ctx)
			if err != nil || !vr.OK() {
				t.Fatalf("verify: %+v, %v", vr, err)
			}
		})
	}
}

func btoi(b bool) int {
	if b {
		return 1
	}
	return 0
}

// TestVerifyMissingBlob: a saved preimage a shipped line names, removed
// from the database behind the triggers' back, is named by verify.
func TestVerifyMissingBlob(t *testing.T) {
	f := newFleet(t)
	h := newHost(t, map[string]string{"a.txt": "the old bytes\n"})
	if _, err := h.s.Read(context.Background(), stet.ReadArgs{Path: "a.txt"}); err != nil {
		t.Fatal(err)
	}
	h.write(t, "a.txt", "new bytes\n") // the old bytes are kept: a blob
	s, err := New(h.journal(t), Options{Host: "host_a"})
	if err != nil {
		t.Fatal(err)
	}
	rep, err := s.Once(context.Background(), f.open(t, "host_a"))
	if err != nil || rep.Blobs == 0 {
		t.Fatalf("ship: %+v, %v; want the old bytes' blob sent", rep, err)
	}
	blob := f.query(t, "SELECT hash FROM stet.blobs WHERE convert_from(data, 'UTF8') = 'the old bytes\n'")
	if len(blob) != 1 {
		t.Fatalf("the old bytes' blob: %q", blob)
	}
	reader := f.open(t, "reader")
	if vr, err := reader.Verify(context.Background()); err != nil || !vr.OK() || len(vr.Warnings) != 0 {
		t.Fatalf("before: %+v, %v", vr, err)
	}
	pgtest.Exec(t, f.admin, "SET session_replication_role = replica; DELETE FROM stet.blobs WHERE hash = '"+blob[0]+"'")
	vr, err := reader.Verify(context.Background())
	if err != nil || len(vr.Warnings) != 1 || vr.Warnings[0].Blob != blob[0] || !strings.Contains(vr.Warnings[0].Msg, "not in the database") {
		t.Fatalf("after the blob was removed: %+v, %v; want it named", vr, err)
	}
}
