package fleetdb

import (
	"context"
	"errors"
	"strings"
	"sync"
	"testing"
)

// TestPutOnce: the same lines put twice, and by two shippers at once, are
// stored once; the session's counts follow the rows, not the attempts.
func TestPutOnce(t *testing.T) {
	f := newFleet(t, SchemaVersion)
	ctx := context.Background()
	rows := journalLines(t, "s1", 40)
	var wg sync.WaitGroup
	errs := make([]error, 4)
	for i := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			db := openDB(t, f.url("host_a"))
			j, err := db.Register(ctx, "laptop", "/state", "ws1", []string{"/w"})
			if err != nil {
				errs[i] = err
				return
			}
			for k := 0; k < len(rows); k += 7 {
				if _, err := db.Put(ctx, j.ID, 0, nil, rows[k:min(k+7, len(rows))]); err != nil {
					errs[i] = err
					return
				}
			}
		}()
	}
	wg.Wait()
	for _, err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	if n := count(t, f.admin, "SELECT count(*) FROM stet.records"); n != int64(len(rows)) {
		t.Fatalf("%d rows stored for %d lines", n, len(rows))
	}
	if n := count(t, f.admin, "SELECT count(*) FROM stet.journals"); n != 1 {
		t.Fatalf("%d journals registered by four shippers of one", n)
	}
	if n := count(t, f.admin, "SELECT receipts FROM stet.sessions WHERE session = 's1'"); n != 40 {
		t.Fatalf("session s1 counts %d receipts, want 40", n)
	}
	if n := count(t, f.admin, "SELECT refusals FROM stet.sessions WHERE session = 's1'"); n != 10 {
		t.Fatalf("session s1 counts %d refusals, want 10", n)
	}
}

// TestPutFork: a line that differs from the stored one at its seq is a
// fork, and a line whose predecessor is missing is a gap; neither stored.
func TestPutFork(t *testing.T) {
	f := newFleet(t, SchemaVersion)
	ctx := context.Background()
	db := openDB(t, f.url("host_a"))
	j, err := db.Register(ctx, "laptop", "/state", "ws1", nil)
	if err != nil {
		t.Fatal(err)
	}
	rows := journalLines(t, "s1", 6)
	if _, err := db.Put(ctx, j.ID, 0, nil, rows[:4]); err != nil {
		t.Fatal(err)
	}
	other := journalLines(t, "s2", 6) // another journal's lines: same seqs, other bytes
	_, err = db.Put(ctx, j.ID, 0, nil, other[2:5])
	var fe *ForkError
	if !errors.As(err, &fe) || fe.Seq != 3 {
		t.Fatalf("putting another line at seq 3: %v, want a fork at seq 3", err)
	}
	if _, err := db.Put(ctx, j.ID, 0, nil, rows[5:]); err == nil || !strings.Contains(err.Error(), "a gap") {
		t.Fatalf("putting seq %d after seq 4: %v, want a gap refused", rows[5].Seq, err)
	}
	if n := count(t, f.admin, "SELECT count(*) FROM stet.records"); n != 4 {
		t.Fatalf("%d rows stored, want the 4 of the first put", n)
	}
}

// TestBlobHash: a blob is stored only under its content's hash.
func TestBlobHash(t *testing.T) {
	f := newFleet(t, SchemaVersion)
	ctx := context.Background()
	db := openDB(t, f.url("host_a"))
	j, _ := db.Register(ctx, "laptop", "/state", "ws1", nil)
	bad := Blob{Hash: "sha256:" + strings.Repeat("0", 64), Data: []byte("hello")}
	if _, err := db.Put(ctx, j.ID, 0, []Blob{bad}, nil); err == nil {
		t.Fatal("a blob stored under another content's hash")
	}
}
