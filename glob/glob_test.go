package glob

import (
	"errors"
	"io/fs"
	"path"
	"strings"
	"testing"
	"unicode/utf8"
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
		// Brace alternatives, with or without a "/" inside.
		{"**/*.{ts,tsx}", "a.ts", true},
		{"**/*.{ts,tsx}", "src/ui/b.tsx", true},
		{"**/*.{ts,tsx}", "src/ui/b.js", false},
		{"*.{ts,tsx}", "src/ui/b.tsx", true}, // no "/": any depth
		{"{src,lib}/*.go", "lib/a.go", true},
		{"{src,lib}/*.go", "x/lib/a.go", false},
		{"{a/b,c}", "a/b", true},
		{"{a/b,c}", "x/c", false}, // a "/" in it: anchored
		{"{a,{b,c}}.txt", "d/c.txt", true},
		{`\{a,b\}`, "{a,b}", true},
		{`\{a,b\}`, "a", false},
		// Classes: "!" and "^" negate; none matches a "/".
		{"[!x].go", "d/y.go", true},
		{"[!x].go", "d/x.go", false},
		{"x[!a]y/z", "x/y/z", false},
		{"x[^a]y/z", "x/y/z", false},
		{"x/a[+-0]b", "x/a/b", false},
		{"x/a[+-0]b", "x/a.b", true},
		{"a[+-0]b", "a-b", true},
		{"a[+-0]b", "a0b", true},
		{"[a-c]x", "bx", true},
		{`[\]]`, "]", true},
		{`[a\-z]`, "-", true},
		{`[a\-z]`, "b", false},
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
	good := []string{".git/**", "*.pem", "**", "a/**/b", "/k.pem", "build/", `\*`, "[a-z]*.go", "a**b",
		"**/*.{ts,tsx}", "{a/b,c}", "[!x]", "[^x]", `\{`, `\}`, `[\]]`}
	for _, p := range good {
		if err := Valid(p); err != nil {
			t.Errorf("Valid(%q) = %v, want nil", p, err)
		}
	}
	bad := []string{"", "/", "a//b", "a/../b", "./a", "a/.", "a[", "[]", `a\`, `a\/b`, "[a/b]", "x\x00y", "a/b[/c]",
		"{a,b", "a}", "[!]", "[!/]", `[a\/]`, "{a,b}//c", "{a,b}/./c"}
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
		if strings.ContainsRune(`*?[{}\`, r) {
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
		Covers(pattern, name)
		if Valid(pattern) != nil && got {
			t.Fatalf("Match(%q, %q) = true for an invalid pattern", pattern, name)
		}
		if !fs.ValidPath(name) || name == "." || strings.IndexByte(name, 0) >= 0 {
			return
		}
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
		// The folding matcher matches what the plain one does, and the
		// names whose key matches the pattern's folded text; without
		// classes (whose negations and ranges fold otherwise), an ASCII
		// match does not depend on the letters' case.
		fold := MatchFold(pattern, name)
		if Match(pattern, name) && !fold {
			t.Fatalf("MatchFold(%q, %q) = false where Match is true", pattern, name)
		}
		if Valid(foldText(pattern)) == nil && Match(foldText(pattern), Fold(name)) != fold && !Match(pattern, name) {
			t.Fatalf("MatchFold(%q, %q) = %v, not the match of the keys %q, %q", pattern, name, fold, foldText(pattern), Fold(name))
		}
		if isASCII(pattern+name) && !strings.Contains(pattern, "[") && fold != MatchFold(strings.ToUpper(pattern), strings.ToUpper(name)) {
			t.Fatalf("MatchFold(%q, %q) depends on the letters' case", pattern, name)
		}
		if !Match(escape(name), name) {
			t.Fatalf("Match(%q, %q) = false: a name must match itself escaped", escape(name), name)
		}
		if !Match("**", name) {
			t.Fatalf(`Match("**", %q) = false`, name)
		}
		// Differential check against path.Match for plain anchored patterns
		// in the syntax both share (no braces, no "[!": path.Match reads
		// "!" as itself; valid UTF-8).
		if Valid(pattern) != nil || strings.Contains(pattern, "**") || !strings.Contains(pattern, "/") ||
			strings.HasPrefix(pattern, "/") || strings.HasSuffix(pattern, "/") ||
			strings.ContainsAny(pattern, "{}") || strings.Contains(pattern, "[!") || !utf8.ValidString(pattern) {
			return
		}
		want, err := path.Match(pattern, name)
		if err != nil {
			return // a class path.Match reads otherwise ("[a-]"): FuzzMatchReference covers the rest
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

func TestValidSays(t *testing.T) {
	for p, want := range map[string]string{
		"{a,b":   `unclosed "{"`,
		"a}":     `"}" without "{"`,
		"a[":     `unclosed "["`,
		"[]":     `empty character class`,
		`a\`:     `trailing backslash`,
		"[a/b]":  `inside a character class`,
		`a\/b`:   `after a backslash`,
		"a//b":   "empty segment",
		"a/../b": `".." segment`,
	} {
		err := Valid(p)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Valid(%q) = %v, want it to say %q", p, err, want)
		}
	}
}

func TestFold(t *testing.T) {
	for _, c := range []struct {
		pattern, name string
		want          bool
	}{
		{"**/*.{TS,tsx}", "Src/A.ts", true},
		{"[!X].GO", "d/x.go", false},
		{"[A-C]x", "bX", true},
		{`\*.MD`, "*.md", true},
	} {
		if got := MatchFold(c.pattern, c.name); got != c.want {
			t.Errorf("MatchFold(%q, %q) = %v, want %v", c.pattern, c.name, got, c.want)
		}
		if Match(c.pattern, c.name) {
			t.Errorf("Match(%q, %q) = true: only the folding matcher ignores case", c.pattern, c.name)
		}
	}
}

// expandBraces returns the brace-free alternatives of a valid pattern, as
// a shell expands them.
func expandBraces(p string) []string {
	depth, start := 0, -1
	var commas []int
	for i := 0; i < len(p); i++ {
		switch p[i] {
		case '\\':
			i++
		case '[':
			for i++; i < len(p) && p[i] != ']'; i++ {
				if p[i] == '\\' {
					i++
				}
			}
		case '{':
			if depth == 0 {
				start = i
			}
			depth++
		case ',':
			if depth == 1 {
				commas = append(commas, i)
			}
		case '}':
			depth--
			if depth > 0 {
				continue
			}
			var out []string
			cuts := append(append([]int{start}, commas...), i)
			for k := 0; k+1 < len(cuts); k++ {
				out = append(out, expandBraces(p[:start]+p[cuts[k]+1:cuts[k+1]]+p[i+1:])...)
			}
			return out
		}
	}
	return []string{p}
}

// refMatch is a reference matcher for the brace-free alternatives: path.Match
// one segment at a time ("[!" read as "[^"), "**" segments matching any
// number of segments, as stet matched before braces.
func refMatch(alt, name string) bool {
	alt = strings.ReplaceAll(alt, "[!", "[^")
	pat, parts := strings.Split(alt, "/"), strings.Split(name, "/")
	memo := map[[2]int]bool{}
	var mm func(i, j int) bool
	m := func(i, j int) bool {
		if v, ok := memo[[2]int{i, j}]; ok {
			return v
		}
		v := mm(i, j)
		memo[[2]int{i, j}] = v
		return v
	}
	mm = func(i, j int) bool {
		if i == len(pat) {
			return j == len(parts)
		}
		if pat[i] == "**" {
			return m(i+1, j) || (j < len(parts) && m(i, j+1))
		}
		if j == len(parts) {
			return false
		}
		ok, _ := path.Match(pat[i], parts[j])
		return ok && m(i+1, j+1)
	}
	return m(0, 0)
}

// FuzzMatchReference: with braces expanded, Match agrees with matching
// each alternative segment by segment.
func FuzzMatchReference(f *testing.F) {
	for _, s := range [][2]string{
		{"**/*.{ts,tsx}", "src/a.tsx"},
		{"{src,lib}/**/*.go", "lib/x/y.go"},
		{"*.{md,txt}", "docs/a.md"},
		{"{a/b,c}/d", "a/b/d"},
		{"{a,{b,c}}", "c"},
		{"[!x]y", "zy"},
		{"[^x]/y", "a/y"},
		{"a[+-0]b", "a/b"},
		{"[a-c][!d-f]", "be"},
		{`\{x\}`, "{x}"},
		{`\*\?\[`, "*?["},
		{`[\]]`, "]"},
		{"a/**/b", "a/b"},
		{"x/", "x/y/z"},
		{"/k", "k"},
	} {
		f.Add(s[0], s[1])
	}
	f.Fuzz(func(t *testing.T, pattern, name string) {
		got := Match(pattern, name)
		p, err := Compile(pattern)
		if err != nil {
			if got {
				t.Fatalf("Match(%q, %q) = true for an invalid pattern", pattern, name)
			}
			return
		}
		if !fs.ValidPath(name) || name == "." || !utf8.ValidString(pattern) || !utf8.ValidString(name) {
			return
		}
		ref := strings.TrimPrefix(pattern, "/")
		if strings.HasSuffix(ref, "/") {
			ref += "**"
		}
		alts := expandBraces(ref)
		if len(alts) > 64 {
			return
		}
		target := name
		if !p.anchored {
			target = path.Base(name)
		}
		for _, a := range alts {
			for _, seg := range strings.Split(strings.ReplaceAll(a, "[!", "[^"), "/") {
				if _, err := path.Match(seg, ""); err != nil {
					return // path.Match reads this class differently ("[a-]"): no reference
				}
			}
		}
		want := false
		for _, a := range alts {
			if strings.Contains(a, "**") && !strings.Contains(a, "/") {
				// A slashless alternative's "**" is a star within the name.
				a = strings.ReplaceAll(a, "**", "*")
			}
			if refMatch(a, target) {
				want = true
				break
			}
		}
		if got != want {
			t.Fatalf("Match(%q, %q) = %v; the alternatives %q say %v", pattern, name, got, alts, want)
		}
	})
}

func TestAlternativesBound(t *testing.T) {
	for p, want := range map[string]int{
		"a": 1, "{a,b}": 2, "{a,b}/{c,d,e}": 6, "{a,{b,c}}": 3, "x{a,b}{c,d}": 4, `\{a,b\}`: 1, "[{]a,b": 1, "{,}": 2,
	} {
		if alts, ok := expand(p, MaxAlternatives); !ok || len(alts) != want {
			t.Errorf("expand(%q) = %q, want %d alternatives", p, alts, want)
		}
	}
	if err := Valid(strings.Repeat("{a,b}", 9)); err == nil || !strings.Contains(err.Error(), "alternatives") {
		t.Fatalf("Valid(512 alternatives) = %v, want a refusal naming the alternatives", err)
	}
	slow := strings.Repeat("{a,b,*}", 20) + "x"
	if err := Valid(slow); err == nil || !strings.Contains(err.Error(), "alternatives") {
		t.Errorf("Valid(20 brace groups) = %v, want a refusal naming the alternatives", err)
	}
	if Match(slow, strings.Repeat("a", 40)) {
		t.Error("a pattern over the bound matched")
	}
	if err := Valid(strings.Repeat("{a,b}", 8)); err != nil {
		t.Errorf("256 alternatives: %v", err)
	}
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}
