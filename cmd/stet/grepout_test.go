package main

import (
	"bufio"
	"io"
	"testing"
	"time"

	"github.com/stet-dev/stet"
)

// TestGrepOutWritesWithoutMoreRows: rows that do not fill the buffer are
// written by themselves, with no later rows and no end of the search to
// push them out, so that a reader sees a slow search's first rows.
func TestGrepOutWritesWithoutMoreRows(t *testing.T) {
	pr, pw := io.Pipe()
	g := newGrepOut(pw)
	part := &stet.GrepResult{Matches: []stet.GrepMatch{{Path: "a.txt", Line: 3, Text: "a needle"}}}
	if n, err := g.rows(part, false); n != 1 || err != nil {
		t.Fatalf("rows: %d, %v", n, err)
	}
	line := make(chan string, 1)
	go func() {
		s, _ := bufio.NewReader(pr).ReadString('\n')
		line <- s
	}()
	select {
	case s := <-line:
		if s != "a.txt:3:a needle\n" {
			t.Errorf("the reader got %q", s)
		}
	case <-time.After(30 * time.Second): // a hang guard, not a measure
		t.Fatal("a row left in the buffer was never written")
	}
	g.done()
	pw.Close()
}

// TestGrepOutStopsOnFailedWrite: once a write has failed (the reader went
// away), the next rows report it, so that the search stops.
func TestGrepOutStopsOnFailedWrite(t *testing.T) {
	pr, pw := io.Pipe()
	pr.Close()
	g := newGrepOut(pw)
	part := &stet.GrepResult{Matches: []stet.GrepMatch{{Path: "a.txt", Line: 1, Text: "x"}}}
	g.rows(part, false)
	if err := g.flush(); err == nil {
		t.Fatal("flush to a closed pipe: no error")
	}
	if _, err := g.rows(part, false); err == nil {
		t.Error("rows after a failed write: no error")
	}
	g.done()
}
