package glob

import "testing"

// BenchmarkCovers: one rule checked against one walked name, compiled
// each time as policy's rules do, and compiled once as find and grep do.
func BenchmarkCovers(b *testing.B) {
	for _, pattern := range []string{"secrets", ".git/**", "**/*.{ts,tsx}"} {
		b.Run(pattern, func(b *testing.B) {
			for b.Loop() {
				Covers(pattern, "src/app/components/button.tsx")
			}
		})
		b.Run(pattern+"/compiled", func(b *testing.B) {
			p, _ := Compile(pattern)
			for b.Loop() {
				p.Covers("src/app/components/button.tsx")
			}
		})
	}
}
