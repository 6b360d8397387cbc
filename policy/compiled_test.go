package policy

import (
	"fmt"
	"testing"
)

// Rules compiled once decide exactly as Rules that compile each pattern per
// check: every name, every pattern form, every spelling; a malformed
// pattern covers nothing either way.
func TestCompiledRulesDecideTheSame(t *testing.T) {
	names := []string{"a.env", "src/app.env", "Secrets/KEY", "secrets/key", ".git/config", "x/.GIT/HEAD",
		"build/out/x.o", "docs/a.md", "docs/sub/b.md", "readme", "a.ts", "b/c.tsx", "[weird].txt",
		"A.ENV", "DOCS/X.MD", "cafe\u0301.env", "Build./x"}
	r := Rules{Protect: []string{"docs/*.md", "build/", "**/*.{ts,tsx}", "[bad"}, DenyRead: []string{"*.env", "secrets", "\\[weird\\].txt", "caf\u00e9.*"}}
	c := r.Compiled()
	for _, n := range names {
		p1, ok1 := r.Protected(n)
		p2, ok2 := c.Protected(n)
		d1, dk1 := r.Denied(n)
		d2, dk2 := c.Denied(n)
		if p1 != p2 || ok1 != ok2 || d1 != d2 || dk1 != dk2 {
			t.Errorf("%q: protected %q %v / %q %v, denied %q %v / %q %v", n, p1, ok1, p2, ok2, d1, dk1, d2, dk2)
		}
	}
}

func BenchmarkDenied(b *testing.B) {
	r := Rules{DenyRead: []string{"*.env", "secrets", "**/*.{pem,key}", "private/**"}}
	names := make([]string, 100)
	for i := range names {
		names[i] = fmt.Sprintf("src/pkg%d/file%d.go", i%7, i)
	}
	for _, c := range []struct {
		name string
		r    Rules
	}{{"compiled", r.Compiled()}, {"per-check", r}} {
		b.Run(c.name, func(b *testing.B) {
			for b.Loop() {
				for _, n := range names {
					c.r.Denied(n)
					c.r.Protected(n)
				}
			}
		})
	}
}
