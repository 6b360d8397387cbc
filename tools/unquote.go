package tools

import (
	"encoding/binary"
	"errors"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// unquote decodes a JSON string literal (raw includes the quotes, and the
// scanner has found its closing quote) exactly as encoding/json does:
// escapes are decoded, a lone surrogate escape and every invalid UTF-8 byte
// become U+FFFD, and a control character below 0x20 is an error. It exists
// because file contents arrive as one large string: this is several times
// faster than json.Unmarshal, which scans the text twice and byte by byte.
// FuzzUnquote checks it against encoding/json.
func unquote(raw []byte) (string, error) {
	if len(raw) < 2 || raw[0] != '"' || raw[len(raw)-1] != '"' {
		return "", errors.New("not a string")
	}
	s := raw[1 : len(raw)-1]
	i := plainASCII(s)
	if i == len(s) {
		return string(s), nil
	}
	var b strings.Builder
	b.Grow(len(s))
	b.Write(s[:i])
	for i < len(s) {
		c := s[i]
		switch {
		case c == '\\':
			n, err := unescape(&b, s[i:])
			if err != nil {
				return "", err
			}
			i += n
		case c < 0x20:
			return "", errors.New("control character in string")
		case c < utf8.RuneSelf:
			j := i + 1 + plainASCII(s[i+1:])
			b.Write(s[i:j])
			i = j
		default:
			r, size := utf8.DecodeRune(s[i:])
			if r == utf8.RuneError && size == 1 {
				b.WriteRune(utf8.RuneError)
			} else {
				b.Write(s[i : i+size])
			}
			i += size
		}
	}
	return b.String(), nil
}

// plainASCII returns the length of the prefix of s that needs no decoding:
// printable ASCII other than the backslash. It tests eight bytes at a time.
func plainASCII(s []byte) int {
	const (
		lo = 0x0101010101010101
		hi = 0x8080808080808080
	)
	i := 0
	for ; i+8 <= len(s); i += 8 {
		w := binary.LittleEndian.Uint64(s[i:])
		// A byte is special if its high bit is set, if it is below 0x20, or
		// if it equals '\\'. The classic "has zero byte" trick finds the
		// last two; the exact position is found by the byte loop below.
		ctl := (w - lo*0x20) & ^w & hi
		bs := w ^ (lo * '\\')
		bsl := (bs - lo) & ^bs & hi
		if (w&hi)|ctl|bsl != 0 {
			break
		}
	}
	for ; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '\\' || c >= utf8.RuneSelf {
			return i
		}
	}
	return i
}

// unescape decodes the escape at the start of s (s[0] == '\\') into b and
// returns how many bytes it used.
func unescape(b *strings.Builder, s []byte) (int, error) {
	if len(s) < 2 {
		return 0, errors.New("invalid escape in string")
	}
	switch s[1] {
	case '"', '\\', '/':
		b.WriteByte(s[1])
	case 'b':
		b.WriteByte('\b')
	case 'f':
		b.WriteByte('\f')
	case 'n':
		b.WriteByte('\n')
	case 'r':
		b.WriteByte('\r')
	case 't':
		b.WriteByte('\t')
	case 'u':
		r, ok := hex4(s[2:])
		if !ok {
			return 0, errors.New("invalid \\u escape in string")
		}
		if utf16.IsSurrogate(r) {
			if len(s) >= 12 && s[6] == '\\' && s[7] == 'u' {
				if r2, ok := hex4(s[8:]); ok {
					if d := utf16.DecodeRune(r, r2); d != utf8.RuneError {
						b.WriteRune(d)
						return 12, nil
					}
				}
			}
			r = utf8.RuneError
		}
		b.WriteRune(r)
		return 6, nil
	default:
		return 0, errors.New("invalid escape in string")
	}
	return 2, nil
}

func hex4(s []byte) (rune, bool) {
	if len(s) < 4 {
		return 0, false
	}
	var r rune
	for _, c := range s[:4] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return 0, false
		}
		r = r<<4 | rune(c)
	}
	return r, true
}
