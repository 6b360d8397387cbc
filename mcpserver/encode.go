package mcpserver

import (
	"bytes"
	"encoding/json"
	"strings"
	"unicode/utf8"

	"github.com/stet-dev/stet"
)

// minShared is the shortest string worth escaping once for two places.
const minShared = 1 << 10

// encodeResult returns headroom bytes followed by the JSON of a tool
// result: {"content":[{"type":"text","text":T}],"structuredContent":S,
// "isError":true}, where T is text (with "\n\n" and notice appended when
// notice is set), S is structured's JSON (only withStructured) and isError
// is there only when set. Every string is escaped as encoding/json escapes
// it with SetEscapeHTML(false).
func encodeResult(text, notice string, structured any, withStructured, isError bool) ([]byte, error) {
	var (
		sh   shared
		ok   bool
		rest []byte // structured's JSON; with ok, the shared member is ""
		at   int    // with ok, where rest's shared member starts
		err  error
	)
	if withStructured {
		if sh, ok = shareOf(structured, text); ok {
			if rest, err = marshal(sh.rest); err != nil {
				return nil, err
			}
			if at = memberAt(rest, sh.key); at < 0 {
				ok = false
			}
		}
		if !ok {
			if rest, err = marshal(structured); err != nil {
				return nil, err
			}
		}
	}
	size := headroom + 128 + len(text) + len(text)/8 + len(notice) + len(rest)
	if ok {
		size += len(sh.big) + len(sh.big)/8 + 2*len(sh.tail)
	}
	b := replyBuf(size)
	b = append(b, `{"content":[{"type":"text","text":"`...)
	var big0, big1 int // with ok, the escaped shared string is b[big0:big1]
	if ok {
		b = appendEscaped(b, sh.pre)
		big0 = len(b)
		b = appendEscaped(b, sh.big)
		big1 = len(b)
		b = appendEscaped(b, sh.post)
	} else {
		b = appendEscaped(b, text)
	}
	if notice != "" {
		b = append(b, `\n\n`...)
		b = appendEscaped(b, notice)
	}
	b = append(b, `"}]`...)
	if withStructured {
		b = append(b, `,"structuredContent":`...)
		if ok {
			v := at + len(sh.key) + len(`"":"`)
			b = append(b, rest[:v]...)
			b = append(b, b[big0:big1]...)
			b = appendEscaped(b, sh.tail)
			b = append(b, rest[v:]...)
		} else {
			b = append(b, rest...)
		}
	}
	if isError {
		b = append(b, `,"isError":true`...)
	}
	return append(b, '}'), nil
}

// replyBufs recycles the buffers of large results on the stdio fast path,
// which writes a result and then has no use for it (see recycle): a read
// of 1 MiB answers with 2.3 MB of JSON, and a new buffer of that size each
// call costs its zeroing, its page faults and a collection cycle.
var replyBufs bufPool

// replyBuf returns headroom bytes in a buffer of capacity at least size.
func replyBuf(size int) []byte {
	if size >= minPooled {
		if b := replyBufs.get(); cap(b) >= size {
			return b[:headroom]
		} else if b != nil {
			replyBufs.put(b)
		}
	}
	return make([]byte, headroom, size)
}

// recycle gives r's buffer back for reuse. Nothing may use r after.
func (r *toolResult) recycle() {
	replyBufs.put(r.buf)
	r.buf = nil
}

// marshal is json.Marshal without HTML escaping.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// shared is a long string a result carries twice: in a member of its
// structured content and in its text.
type shared struct {
	key       string // the member: its value is big + tail
	rest      any    // the structured content with that member ""
	big, tail string
	pre, post string // the text is pre + big + post
}

// shareOf finds the string a result carries twice: a read's frame, a
// change's diff. It reports false when there is none worth sharing, or when
// escaping the pieces apart would not give the bytes of escaping them
// together.
func shareOf(structured any, text string) (shared, bool) {
	var sh shared
	switch r := structured.(type) {
	case *stet.ReadResult:
		if len(r.Frame) < minShared || !strings.HasPrefix(text, r.Frame) {
			return sh, false
		}
		c := *r
		c.Frame = ""
		sh = shared{key: "frame", rest: &c, big: r.Frame, post: text[len(r.Frame):]}
	case *stet.MutationResult:
		var ok bool
		if sh, ok = diffShared(r.Diff, text); !ok {
			return sh, false
		}
		c := *r
		c.Diff = ""
		sh.rest = &c
	case *stet.PatchResult:
		var ok bool
		if sh, ok = diffShared(r.Diff, text); !ok {
			return sh, false
		}
		c := *r
		c.Diff = ""
		sh.rest = &c
	default:
		return sh, false
	}
	if !splits(sh.pre, sh.big) || !splits(sh.big, sh.post) || !splits(sh.big, sh.tail) {
		return sh, false
	}
	return sh, true
}

// diffShared is the shared string of a change whose text ends with its
// diff (without the diff's last newlines, see stet.Text).
func diffShared(diff, text string) (shared, bool) {
	big := strings.TrimRight(diff, "\n")
	if len(big) < minShared || !strings.HasSuffix(text, big) {
		return shared{}, false
	}
	return shared{key: "diff", big: big, tail: diff[len(big):], pre: text[:len(text)-len(big)]}, true
}

// splits reports whether escaping a and b apart gives the bytes of
// escaping a+b: no UTF-8 sequence (valid or not) can run from a into b.
func splits(a, b string) bool {
	return a == "" || b == "" || a[len(a)-1] < utf8.RuneSelf || b[0] < utf8.RuneSelf
}

// memberAt returns where the member "key":"" starts in js (encoding/json's
// output), or -1 unless there is exactly one. In such output a quote is
// never inside a string, so a match after '{' or ',' is a member.
func memberAt(js []byte, key string) int {
	pat := []byte(`"` + key + `":""`)
	at := -1
	for i := 0; ; {
		j := bytes.Index(js[i:], pat)
		if j < 0 {
			return at
		}
		j += i
		if j > 0 && (js[j-1] == '{' || js[j-1] == ',') {
			if at >= 0 {
				return -1
			}
			at = j
		}
		i = j + 1
	}
}

const hexDigits = "0123456789abcdef"

// appendEscaped appends s as the inside of a JSON string, byte for byte as
// encoding/json writes it with SetEscapeHTML(false): '"' and '\\'
// backslashed; \b, \f, \n, \r and \t short; other control characters as
// \u00XX; U+2028 and U+2029 as \u2028 and \u2029; each byte of invalid
// UTF-8 as \ufffd.
func appendEscaped(dst []byte, s string) []byte {
	start := 0 // s[start:i] is plain and not yet appended
	i := 0
	for i < len(s) {
		for i+4 <= len(s) && plainByte[s[i]] && plainByte[s[i+1]] && plainByte[s[i+2]] && plainByte[s[i+3]] {
			i += 4
		}
		for i < len(s) && plainByte[s[i]] {
			i++
		}
		if i >= len(s) {
			break
		}
		c := s[i]
		if c < utf8.RuneSelf {
			dst = append(dst, s[start:i]...)
			switch c {
			case '"', '\\':
				dst = append(dst, '\\', c)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case r == '\u2028' || r == '\u2029':
			dst = append(dst, s[start:i]...)
			dst = append(dst, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	return append(dst, s[start:]...)
}

// plainByte marks the bytes a JSON string carries as they are and that
// need no UTF-8 decoding: ASCII from 0x20 on, except '"' and '\\'. It is
// never written after initialization.
var plainByte = func() (t [256]bool) {
	for c := 0x20; c < utf8.RuneSelf; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()
