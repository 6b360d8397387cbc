package textedit

import (
	"bytes"
	"fmt"
	"testing"
)

// bigSource returns about size bytes of Go-like lines with one unique
// token, UNIQUE_TOKEN, in the middle.
func bigSource(size int) []byte {
	var b bytes.Buffer
	placed := false
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "\tresult%d := compute(input%d, %q)\n", i%1000, i%977, "label")
		if !placed && b.Len() >= size/2 {
			b.WriteString("\tUNIQUE_TOKEN := 1\n")
			placed = true
		}
	}
	return b.Bytes()
}

func benchApply(b *testing.B, size int) {
	text := bigSource(size)
	edits := []Edit{{Old: "UNIQUE_TOKEN", New: "renamed_token"}}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		if _, err := Apply(text, edits); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkApply1MiB(b *testing.B)  { benchApply(b, 1<<20) }
func BenchmarkApply10MiB(b *testing.B) { benchApply(b, 10<<20) }

func benchDiff(b *testing.B, size int) {
	before := bigSource(size)
	r, err := Apply(before, []Edit{{Old: "UNIQUE_TOKEN", New: "renamed_token"}})
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(int64(len(before)))
	for b.Loop() {
		if Diff("big.go", before, r.Text) == "" {
			b.Fatal("empty diff")
		}
	}
}

func BenchmarkDiff1MiB(b *testing.B)  { benchDiff(b, 1<<20) }
func BenchmarkDiff10MiB(b *testing.B) { benchDiff(b, 10<<20) }

// BenchmarkMiss10MiB measures a refused edit with diagnostics: old_string
// differs from a region of the text in indentation.
func BenchmarkMiss10MiB(b *testing.B) {
	text := bigSource(10 << 20)
	old := "    UNIQUE_TOKEN := 1"
	for b.Loop() {
		if _, err := Apply(text, []Edit{{Old: old, New: "x"}}); err == nil {
			b.Fatal("matched")
		}
	}
}

// BenchmarkMissContent10MiB measures a miss with no normalized match, so
// the similarity fallback runs.
func BenchmarkMissContent10MiB(b *testing.B) {
	text := bigSource(10 << 20)
	old := "\tresult5 := compute(input5, \"lable\")\n\tresult6 := compute(input6, \"lable\")"
	for b.Loop() {
		if _, err := Apply(text, []Edit{{Old: old, New: "x"}}); err == nil {
			b.Fatal("matched")
		}
	}
}

// BenchmarkMissNothingAlike10MiB measures the worst miss: many long words
// of old_string occur nowhere, so every anchor scans the whole text.
func BenchmarkMissNothingAlike10MiB(b *testing.B) {
	text := bigSource(10 << 20)
	var old bytes.Buffer
	for i := range 30 {
		fmt.Fprintf(&old, "\tresult_missing_%d := compute_missing(input_missing_%d)\n", i, i)
	}
	for b.Loop() {
		if _, err := Apply(text, []Edit{{Old: old.String(), New: "x"}}); err == nil {
			b.Fatal("matched")
		}
	}
}
