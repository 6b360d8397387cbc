package tools

import (
	"encoding/json"
	"strings"
	"testing"
)

// writeArgs10MiB is a write call whose content is 10 MiB of source-like text
// (newlines, tabs, quotes and some non-ASCII, so the string has escapes).
func writeArgs10MiB(tb testing.TB) []byte {
	tb.Helper()
	line := "\tfmt.Println(\"héllo, wörld\") // a line of code with \"quotes\" and a tab\n"
	content := strings.Repeat(line, 10<<20/len(line)+1)[:10<<20]
	raw, err := json.Marshal(WriteArgs{Path: "big.go", Content: content, Overwrite: true})
	if err != nil {
		tb.Fatal(err)
	}
	return raw
}

func BenchmarkDecodeWrite10MiB(b *testing.B) {
	raw := writeArgs10MiB(b)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		if _, err := Decode("write", raw); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUnmarshalWrite10MiB is the baseline: one encoding/json Unmarshal
// of the same input, with none of Decode's checks.
func BenchmarkUnmarshalWrite10MiB(b *testing.B) {
	raw := writeArgs10MiB(b)
	b.SetBytes(int64(len(raw)))
	for b.Loop() {
		var a WriteArgs
		if err := json.Unmarshal(raw, &a); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkDecodeEditSmall(b *testing.B) {
	raw := []byte(`{"path":"src/main.go","old_string":"func main() {\n\tfmt.Println(\"hi\")\n}","new_string":"func main() {\n\tfmt.Println(\"hello\")\n}"}`)
	for b.Loop() {
		if _, err := Decode("edit", raw); err != nil {
			b.Fatal(err)
		}
	}
}
