package journal

import (
	"bytes"
	"encoding/json"
	"strconv"
	"time"
)

// appendLine writes r's line and its "\n" to buf, byte for byte as
// encode's encoding/json encoder writes it, without reflection: a grep
// appends a record per matching file, thousands a call, and the encoder's
// reflection was most of their cost. It reports false, having written
// nothing, when r holds what it leaves to encoding/json: a string with a
// byte that JSON escapes or that is not ASCII, a time that is not
// RFC 3339 (a year past 9999), Data that is not valid JSON (whose error
// the encoder then reports). TestAppendLineIsEncodingJSON holds it to the
// encoder, field by field.
func appendLine(buf *bytes.Buffer, r *Record) bool {
	start := buf.Len()
	if !plainString(r.Prev) || !plainString(r.Type) || !plainString(r.Session) || !plainString(r.Path) {
		return false
	}
	if y := r.Time.Year(); y < 0 || y > 9999 {
		return false
	}
	b := buf.AvailableBuffer()
	b = append(b, `{"seq":`...)
	b = strconv.AppendInt(b, r.Seq, 10)
	b = append(b, `,"prev":"`...)
	b = append(b, r.Prev...)
	b = append(b, `","time":"`...)
	b = r.Time.AppendFormat(b, time.RFC3339Nano)
	b = append(b, `","type":"`...)
	b = append(b, r.Type...)
	b = append(b, '"')
	if r.Session != "" {
		b = append(b, `,"session":"`...)
		b = append(b, r.Session...)
		b = append(b, '"')
	}
	if r.Path != "" {
		b = append(b, `,"path":"`...)
		b = append(b, r.Path...)
		b = append(b, '"')
	}
	buf.Write(b)
	if len(r.Data) > 0 {
		buf.Write(dataKey)
		if json.Compact(buf, r.Data) != nil {
			buf.Truncate(start)
			return false
		}
	}
	buf.WriteString("}\n")
	return true
}

// plainString reports whether encoding/json writes s as it is, between
// quotes: printable ASCII without a quote or a backslash (with HTML
// escaping off, as encode's encoder has it).
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}
