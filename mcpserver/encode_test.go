package mcpserver

import "testing"

func TestEscapedLenBoundsTheEncoder(t *testing.T) {
	for _, s := range []string{"", "plain", "tab\tquote\"back\\slash\n", "\x00\x01\x1f\b\f", "\u2028\u2029", "caf\xe9 \xff", "héllo wörld", "<>&"} {
		b, err := encodeResult(s, "", nil, false, false)
		if err != nil {
			t.Fatal(err)
		}
		empty, _ := encodeResult("", "", nil, false, false)
		if got, bound := len(b)-len(empty), escapedLen(s); got > bound {
			t.Errorf("%q encodes to %d bytes, over the bound %d", s, got, bound)
		}
	}
}
