package glob

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"testing"
)

func TestMatch(t *testing.T) {
	tests := []struct {
		pattern, name string
		want          bool
	}{
		// "/**" covers the directory itself and everything under it.
		{".git/**", ".git", true},
		{".git/**", ".git/config", true},
		{".git/**", ".git/a/b", true},
		{".git/**", ".gitignore", false},
		{".git/**", "sub/.git/config", false},
		{".git/**", "a.git/config", false},
		// No "/": the base name at any depth.
		{"*.pem", "k.pem", true},
		{"*.pem", "a/b/k.pem", true},
		{"*.pem", "a/k.pem/x", false},
		{"*.pem", "k.pem.bak", false},
		{".env", "deploy/.env", true},
		{"?.go", "x/a.go", true},
		{"?.go", "x/ab.go", false},
		{"[ab].txt", "d/b.txt", true},
		{"[^ab].txt", "d/b.txt", false},
		{"[^ab].txt", "d/c.txt", true},
		{"**", "a/b/c", true},
		{"*", "a/b", true},
		// Anchored patterns.
		{"a/*.go", "a/b.go", true},
		{"a/*.go", "a/b/c.go", false},
		{"a/*.go", "x/a/b.go", false},
		{"/k.pem", "k.pem", true},
		{"/k.pem", "a/k.pem", false},
		{"/a/*", "a/b", true},
		// "**" as a whole segment.
		{"**/*.pem", "k.pem", true},
		{"**/*.pem", "a/b/k.pem", true},
		{"a/**/b", "a/b", true},
		{"a/**/b", "a/x/b", true},
		{"a/**/b", "a/x/y/b", true},
		{"a/**/b", "a/x/y/c", false},
		{"a/**/b", "b", false},
		{"**/.git/**", "sub/.git/config", true},
		{"**/.git/**", ".git", true},
		{"a/**/**/b", "a/b", true},
		{"a/**", "a", true},
		{"a/**", "ab", false},
		{"a**b/c", "axyb/c", true}, // "**" inside a segment is just stars
		{"a**b/c", "ax/b/c", false},
		// Trailing "/" means the directory and everything under it.
		{"build/", "build", true},
		{"build/", "build/out/x.o", true},
		{"build/", "src/build/x", false},
		// Escapes.
		{`\*.txt`, "*.txt", true},
		{`\*.txt`, "a.txt", false},
		{`a/\[x\]`, "a/[x]", true},
		// "*" and "?" never cross "/".
		{"a*/c", "ab/c", true},
		{"a*/c", "a/b/c", false},
		{"a?c/d", "a/c/d", false},
		// Malformed patterns match nothing.
		{"a[", "a[", false},
		{"a/[x/y]", "a/x", false},
		{"", "", false},
	}
	for _, tt := range tests {
		if got := Match(tt.pattern, tt.name); got != tt.want {
			t.Errorf("Match(%q, %q) = %v, want %v", tt.pattern, tt.name, got, tt.want)
		}
	}
}

func TestValid(t *testing.T) {
	good := []string{".git/**", "*.pem", "**", "a/**/b", "/k.pem", "build/", `\*`, "[a-z]*.go", "a**b"}
	for _, p := range good {
		if err := Valid(p); err != nil {
			t.Errorf("Valid(%q) = %v, want nil", p, err)
		}
	}
	bad := []string{"", "/", "a//b", "a/../b", "./a", "a/.", "a[", "[]", `a\`, `a\/b`, "[a/b]", "x\x00y", "a/b[/c]"}
	for _, p := range bad {
		err := Valid(p)
		if err == nil {
			t.Errorf("Valid(%q) = nil, want an error", p)
			continue
		}
		if !errors.Is(err, ErrBadPattern) {
			t.Errorf("Valid(%q) = %v, does not wrap ErrBadPattern", p, err)
		}
		if !strings.Contains(err.Error(), "glob") {
			t.Errorf("Valid(%q) = %q, does not say it is about a glob", p, err)
		}
	}
}

// escape turns a name into a pattern that matches exactly that name.
func escape(name string) string {
	var b strings.Builder
	for _, r := range name {
		if strings.ContainsRune(`*?[\`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func FuzzMatch(f *testing.F) {
	seeds := [][2]string{
		{".git/**", ".git/config"},
		{"*.pem", "a/b/k.pem"},
		{"a/**/b", "a/x/y/b"},
		{"a/*/c", "a/b/c"},
		{"a/[^x]/c", "a/b/c"},
		{"x[^a]y/z", "x/y/z"},
		{"a/?", "a/b"},
		{`a/\*`, "a/*"},
		{"/k", "k"},
		{"b/", "b/c"},
		{"**/**/x", "x"},
	}
	for _, s := range seeds {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		got := Match(pattern, name) // must not panic
		// Covers is Match on the name or any of its parent directories.
		want := false
		for i := 0; i <= len(name) && !want; i++ {
			if i == len(name) || name[i] == '/' {
				want = Match(pattern, name[:i])
			}
		}
		if c := Covers(pattern, name); c != want {
			t.Fatalf("Covers(%q, %q) = %v, but Match on the name or a parent = %v", pattern, name, c, want)
		}
		if Valid(pattern) != nil && got {
			t.Fatalf("Match(%q, %q) = true for an invalid pattern", pattern, name)
		}
		if !fs.ValidPath(name) || name == "." || strings.IndexByte(name, 0) >= 0 {
			return
		}
		if !Match(escape(name), name) {
			t.Fatalf("Match(%q, %q) = false: a name must match itself escaped", escape(name), name)
		}
		if !Match("**", name) {
			t.Fatalf(`Match("**", %q) = false`, name)
		}
		// Differential check against path.Match for plain anchored patterns.
		if Valid(pattern) != nil || strings.Contains(pattern, "**") || !strings.Contains(pattern, "/") ||
			strings.HasPrefix(pattern, "/") || strings.HasSuffix(pattern, "/") {
			return
		}
		want, err := path.Match(pattern, name)
		if err != nil {
			t.Fatalf("Valid(%q) = nil but path.Match says %v", pattern, err)
		}
		// path.Match lets a character class match a "/"; here a class never
		// does, so the two agree only when the segment counts agree (and then
		// no class can have eaten a "/").
		if strings.Count(pattern, "/") != strings.Count(name, "/") {
			if got {
				t.Fatalf("Match(%q, %q) = true with different segment counts", pattern, name)
			}
			return
		}
		if got != want {
			t.Fatalf("Match(%q, %q) = %v, path.Match = %v", pattern, name, got, want)
		}
	})
}
