package journal

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"
)

// TestAppendLineIsEncodingJSON: appendLine writes a record's line byte for
// byte as the encoding/json encoder of encode does, or leaves it to that
// encoder (writing nothing) where it would differ: strings JSON escapes,
// times past RFC 3339, Data that is not JSON.
func TestAppendLineIsEncodingJSON(t *testing.T) {
	at := time.Date(2026, 12, 6, 7, 2, 3, 123456789, time.UTC)
	full := Record{Seq: 42, Prev: "sha256:00ff", Time: at, Type: "observe", Session: "s1", Path: "0:a/b.go",
		Data: json.RawMessage(`{"version":"sha256:ab","seen":[1,2],"size":3,"lines":1}`)}
	// Every field of full is set, so that a field added to Record is
	// either written by appendLine or fails here.
	v := reflect.ValueOf(full)
	for i := range v.NumField() {
		if v.Field(i).IsZero() {
			t.Fatalf("the full record leaves Record.%s zero: set it, and write it in appendLine", v.Type().Field(i).Name)
		}
	}
	with := func(f func(*Record)) Record {
		r := full
		f(&r)
		return r
	}
	cases := map[string]struct {
		r     Record
		plain bool // appendLine writes it
	}{
		"full":              {full, true},
		"first":             {with(func(r *Record) { r.Seq, r.Prev = 1, "" }), true},
		"no session":        {with(func(r *Record) { r.Session = "" }), true},
		"no path":           {with(func(r *Record) { r.Path = "" }), true},
		"no data":           {with(func(r *Record) { r.Data = nil }), true},
		"empty data":        {with(func(r *Record) { r.Data = json.RawMessage{} }), true},
		"null data":         {with(func(r *Record) { r.Data = json.RawMessage(`null`) }), true},
		"spaced data":       {with(func(r *Record) { r.Data = json.RawMessage(" { \"a\" : [ 1 , \"x y\" ] }\n") }), true},
		"html in data":      {with(func(r *Record) { r.Data = json.RawMessage(`{"a":"<&>"}`) }), true},
		"whole second":      {with(func(r *Record) { r.Time = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC) }), true},
		"year 0":            {with(func(r *Record) { r.Time = time.Date(0, 1, 1, 0, 0, 0, 0, time.UTC) }), true},
		"html in path":      {with(func(r *Record) { r.Path = "0:a<b>&c.go" }), true},
		"space in path":     {with(func(r *Record) { r.Path = "0:a b/~c.go" }), true},
		"quote in path":     {with(func(r *Record) { r.Path = `0:a"b.go` }), false},
		"backslash in path": {with(func(r *Record) { r.Path = `0:a\b.go` }), false},
		"newline in path":   {with(func(r *Record) { r.Path = "0:a\nb.go" }), false},
		"tab in session":    {with(func(r *Record) { r.Session = "a\tb" }), false},
		"del in type":       {with(func(r *Record) { r.Type = "a\x7fb" }), false},
		"utf-8 in path":     {with(func(r *Record) { r.Path = "0:é.go" }), false},
		"u+2028 in path":    {with(func(r *Record) { r.Path = "0:a\u2028.go" }), false},
		"invalid utf-8":     {with(func(r *Record) { r.Path = "0:a\xff.go" }), false},
		"year 10000":        {with(func(r *Record) { r.Time = time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC) }), false},
		"year -1":           {with(func(r *Record) { r.Time = time.Date(-1, 1, 1, 0, 0, 0, 0, time.UTC) }), false},
		"invalid data":      {with(func(r *Record) { r.Data = json.RawMessage(`{"a":`) }), false},
	}
	for name, c := range cases {
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		encErr := enc.Encode(c.r)
		var got bytes.Buffer
		got.WriteString("before\n")
		wrote := appendLine(&got, &c.r)
		if wrote != c.plain {
			t.Errorf("%s: appendLine wrote it: %v, want %v", name, wrote, c.plain)
		}
		if !wrote {
			if got.String() != "before\n" {
				t.Errorf("%s: appendLine declined but wrote %q", name, got.String())
			}
			continue
		}
		if encErr != nil {
			t.Errorf("%s: appendLine wrote what encoding/json refuses: %v", name, encErr)
			continue
		}
		if line := got.String()[len("before\n"):]; line != want.String() {
			t.Errorf("%s: appendLine wrote\n%s encoding/json\n%s", name, line, want.String())
		}
	}
}

// TestEncodeLeavesRecordsAlone: encode fills Seq, Prev and Time in the
// records it returns, not in the caller's.
func TestEncodeLeavesRecordsAlone(t *testing.T) {
	j := &Journal{now: time.Now}
	recs := []Record{{Type: "a", Session: "s"}, {Type: "b", Path: "0:x\n"}}
	buf, out, bySession, err := j.encode(recs, 7, "sha256:00")
	if err != nil {
		t.Fatal(err)
	}
	if recs[0].Seq != 0 || recs[0].Prev != "" || !recs[0].Time.IsZero() || recs[1].Seq != 0 {
		t.Fatalf("encode changed the caller's records: %+v", recs)
	}
	if out[0].Seq != 8 || out[1].Seq != 9 || out[1].Prev != hashName(bytes.Split(buf.Bytes(), []byte("\n"))[0]) || out[1].Path != "0:x\n" {
		t.Fatalf("records as written: %+v", out)
	}
	if l := bySession["s"]; len(l) != 1 || l[0].seq != 8 || !bytes.HasPrefix(buf.Bytes(), append(l[0].line, '\n')) {
		t.Fatalf("index lines %v of log %q", l, buf.Bytes())
	}
}
