package engine

import (
	"bytes"
	"unicode/utf8"
)

// utf8Stream checks UTF-8 text written to it in pieces; a rune may be split
// between pieces. bad is the offset of the first invalid byte once found.
type Utf8Stream struct {
	off     int // bytes checked and found valid
	pending []byte
	Bad     int
	failed  bool
}

// write checks p and reports whether the text is still valid.
func (u *Utf8Stream) Write(p []byte) bool {
	if u.failed {
		return false
	}
	if len(u.pending) > 0 {
		k := min(utf8.UTFMax-len(u.pending), len(p))
		tmp := append(u.pending[:len(u.pending):len(u.pending)], p[:k]...)
		if !utf8.FullRune(tmp) {
			u.pending = tmp
			return true
		}
		r, size := utf8.DecodeRune(tmp)
		if r == utf8.RuneError && size <= 1 {
			u.failed, u.Bad = true, u.off
			return false
		}
		p = p[size-len(u.pending):]
		u.off += size
		u.pending = nil
	}
	body := p
	for j := len(p) - 1; j >= 0 && j >= len(p)-(utf8.UTFMax-1); j-- {
		if utf8.RuneStart(p[j]) {
			if !utf8.FullRune(p[j:]) {
				body = p[:j]
				u.pending = bytes.Clone(p[j:])
			}
			break
		}
	}
	if !utf8.Valid(body) {
		u.failed, u.Bad = true, u.off+InvalidUTF8(body)
		return false
	}
	u.off += len(body)
	return true
}

// end reports whether the text ended on a whole rune.
func (u *Utf8Stream) End() bool {
	if !u.failed && len(u.pending) > 0 {
		u.failed, u.Bad = true, u.off
	}
	return !u.failed
}

func BinaryRefusal(t Target, i int) *Refusal {
	return Refuse(KindBinary, t.Spelled, "%s is binary (a NUL byte at offset %d); stet reads and edits text only; leave it alone or replace it with a tool made for that format", t.Spelled, i).With("offset", i)
}

func NotUTF8Refusal(t Target, off int) *Refusal {
	return Refuse(KindNotUTF8, t.Spelled, "%s is not valid UTF-8 (first bad byte at offset %d); stet edits UTF-8 text only; convert it first if it is text in another encoding", t.Spelled, off).With("offset", off)
}

// checkText refuses bytes that are not text: a NUL in the first 8 KiB
// (binary) or invalid UTF-8 (not_utf8, with the byte offset).
func CheckText(t Target, data []byte) *Refusal {
	head := data
	if len(head) > 8<<10 {
		head = head[:8<<10]
	}
	if i := bytes.IndexByte(head, 0); i >= 0 {
		return BinaryRefusal(t, i)
	}
	if !utf8.Valid(data) {
		return NotUTF8Refusal(t, InvalidUTF8(data))
	}
	return nil
}

func InvalidUTF8(b []byte) int {
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		if r == utf8.RuneError && n <= 1 {
			return i
		}
		i += n
	}
	return -1
}
