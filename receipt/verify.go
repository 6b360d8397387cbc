package receipt

import (
	"bytes"
	"errors"
	"fmt"

	"github.com/stet-dev/stet/fsys"
)

// ErrMismatch is wrapped by every error Verify returns: the bytes do not
// bear out the receipt.
var ErrMismatch = errors.New("receipt does not match the bytes")

// VerifyError says what Verify found wrong.
type VerifyError struct {
	// Reason says what is wrong, naming the file (preimage or readback) and
	// the match it concerns.
	Reason string
	// Offset is the byte offset the problem was found at: in the readback
	// when the readback differs from what the receipt implies, in the
	// preimage when the preimage or the receipt is at fault (the Reason says
	// which). It is -1 when the problem is not at one place, such as a size
	// or a hash.
	Offset int
}

// Error returns the message, as the error interface asks.
func (e *VerifyError) Error() string {
	if e.Offset < 0 {
		return "receipt: " + e.Reason
	}
	return fmt.Sprintf("receipt: at byte %d: %s", e.Offset, e.Reason)
}

// Unwrap returns ErrMismatch.
func (e *VerifyError) Unwrap() error { return ErrMismatch }

func mismatch(offset int, format string, args ...any) error {
	return &VerifyError{Reason: fmt.Sprintf(format, args...), Offset: offset}
}

// Verify checks that readback is what r says the mutation of preimage
// produced, without recomputing the mutation:
//
//   - Before describes preimage (Version, Bytes, Lines); a nil Before (a
//     create) requires an empty preimage.
//   - After describes readback; a nil After (a delete) requires a nil
//     readback, and matches that add no bytes. When After is not nil a nil
//     readback is taken as an empty file: whether the file exists is the
//     caller's to check.
//   - Matches are sorted by Offset, do not overlap (two insertions may share
//     an offset), lie inside the preimage, and each Line is the 1-based
//     preimage line of its Offset (the count of "\n" before it, plus one).
//   - Walking both files together, every preimage byte outside the matches
//     is in the readback unchanged and in order; each match's region takes
//     exactly NewBytes bytes of the readback; nothing follows the last
//     unchanged byte.
//   - Where a match has Old, the preimage region equals it; where it has
//     New, the readback region equals it.
//
// A create therefore records one match {Offset: 0, OldBytes: 0, NewBytes:
// len(content), Line: 1}, and a whole-file write one match covering the
// whole preimage. A move whose bytes are unchanged records no match.
//
// Every error is a *VerifyError wrapping ErrMismatch. The cost is one
// SHA-256 pass over each file, one comparison of the unchanged bytes and a
// newline count; nothing is copied.
func Verify(preimage, readback []byte, r Receipt) error {
	return verify(preimage, readback, r, true)
}

// VerifyShape is Verify without the two SHA-256 comparisons, for a caller
// that has just derived r.Before.Version from preimage and r.After.Version
// from readback itself, so that comparing them again would hash the same
// bytes twice. Everything else is checked as Verify checks it: sizes, line
// counts, the order and bounds of the matches, every unchanged byte, and each
// region's old and new bytes where the matches carry them. With Old and New
// set on every match, it proves that readback is exactly preimage with the
// regions replaced, which is what the receipt claims.
func VerifyShape(preimage, readback []byte, r Receipt) error {
	return verify(preimage, readback, r, false)
}

func verify(preimage, readback []byte, r Receipt, hashes bool) error {
	if r.Before == nil && len(preimage) > 0 {
		return mismatch(-1, "before is null (a create) but the preimage holds %d bytes", len(preimage))
	}
	if r.After == nil && readback != nil {
		return mismatch(-1, "after is null (a delete) but the readback holds %d bytes", len(readback))
	}
	if err := checkSize("before", "preimage", r.Before, preimage); err != nil {
		return err
	}
	if err := checkSize("after", "readback", r.After, readback); err != nil {
		return err
	}
	if err := checkMatches(preimage, r); err != nil {
		return err
	}
	if r.After != nil {
		if err := walk(preimage, readback, r.Matches); err != nil {
			return err
		}
	}
	if !hashes {
		return nil
	}
	// The two hashes are independent: on large files, compute them side by
	// side so verification costs one sha256 pass of wall time, not two.
	var afterErr error
	done := make(chan struct{})
	if len(readback) >= parallelHashBytes && r.Before != nil && r.After != nil {
		go func() {
			afterErr = checkVersion("after", "readback", r.After, readback)
			close(done)
		}()
	} else {
		afterErr = checkVersion("after", "readback", r.After, readback)
		close(done)
	}
	beforeErr := checkVersion("before", "preimage", r.Before, preimage)
	<-done
	if beforeErr != nil {
		return beforeErr
	}
	return afterErr
}

// parallelHashBytes is the size from which Verify hashes the preimage and
// the readback concurrently.
const parallelHashBytes = 256 << 10

// checkSize compares the cheap parts of a State: size and line count.
func checkSize(name, file string, s *State, b []byte) error {
	if s == nil {
		return nil
	}
	if s.Bytes != len(b) {
		return mismatch(-1, "%s.bytes is %d, the %s has %d", name, s.Bytes, file, len(b))
	}
	if n := Lines(b); s.Lines != n {
		return mismatch(-1, "%s.lines is %d, the %s has %d", name, s.Lines, file, n)
	}
	return nil
}

func checkVersion(name, file string, s *State, b []byte) error {
	if s == nil {
		return nil
	}
	if v := fsys.VersionOf(b); s.Version != string(v) {
		return mismatch(-1, "%s.version is %s, the %s is %s", name, fsys.Version(s.Version).Short(), file, v.Short())
	}
	return nil
}

// checkMatches checks what can be checked of the matches against the
// preimage alone: order, bounds, line numbers and old bytes.
func checkMatches(preimage []byte, r Receipt) error {
	end, line, counted := 0, 1, 0
	for i, m := range r.Matches {
		switch {
		case m.Offset < 0 || m.OldBytes < 0 || m.NewBytes < 0:
			return mismatch(-1, "match %d has a negative field (offset %d, old_bytes %d, new_bytes %d)", i, m.Offset, m.OldBytes, m.NewBytes)
		case m.Offset < end:
			return mismatch(m.Offset, "match %d at preimage byte %d starts before the end of match %d (byte %d): matches must be sorted and must not overlap", i, m.Offset, i-1, end)
		case m.Offset > len(preimage) || m.OldBytes > len(preimage)-m.Offset:
			return mismatch(m.Offset, "match %d (preimage bytes %d..%d) ends past the preimage's %d bytes", i, m.Offset, m.Offset+m.OldBytes, len(preimage))
		case r.After == nil && m.NewBytes > 0:
			return mismatch(m.Offset, "match %d adds %d bytes but after is null (a delete)", i, m.NewBytes)
		case m.Old != nil && len(m.Old) != m.OldBytes:
			return mismatch(m.Offset, "match %d records %d old bytes but old_bytes is %d", i, len(m.Old), m.OldBytes)
		case m.New != nil && len(m.New) != m.NewBytes:
			return mismatch(m.Offset, "match %d records %d new bytes but new_bytes is %d", i, len(m.New), m.NewBytes)
		}
		line += bytes.Count(preimage[counted:m.Offset], []byte{'\n'})
		counted = m.Offset
		if m.Line != line {
			return mismatch(m.Offset, "match %d has line %d, preimage byte %d is on line %d", i, m.Line, m.Offset, line)
		}
		old := preimage[m.Offset : m.Offset+m.OldBytes]
		if m.Old != nil && !bytes.Equal(old, m.Old) {
			at := m.Offset + firstDiff(old, m.Old)
			return mismatch(at, "match %d: preimage byte %d is not the old bytes the receipt records", i, at)
		}
		end = m.Offset + m.OldBytes
	}
	return nil
}

// walk checks the readback against the preimage: unchanged bytes between
// the matches, new regions of the recorded sizes (and bytes, where New is
// recorded), and no bytes added or lost at the end.
func walk(preimage, readback []byte, matches []Match) error {
	pi, ri := 0, 0 // next unchecked byte of each file
	for i, m := range matches {
		if err := same(preimage, readback, pi, ri, m.Offset-pi, fmt.Sprintf("before match %d", i)); err != nil {
			return err
		}
		ri += m.Offset - pi
		if m.NewBytes > len(readback)-ri {
			return mismatch(len(readback), "readback ends inside the %d new bytes of match %d, which start at readback byte %d", m.NewBytes, i, ri)
		}
		if nw := readback[ri : ri+m.NewBytes]; m.New != nil && !bytes.Equal(nw, m.New) {
			at := ri + firstDiff(nw, m.New)
			return mismatch(at, "match %d: readback byte %d is not the new bytes the receipt records", i, at)
		}
		pi, ri = m.Offset+m.OldBytes, ri+m.NewBytes
	}
	tail := len(preimage) - pi
	if err := same(preimage, readback, pi, ri, tail, "after the last match"); err != nil {
		return err
	}
	if extra := len(readback) - (ri + tail); extra > 0 {
		return mismatch(ri+tail, "readback has %d bytes more than the receipt accounts for, from readback byte %d", extra, ri+tail)
	}
	return nil
}

// same checks that the n unchanged bytes at preimage[pi:] are at
// readback[ri:].
func same(preimage, readback []byte, pi, ri, n int, where string) error {
	want := preimage[pi : pi+n]
	if n > len(readback)-ri {
		got := readback[ri:]
		if d := firstDiff(want[:len(got)], got); d < len(got) {
			return mismatch(ri+d, "readback byte %d differs from unchanged preimage byte %d (%s)", ri+d, pi+d, where)
		}
		return mismatch(len(readback), "readback ends at byte %d, %d bytes short of the unchanged preimage bytes %d..%d (%s)", len(readback), n-len(got), pi, pi+n, where)
	}
	if got := readback[ri : ri+n]; !bytes.Equal(want, got) {
		d := firstDiff(want, got)
		return mismatch(ri+d, "readback byte %d differs from unchanged preimage byte %d (%s)", ri+d, pi+d, where)
	}
	return nil
}

// firstDiff returns the index of the first byte where a and b differ, or
// the shorter length when one is a prefix of the other.
func firstDiff(a, b []byte) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
