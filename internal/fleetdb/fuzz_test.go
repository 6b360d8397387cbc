package fleetdb

import (
	"bytes"
	"testing"

	"github.com/stet-dev/stet/journal"
)

// FuzzRowOf: any line, well-formed or not, is read without a panic; a
// line read as a row keeps its exact bytes, reads the same twice, and
// names its paths and blobs without a panic.
func FuzzRowOf(f *testing.F) {
	f.Add([]byte(`{"seq":4,"prev":"sha256:aa","time":"2026-01-02T03:04:05Z","type":"receipt","session":"s1","path":"0:a.go","data":{"receipt":{"id":"r_1","tool":"edit","path":"a.go","verified":true},"pre":"sha256:bb","old":["x"]}}`))
	f.Add([]byte(`{"seq":1,"prev":"","time":"2026-01-02T03:04:05Z","type":"undo","session":"review","data":{"by":"r_2","receipt":"r_1"}}`))
	f.Add([]byte(`{"seq":2,"prev":"","time":"2026-01-02T03:04:05Z","type":"intent","session":"stet:intents","data":{"id":"r","files":[{"key":"0:a","data":{"receipt":{"path":"a"},"pre":"sha256:cc"}}]}}`))
	f.Add([]byte(`{"seq":3,"type":"snapshot","data":{"files":{"0:a":{"version":"v"}},"created":["b"]}}`))
	f.Add([]byte(`{"seq":3,"type":"refusal","data":{"kind":"not_read","tool":"edit","path":"p","message":"m"}}`))
	f.Add([]byte(`not json`))
	f.Fuzz(func(t *testing.T, line []byte) {
		l := journal.Line{Seq: 1, Hash: journal.HashLine(line), Bytes: line}
		row, err := RowOf(l)
		Paths(line)
		Blobs(line)
		if err != nil {
			return
		}
		if !bytes.Equal(row.Line, line) {
			t.Fatal("the row does not keep the line's bytes")
		}
		again, err := RowOf(l)
		if err != nil || again.differs(row) != "" {
			t.Fatalf("read twice: %v, %s differs", err, again.differs(row))
		}
	})
}
