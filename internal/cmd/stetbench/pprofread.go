package main

import (
	"bytes"
	"compress/gzip"
	"errors"
	"io"
)

// A reader of the profiles runtime/pprof writes (gzipped profile.proto),
// just enough to sum a CPU profile's samples by the functions on their
// stacks and by their labels: no mappings, no line numbers.

// cpuSample is one sample of a CPU profile: its stack, leaf first, as
// function names, its labels, and its CPU time in nanoseconds.
type cpuSample struct {
	stack  []string
	labels map[string]string
	nanos  int64
}

// parseCPUProfile decodes a CPU profile as runtime/pprof writes it.
func parseCPUProfile(data []byte) ([]cpuSample, error) {
	if len(data) > 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, err
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, err
		}
	}
	type rawLabel struct{ key, str int64 }
	type rawSample struct {
		locs   []uint64
		values []int64
		labels []rawLabel
	}
	var (
		strs     []string
		samples  []rawSample
		locFuncs = map[uint64][]uint64{} // location id → function ids, innermost first
		funcName = map[uint64]int64{}    // function id → string index
		nanosAt  = -1                    // which value is CPU nanoseconds
		types    [][2]int64              // sample types: (type, unit) string indexes
	)
	err := eachField(data, func(num int, wire int, v uint64, b []byte) error {
		switch num {
		case 1: // sample_type
			var t [2]int64
			err := eachField(b, func(n, _ int, v uint64, _ []byte) error {
				if n == 1 || n == 2 {
					t[n-1] = int64(v)
				}
				return nil
			})
			types = append(types, t)
			return err
		case 2: // sample
			var s rawSample
			err := eachField(b, func(n, w int, v uint64, b []byte) error {
				switch n {
				case 1:
					return eachVarint(w, v, b, func(x uint64) { s.locs = append(s.locs, x) })
				case 2:
					return eachVarint(w, v, b, func(x uint64) { s.values = append(s.values, int64(x)) })
				case 3:
					var l rawLabel
					err := eachField(b, func(n, _ int, v uint64, _ []byte) error {
						switch n {
						case 1:
							l.key = int64(v)
						case 2:
							l.str = int64(v)
						}
						return nil
					})
					s.labels = append(s.labels, l)
					return err
				}
				return nil
			})
			samples = append(samples, s)
			return err
		case 4: // location
			var id uint64
			var fns []uint64
			err := eachField(b, func(n, _ int, v uint64, b []byte) error {
				switch n {
				case 1:
					id = v
				case 4: // line
					return eachField(b, func(n, _ int, v uint64, _ []byte) error {
						if n == 1 {
							fns = append(fns, v)
						}
						return nil
					})
				}
				return nil
			})
			locFuncs[id] = fns
			return err
		case 5: // function
			var id uint64
			var name int64
			err := eachField(b, func(n, _ int, v uint64, _ []byte) error {
				switch n {
				case 1:
					id = v
				case 2:
					name = int64(v)
				}
				return nil
			})
			funcName[id] = name
			return err
		case 6: // string_table
			strs = append(strs, string(b))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	str := func(i int64) string {
		if i < 0 || int(i) >= len(strs) {
			return ""
		}
		return strs[i]
	}
	for i, t := range types {
		if str(t[0]) == "cpu" && str(t[1]) == "nanoseconds" {
			nanosAt = i
		}
	}
	if nanosAt < 0 {
		return nil, errors.New("not a CPU profile (no cpu/nanoseconds sample type)")
	}
	out := make([]cpuSample, 0, len(samples))
	for _, s := range samples {
		if nanosAt >= len(s.values) {
			continue
		}
		cs := cpuSample{nanos: s.values[nanosAt]}
		for _, loc := range s.locs {
			for _, fn := range locFuncs[loc] {
				cs.stack = append(cs.stack, str(funcName[fn]))
			}
		}
		for _, l := range s.labels {
			if cs.labels == nil {
				cs.labels = map[string]string{}
			}
			cs.labels[str(l.key)] = str(l.str)
		}
		out = append(out, cs)
	}
	return out, nil
}

// eachField calls f with each field of the protobuf message b: its number,
// its wire type, and its value (varint) or bytes (length-delimited).
func eachField(b []byte, f func(num, wire int, v uint64, data []byte) error) error {
	for len(b) > 0 {
		key, n := uvarint(b)
		if n <= 0 {
			return errors.New("profile: bad field key")
		}
		b = b[n:]
		num, wire := int(key>>3), int(key&7)
		var v uint64
		var data []byte
		switch wire {
		case 0:
			if v, n = uvarint(b); n <= 0 {
				return errors.New("profile: bad varint")
			}
			b = b[n:]
		case 1:
			if len(b) < 8 {
				return errors.New("profile: short fixed64")
			}
			b = b[8:]
		case 2:
			l, n := uvarint(b)
			if n <= 0 || uint64(len(b)-n) < l {
				return errors.New("profile: bad length")
			}
			data, b = b[n:n+int(l)], b[n+int(l):]
		case 5:
			if len(b) < 4 {
				return errors.New("profile: short fixed32")
			}
			b = b[4:]
		default:
			return errors.New("profile: unknown wire type")
		}
		if err := f(num, wire, v, data); err != nil {
			return err
		}
	}
	return nil
}

// eachVarint calls f with each value of a repeated varint field, packed
// (wire type 2) or not.
func eachVarint(wire int, v uint64, b []byte, f func(uint64)) error {
	if wire == 0 {
		f(v)
		return nil
	}
	for len(b) > 0 {
		x, n := uvarint(b)
		if n <= 0 {
			return errors.New("profile: bad packed varint")
		}
		f(x)
		b = b[n:]
	}
	return nil
}

// uvarint decodes a protobuf varint; n <= 0 when b holds none.
func uvarint(b []byte) (v uint64, n int) {
	for i, c := range b {
		if i == 10 {
			return 0, -1
		}
		v |= uint64(c&0x7f) << (7 * i)
		if c < 0x80 {
			return v, i + 1
		}
	}
	return 0, 0
}
