package stet_test

import (
	"fmt"
	"testing"

	"github.com/stet-dev/stet"
)

// TestGrepObservationsSurviveReopen: every file a grep showed rows of
// counts as seen in a new process of the session, the files of the last,
// partial batch of records as well as those of the full ones appended
// while the search went on.
func TestGrepObservationsSurviveReopen(t *testing.T) {
	files := map[string]string{}
	const n = 600 // two full batches of records and part of a third
	for i := range n {
		files[fmt.Sprintf("d%d/f%03d.txt", i%7, i)] = "a needle\nplain\n"
	}
	ws, s, root := open(t, files, stet.Options{})
	res, err := s.Grep(ctx, stet.GrepArgs{Pattern: "needle", Limit: 1000})
	if err != nil || len(res.Matches) != n {
		t.Fatalf("grep: %d rows, %v", len(res.Matches), err)
	}
	state := ws.StateDir()
	ws.Close()
	ws2, err := stet.Open([]string{root}, stet.Options{State: state})
	if err != nil {
		t.Fatal(err)
	}
	defer ws2.Close()
	s2, _ := ws2.Session("test")
	for _, m := range []stet.GrepMatch{res.Matches[0], res.Matches[n/2], res.Matches[n-1]} {
		if _, err := s2.Edit(ctx, stet.EditArgs{Path: m.Path, OldString: ptr("a needle"), NewString: ptr("A needle")}); err != nil {
			t.Errorf("edit of %s, shown by grep, in a new process: %v", m.Path, err)
		}
	}
}
