package policy

import (
	"bytes"
	"encoding/json"
	"errors"
)

// MarshalJSON writes rs as one flat array of offsets, [start0, end0,
// start1, end1, ...]: a session's observations are mostly ranges, and a
// CLI call decodes them all when it rebuilds its session, so their form is
// kept small.
func (rs Ranges) MarshalJSON() ([]byte, error) {
	flat := make([]int, 0, 2*len(rs))
	for _, r := range rs {
		flat = append(flat, r.Start, r.End)
	}
	return json.Marshal(flat)
}

// UnmarshalJSON reads the flat form MarshalJSON writes, and the form of
// journals written before it ([{"Start":0,"End":5}, ...]). The result is
// normalized like any other Ranges.
func (rs *Ranges) UnmarshalJSON(b []byte) error {
	t := bytes.TrimLeft(b, " \t\r\n")
	if bytes.Equal(t, []byte("null")) {
		*rs = nil
		return nil
	}
	if len(t) > 1 && t[0] == '[' && bytes.HasPrefix(bytes.TrimLeft(t[1:], " \t\r\n"), []byte("{")) {
		var old []Range
		if err := json.Unmarshal(b, &old); err != nil {
			return err
		}
		*rs = NewRanges(old...)
		return nil
	}
	flat, ok := parseInts(t)
	if !ok {
		if err := json.Unmarshal(b, &flat); err != nil {
			return err
		}
	}
	if len(flat)%2 != 0 {
		return errors.New("policy: ranges: an odd number of offsets")
	}
	for _, n := range flat {
		if n < 0 {
			return errors.New("policy: ranges: a negative offset")
		}
	}
	out := make([]Range, 0, len(flat)/2)
	for i := 0; i < len(flat); i += 2 {
		out = append(out, Range{Start: flat[i], End: flat[i+1]})
	}
	*rs = NewRanges(out...)
	return nil
}

// parseInts reads a JSON array of non-negative integers without
// reflection; ok is false for anything else (the caller then lets
// encoding/json decide, and word its error).
func parseInts(b []byte) (out []int, ok bool) {
	b = bytes.TrimRight(b, " \t\r\n")
	if len(b) < 2 || b[0] != '[' || b[len(b)-1] != ']' {
		return nil, false
	}
	b = b[1 : len(b)-1]
	out = make([]int, 0, bytes.Count(b, []byte(","))+1)
	i := 0
	skip := func() {
		for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
			i++
		}
	}
	skip()
	if i == len(b) {
		return out, true
	}
	for {
		skip()
		start, n := i, 0
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			if n > (1<<62)/10 {
				return nil, false
			}
			n = n*10 + int(b[i]-'0')
			i++
		}
		if i == start || (b[start] == '0' && i-start > 1) {
			return nil, false
		}
		out = append(out, n)
		skip()
		if i == len(b) {
			return out, true
		}
		if b[i] != ',' {
			return nil, false
		}
		i++
	}
}
