package textedit

import "bytes"

// Line-ending styles, as Result.EOL and receipt.Receipt.EOL spell them.
const (
	EOLLF          = "lf"           // every newline is a bare "\n"
	EOLCRLF        = "crlf"         // every newline is "\r\n"
	EOLMixed       = "mixed"        // both bare "\n" and "\r\n" occur
	EOLNone        = "none"         // no newline at all
	EOLCRLFAdapted = "crlf-adapted" // an edit matched only after LF→CRLF
)

// DetectEOL names the line endings of text: EOLLF, EOLCRLF, EOLMixed or
// EOLNone. A lone "\r" is not a line ending.
func DetectEOL(text []byte) string {
	n := bytes.Count(text, []byte("\n"))
	if n == 0 {
		return EOLNone
	}
	c := bytes.Count(text, []byte("\r\n"))
	switch c {
	case 0:
		return EOLLF
	case n:
		return EOLCRLF
	}
	return EOLMixed
}

// toCRLF turns every "\n" not already preceded by "\r" into "\r\n". It
// returns s itself when there is nothing to convert.
func toCRLF(s []byte) []byte {
	bare := 0
	for i, c := range s {
		if c == '\n' && (i == 0 || s[i-1] != '\r') {
			bare++
		}
	}
	if bare == 0 {
		return s
	}
	out := make([]byte, 0, len(s)+bare)
	for i, c := range s {
		if c == '\n' && (i == 0 || s[i-1] != '\r') {
			out = append(out, '\r')
		}
		out = append(out, c)
	}
	return out
}
