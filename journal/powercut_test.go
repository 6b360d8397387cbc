package journal_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// powerCuts records, at every fsync a journal asks for, the state a power
// cut just before it could leave: each file as it is now (the kernel may
// have written back any page), except journal.jsonl, which holds only what
// its last sync made durable. That is the worst case for a derived file:
// everything written to it survives, while the log loses its unsynced
// lines.
type powerCuts struct {
	t      *testing.T
	dir    string
	mu     sync.Mutex
	logNow []byte   // journal.jsonl as its last sync left it
	images []string // state directories, one per cut
}

func (p *powerCuts) onSync(name string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.images = append(p.images, p.cut())
	if name == "journal.jsonl" {
		b, err := os.ReadFile(filepath.Join(p.dir, "journal.jsonl"))
		if err != nil {
			p.t.Error(err)
		}
		p.logNow = b // what this sync makes durable
	}
}

// cut copies the state directory as a power cut now could leave it.
func (p *powerCuts) cut() string {
	img := p.t.TempDir()
	err := filepath.WalkDir(p.dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(p.dir, path)
		to := filepath.Join(img, rel)
		if d.IsDir() {
			return os.MkdirAll(to, 0o700)
		}
		if rel == "journal.jsonl" {
			return os.WriteFile(to, p.logNow, 0o600)
		}
		b, err := os.ReadFile(path)
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		return os.WriteFile(to, b, 0o600)
	})
	if err != nil {
		p.t.Fatal(err)
	}
	return img
}

// A power cut at any fsync of a run of lazy and durable appends, with the
// background flush run between them (and at the end, before Close), leaves a state directory whose session indexes
// hold no line the log lost: every session reads without error, records
// appended after the restart (which reuse the lost lines' seqs) are read
// back, and Verify finds nothing wrong. An index line written before the
// sync of the log line it copies would survive the cut as a line past the
// log's end, and the session would fail to read for good.
func TestPowerCutLeavesNoIndexLineTheLogLost(t *testing.T) {
	dir := t.TempDir()
	cuts := &powerCuts{t: t, dir: dir}
	j, err := journal.Open(dir, journal.Options{Now: clock(), OnSync: cuts.onSync})
	if err != nil {
		t.Fatal(err)
	}
	sessions := []string{"s1", "s2", "stet:intents"}
	for i := range 6 {
		for k, s := range sessions {
			rec := journal.Record{Type: "step", Session: s, Data: data(map[string]int{"i": i, "k": k})}
			if (i+k)%2 == 0 {
				_, err = j.AppendLazy(rec)
			} else {
				_, err = j.AppendThen(func() {}, rec)
			}
			if err != nil {
				t.Fatal(err)
			}
			// What the background flush does between appends.
			if err := journal.FlushSynced(j); err != nil {
				t.Fatal(err)
			}
		}
	}
	cuts.mu.Lock()
	cuts.images = append(cuts.images, cuts.cut())
	cuts.mu.Unlock()
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	cuts.mu.Lock()
	images := cuts.images
	cuts.mu.Unlock()
	if len(images) < 6 {
		t.Fatalf("only %d cuts: the run fsynced less than expected", len(images))
	}
	for n, img := range images {
		checkAfterCut(t, n, img, sessions)
	}
}

// checkAfterCut opens the state directory a cut left and checks it.
func checkAfterCut(t *testing.T, n int, img string, sessions []string) {
	t.Helper()
	j, err := journal.Open(img, journal.Options{Now: clock()})
	if err != nil {
		t.Fatalf("cut %d: %v", n, err)
	}
	defer j.Close()
	for _, s := range sessions {
		if err := j.Session(s, func(journal.Record) error { return nil }); err != nil {
			t.Errorf("cut %d: Session(%s) after the restart: %v", n, s, err)
		}
		if _, err := j.Append(journal.Record{Type: "after", Session: s}); err != nil {
			t.Fatalf("cut %d: %v", n, err)
		}
	}
	inLog := map[int64]string{}
	for _, r := range scanAll(t, j) {
		inLog[r.Seq] = r.Session
	}
	for _, s := range sessions {
		var got []journal.Record
		err := j.Session(s, func(r journal.Record) error { got = append(got, r); return nil })
		if err != nil {
			t.Errorf("cut %d: Session(%s) after appending past the cut: %v", n, s, err)
			continue
		}
		if len(got) == 0 || got[len(got)-1].Type != "after" {
			t.Errorf("cut %d: Session(%s) does not end with the record appended after the restart", n, s)
		}
		for _, r := range got {
			if inLog[r.Seq] != s {
				t.Errorf("cut %d: Session(%s) returned seq %d, which the log gives to %q", n, s, r.Seq, inLog[r.Seq])
			}
		}
	}
	rep, err := j.Verify()
	if err != nil {
		t.Fatalf("cut %d: %v", n, err)
	}
	if !rep.OK() {
		t.Errorf("cut %d: Verify: %v", n, rep.Problems)
	}
}

// The same when another handle completes the index from the log: lines a
// handle appended lazily (not synced) are copied into the index only after
// the completing handle synced the log.
func TestPowerCutWhileAnotherHandleCompletes(t *testing.T) {
	dir := t.TempDir()
	cuts := &powerCuts{t: t, dir: dir}
	a, err := journal.Open(dir, journal.Options{Now: clock(), OnSync: cuts.onSync})
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := journal.Open(dir, journal.Options{Now: clock(), OnSync: cuts.onSync})
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	sessions := []string{"s1", "s2"}
	for i := range 3 {
		for _, s := range sessions {
			if _, err := a.AppendLazy(journal.Record{Type: "step", Session: s, Data: data(i)}); err != nil {
				t.Fatal(err)
			}
		}
	}
	if _, err := b.Verify(); err != nil { // completes the index from the log
		t.Fatal(err)
	}
	cuts.mu.Lock()
	images := cuts.images
	cuts.mu.Unlock()
	if len(images) < 2 {
		t.Fatalf("only %d cuts: completing the index fsynced less than expected", len(images))
	}
	for n, img := range images {
		checkAfterCut(t, n, img, sessions)
	}
}
