package journal_test

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// FuzzOpenDamaged opens a state directory whose log, lock file and index of
// session "s" hold arbitrary bytes. Reading and verifying must not fail or panic, and an
// append must still land as a complete line chained to the last complete
// line, leaving every complete line before it untouched.
func FuzzOpenDamaged(f *testing.F) {
	valid := func(recs ...journal.Record) []byte {
		dir := f.TempDir()
		j, err := journal.Open(dir, journal.Options{NoSync: true, Now: clock()})
		if err != nil {
			f.Fatal(err)
		}
		if _, err := j.Append(recs...); err != nil {
			f.Fatal(err)
		}
		j.Close()
		b, err := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
		if err != nil {
			f.Fatal(err)
		}
		return b
	}
	good := valid(journal.Record{Type: "a", Session: "s"}, journal.Record{Type: "b"}, journal.Record{Type: "c", Session: "s", Data: data([]int{1, 2})})
	wm := func(n int) []byte { return fmt.Appendf(nil, "index %020d\n", n) }
	f.Add([]byte{}, []byte{}, []byte{})
	f.Add(good, []byte{}, []byte(nil))
	f.Add(good, wm(len(good)), []byte(nil))
	f.Add(good, wm(len(good)-7), []byte(nil))
	f.Add(good, wm(1<<40), []byte(nil))
	f.Add(append(bytes.Clone(good), `{"seq":4,"pr`...), wm(len(good)), []byte(nil))
	f.Add([]byte("garbage\n\n{}\n"), []byte("index -0000000000000001\n"), []byte(nil))
	f.Add([]byte(`{"seq":9223372036854775807,"session":"s","type":"x"}`+"\n"), []byte("junk"), []byte(nil))
	f.Add([]byte(`{"seq":5,"session":"s","type":"x"}`+"\nnot json\n"), wm(0), []byte(nil))
	f.Add(good, wm(0), []byte(`{"seq":3,"session":"s","type":"c"}`+"\n"+`{"seq":1,"session":"s","type":"a"}`+"\n"))
	f.Add(good, wm(len(good)), []byte(`{"seq":1,"session":"t"}`+"\n{"))
	f.Add([]byte(strings.Repeat("x", 20000)+"\n"+strings.Repeat("y", 20000)), []byte{}, []byte(nil))

	f.Fuzz(func(t *testing.T, log, lock, index []byte) {
		dir := t.TempDir()
		if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), log, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "journal.lock"), lock, 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(dir, "sessions"), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(indexFile(dir, "s"), index, 0o600); err != nil {
			t.Fatal(err)
		}
		j, err := journal.Open(dir, journal.Options{NoSync: true, Now: clock()})
		if err != nil {
			t.Fatal(err)
		}
		defer j.Close()
		j.Scan(func(journal.Record) error { return nil })
		j.Session("s", func(journal.Record) error { return nil })
		if _, err := j.Verify(); err != nil {
			t.Fatal(err)
		}

		out, err := j.Append(journal.Record{Type: "fuzz", Session: "s"})
		if err != nil {
			t.Fatal(err)
		}
		after, err := os.ReadFile(filepath.Join(dir, "journal.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		complete := log[:bytes.LastIndexByte(log, '\n')+1]
		if !bytes.HasPrefix(after, complete) {
			t.Fatal("append changed complete lines")
		}
		added := after[len(complete):]
		if len(added) == 0 || added[len(added)-1] != '\n' || bytes.Count(added, []byte("\n")) != 1 {
			t.Fatalf("append added %q, want one complete line", added)
		}
		wantPrev := ""
		if len(complete) > 0 {
			prevLine := complete[:len(complete)-1]
			prevLine = prevLine[bytes.LastIndexByte(prevLine, '\n')+1:]
			sum := sha256.Sum256(prevLine)
			wantPrev = "sha256:" + hex.EncodeToString(sum[:])
		}
		if out[0].Prev != wantPrev {
			t.Errorf("prev = %s, want %s", out[0].Prev, wantPrev)
		}
		rep, err := j.Verify()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range rep.Problems {
			if p.Line == int64(rep.Lines) && strings.Contains(p.Msg, "prev") {
				t.Errorf("the appended line does not chain: %v", p)
			}
		}
	})
}
