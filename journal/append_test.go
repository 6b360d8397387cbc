package journal_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// A damaged log stays appendable, and Append numbers the new record after
// the last one: its seq when the last line is a record, else the count of
// lines. It never removes a complete line, damaged or not.
func TestAppendAfterDamage(t *testing.T) {
	tests := []struct {
		name    string
		tamper  func(lines []string) []string
		wantSeq int64
	}{
		{
			name:    "a line removed from the middle",
			tamper:  func(lines []string) []string { return slices.Delete(lines, 1, 2) },
			wantSeq: 4, // after seq 3, though only 2 lines remain
		},
		{
			name:    "last line not a record",
			tamper:  func(lines []string) []string { return append(lines, "not a record") },
			wantSeq: 5,
		},
		{
			name:    "last line a record without a seq",
			tamper:  func(lines []string) []string { return append(lines, `{"type":"note"}`) },
			wantSeq: 5,
		},
		{
			name:    "last line with seq 0",
			tamper:  func(lines []string) []string { return append(lines, `{"seq":0,"type":"note"}`) },
			wantSeq: 5,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dir := t.TempDir()
			j := open(t, dir)
			mustAppend(t, j, journal.Record{Type: "a"}, journal.Record{Type: "b"}, journal.Record{Type: "c"})
			damaged := tt.tamper(logLines(t, dir))
			writeLines(t, dir, damaged)
			out := mustAppend(t, j, journal.Record{Type: "after"})
			if out[0].Seq != tt.wantSeq {
				t.Errorf("Append after the damage got seq %d, want %d", out[0].Seq, tt.wantSeq)
			}
			if got := logLines(t, dir); !slices.Equal(got[:len(got)-1], damaged) {
				t.Errorf("Append changed the lines before it:\n%q\nwant\n%q", got[:len(got)-1], damaged)
			}
		})
	}
}

// A log whose only line is empty is damage: Verify reports it, and Append
// keeps it and writes after it.
func TestLogOfAnEmptyLine(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "journal.jsonl"), []byte("\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	j := open(t, dir)
	var rep journal.Report
	err := within(t, func() (err error) {
		rep, err = j.Verify()
		return err
	})
	if err != nil || rep.Lines != 1 || !hasProblemAt(rep, 1) {
		t.Errorf("Verify = %+v, %v; want 1 line, a problem at line 1", rep, err)
	}
	var out []journal.Record
	err = within(t, func() (err error) {
		out, err = j.Append(journal.Record{Type: "a"})
		return err
	})
	if err != nil || len(out) != 1 || out[0].Seq != 2 {
		t.Fatalf("Append = %+v, %v; want seq 2", out, err)
	}
	if lines := logLines(t, dir); len(lines) != 2 || lines[0] != "" {
		t.Errorf("log after Append = %q, want the empty line kept", lines)
	}
}
