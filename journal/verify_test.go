package journal_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// tamperFixture is a journal of 10 records: odd seqs in session "a", even
// seqs in session "b", except 3 and 7, which belong to no session.
func tamperFixture(t *testing.T) (dir string, j *journal.Journal) {
	t.Helper()
	dir = t.TempDir()
	j = open(t, dir)
	for seq := 1; seq <= 10; seq++ {
		r := journal.Record{Type: "turn", Data: data(seq)}
		switch {
		case seq == 3 || seq == 7:
		case seq%2 == 1:
			r.Session = "a"
		default:
			r.Session = "b"
		}
		mustAppend(t, j, r)
	}
	mustVerifyOK(t, j)
	return dir, j
}

// TestVerifyNamesDamage changes the files by hand and checks that Verify
// names each damaged line, and only those.
func TestVerifyNamesDamage(t *testing.T) {
	tests := []struct {
		name   string
		tamper func(t *testing.T, dir string)
		lines  []int64  // the lines Problems must name (0: a problem about no single line)
		words  []string // each must appear in some Problem's message
	}{
		{
			name: "line changed",
			tamper: func(t *testing.T, dir string) {
				lines := logLines(t, dir)
				lines[4] = strings.Replace(lines[4], `"type":"turn"`, `"type":"tern"`, 1)
				writeLines(t, dir, lines)
			},
			// Line 5 differs from its index copy; line 6 no longer chains to it.
			lines: []int64{5, 6},
			words: []string{"line 5", "changed"},
		},
		{
			name: "line outside any session changed, to another length",
			tamper: func(t *testing.T, dir string) {
				lines := logLines(t, dir)
				lines[2] = strings.Replace(lines[2], `"type":"turn"`, `"type":"a much longer type"`, 1)
				writeLines(t, dir, lines)
			},
			lines: []int64{4},
			words: []string{"the hash of line 3: line 3 was changed"},
		},
		{
			name: "line removed",
			tamper: func(t *testing.T, dir string) {
				lines := logLines(t, dir)
				writeLines(t, dir, slices.Delete(lines, 4, 5))
			},
			// The new line 5 follows seq 4; seq 5's index copy has no line.
			lines: []int64{0, 5},
			words: []string{"seq 6 follows seq 4", "seq 5 is in no line of journal.jsonl"},
		},
		{
			name: "first line removed",
			tamper: func(t *testing.T, dir string) {
				writeLines(t, dir, logLines(t, dir)[1:])
			},
			lines: []int64{0, 1},
			words: []string{"first line"},
		},
		{
			name: "lines swapped",
			tamper: func(t *testing.T, dir string) {
				lines := logLines(t, dir)
				lines[3], lines[4] = lines[4], lines[3]
				writeLines(t, dir, lines)
			},
			lines: []int64{4, 5, 6},
			words: []string{"seq 5 follows seq 3", "seq 4 follows seq 5"},
		},
		{
			name: "line replaced by garbage",
			tamper: func(t *testing.T, dir string) {
				lines := logLines(t, dir)
				lines[7] = "not json"
				writeLines(t, dir, lines)
			},
			lines: []int64{0, 8, 9},
			words: []string{"line 8: not a record", "seq 8 is in no line"},
		},
		{
			name: "index copy changed",
			tamper: func(t *testing.T, dir string) {
				replaceInFile(t, indexFile(dir, "b"), `"data":4`, `"data":5`)
			},
			lines: []int64{4},
			words: []string{"copy of seq 4 differs from line 4"},
		},
		{
			name: "index copy removed",
			tamper: func(t *testing.T, dir string) {
				replaceInFile(t, indexFile(dir, "b"), `"data":4`, `"data":"x"`) // locate it
				b, _ := os.ReadFile(indexFile(dir, "b"))
				var keep []string
				for l := range strings.Lines(string(b)) {
					if !strings.Contains(l, `"data":"x"`) {
						keep = append(keep, l)
					}
				}
				os.WriteFile(indexFile(dir, "b"), []byte(strings.Join(keep, "")), 0o600)
			},
			lines: []int64{4},
			words: []string{"missing from its session index"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir, j := tamperFixture(t)
			tt.tamper(t, dir)
			rep, err := j.Verify()
			if err != nil {
				t.Fatal(err)
			}
			if rep.OK() {
				t.Fatal("Verify found no damage")
			}
			var got []int64
			var msgs []string
			for _, p := range rep.Problems {
				if !slices.Contains(got, p.Line) {
					got = append(got, p.Line)
				}
				msgs = append(msgs, p.String())
			}
			slices.Sort(got)
			if !slices.Equal(got, tt.lines) {
				t.Errorf("Problems name lines %v, want %v:\n%s", got, tt.lines, strings.Join(msgs, "\n"))
			}
			all := strings.Join(msgs, "\n")
			for _, w := range tt.words {
				if !strings.Contains(all, w) {
					t.Errorf("no Problem says %q:\n%s", w, all)
				}
			}
			// The journal stays usable, and what was damaged stays reported.
			if _, err := j.Append(journal.Record{Type: "after"}); err != nil {
				t.Fatal(err)
			}
			if rep2, err := j.Verify(); err != nil || rep2.OK() {
				t.Errorf("after another append, Verify = %v, %v", rep2.Problems, err)
			}
		})
	}
}

func TestVerifyNamesAlteredBlob(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	keep, err := j.Put([]byte("kept as it was\n"))
	if err != nil {
		t.Fatal(err)
	}
	bad, err := j.Put([]byte("the user's file, before\n"))
	if err != nil {
		t.Fatal(err)
	}
	rewriteBlob(t, dir, bad, []byte("something else entirely\n"))

	rep, err := j.Verify()
	if err != nil {
		t.Fatal(err)
	}
	if rep.Blobs != 2 || len(rep.Problems) != 1 || rep.Problems[0].Blob != bad {
		t.Fatalf("Verify = %+v, want one problem naming blob %s", rep, bad)
	}
	if _, err := j.Get(bad); !errors.Is(err, journal.ErrCorrupt) {
		t.Errorf("Get of the altered blob: %v, want ErrCorrupt", err)
	}
	if _, err := j.Get(keep); err != nil {
		t.Errorf("Get of the intact blob: %v", err)
	}
}

func TestTornLastLine(t *testing.T) {
	dir := t.TempDir()
	j := open(t, dir)
	for i := range 5 {
		mustAppend(t, j, journal.Record{Type: "turn", Session: "s", Data: data(i)})
	}
	mustFlush(t, j)
	appendFile(t, filepath.Join(dir, "journal.jsonl"), `{"seq":6,"prev":"sha256:0123`)
	appendFile(t, indexFile(dir, "s"), `{"seq":6,"pr`) // the crash hit both files

	if got := scanAll(t, j); len(got) != 5 {
		t.Errorf("Scan returned %d records, want the 5 complete ones", len(got))
	}
	if got := sessionAll(t, j, "s"); len(got) != 5 {
		t.Errorf("Session returned %d records, want 5", len(got))
	}
	rep := mustVerifyOK(t, j)
	if rep.Lines != 5 || len(rep.Warnings) == 0 || !strings.Contains(rep.Warnings[0].Msg, "torn") {
		t.Errorf("Verify = %+v, want 5 lines and a torn-line warning", rep)
	}

	out := mustAppend(t, j, journal.Record{Type: "turn", Session: "s", Data: data(5)})
	if out[0].Seq != 6 {
		t.Errorf("append after a torn line got seq %d, want 6", out[0].Seq)
	}
	rep = mustVerifyOK(t, j)
	if rep.Lines != 6 || len(rep.Warnings) != 0 {
		t.Errorf("after the append, Verify = %+v, want 6 lines and no warnings", rep)
	}
	got := sessionAll(t, j, "s")
	if len(got) != 6 || string(got[5].Data) != "5" {
		t.Errorf("Session after repair = %v", got)
	}
}

// rewriteBlob replaces a stored blob's bytes by hand.
func rewriteBlob(t *testing.T, dir, version string, content []byte) {
	t.Helper()
	h := strings.TrimPrefix(version, "sha256:")
	name := filepath.Join(dir, "objects", h[:2], h[2:])
	if err := os.Chmod(name, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(name, content, 0o600); err != nil {
		t.Fatal(err)
	}
}
