package frame

// Encode returns the whole-file frame of text: the oracle the tests hold
// Decode and the windows against.
func Encode(text []byte) string {
	n := LineCount(text)
	return encode(text, 1, n, n, true)
}
