package main

import (
	"bytes"
	"fmt"
)

// lineLen is the length of every fixture line, its newline included.
const lineLen = 100

// Edit tokens: one of them sits once in the middle line of an edit fixture;
// an edit swaps it for the other, so the size never changes. Upper case,
// so no other text of a fixture contains them.
const (
	tokenA = "EDITME_AAAAA"
	tokenB = "EDITME_BBBBB"
)

// filler pads lines to lineLen: lower-case words, no token, no NUL.
const filler = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore "

// fixtureLine returns line i (0-based) of variant v: exactly lineLen bytes
// ending in '\n', Go-like text with a tab, four quotes and a backslash, so
// that JSON escaping has work to do. Variants differ on every line.
func fixtureLine(i, v int) []byte {
	names := [...]string{"value", "other"}
	b := fmt.Appendf(nil, "\tfmt.Printf(\"row %07d: %%s=%%q\\n\", \"key_%07d\", %s) // ", i, i, names[v%len(names)])
	for len(b) < lineLen-1 {
		b = append(b, filler[(len(b)+i)%len(filler)])
	}
	return append(b[:lineLen-1], '\n')
}

// fixture returns size bytes of fixture text of variant v: whole lines
// while they fit, then one shorter last line, always ending in '\n'. With
// token set, the middle line carries it once (see tokenLine).
func fixture(size, v int, token string) []byte {
	out := make([]byte, 0, size)
	for i := 0; len(out) < size; i++ {
		line := fixtureLine(i, v)
		if token != "" && i == tokenLine(size)-1 {
			// Put the token after the comment marker, keeping the length.
			at := bytes.Index(line, []byte("// ")) + 3
			copy(line[at:], token)
		}
		if rest := size - len(out); rest < lineLen {
			line = append(line[:rest-1:rest-1], '\n')
		}
		out = append(out, line...)
	}
	return out
}

// tokenLine is the 1-based line of a fixture of size bytes that carries the
// edit token.
func tokenLine(size int) int {
	n := (size + lineLen - 1) / lineLen
	return n/2 + 1
}

// swapToken returns the token an edit replaces in text and its replacement.
func swapToken(text []byte) (old, new string) {
	if bytes.Contains(text, []byte(tokenA)) {
		return tokenA, tokenB
	}
	return tokenB, tokenA
}
